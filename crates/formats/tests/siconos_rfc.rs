//! The Siconos rolling frictional contact files of `siconos/rfc` read (local and global), keep
//! every value through a write and a read back, and are detected by `read_problem`.

use perp_formats::convert::format_siconos;
use perp_formats::rolling::parse_rolling_friction_contact;
use perp_formats::{read_problem, read_rolling_friction_contact, suites_dir, Problem};
use std::path::Path;

/// (file, d, contacts, global)
const FILES: [(&str, usize, usize, bool); 5] = [
    ("RFC3D_cube_1.dat", 5, 2, false),
    ("RFC3D_sphere_1.dat", 5, 1, false),
    ("rfc3d_sphere_from_grfc3d.dat", 5, 2, false),
    ("rockfall_14_25792.dat", 5, 14, false),
    ("GRFC3D_Chute-ndof-768-nc-4-3.dat", 5, 4, true),
];

#[test]
#[ignore = "needs PERP_SUITES"]
fn the_suite_reads_and_round_trips() {
    let dir = suites_dir().join("siconos/rfc");
    for (name, d, nc, global) in FILES {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let f = parse_rolling_friction_contact(&text, &path).unwrap();
        assert_eq!((f.problem.is_global(), f.problem.dim(), f.problem.contacts()), (global, d, nc), "{name}");
        assert!(f.mu_r.iter().all(|&m| m > 0.0), "{name}: μ_r {:?}", f.mu_r);
        let p = read_rolling_friction_contact(&path).unwrap();
        assert_eq!(p.rolling_mu(), Some(f.mu_r.clone()), "{name}");
        let Problem::Friction(detected) = read_problem(&path, None).unwrap() else {
            panic!("{name}: not frictional")
        };
        assert_eq!(detected.rolling_mu(), p.rolling_mu(), "{name}");
        let kind = Problem::Friction(p.clone()).kind_name();
        assert_eq!(kind, "rfc3d", "{name}");
        // Written as Siconos does and read back: every value the same bits.
        let back = format_siconos(&Problem::Friction(p.clone())).unwrap();
        let q = parse_rolling_friction_contact(&back, Path::new("back.dat")).unwrap().into_local().unwrap();
        assert_eq!(
            q.q.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            p.q.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!((q.mu.clone(), q.rolling_mu()), (p.mu.clone(), p.rolling_mu()));
        for i in 0..p.size() {
            for j in 0..p.size() {
                assert_eq!(q.w.get(i, j).to_bits(), p.w.get(i, j).to_bits(), "{name} W[{i},{j}]");
            }
        }
    }
}
