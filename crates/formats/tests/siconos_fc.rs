//! Frictional contact readers on the Siconos peer suite (`siconos/fc3d`, `siconos/fc2d`: every
//! file, `.dat` and `.hdf5`), and on small hand-made bad inputs.
//!
//! The per-file expectations (sizes, storage, W[0,0], q[0], μ[0]) were read off the files'
//! text by hand (the token after the header for dense W, the first value of block 0 for SBM,
//! `col 0`'s row-0 line for CSparse, `h5dump`-style listings of the HDF5 datasets), not from
//! the reader under test. Suite tests need `PERP_SUITES=/work/shared/suites`.

// The expected values are copied verbatim from the files' text (24 digits, as Siconos prints them).
#![allow(clippy::excessive_precision)]

use perp_formats::friction::{
    parse_friction_contact, read_friction_contact, read_friction_file, FrictionFile,
};
use std::path::{Path, PathBuf};

/// What a file must read as.
struct Expect {
    sub: &'static str,
    name: &'static str,
    global: bool,
    d: usize,
    nc: usize,
    /// Stored sparse (SBM, CSparse, FCLIB) or dense; `None` for a global file (W is computed).
    sparse: Option<bool>,
    /// Stored entries of W (n² dense, blocks·d² SBM, the CSparse/FCLIB count).
    nnz: Option<usize>,
    w00: f64,
    q0: f64,
    mu0: f64,
    /// Bound on max|W_ij − W_ji| / max|W|: 1e-8 where W is symmetric; the files whose W is
    /// not symmetric get their measured asymmetry (rounded up) as bound.
    sym: f64,
}

fn path(e: &Expect) -> PathBuf {
    perp_formats::suites_dir().join("siconos").join(e.sub).join(e.name)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(1e-300)
}

fn check(e: &Expect) {
    let file = path(e);
    let f = read_friction_file(&file).unwrap_or_else(|err| panic!("{}: {err}", e.name));
    assert_eq!(f.is_global(), e.global, "{}: global?", e.name);
    assert_eq!((f.dim(), f.contacts()), (e.d, e.nc), "{}: d, nc", e.name);
    let n = e.d * e.nc;
    if let FrictionFile::Local(p) = &f {
        assert_eq!(
            p.w.is_sparse(),
            e.sparse.expect("local files state their storage"),
            "{}: storage",
            e.name
        );
        if let Some(nnz) = e.nnz {
            assert_eq!(p.w.nnz(), nnz, "{}: stored entries", e.name);
        }
    }
    let p = f.into_local().unwrap();
    // The contract reader gives the same problem.
    let p2 = read_friction_contact(&file).unwrap();
    assert_eq!((p2.size(), p2.q.clone(), p2.mu.clone()), (p.size(), p.q.clone(), p.mu.clone()));
    assert_eq!((p.w.nrows(), p.w.ncols(), p.q.len(), p.mu.len()), (n, n, n, e.nc), "{}: sizes", e.name);
    let (w00, q0, mu0) = (p.w.get(0, 0), p.q[0], p.mu[0]);
    assert!(close(w00, e.w00), "{}: W[0,0] = {w00}, file says {}", e.name, e.w00);
    assert!(close(q0, e.q0), "{}: q[0] = {q0}, file says {}", e.name, e.q0);
    assert!(close(mu0, e.mu0), "{}: mu[0] = {mu0}, file says {}", e.name, e.mu0);
    let asym = p.w.asymmetry(0.0).map_or(0.0, |a| a.2) / p.w.max_abs();
    assert!(asym <= e.sym, "{}: asymmetry {asym:.2e} above {:.0e}", e.name, e.sym);
    assert!(p.mu.iter().all(|&m| m >= 0.0));
    println!(
        "{} | {} | d {} | nc {} | n {} | {} | nnz {} | asym {asym:.1e}",
        e.name,
        if e.global { "global" } else { "local" },
        e.d,
        e.nc,
        n,
        if p.w.is_sparse() { "sparse" } else { "dense" },
        p.w.nnz()
    );
}

