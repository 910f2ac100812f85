//! FCLIB HDF5 reader: hand-made files (written with `hdf5-pure`'s own writer, in memory) in
//! every matrix storage, every missing or inconsistent dataset, corrupted bytes; and, with
//! `PERP_SUITES=/work/shared/suites`, the two FCLIB files of `siconos/fc3d`.

use hdf5_pure::{FileBuilder, GroupBuilder};
use perp_formats::fclib::{parse_fclib, read_fclib_with_extras};
use perp_formats::friction::{read_friction_contact, FrictionFile};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

#[derive(Clone, Debug)]
enum D {
    I(Vec<i32>),
    F(Vec<f64>),
}

/// A file as a list of dataset paths (without the leading '/') and contents.
type Entries = Vec<(String, D)>;

fn fill(g: &mut GroupBuilder, entries: &[(Vec<String>, D)]) {
    for (parts, d) in entries.iter().filter(|(p, _)| p.len() == 1) {
        let ds = g.create_dataset(&parts[0]);
        match d {
            D::I(v) => ds.with_i32_data(v),
            D::F(v) => ds.with_f64_data(v),
        };
    }
    let mut names: Vec<&String> = entries.iter().filter(|(p, _)| p.len() > 1).map(|(p, _)| &p[0]).collect();
    names.sort();
    names.dedup();
    for name in names {
        let mut sub = g.create_group(name);
        let inner: Vec<(Vec<String>, D)> = entries
            .iter()
            .filter(|(p, _)| p.len() > 1 && &p[0] == name)
            .map(|(p, d)| (p[1..].to_vec(), d.clone()))
            .collect();
        fill(&mut sub, &inner);
        g.add_group(sub.finish());
    }
}

fn build(entries: &Entries) -> Vec<u8> {
    let split: Vec<(Vec<String>, D)> =
        entries.iter().map(|(p, d)| (p.split('/').map(String::from).collect(), d.clone())).collect();
    let mut tops: Vec<&String> = split.iter().map(|(p, _)| &p[0]).collect();
    tops.sort();
    tops.dedup();
    let mut fb = FileBuilder::new();
    for top in tops {
        let mut g = fb.create_group(top);
        let inner: Vec<(Vec<String>, D)> =
            split.iter().filter(|(p, _)| &p[0] == top).map(|(p, d)| (p[1..].to_vec(), d.clone())).collect();
        fill(&mut g, &inner);
        fb.add_group(g.finish());
    }
    fb.finish().unwrap()
}

/// The local sample's W (6x6, row-major), not symmetric: W[1,3] = 0.25, W[3,1] = 0.
const W: [[f64; 6]; 6] = [
    [4.0, 1.0, 0.0, 0.5, 0.0, 0.0],
    [1.0, 3.0, 0.0, 0.25, 0.0, 0.0],
    [0.0, 0.0, 3.0, 0.0, 0.0, 0.0],
    [0.5, 0.0, 0.0, 5.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 2.0],
];
const Q: [f64; 6] = [-1.0, 0.1, 0.2, -2.0, 0.0, 0.3];
const MU: [f64; 2] = [0.3, 0.5];

/// W's nonzeros as (row, col, value).
fn w_entries() -> Vec<(i32, i32, f64)> {
    let mut t = Vec::new();
    for (i, row) in W.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            if v != 0.0 {
                t.push((i as i32, j as i32, v));
            }
        }
    }
    t
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Storage {
    Triplet,
    Csc,
    Csr,
}

/// The matrix group datasets of W in the given storage.
fn w_group(prefix: &str, storage: Storage) -> Entries {
    let mut t = w_entries();
    let nnz = t.len() as i32;
    let (nz, p, i): (i32, Vec<i32>, Vec<i32>) = match storage {
        Storage::Triplet => (nnz, t.iter().map(|e| e.1).collect(), t.iter().map(|e| e.0).collect()),
        Storage::Csr => {
            let mut p = vec![0];
            for r in 0..6 {
                p.push(p[r] + t.iter().filter(|e| e.0 == r as i32).count() as i32);
            }
            (-2, p, t.iter().map(|e| e.1).collect())
        }
        Storage::Csc => {
            t.sort_by_key(|e| (e.1, e.0));
            let mut p = vec![0];
            for c in 0..6 {
                p.push(p[c] + t.iter().filter(|e| e.1 == c as i32).count() as i32);
            }
            (-1, p, t.iter().map(|e| e.0).collect())
        }
    };
    let x: Vec<f64> = t.iter().map(|e| e.2).collect();
    vec![
        (format!("{prefix}/m"), D::I(vec![6])),
        (format!("{prefix}/n"), D::I(vec![6])),
        (format!("{prefix}/nz"), D::I(vec![nz])),
        (format!("{prefix}/nzmax"), D::I(vec![nnz])),
        (format!("{prefix}/p"), D::I(p)),
        (format!("{prefix}/i"), D::I(i)),
        (format!("{prefix}/x"), D::F(x)),
    ]
}