/// One test per file.
macro_rules! suite_file {
    ($test:ident, $sub:literal, $name:literal, $global:literal, $d:literal, $nc:literal, $sparse:expr,
     $nnz:expr, $w00:literal, $q0:literal, $mu0:literal, $sym:literal) => {
        #[test]
        #[ignore = "needs PERP_SUITES"]
        fn $test() {
            check(&Expect {
                sub: $sub,
                name: $name,
                global: $global,
                d: $d,
                nc: $nc,
                sparse: $sparse,
                nnz: $nnz,
                w00: $w00,
                q0: $q0,
                mu0: $mu0,
                sym: $sym,
            });
        }
    };
}

// fc2d
suite_file!(
    fc2d_slider_crank_0,
    "fc2d",
    "FC2D_SliderCrankLagrangian00000.dat",
    false,
    2,
    2,
    Some(false),
    Some(16),
    9.365610022253570150496671e+02,
    -1.179087309965789476251530e+00,
    1.000000000000000020816682e-02,
    1e-6
);
suite_file!(
    fc2d_slider_crank_1,
    "fc2d",
    "FC2D_SliderCrankLagrangian00001.dat",
    false,
    2,
    2,
    Some(false),
    Some(16),
    9.359816862392420944161131e+02,
    -8.928102413782808000064506e-01,
    1.000000000000000020816682e-02,
    1e-6
);
suite_file!(
    fc2d_problem_31,
    "fc2d",
    "FrictionContactProblem00031.dat",
    false,
    2,
    11,
    Some(true),
    Some(15 * 4),
    4.435920e-01,
    6.338245900350258921207569e-16,
    9.000000000000000222044605e-01,
    1e-8
);
suite_file!(
    fc2d_problem_71,
    "fc2d",
    "FrictionContactProblem00071.dat",
    false,
    2,
    89,
    Some(true),
    Some(287 * 4),
    4.435920e-01,
    5.585809592645318844006397e-16,
    9.000000000000000222044605e-01,
    1e-8
);
suite_file!(
    fc2d_problem_374,
    "fc2d",
    "FrictionContactProblem00374.dat",
    false,
    2,
    28,
    Some(false),
    Some(56 * 56),
    4.435919789226376863666701e-01,
    2.324529457808921506511979e-16,
    9.000000000000000222044605e-01,
    1e-8
);
suite_file!(
    fc2d_problem_394,
    "fc2d",
    "FrictionContactProblem00394.dat",
    false,
    2,
    6,
    Some(false),
    Some(12 * 12),
    4.435919789226376863666701e-01,
    1.172673069760321595822461e-15,
    9.000000000000000222044605e-01,
    1e-8
);
suite_file!(
    fc2d_granular_flow,
    "fc2d",
    "fc2d_granularflowonwall_00667_00000.dat",
    false,
    2,
    667,
    Some(true),
    Some(3822),
    856.713,
    0.0,
    5.000000000000000000000000e-01,
    1e-8
);

// fc3d, Siconos text
suite_file!(
    fc3d_boxes_stack1,
    "fc3d",
    "BoxesStack1-i100000-32.hdf5.dat",
    false,
    3,
    52,
    Some(true),
    Some(592 * 9),
    1.000000000000000000000000e+02,
    -4.905000002339639404713711e-03,
    6.999999999999999555910790e-01,
    1e-8
);
suite_file!(
    fc3d_capsules_100,
    "fc3d",
    "Capsules-i100-1090.dat",
    false,
    3,
    276,
    Some(true),
    Some(1246 * 9),
    1.896084710457413224915513e+00,
    -4.904997696345398359996093e-03,
    6.999999999999999555910790e-01,
    2e-3
);
suite_file!(
    fc3d_capsules_101,
    "fc3d",
    "Capsules-i101-404.dat",
    false,
    3,
    225,
    Some(true),
    Some(1011 * 9),
    1.896083272784505391328480e+00,
    -4.905000000074440959230149e-03,
    6.999999999999999555910790e-01,
    2e-3
);
suite_file!(
    fc3d_confeti_03,
    "fc3d",
    "Confeti-ex03-Fc3D-SBM.dat",
    false,
    3,
    54,
    Some(true),
    Some(400 * 9),
    3.978874e-05,
    -1.961647554406817928196460e-01,
    4.000000000000000222044605e-01,
    1e-8
);
suite_file!(
    fc3d_confeti_13,
    "fc3d",
    "Confeti-ex13-4contact-Fc3D-SBM.dat",
    false,
    3,
    4,
    Some(true),
    Some(16 * 9),
    5.220412e-05,
    4.389878662931170349992271e-01,
    4.000000000000000083266727e-02,
    1e-8
);
suite_file!(
    fc3d_example1,
    "fc3d",
    "FC3D_Example1.dat",
    false,
    3,
    3,
    Some(false),
    Some(81),
    1.0,
    -1.0,
    1.000000000000000055511151e-01,
    1e-8
);
suite_file!(
    fc3d_example1_sbm,
    "fc3d",
    "FC3D_Example1_SBM.dat",
    false,
    3,
    3,
    Some(true),
    Some(3 * 9),
    1.0,
    -1.0,
    1.000000000000000055511151e-01,
    1e-8
);
suite_file!(
    fc3d_1c,
    "fc3d",
    "FrictionContact3D_1c.dat",
    false,
    3,
    1,
    Some(false),
    Some(9),
    15.0,
    -1.0,
    0.1,
    1e-8
);
suite_file!(
    fc3d_rr_1c,
    "fc3d",
    "FrictionContact3D_RR_1c.dat",
    false,
    3,
    1,
    Some(false),
    Some(9),
    0.01344,
    -0.1458,
    0.6,
    1e-8
);
suite_file!(
    fc3d_ne_spheres,
    "fc3d",
    "NESpheres_10_1.dat",
    false,
    3,
    9,
    Some(false),
    Some(27 * 27),
    2.000000000000000111022302e-01,
    -9.809999999999792497096252e-02,
    8.000000000000000444089210e-01,
    1e-8
);
suite_file!(
    fc3d_one_object_316,
    "fc3d",
    "OneObject-i100000-316.hdf5.dat",
    false,
    3,
    25,
    Some(true),
    Some(207 * 9),
    3.615127265523758737231219e+00,
    -5.988444166876716323599794e-05,
    2.999999999999999888977698e-01,
    1e-4
);
suite_file!(
    fc3d_one_object_138,
    "fc3d",
    "OneObject-i1028-138.hdf5.dat",
    false,
    3,
    23,
    Some(true),
    Some(153 * 9),
    3.199203009793330831911362e+00,
    6.539698698202478510665969e-04,
    2.999999999999999888977698e-01,
    2e-4
);
suite_file!(
    fc3d_rover_1039,
    "fc3d",
    "Rover1039.dat",
    false,
    3,
    4,
    Some(false),
    Some(144),
    1.399132380123367484781038e-02,
    -9.255873583433080198368259e-02,
    6.999999999999999555910790e-01,
    1e-4
);
suite_file!(
    fc3d_rover_1040,
    "fc3d",
    "Rover1040.dat",
    false,
    3,
    5,
    Some(false),
    Some(225),
    1.399219579558866680124574e-02,
    -9.923033725008560679281544e-02,
    6.999999999999999555910790e-01,
    1e-4
);
suite_file!(
    fc3d_rover_1041,
    "fc3d",
    "Rover1041.dat",
    false,
    3,
    5,
    Some(false),
    Some(225),
    1.399307047751520254041946e-02,
    -9.274297736985523399333431e-02,
    6.999999999999999555910790e-01,
    1e-4
);
suite_file!(
    fc3d_rover_11035,
    "fc3d",
    "Rover11035.dat",
    false,
    3,
    1,
    Some(false),
    Some(9),
    1.358309568142355636122254e-02,
    -5.417704922170969716876954e-02,
    6.999999999999999555910790e-01,
    1e-4
);
suite_file!(
    fc3d_rover_11211,
    "fc3d",
    "Rover11211.dat",
    false,
    3,
    1,
    Some(false),
    Some(9),
    1.311398620288290080282412e-02,
    -5.700477684277230139286985e+01,
    6.999999999999999555910790e-01,
    1e-4
);
suite_file!(
    fc3d_rover_3865,
    "fc3d",
    "Rover3865.dat",
    false,
    3,
    5,
    Some(false),
    Some(225),
    1.353643649157206321764768e-02,
    -7.771527867915212217653220e-02,
    6.999999999999999555910790e-01,
    1e-4
);
suite_file!(
    fc3d_rover_4144,
    "fc3d",
    "Rover4144.dat",
    false,
    3,
    4,
    Some(false),
    Some(144),
    1.336020035384566546909912e-02,
    -1.019420112261064798042653e-01,
    6.999999999999999555910790e-01,
    1e-4
);
suite_file!(
    fc3d_rover_4396,
    "fc3d",
    "Rover4396.dat",
    false,
    3,
    2,
    Some(false),
    Some(36),
    1.206265440170792811735989e-02,
    -7.993436691636901514357305e-02,
    6.999999999999999555910790e-01,
    1e-4
);