fn local_sample(storage: Storage) -> Entries {
    let mut e = vec![("fclib_local/spacedim".to_string(), D::I(vec![3]))];
    e.extend(w_group("fclib_local/W", storage));
    e.push(("fclib_local/vectors/q".into(), D::F(Q.to_vec())));
    e.push(("fclib_local/vectors/mu".into(), D::F(MU.to_vec())));
    e.push(("solution/r".into(), D::F(vec![1.0, 0.0, 0.0, 0.5, 0.1, 0.0])));
    e.push(("solution/u".into(), D::F(vec![0.0; 6])));
    e.push(("guesses/number_of_guesses".into(), D::I(vec![2])));
    e.push(("guesses/1/r".into(), D::F(vec![0.1; 6])));
    e.push(("guesses/2/r".into(), D::F(vec![0.2; 6])));
    e
}

/// Global sample: n_dof = 4, one 3-D contact; M = diag(1, 2, 4, 8) (triplet), H 4x3 (CSC).
fn global_sample() -> Entries {
    vec![
        ("fclib_global/spacedim".into(), D::I(vec![3])),
        ("fclib_global/M/m".into(), D::I(vec![4])),
        ("fclib_global/M/n".into(), D::I(vec![4])),
        ("fclib_global/M/nz".into(), D::I(vec![4])),
        ("fclib_global/M/nzmax".into(), D::I(vec![4])),
        ("fclib_global/M/p".into(), D::I(vec![0, 1, 2, 3])),
        ("fclib_global/M/i".into(), D::I(vec![0, 1, 2, 3])),
        ("fclib_global/M/x".into(), D::F(vec![1.0, 2.0, 4.0, 8.0])),
        // H = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]] by columns.
        ("fclib_global/H/m".into(), D::I(vec![4])),
        ("fclib_global/H/n".into(), D::I(vec![3])),
        ("fclib_global/H/nz".into(), D::I(vec![-1])),
        ("fclib_global/H/nzmax".into(), D::I(vec![6])),
        ("fclib_global/H/p".into(), D::I(vec![0, 2, 4, 5])),
        ("fclib_global/H/i".into(), D::I(vec![0, 3, 1, 3, 2, 0])),
        ("fclib_global/H/x".into(), D::F(vec![1.0, 1.0, 1.0, 1.0, 1.0, 99.0])),
        ("fclib_global/vectors/f".into(), D::F(vec![-1.0, 0.0, 0.0, 8.0])),
        ("fclib_global/vectors/w".into(), D::F(vec![0.1, 0.0, 0.0])),
        ("fclib_global/vectors/mu".into(), D::F(vec![0.4])),
        ("solution/r".into(), D::F(vec![0.0; 3])),
        ("solution/u".into(), D::F(vec![0.0; 3])),
        ("solution/v".into(), D::F(vec![0.0; 4])),
    ]
}

fn parse(entries: &Entries) -> Result<(FrictionFile, perp_formats::fclib::FclibExtras), perp_core::Error> {
    parse_fclib(build(entries), Path::new("sample.hdf5"))
}

fn set(entries: &mut Entries, path: &str, d: D) {
    let slot = entries.iter_mut().find(|(p, _)| p == path).unwrap_or_else(|| panic!("no {path}"));
    slot.1 = d;
}

fn remove(entries: &Entries, path: &str) -> Entries {
    entries.iter().filter(|(p, _)| p != path).cloned().collect()
}

#[test]
fn local_file_reads_in_every_storage() {
    for storage in [Storage::Triplet, Storage::Csc, Storage::Csr] {
        let (f, x) = parse(&local_sample(storage)).unwrap();
        let FrictionFile::Local(p) = f else { panic!("local expected") };
        assert_eq!((p.dim, p.contacts(), p.q.to_vec(), p.mu.to_vec()), (3, 2, Q.to_vec(), MU.to_vec()));
        for (i, row) in W.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                assert_eq!(p.w.get(i, j), v, "{storage:?}: W[{i},{j}]");
            }
        }
        let (r, u) = x.solution.unwrap();
        assert_eq!((r[3], u.len(), x.guesses.len(), x.guesses[1][0]), (0.5, 6, 2, 0.2));
        assert!(x.solution_v.is_none());
    }
}