// fc3d, FCLIB HDF5 (values from listings of /fclib_local/W/x[0], /fclib_local/vectors/q[0], …).
suite_file!(
    fc3d_capsules_125_hdf5,
    "fc3d",
    "Capsules-i125-1213.hdf5",
    false,
    3,
    286,
    Some(true),
    Some(11772),
    1.8960848564937047,
    -0.004904999995580751,
    0.7,
    2e-3
);
// Global: the stored M, H, f entries are checked against listings of the datasets; W and q
// come from the reduction, which tests/fclib.rs checks against dense algebra.
#[test]
#[ignore = "needs PERP_SUITES"]
fn fc3d_box_stacks_hdf5() {
    let file = perp_formats::suites_dir().join("siconos/fc3d/Box_Stacks-i0122-82-5.hdf5");
    let f = read_friction_file(&file).unwrap();
    let FrictionFile::Global(g) = &f else { panic!("Box_Stacks is global") };
    assert_eq!((g.dim, g.contacts(), g.dofs(), g.size()), (3, 82, 450, 246));
    // /fclib_global/M/x[3] at (3, 3) (triplet: p = column, i = row); H entry 2 at (2, 0).
    assert_eq!((g.m.get(3, 3), g.m.get(0, 0), g.h.get(2, 0)), (0.180266659456, 1.0, 1.0));
    assert_eq!((g.f[2], g.mu[0]), (-0.0009806650000000006, 0.3));
    assert_eq!((g.m.nnz(), g.h.nnz()), (450, 1284));
    let p = read_friction_contact(&file).unwrap();
    assert_eq!((p.dim, p.contacts(), p.size()), (3, 82, 246));
    // Symmetrised reduction of a symmetric M.
    assert!(p.w.asymmetry(1e-14).is_none());
    println!(
        "Box_Stacks-i0122-82-5.hdf5 | global | d 3 | nc 82 | n 246 | W {} nnz {}",
        if p.w.is_sparse() { "sparse" } else { "dense" },
        p.w.nnz()
    );
}