#[test]
fn global_file_reads_and_reduces() {
    let (f, x) = parse(&global_sample()).unwrap();
    let FrictionFile::Global(g) = f else { panic!("global expected") };
    assert_eq!(
        (g.dofs(), g.size(), g.m.get(3, 3), g.h.get(3, 1), g.h.get(0, 2), g.b[0]),
        (4, 3, 8.0, 1.0, 0.0, 0.1)
    );
    // Only p[3] = 5 entries of H are used: x[5] = 99 lies beyond.
    assert_eq!(g.h.nnz(), 5);
    assert_eq!(x.solution_v.unwrap().len(), 4);
    let p = FrictionFile::Global(g).into_local().unwrap();
    // W = Hᵀ M⁻¹ H: W00 = 1 + 1/8, W01 = 1/8, W11 = 1/2 + 1/8, W22 = 1/4;
    // q = Hᵀ M⁻¹ f + w = (−1 + 1 + 0.1, 1, 0).
    let want = [[1.125, 0.125, 0.0], [0.125, 0.625, 0.0], [0.0, 0.0, 0.25]];
    for (i, row) in want.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            assert!((p.w.get(i, j) - v).abs() < 1e-15, "W[{i},{j}] = {}", p.w.get(i, j));
        }
    }
    assert!((p.q[0] - 0.1).abs() < 1e-15 && (p.q[1] - 1.0).abs() < 1e-15 && p.q[2] == 0.0, "{:?}", p.q);
}

#[test]
fn every_missing_dataset_is_named() {
    let local = local_sample(Storage::Csr);
    for (path, _) in local.iter().filter(|(p, _)| p.starts_with("fclib_local")) {
        let e = parse(&remove(&local, path)).expect_err(path);
        assert!(e.to_string().contains(&format!("/{path}")), "{path}: {e}");
        assert!(e.to_string().starts_with("sample.hdf5"), "{path}: {e}");
    }
    let global = global_sample();
    for (path, _) in global.iter().filter(|(p, _)| p.starts_with("fclib_global")) {
        let e = parse(&remove(&global, path)).expect_err(path);
        assert!(e.to_string().contains(&format!("/{path}")), "{path}: {e}");
    }
    // A guess announced but absent, and a solution without u.
    let e = parse(&remove(&local, "guesses/2/r")).unwrap_err();
    assert!(e.to_string().contains("/guesses/2/r"), "{e}");
    let e = parse(&remove(&local, "solution/u")).unwrap_err();
    assert!(e.to_string().contains("/solution/u"), "{e}");
    // Neither problem group.
    let e = parse(&vec![("other/x".into(), D::F(vec![1.0]))]).unwrap_err();
    assert!(e.to_string().contains("none of /fclib_local, /fclib_global, /fclib_global_rolling"), "{e}");
}

#[test]
fn inconsistent_sizes_and_values_are_named() {
    let base = local_sample(Storage::Triplet);
    let nnz = w_entries().len() as i32;
    let cases: Vec<(&str, D, &str)> = vec![
        ("fclib_local/W/nz", D::I(vec![nnz + 1]), "exceeds nzmax"),
        ("fclib_local/W/nz", D::I(vec![-3]), "/fclib_local/W/nz"),
        (
            "fclib_local/W/i",
            D::I(vec![0, 0, 0, 99, 1, 1, 2, 3, 3, 4, 5]),
            "/fclib_local/W/i[3]): index 99 out of range",
        ),
        ("fclib_local/W/p", D::I(vec![0, 1, 3, -1, 1, 3, 2, 0, 3, 4, 5]), "/fclib_local/W/p[3]): index -1"),
        ("fclib_local/W/m", D::I(vec![9]), "/fclib_local/W/n (W must be square)"),
        ("fclib_local/vectors/q", D::F(vec![0.0; 5]), "/fclib_local/vectors/q (length must equal W.m)"),
        ("fclib_local/vectors/mu", D::F(vec![0.1; 3]), "/fclib_local/vectors/mu (length must equal"),
        (
            "fclib_local/vectors/mu",
            D::F(vec![0.1, -0.2]),
            "/fclib_local/vectors/mu[1]): friction coefficient must be ≥ 0",
        ),
        (
            "fclib_local/vectors/q",
            D::F(vec![0.0, f64::NAN, 0.0, 0.0, 0.0, 0.0]),
            "/fclib_local/vectors/q[1]): value NaN",
        ),
        ("fclib_local/spacedim", D::I(vec![4]), "spacedim must be 2 or 3, found 4"),
        ("fclib_local/W/m", D::F(vec![6.0]), "/fclib_local/W/m): expected integers"),
        ("fclib_local/W/x", D::I(vec![1; 11]), "/fclib_local/W/x): expected floating-point"),
        ("fclib_local/W/x", D::F(vec![1.0; 3]), "/fclib_local/W/x has length 3, expected 11"),
        ("guesses/number_of_guesses", D::I(vec![-1]), "/guesses/number_of_guesses"),
        ("solution/r", D::F(vec![0.0; 2]), "/solution/r has length 2, expected 6"),
    ];
    assert_eq!(nnz, 11);
    for (path, d, want) in cases {
        let mut e = base.clone();
        set(&mut e, path, d.clone());
        let err = parse(&e).expect_err(&format!("{path} = {d:?}"));
        assert!(err.to_string().contains(want), "{path} = {d:?}: {err}");
        assert!(
            err.to_string().starts_with("sample.hdf5") || err.to_string().contains("sample.hdf5"),
            "{err}"
        );
    }
    // Compressed rows: decreasing pointers and too many entries.
    let mut e = local_sample(Storage::Csr);
    set(&mut e, "fclib_local/W/p", D::I(vec![0, 3, 2, 6, 7, 9, 11]));
    let err = parse(&e).unwrap_err();
    assert!(err.to_string().contains("/fclib_local/W/p[2]): pointers must not decrease"), "{err}");
    let mut e = local_sample(Storage::Csr);
    set(&mut e, "fclib_local/W/p", D::I(vec![0, 3, 6, 7, 9, 10, 13]));
    let err = parse(&e).unwrap_err();
    assert!(err.to_string().contains("13 entries exceed nzmax = 11"), "{err}");
    // Global: H with the wrong number of rows.
    let mut g = global_sample();
    set(&mut g, "fclib_global/H/m", D::I(vec![5]));
    let err = parse(&g).unwrap_err();
    assert!(err.to_string().contains("/fclib_global/H/m (H must have as many rows as M)"), "{err}");
    // Bilateral constraints are refused, not dropped.
    let mut g = global_sample();
    g.push(("fclib_global/G/m".into(), D::I(vec![4])));
    let err = parse(&g).unwrap_err();
    assert!(err.to_string().contains("bilateral constraints (G, b) are not supported"), "{err}");
}