/// Every file of the two folders is covered by a test above.
#[test]
#[ignore = "needs PERP_SUITES"]
fn every_suite_file_has_a_test() {
    let listed = [
        "FC2D_SliderCrankLagrangian00000.dat",
        "FC2D_SliderCrankLagrangian00001.dat",
        "FrictionContactProblem00031.dat",
        "FrictionContactProblem00071.dat",
        "FrictionContactProblem00374.dat",
        "FrictionContactProblem00394.dat",
        "fc2d_granularflowonwall_00667_00000.dat",
        "Box_Stacks-i0122-82-5.hdf5",
        "BoxesStack1-i100000-32.hdf5.dat",
        "Capsules-i100-1090.dat",
        "Capsules-i101-404.dat",
        "Capsules-i125-1213.hdf5",
        "Confeti-ex03-Fc3D-SBM.dat",
        "Confeti-ex13-4contact-Fc3D-SBM.dat",
        "FC3D_Example1.dat",
        "FC3D_Example1_SBM.dat",
        "FrictionContact3D_1c.dat",
        "FrictionContact3D_RR_1c.dat",
        "NESpheres_10_1.dat",
        "OneObject-i100000-316.hdf5.dat",
        "OneObject-i1028-138.hdf5.dat",
        "Rover1039.dat",
        "Rover1040.dat",
        "Rover1041.dat",
        "Rover11035.dat",
        "Rover11211.dat",
        "Rover3865.dat",
        "Rover4144.dat",
        "Rover4396.dat",
    ];
    let dir = perp_formats::suites_dir().join("siconos");
    for sub in ["fc2d", "fc3d"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().to_string();
            assert!(listed.contains(&name.as_str()), "{sub}/{name} has no test");
        }
    }
}

// ---- bad input, no suite needed ----

/// A global problem, d = 3, nc = 1, n_dof = 3: M stored SBM (one 3x3 block, diag(2, 3, 4)),
/// H dense identity, q = f, b, μ.
const GLOBAL_SBM: &str = "3\n1\n\
    1 3 3\n1\n1 1\n3\n3\n2 1\n0 1\n0\n0\n2 0 0 0 3 0 0 0 4\n\
    0 3 3\n3 3\n1 0 0\n0 1 0\n0 0 1\n\
    -1 0 0\n0.5 0 0\n0.4\n";

/// A local 2-D problem with W in CSparse CSC text.
const LOCAL_CSPARSE: &str = "2\n1\n2\n2\n2\n2\nCSparse Version 3.1.9, May 4, 2016.\n\
    2-by-2, nzmax: 3 nnz: 3, 1-norm: 3\n    col 0 : locations 0 to 1\n      0 : 2\n      1 : 0.5\n\
    col 1 : locations 2 to 2\n      1 : 1\n-1 0.25\n0.3\n";

#[test]
fn small_samples_read() {
    let FrictionFile::Global(g) = parse_friction_contact(GLOBAL_SBM, Path::new("g.dat")).unwrap() else {
        panic!("global expected")
    };
    assert_eq!(
        (g.m.get(1, 1), g.m.get(0, 1), g.h.get(2, 2), g.f[0], g.b[0], g.mu[0]),
        (3.0, 0.0, 1.0, -1.0, 0.5, 0.4)
    );
    let p = FrictionFile::Global(g).into_local().unwrap();
    // W = M⁻¹ = diag(1/2, 1/3, 1/4); q = M⁻¹ f + b = (−1/2 + 1/2, 0, 0).
    assert!((p.w.get(1, 1) - 1.0 / 3.0).abs() < 1e-15 && p.q[0].abs() < 1e-15);
    let FrictionFile::Local(p) = parse_friction_contact(LOCAL_CSPARSE, Path::new("l.dat")).unwrap() else {
        panic!("local expected")
    };
    assert_eq!((p.w.get(1, 0), p.w.get(0, 1), p.q[1], p.mu[0]), (0.5, 0.0, 0.25, 0.3));
}

/// Byte offsets just after each token of `text`.
fn token_ends(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    (0..b.len())
        .filter(|&i| !b[i].is_ascii_whitespace() && (i + 1 == b.len() || b[i + 1].is_ascii_whitespace()))
        .map(|i| i + 1)
        .collect()
}