#[test]
fn corrupted_bytes_give_errors_not_panics() {
    let bytes = build(&local_sample(Storage::Csr));
    let name = Path::new("corrupt.hdf5");
    let mut errors = 0;
    let mut total = 0;
    for len in (0..bytes.len()).step_by(13) {
        total += 1;
        match parse_fclib(bytes[..len].to_vec(), name) {
            Err(e) => {
                errors += 1;
                assert!(e.to_string().contains("corrupt.hdf5"), "{e}");
            }
            Ok((f, _)) => {
                assert_eq!(f.contacts(), 2, "a truncation that still reads must read the same problem")
            }
        }
    }
    assert!(errors * 10 >= total * 9, "only {errors} of {total} truncations were refused");
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..400 {
        let mut b = bytes.clone();
        for _ in 0..rng.random_range(1..4) {
            let k = rng.random_range(0..b.len());
            b[k] ^= 1 << rng.random_range(0..8);
        }
        if let Err(e) = parse_fclib(b, name) {
            assert!(e.to_string().contains("corrupt.hdf5"), "{e}");
        }
    }
}

#[test]
fn hdf5_content_is_detected_whatever_the_extension() {
    let dir = std::env::temp_dir().join(format!("perp-fclib-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("looks-like-text.dat");
    std::fs::write(&file, build(&local_sample(Storage::Csc))).unwrap();
    let p = read_friction_contact(&file).unwrap();
    assert_eq!((p.contacts(), p.w.get(1, 3), p.w.get(3, 1)), (2, 0.25, 0.0));
    let file = dir.join("global.hdf5");
    std::fs::write(&file, build(&global_sample())).unwrap();
    assert_eq!(read_friction_contact(&file).unwrap().size(), 3);
    std::fs::remove_dir_all(&dir).ok();
}

// ---- the peer suite ----

#[test]
#[ignore = "needs PERP_SUITES"]
fn capsules_local_csr_with_solution_and_guess() {
    let file = perp_formats::suites_dir().join("siconos/fc3d/Capsules-i125-1213.hdf5");
    let (f, x) = read_fclib_with_extras(&file).unwrap();
    let FrictionFile::Local(p) = f else { panic!("Capsules is local") };
    assert_eq!((p.dim, p.contacts(), p.size(), p.w.nnz()), (3, 286, 858, 11772));
    // Row 0 (nz = −2: compressed rows) lists columns 0, 1, 2, 105, … with x[0], x[1], x[2], x[3].
    assert_eq!(
        (p.w.get(0, 0), p.w.get(0, 1), p.w.get(0, 105)),
        (1.8960848564937047, 0.39135190688683685, 1.0671705359968637)
    );
    assert_eq!((p.q[0], p.mu[0]), (-0.004904999995580751, 0.7));
    assert_eq!((x.title.as_deref(), x.guesses.len()), (Some("Capsules"), 1));
    let (r, u) = x.solution.unwrap();
    let err_stored = p.error(&r, &u);
    let err_recomputed = p.error(&r, &p.velocity(&r));
    let guess = &x.guesses[0];
    let err_guess = p.error(guess, &p.velocity(guess));
    println!(
        "Capsules stored solution: ‖r‖ = {:.3e}, error {err_recomputed:.3e} (with stored u: {err_stored:.3e}); \
         guess error {err_guess:.3e}",
        perp_core::measures::norm2(&r)
    );
    assert!(err_recomputed.is_finite() && err_guess.is_finite());
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn box_stacks_global_reduction_matches_dense_algebra() {
    let file = perp_formats::suites_dir().join("siconos/fc3d/Box_Stacks-i0122-82-5.hdf5");
    let (f, x) = read_fclib_with_extras(&file).unwrap();
    let FrictionFile::Global(g) = f else { panic!("Box_Stacks is global") };
    assert_eq!((g.dofs(), g.contacts()), (450, 82));
    let (p, red) = g.reduce().unwrap();
    assert_eq!(red.factorization(), "block Cholesky");
    // Independent dense algebra: x = M⁻¹ (f + H r), u = Hᵀ x + b, for random r.
    let md = g.m.to_dense();
    let hd = g.h.to_dense();
    let lu = md.partial_piv_lu();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..3 {
        let r: Vec<f64> = (0..p.size()).map(|_| rng.random_range(-1.0..1.0)).collect();
        let rhs =
            faer::Mat::from_fn(450, 1, |i, _| g.f[i] + (0..p.size()).map(|j| hd[(i, j)] * r[j]).sum::<f64>());
        let xd = faer::linalg::solvers::Solve::solve(&lu, &rhs);
        let ud: Vec<f64> =
            (0..p.size()).map(|j| (0..450).map(|i| hd[(i, j)] * xd[(i, 0)]).sum::<f64>() + g.b[j]).collect();
        let u = p.velocity(&r);
        let scale = perp_core::measures::norm2(&ud);
        let diff = perp_core::measures::norm2(&u.iter().zip(&ud).map(|(a, b)| a - b).collect::<Vec<_>>());
        assert!(
            diff <= 1e-11 * scale,
            "‖(W r + q) − (Hᵀ M⁻¹ (f + H r) + b)‖ = {diff:.3e}, scale {scale:.3e}"
        );
        let v = red.velocity(&r);
        let dv = (0..450).map(|i| (v[i] - xd[(i, 0)]).abs()).fold(0.0, f64::max);
        assert!(dv <= 1e-11 * xd.norm_max(), "v differs by {dv:.3e}");
        // At v(r) the equation term of the global error vanishes.
        let ge = g.error(&r, &v);
        let le = perp_core::measures::friction_contact_error(3, &[], &p.mu, &r, &u);
        assert!((ge - le).abs() <= 1e-9 * le.max(1e-12), "global {ge:.6e} vs local-normalised {le:.6e}");
    }
    let (r, _u) = x.solution.unwrap();
    let v = x.solution_v.unwrap();
    println!(
        "Box_Stacks stored solution: ‖r‖ = {:.3e}, ‖v‖ = {:.3e}, global error {:.3e}, local error {:.3e}; \
         W {} nnz {}",
        perp_core::measures::norm2(&r),
        perp_core::measures::norm2(&v),
        g.error(&r, &v),
        p.error(&r, &p.velocity(&r)),
        if p.w.is_sparse() { "sparse" } else { "dense" },
        p.w.nnz()
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn truncated_and_corrupted_copies_of_capsules_are_refused() {
    let file = perp_formats::suites_dir().join("siconos/fc3d/Capsules-i125-1213.hdf5");
    let bytes = std::fs::read(&file).unwrap();
    let name = Path::new("capsules-copy.hdf5");
    for k in 0..20 {
        let len = bytes.len() * k / 20;
        let e =
            parse_fclib(bytes[..len].to_vec(), name).map(|_| ()).expect_err(&format!("truncated at {len}"));
        assert!(e.to_string().contains("capsules-copy.hdf5"), "{e}");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..100 {
        let mut b = bytes.clone();
        let k = rng.random_range(0..b.len().min(8192));
        b[k] ^= 0xff;
        if let Err(e) = parse_fclib(b, name) {
            assert!(e.to_string().contains("capsules-copy.hdf5"), "{e}");
        }
    }
}

// ---- FCLIB's global rolling problems (`/fclib_global_rolling`) ----

/// A global rolling sample: d = 5, two contacts, n_dof = 12, M sparse SPD (block diagonal
/// with off-diagonal couplings), H sparse, from a seeded generator; μ and μ_r per contact.
fn rolling_sample() -> (perp_cones::global::GlobalFrictionContactProblem, Vec<f64>) {
    use perp_core::Matrix;
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let n = 12;
    let mut m = Vec::new();
    for i in 0..n {
        m.push((i, i, rng.random_range(2.0..4.0)));
        if i + 1 < n && i % 3 != 2 {
            let c = rng.random_range(-0.5..0.5);
            m.push((i, i + 1, c));
            m.push((i + 1, i, c));
        }
    }
    let mut h = Vec::new();
    for j in 0..10 {
        for i in 0..n {
            if rng.random_range(0.0..1.0) < 0.3 {
                h.push((i, j, rng.random_range(-1.0..1.0)));
            }
        }
    }
    let f: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut b = vec![0.0; 10];
    b[0] = -0.3;
    b[5] = 0.2;
    let g = perp_cones::global::GlobalFrictionContactProblem::new(
        5,
        Matrix::from_triplets(n, n, &m).unwrap(),
        Matrix::from_triplets(n, 10, &h).unwrap(),
        f,
        b,
        vec![0.4, 0.7],
    )
    .unwrap();
    (g, vec![0.05, 0.1])
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn dense_bits(a: &perp_core::Matrix) -> Vec<u64> {
    let d = a.to_dense();
    (0..d.nrows())
        .flat_map(|i| (0..d.ncols()).map(move |j| (i, j)))
        .map(|(i, j)| d[(i, j)].to_bits())
        .collect()
}

#[test]
fn global_rolling_round_trips_and_reads_as_rfc3d() {
    use perp_formats::convert::fclib_global_rolling_bytes;
    use perp_formats::fclib::{parse_fclib_problem, FclibProblem};
    use perp_formats::rolling::RollingFile;
    let (g, mu_r) = rolling_sample();
    let bytes = fclib_global_rolling_bytes(&g, &mu_r).unwrap();
    let (FclibProblem::Rolling(back), x) = parse_fclib_problem(bytes.clone(), Path::new("r.hdf5")).unwrap()
    else {
        panic!("not read as rolling")
    };
    assert_eq!(x.title.as_deref(), Some("perp global rolling frictional contact problem"));
    let FrictionFile::Global(h) = &back.problem else { panic!("not global") };
    assert_eq!((h.dim, h.dofs(), h.contacts()), (5, 12, 2));
    assert_eq!((dense_bits(&h.m), dense_bits(&h.h)), (dense_bits(&g.m), dense_bits(&g.h)));
    assert_eq!((h.m.nnz(), h.h.nnz()), (g.m.nnz(), g.h.nnz()));
    assert_eq!(
        (bits(&h.f), bits(&h.b), bits(&h.mu), bits(&back.mu_r)),
        (bits(&g.f), bits(&g.b), bits(&g.mu), bits(&mu_r))
    );
    // The local form: the same reduction of the same data, with the rolling laws.
    let original =
        RollingFile { problem: FrictionFile::Global(g.clone()), mu_r: mu_r.clone() }.into_local().unwrap();
    let local = back.into_local().unwrap();
    assert_eq!(local.rolling_mu(), Some(mu_r.clone()));
    assert_eq!((dense_bits(&local.w), bits(&local.q)), (dense_bits(&original.w), bits(&original.q)));
    // Through the file readers: detected as rolling (kind rfc3d) whatever the name.
    let dir = std::env::temp_dir().join(format!("perp-fclib-rolling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["Chute-like.hdf5", "named.dat"] {
        let file = dir.join(name);
        std::fs::write(&file, &bytes).unwrap();
        for kind in [None, Some(perp_formats::ProblemKind::Friction)] {
            let perp_formats::Problem::Friction(p) = perp_formats::read_problem(&file, kind).unwrap() else {
                panic!("{name}: not frictional")
            };
            assert_eq!(perp_formats::Problem::Friction(p.clone()).kind_name(), "rfc3d");
            assert_eq!((dense_bits(&p.w), bits(&p.q)), (dense_bits(&original.w), bits(&original.q)));
        }
        // The frictional reader names the group it will not read; the rolling reader reads it.
        let e = read_friction_contact(&file).unwrap_err().to_string();
        assert!(e.contains("/fclib_global_rolling") && e.contains("rolling"), "{e}");
        assert_eq!(
            perp_formats::read_rolling_friction_contact(&file).unwrap().rolling_mu(),
            Some(mu_r.clone())
        );
    }
    // A frictional FCLIB file is not a rolling one.
    let file = dir.join("local.hdf5");
    std::fs::write(&file, build(&local_sample(Storage::Csr))).unwrap();
    let e = perp_formats::rolling::read_rolling_file(&file).unwrap_err().to_string();
    assert!(e.contains("local.hdf5") && e.contains("not a rolling one"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
    // The local form has no FCLIB layout: writing it is an error saying what to do.
    let e = perp_formats::convert::fclib_bytes(&original).unwrap_err().to_string();
    assert!(e.contains("global form only") && e.contains(".dat"), "{e}");
}

/// The rolling sample as hand-made datasets (M triplet, H compressed columns), to break.
fn rolling_entries() -> Entries {
    let (g, mu_r) = rolling_sample();
    let mut e = vec![("fclib_global_rolling/spacedim".to_string(), D::I(vec![5]))];
    for (name, a) in [("M", &g.m), ("H", &g.h)] {
        let d = a.to_dense();
        let mut t = Vec::new();
        for j in 0..d.ncols() {
            for i in 0..d.nrows() {
                if d[(i, j)] != 0.0 {
                    t.push((i as i32, j as i32, d[(i, j)]));
                }
            }
        }
        let pre = format!("fclib_global_rolling/{name}");
        let nnz = t.len() as i32;
        e.push((format!("{pre}/m"), D::I(vec![d.nrows() as i32])));
        e.push((format!("{pre}/n"), D::I(vec![d.ncols() as i32])));
        e.push((format!("{pre}/nzmax"), D::I(vec![nnz])));
        if name == "M" {
            e.push((format!("{pre}/nz"), D::I(vec![nnz])));
            e.push((format!("{pre}/p"), D::I(t.iter().map(|x| x.1).collect())));
        } else {
            let mut p = vec![0];
            for c in 0..d.ncols() {
                p.push(p[c] + t.iter().filter(|x| x.1 == c as i32).count() as i32);
            }
            e.push((format!("{pre}/nz"), D::I(vec![-1])));
            e.push((format!("{pre}/p"), D::I(p)));
        }
        e.push((format!("{pre}/i"), D::I(t.iter().map(|x| x.0).collect())));
        e.push((format!("{pre}/x"), D::F(t.iter().map(|x| x.2).collect())));
    }
    e.push(("fclib_global_rolling/vectors/f".into(), D::F(g.f.clone())));
    e.push(("fclib_global_rolling/vectors/w".into(), D::F(g.b.clone())));
    e.push(("fclib_global_rolling/vectors/mu".into(), D::F(g.mu.clone())));
    e.push(("fclib_global_rolling/vectors/mu_r".into(), D::F(mu_r)));
    e.push(("solution/r".into(), D::F(vec![0.0; 10])));
    e.push(("solution/u".into(), D::F(vec![0.0; 10])));
    e.push(("solution/v".into(), D::F(vec![0.0; 12])));
    e
}

fn parse_rolling(entries: &Entries) -> Result<perp_formats::rolling::RollingFile, perp_core::Error> {
    use perp_formats::fclib::{parse_fclib_problem, FclibProblem};
    match parse_fclib_problem(build(entries), Path::new("rolling.hdf5"))? {
        (FclibProblem::Rolling(r), _) => Ok(r),
        (FclibProblem::Friction(_), _) => panic!("read as frictional"),
    }
}

#[test]
fn global_rolling_bad_input_is_an_error_naming_the_dataset() {
    let good = rolling_entries();
    let r = parse_rolling(&good).unwrap();
    let (g, mu_r) = rolling_sample();
    let FrictionFile::Global(h) = &r.problem else { panic!("global") };
    assert_eq!(
        (dense_bits(&h.m), dense_bits(&h.h), r.mu_r.clone()),
        (dense_bits(&g.m), dense_bits(&g.h), mu_r)
    );
    // Every dataset of the problem is needed: its absence names it.
    for (path, _) in good.iter().filter(|(p, _)| p.starts_with("fclib_global_rolling/")) {
        let e = parse_rolling(&remove(&good, path)).unwrap_err().to_string();
        assert!(e.contains("rolling.hdf5") && e.contains(path.as_str()), "{path}: {e}");
    }
    let cases: [(&str, D, &str); 7] = [
        ("fclib_global_rolling/spacedim", D::I(vec![3 + 1]), "must be 3 or 5, found 4"),
        (
            "fclib_global_rolling/vectors/mu_r",
            D::F(vec![0.05, -0.1]),
            "vectors/mu_r[1]): rolling friction coefficient must be ≥ 0, found -0.1",
        ),
        (
            "fclib_global_rolling/vectors/mu_r",
            D::F(vec![0.05]),
            "vectors/mu_r (length must equal H.n / spacedim)",
        ),
        (
            "fclib_global_rolling/vectors/mu_r",
            D::F(vec![0.05, f64::NAN]),
            "vectors/mu_r[1]): value NaN is not finite",
        ),
        ("fclib_global_rolling/vectors/mu_r", D::I(vec![0, 0]), "expected floating-point values"),
        ("fclib_global_rolling/vectors/mu", D::F(vec![0.4, -1.0]), "friction coefficient must be ≥ 0"),
        ("fclib_global_rolling/H/n", D::I(vec![9]), "not a multiple of spacedim = 5"),
    ];
    for (path, value, message) in cases {
        let mut e = good.clone();
        set(&mut e, path, value);
        let err = parse_rolling(&e).unwrap_err().to_string();
        assert!(err.contains("rolling.hdf5") && err.contains(message), "{path}: {err}");
    }
    // Bilateral constraints are refused, not dropped.
    let mut e = good.clone();
    e.push(("fclib_global_rolling/G/m".into(), D::I(vec![12])));
    let err = parse_rolling(&e).unwrap_err().to_string();
    assert!(err.contains("bilateral constraints (G, b) are not supported"), "{err}");
    // Truncated and bit-flipped copies: errors naming the file, never a panic.
    let bytes = build(&good);
    let name = Path::new("rolling-copy.hdf5");
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for len in (0..bytes.len()).step_by(17) {
        if let Err(e) = perp_formats::fclib::parse_fclib_problem(bytes[..len].to_vec(), name) {
            assert!(e.to_string().contains("rolling-copy.hdf5"), "{e}");
        }
    }
    for _ in 0..300 {
        let mut b = bytes.clone();
        let k = rng.random_range(0..b.len());
        b[k] ^= 1 << rng.random_range(0..8);
        if let Err(e) = perp_formats::fclib::parse_fclib_problem(b, name) {
            assert!(e.to_string().contains("rolling-copy.hdf5"), "{e}");
        }
    }
}

/// Siconos' global rolling `.dat` of the Chute problem, written as FCLIB and read back: the
/// global data bit for bit, the local form too, and the same solve.
#[test]
#[ignore = "needs PERP_SUITES"]
fn chute_dat_through_fclib_rolling_is_the_same_problem() {
    use perp_catalogue::{solve, Params};
    use perp_core::Settings;
    use perp_formats::convert::fclib_global_rolling_bytes;
    let file = perp_formats::suites_dir().join("siconos/rfc/GRFC3D_Chute-ndof-768-nc-4-3.dat");
    let text = std::fs::read_to_string(&file).unwrap();
    let dat = perp_formats::parse_rolling_friction_contact(&text, &file).unwrap();
    let FrictionFile::Global(g) = &dat.problem else { panic!("Chute is global") };
    let dir = std::env::temp_dir().join(format!("perp-fclib-chute-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h5 = dir.join("Chute-ndof-768-nc-4-3.hdf5");
    std::fs::write(&h5, fclib_global_rolling_bytes(g, &dat.mu_r).unwrap()).unwrap();
    let back = perp_formats::rolling::read_rolling_file(&h5).unwrap();
    let FrictionFile::Global(h) = &back.problem else { panic!("global") };
    assert_eq!((dense_bits(&h.m), dense_bits(&h.h)), (dense_bits(&g.m), dense_bits(&g.h)));
    assert_eq!(
        (bits(&h.f), bits(&h.b), bits(&h.mu), bits(&back.mu_r)),
        (bits(&g.f), bits(&g.b), bits(&g.mu), bits(&dat.mu_r))
    );
    let from_dat = perp_formats::read_rolling_friction_contact(&file).unwrap();
    let perp_formats::Problem::Friction(from_h5) = perp_formats::read_problem(&h5, None).unwrap() else {
        panic!("not frictional")
    };
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!((dense_bits(&from_h5.w), bits(&from_h5.q)), (dense_bits(&from_dat.w), bits(&from_dat.q)));
    let s = Settings { tol: 1e-8, ..Settings::default() };
    for solver in ["nsgs", "ac-newton"] {
        let a =
            solve(&perp_formats::Problem::Friction(from_dat.clone()), Some(solver), &Params::new(), None, &s)
                .unwrap();
        let b =
            solve(&perp_formats::Problem::Friction(from_h5.clone()), Some(solver), &Params::new(), None, &s)
                .unwrap();
        assert_eq!(a.report.status, perp_core::Status::Solved, "{solver}");
        assert_eq!(
            (a.report.status, a.report.iterations, bits(&a.z)),
            (b.report.status, b.report.iterations, bits(&b.z)),
            "{solver}"
        );
    }
}