#[test]
fn truncation_at_every_token_is_an_error_naming_the_file() {
    for (name, text) in [("g.dat", GLOBAL_SBM), ("l.dat", LOCAL_CSPARSE)] {
        let ends = token_ends(text);
        // Cutting after the last token leaves the whole problem.
        assert!(parse_friction_contact(text, Path::new(name)).is_ok());
        for (k, &end) in ends.iter().enumerate().take(ends.len() - 1) {
            for cut in [&text[..end], &text[..end + 1]] {
                let e = parse_friction_contact(cut, Path::new(name))
                    .expect_err(&format!("{name} cut after token {} must not parse", k + 1));
                assert!(e.to_string().starts_with(&format!("{name}: token ")), "{name} cut {}: {e}", k + 1);
            }
        }
        assert!(parse_friction_contact("", Path::new(name)).is_err());
    }
    // Through the file reader, on disk.
    let dir = std::env::temp_dir().join(format!("perp-fc-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cut.dat");
    std::fs::write(&file, &GLOBAL_SBM[..GLOBAL_SBM.len() / 2]).unwrap();
    let e = read_friction_contact(&file).unwrap_err();
    assert!(e.to_string().starts_with(&file.display().to_string()), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn negative_mu_and_bad_sizes_are_named() {
    let e = parse_friction_contact(&GLOBAL_SBM.replace("0.4", "-0.4"), Path::new("g.dat")).unwrap_err();
    assert!(e.to_string().contains("(mu[0]): friction coefficient must be ≥ 0, found -0.4"), "{e}");
    let e = parse_friction_contact(&LOCAL_CSPARSE.replace("0.3", "-1e-3"), Path::new("l.dat")).unwrap_err();
    assert!(e.to_string().starts_with("l.dat: token") && e.to_string().contains("mu[0]"), "{e}");
    // d = 3 does not divide the local W (2x2) and no H follows.
    let e = parse_friction_contact(&LOCAL_CSPARSE.replacen("2\n1\n", "3\n1\n", 1), Path::new("l.dat"))
        .unwrap_err();
    assert!(e.to_string().contains("W is 2x2 but d·nc = 3·1 = 3"), "{e}");
    // nc = 2: M (3x3) is not d·nc square, and the H that follows (3x3) is not 3 x d·nc.
    let e =
        parse_friction_contact(&GLOBAL_SBM.replacen("3\n1\n", "3\n2\n", 1), Path::new("g.dat")).unwrap_err();
    assert!(e.to_string().contains("W is 3x3 but d·nc = 3·2 = 6; nor is it the mass matrix M"), "{e}");
    assert!(e.to_string().contains("no matrix H (3x6) follows at token 26 (found '0')"), "{e}");
    // A non-number where μ is expected.
    let e = parse_friction_contact(&GLOBAL_SBM.replace("0.4", "x"), Path::new("g.dat")).unwrap_err();
    assert!(e.to_string().contains("(mu[0]): expected a number, found 'x'"), "{e}");
}

#[test]
fn extensions_do_not_decide_the_format() {
    let dir = std::env::temp_dir().join(format!("perp-fc-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Text named .hdf5.dat and .hdf5: read as text.
    for name in ["a.hdf5.dat", "b.hdf5"] {
        let file = dir.join(name);
        std::fs::write(&file, GLOBAL_SBM).unwrap();
        assert_eq!(read_friction_contact(&file).unwrap().contacts(), 1, "{name}");
    }
    // Garbage named .hdf5: the error says it is not HDF5.
    let file = dir.join("c.hdf5");
    std::fs::write(&file, "not a problem").unwrap();
    let e = read_friction_file(&file).unwrap_err();
    assert!(e.to_string().contains("does not start with the HDF5 signature"), "{e}");
    // Missing file: Io naming it.
    let e = read_friction_file(&dir.join("missing.dat")).unwrap_err();
    assert!(e.to_string().contains("missing.dat"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
