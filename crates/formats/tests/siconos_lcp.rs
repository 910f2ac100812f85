//! Reading the Siconos LCP suite: every file's size and hand-picked entries of M and q as they
//! stand in the file (dense storage is column-major: the k-th printed line is column k), the
//! block and dense versions of a problem agreeing exactly, the matrix reader on frictional
//! contact files (sparse-block and CSparse storage), and bad input giving an error that names
//! the file and the token position, never a panic.
//!
//! Tests marked `#[ignore = "needs PERP_SUITES"]` read the peer suite from the folder named by
//! the environment variable `PERP_SUITES` (e.g. `/work/shared/suites`); run them with
//! `PERP_SUITES=/work/shared/suites cargo test -p perp-formats -- --include-ignored`.

// Expected values are copied verbatim from the files (25 significant digits).
#![allow(clippy::excessive_precision)]

use perp_core::{Error, Matrix};
use perp_formats::tokens::Tokens;
use perp_formats::{parse_lcp, read_lcp, read_numerics_matrix};
use perp_lcp::samples;
use perp_lcp::Lcp;
use std::path::{Path, PathBuf};

fn suites() -> PathBuf {
    perp_formats::suites_dir()
}

fn lcp(name: &str) -> Lcp {
    let path = suites().join("siconos/lcp").join(name);
    read_lcp(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Checks n, the listed entries `(i, j, M[i,j])` and `(i, q[i])`.
fn check(p: &Lcp, n: usize, m: &[(usize, usize, f64)], q: &[(usize, f64)]) {
    assert_eq!(p.n(), n);
    assert_eq!((p.m().nrows(), p.m().ncols()), (n, n));
    for &(i, j, v) in m {
        assert_eq!(p.m().get(i, j), v, "M[{i},{j}]");
    }
    for &(i, v) in q {
        assert_eq!(p.q()[i], v, "q[{i}]");
    }
}

fn rows(m: &Matrix) -> Vec<Vec<f64>> {
    (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m.get(i, j)).collect()).collect()
}

/// The block (SBM) and dense files of one problem agree exactly.
fn same_problem(dense: &Lcp, block: &Lcp) {
    assert!(!dense.m().is_sparse());
    assert!(block.m().is_sparse());
    assert_eq!(rows(dense.m()), rows(block.m()));
    assert_eq!(dense.q(), block.q());
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_cps_1() {
    let p = lcp("lcp_CPS_1.dat");
    check(&p, 2, &[(0, 0, 1.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 1.0)], &[(0, -1.0), (1, -1.0)]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_cps_2() {
    // Columns (0, 2, -1), (-1, 0, 1), (2, -2, 0).
    let p = lcp("lcp_CPS_2.dat");
    assert_eq!(rows(p.m()), vec![vec![0.0, -1.0, 2.0], vec![2.0, 0.0, -2.0], vec![-1.0, 1.0, 0.0]]);
    check(&p, 3, &[], &[(0, -3.0), (1, 6.0), (2, -1.0)]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_cps_3() {
    let p = lcp("lcp_CPS_3.dat");
    check(
        &p,
        4,
        &[
            (0, 0, 0.0),
            (2, 0, 10.0),
            (3, 0, 30.0),
            (2, 1, 20.0),
            (0, 2, 10.0),
            (1, 2, 30.0),
            (0, 3, 20.0),
            (3, 3, 0.0),
        ],
        &[(0, -1.0), (3, -1.0)],
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_cps_4() {
    let p = lcp("lcp_CPS_4.dat");
    check(
        &p,
        4,
        &[(0, 0, 11.0), (3, 0, 1.0), (2, 2, 21.0), (0, 3, -1.0), (3, 3, 0.0)],
        &[(0, 50.0), (1, 50.0), (2, 10.0), (3, -6.0)],
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_cps_4bis() {
    let p = lcp("lcp_CPS_4bis.dat");
    check(&p, 4, &[(0, 0, 11.0), (2, 2, 21.0), (0, 3, -1.0)], &[(2, 23.0), (3, -6.0)]);
    assert_eq!(rows(p.m()), rows(lcp("lcp_CPS_4.dat").m()));
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_cps_5() {
    let p = lcp("lcp_CPS_5.dat");
    check(&p, 2, &[(0, 0, 1.0), (0, 1, -1.0), (1, 0, -1.0), (1, 1, 1.0)], &[(0, 1.0), (1, -1.0)]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_pang_isolated_sol() {
    let p = lcp("lcp_Pang_isolated_sol.dat");
    check(
        &p,
        3,
        &[(1, 0, 1.0), (2, 0, -1.0), (0, 1, -1.0), (0, 2, -1.0), (2, 2, 0.0)],
        &[(0, 0.0), (1, -1.0), (2, 1.0)],
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_pang_isolated_sol_perturbed() {
    let p = lcp("lcp_Pang_isolated_sol_perturbed.dat");
    check(&p, 3, &[(1, 0, 1.0), (2, 0, -1.0), (0, 2, -1.0)], &[(0, -0.0001), (1, -1.0), (2, 1.0)]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_deudeu() {
    let p = lcp("lcp_deudeu.dat");
    check(&p, 2, &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)], &[(0, -5.0), (1, -6.0)]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_deudeu_block() {
    let p = lcp("lcp_deudeu_block.dat");
    check(&p, 2, &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)], &[(0, -5.0), (1, -6.0)]);
    same_problem(&lcp("lcp_deudeu.dat"), &p);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_enum_fails() {
    let p = lcp("lcp_enum_fails.dat");
    check(
        &p,
        9,
        &[
            (0, 0, 5.033710181702543806636641),
            (1, 0, -5.224563268131394710991344e-01),
            (2, 0, 2.000000000000000111022302e-01),
            (0, 1, -2.202221595301195322669230e-01),
            (1, 2, 1.0),
            (3, 3, 3.189736003710535783284286),
            (4, 4, 6.707236236907633930570682),
            (8, 8, 0.0),
        ],
        &[(0, -2.050048212148655908670936e-04), (1, -7.848103140539047783974524e-07), (8, 0.0)],
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_exp_murty() {
    let p = lcp("lcp_exp_murty.dat");
    check(
        &p,
        6,
        &[(0, 0, 1.0), (0, 1, 2.0), (1, 0, 0.0), (0, 5, 2.0), (5, 0, 0.0), (5, 5, 1.0)],
        &[(0, -1.0), (5, -1.0)],
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_exp_murty2_is_generate_murty_6() {
    let p = lcp("lcp_exp_murty2.dat");
    check(
        &p,
        6,
        &[(0, 1, 2.0), (1, 0, 0.0), (4, 5, 2.0), (5, 4, 0.0)],
        &[(0, -126.0), (1, -124.0), (2, -120.0), (3, -112.0), (4, -96.0), (5, -64.0)],
    );
    let g = samples::murty(6);
    assert_eq!(rows(g.m()), rows(p.m()));
    assert_eq!(g.q(), p.q());
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_inf_sol_perturbed() {
    let p = lcp("lcp_inf_sol_perturbed.dat");
    check(
        &p,
        3,
        &[(1, 0, 1.0), (2, 0, -1.0), (0, 1, -1.0), (0, 2, 1.0), (1, 1, 0.0)],
        &[(0, -0.0001), (1, -1.0), (2, 1.0)],
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_mmc() {
    let p = lcp("lcp_mmc.dat");
    check(
        &p,
        26,
        &[
            (0, 0, 1.488865599999999976716936e+05),
            (1, 0, -9.278025599999999394640326e+04),
            (0, 1, -9.278025599999999394640326e+04),
            (1, 1, 1.920714599999999918509275e+05),
            (0, 25, 1.927852300000000127511157e+02),
            (24, 25, -1.016813600000000005820766e+05),
            (25, 25, 1.001119499999999970896170e+05),
        ],
        &[(0, -4.356652999999999664737516), (25, 6.053916799999999875936396e-01)],
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_ortiz() {
    let p = lcp("lcp_ortiz.dat");
    assert_eq!(
        rows(p.m()),
        vec![
            vec![3.0, 1.0, 0.0, -1.0],
            vec![-1.0, 2.0, 1.0, 1.0],
            vec![0.0, 1.0, 3.0, -1.0],
            vec![0.0, 0.0, 1.0, 2.0]
        ]
    );
    check(&p, 4, &[], &[(0, -2.0), (1, 1.0), (2, -1.0), (3, 1.0)]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_ortiz_block() {
    let p = lcp("lcp_ortiz_block.dat");
    check(
        &p,
        4,
        &[(0, 0, 3.0), (1, 0, -1.0), (0, 3, -1.0), (3, 2, 1.0), (3, 0, 0.0)],
        &[(0, -2.0), (3, 1.0)],
    );
    same_problem(&lcp("lcp_ortiz.dat"), &p);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_tobenna() {
    let p = lcp("lcp_tobenna.dat");
    check(
        &p,
        40,
        &[
            (0, 0, 1.0),
            (16, 0, 47.0),
            (17, 0, 210.0),
            (32, 0, 1.0),
            (33, 0, 0.0),
            (16, 1, 73.0),
            (0, 16, 70.0),
            (16, 16, 1.0),
            (0, 32, -1.0),
            (4, 32, 0.0),
            (4, 33, -1.0),
            (39, 39, 0.0),
        ],
        &[(0, 0.0), (31, 0.0), (32, -1.0), (39, -1.0)],
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_trivial() {
    let p = lcp("lcp_trivial.dat");
    check(&p, 9, &[(0, 0, 1.0), (1, 1, 2.0), (8, 8, 9.0), (0, 8, 0.0), (8, 0, 0.0)], &[(0, -1.0), (8, -1.0)]);
    assert_eq!(p.m().diagonal(), (1..=9).map(f64::from).collect::<Vec<_>>());
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lcp_trivial_block() {
    let p = lcp("lcp_trivial_block.dat");
    check(&p, 9, &[(0, 0, 1.0), (4, 4, 5.0), (8, 8, 9.0), (3, 4, 0.0)], &[(0, -1.0), (8, -1.0)]);
    assert_eq!(p.m().nnz(), 9);
    same_problem(&lcp("lcp_trivial.dat"), &p);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn every_lcp_file_reads() {
    let dir = suites().join("siconos/lcp");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "dat") {
            read_lcp(&path).unwrap_or_else(|e| panic!("{e}"));
            count += 1;
        }
    }
    assert_eq!(count, 20);
}

/// A frictional-contact file's content: `d nc`, W, q (d·nc), μ (nc).
struct Fc {
    d: usize,
    nc: usize,
    w: Matrix,
    q: Vec<f64>,
    mu: Vec<f64>,
}

/// Reads a frictional-contact file through the shared matrix reader.
fn read_fc(path: &Path) -> Result<Fc, Error> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut ts = Tokens::new(&text, path);
    let d = ts.read_usize("d")?;
    let nc = ts.read_usize("nc")?;
    let w = read_numerics_matrix(&mut ts, "W")?;
    let q = ts.read_vector(d * nc, "q")?;
    let mu = ts.read_vector(nc, "mu")?;
    Ok(Fc { d, nc, w, q, mu })
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn matrix_reader_reads_every_frictional_contact_dat_file() {
    let mut seen = 0;
    for sub in ["fc2d", "fc3d"] {
        for entry in std::fs::read_dir(suites().join("siconos").join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "dat") {
                continue;
            }
            let Fc { d, nc, w, mu, .. } = read_fc(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(d, if sub == "fc2d" { 2 } else { 3 }, "{}", path.display());
            assert_eq!((w.nrows(), w.ncols()), (d * nc, d * nc), "{}", path.display());
            assert!(mu.iter().all(|m| (0.0..=10.0).contains(m)), "{}: mu = {mu:?}", path.display());
            seen += 1;
        }
    }
    assert_eq!(seen, 27);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn fc3d_sparse_block_file_by_hand() {
    let Fc { d, nc, w, q, mu } =
        read_fc(&suites().join("siconos/fc3d/Confeti-ex13-4contact-Fc3D-SBM.dat")).unwrap();
    assert_eq!((d, nc), (3, 4));
    assert!(w.is_sparse());
    assert_eq!(w.nnz(), 16 * 9);
    // Block 0 (block row 0, column 0), column-major: 5.220412e-05 -1.768006e-05 -3.175547e-06 …
    assert_eq!(w.get(0, 0), 5.220412e-05);
    assert_eq!(w.get(1, 0), -1.768006e-05);
    assert_eq!(w.get(2, 0), -3.175547e-06);
    assert_eq!(w.get(0, 1), -1.768006e-05);
    assert_eq!(w.get(1, 1), 6.129616e-05);
    assert_eq!(w.get(2, 2), 7.897755e-05);
    // Block 1 (block row 0, block column 1): first column -4.820218e-06 4.025661e-05 -4.209212e-05.
    assert_eq!(w.get(0, 3), -4.820218e-06);
    assert_eq!(w.get(1, 3), 4.025661e-05);
    assert_eq!(w.get(2, 3), -4.209212e-05);
    assert_eq!(w.get(0, 4), -5.809880e-06);
    assert_eq!(q[0], 4.389878662931170349992271e-01);
    assert_eq!(q[11], 4.109999047807819660960149e-01);
    assert_eq!(mu, vec![0.04; 4]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn fc3d_sparse_block_and_dense_files_agree() {
    let Fc { w: dense, q: qd, mu: mud, .. } =
        read_fc(&suites().join("siconos/fc3d/FC3D_Example1.dat")).unwrap();
    let Fc { w: block, q: qb, mu: mub, .. } =
        read_fc(&suites().join("siconos/fc3d/FC3D_Example1_SBM.dat")).unwrap();
    assert!(!dense.is_sparse() && block.is_sparse());
    let (a, b) = (rows(&dense), rows(&block));
    for i in 0..a.len() {
        for j in 0..a.len() {
            // The SBM file prints 7 significant digits, the dense one 25.
            assert!((a[i][j] - b[i][j]).abs() <= 1e-6 * a[i][j].abs().max(1.0), "W[{i},{j}]");
        }
    }
    assert_eq!((qd, mud), (qb, mub));
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn fc2d_csparse_file_by_hand() {
    let Fc { d, nc, w, q, mu } =
        read_fc(&suites().join("siconos/fc2d/fc2d_granularflowonwall_00667_00000.dat")).unwrap();
    assert_eq!((d, nc), (2, 667));
    assert!(w.is_sparse());
    assert_eq!(w.nnz(), 3822);
    // col 0 : locations 0 to 1 / 0 : 856.713 / 649 : -454.43
    assert_eq!(w.get(0, 0), 856.713);
    assert_eq!(w.get(649, 0), -454.43);
    // col 1 : locations 2 to 4 / 1 : 2559.98 / 648 : 454.43 / 649 : 903.676
    assert_eq!(w.get(1, 1), 2559.98);
    assert_eq!(w.get(648, 1), 454.43);
    assert_eq!(w.get(649, 1), 903.676);
    assert_eq!(w.get(2, 1), 0.0);
    assert_eq!(w.get(1333, 1333), 2521.06);
    assert_eq!(q[0], 0.0);
    assert_eq!(q[1], 1.084202172485504434007453e-19);
    assert_eq!(mu, vec![0.5; 667]);
}

// ---------------------------------------------------------------------------------------
// Bad input: an error naming the file and the token position, never a panic.

fn bad(text: &str) -> String {
    match parse_lcp(text, Path::new("bad.dat")) {
        Ok(_) => panic!("accepted bad input {text:?}"),
        Err(e) => {
            assert!(matches!(e, Error::Parse { .. }), "{e:?}");
            e.to_string()
        }
    }
}

#[test]
fn truncated_file() {
    let e = bad("2\n0\n2\n2\n2 2\n2 1\n1 2\n-5");
    assert_eq!(
        e,
        "bad.dat: token 11 (q (length 2)): needs 2 more values but only 1 token is left in the file (line 8)"
    );
    let e = bad("2\n0\n2\n");
    assert_eq!(e, "bad.dat: token 4 (M size1): file ends early");
    let e = bad("");
    assert_eq!(e, "bad.dat: token 1 (n): file ends early");
}

#[test]
fn non_numeric_token() {
    let e = bad("2 0 2 2 2 2 2 1 x 2 -5 -6");
    assert_eq!(e, "bad.dat: token 9 (M[0,1]): expected a number, found 'x' (line 1)");
    let e = bad("2 0 2 2 2 2 2 1 1 2 -5 six");
    assert_eq!(e, "bad.dat: token 12 (q[1]): expected a number, found 'six' (line 1)");
    let e = bad("two 0 2 2 2 2 2 1 1 2 -5 -6");
    assert_eq!(e, "bad.dat: token 1 (n): expected a non-negative integer, found 'two' (line 1)");
}

#[test]
fn negative_size() {
    let e = bad("2 0 -2 2 2 2 2 1 1 2 -5 -6");
    assert_eq!(e, "bad.dat: token 3 (M size0): size must be non-negative, found -2 (line 1)");
    let e = bad("-2 0 2 2 2 2 2 1 1 2 -5 -6");
    assert_eq!(e, "bad.dat: token 1 (n): expected a non-negative integer, found '-2' (line 1)");
}

#[test]
fn huge_size_is_refused_before_any_allocation() {
    let e = bad("1000000000000 0 1000000000000 1000000000000 1000000000000 1000000000000 1 2 3");
    assert!(e.starts_with("bad.dat: token 1 (n = 1000000000000): needs 1000000000000 more values"), "{e}");
    // A huge dense block with a small n: caught at the block, before the size check against n.
    let e = bad("3 0 100000 100000 100000 100000 1 2 3");
    assert!(
        e.starts_with("bad.dat: token 6 (M (100000x100000 dense)): needs 10000000000 more values"),
        "{e}"
    );
    // size0·size1 overflowing usize.
    let big = "4294967296000";
    let text = format!("0 {big} {big} {big} {big} 1");
    let e = read_numerics_matrix(&mut Tokens::new(&text, Path::new("bad.dat")), "M").unwrap_err().to_string();
    assert!(e.contains("token 5 (M size)") && e.contains("overflows"), "{e}");
    // Huge SBM counts.
    let e = bad("2 1 2 2 1 1 9223372036854775807 2 2 2 1 0 1 0 0 2 1 1 2 -5 -6");
    assert!(e.contains("token 7 (M blocknumber1 = 9223372036854775807): needs"), "{e}");
    let e = bad("2 1 2 2 1 1000000000 1 2 2 2 1 0 1 0 0 2 1 1 2 -5 -6");
    assert!(e.contains("token 6 (M blocknumber0 = 1000000000): needs 1000000000 more values"), "{e}");
}

#[test]
fn size_mismatch_between_n_and_the_matrix() {
    let e = bad("3 0 2 2 2 2 2 1 1 2 -5 -6 -7");
    assert_eq!(e, "bad.dat: token 3 (M size0): M is 2x2 but n = 3 (token 1)");
    let e = bad("2 0 2 3 2 3 1 2 3 4 5 6 -5 -6");
    assert_eq!(e, "bad.dat: token 3 (M size0): M is 2x3 but n = 2 (token 1)");
}

#[test]
fn nan_or_infinite_value() {
    let e = bad("1 0 1 1 1 1 nan 1");
    assert_eq!(e, "bad.dat: token 7 (M[0,0]): value 'nan' is not finite (line 1)");
    let e = bad("1 0 1 1 1 1 2\n-inf");
    assert_eq!(e, "bad.dat: token 8 (q[0]): value '-inf' is not finite (line 2)");
}

/// `lcp_deudeu_block.dat` with one token replaced.
fn deudeu_block(replace: Option<(usize, &str)>) -> String {
    let tokens = "2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2.0 1.0 1.0 2.0 -5 -6";
    let mut t: Vec<&str> = tokens.split(' ').collect();
    if let Some((pos, s)) = replace {
        t[pos - 1] = s;
    }
    t.join("\n")
}

#[test]
fn bad_sparse_block_index() {
    let p = parse_lcp(&deudeu_block(None), Path::new("ok.dat")).unwrap();
    assert_eq!(rows(p.m()), vec![vec![2.0, 1.0], vec![1.0, 2.0]]);
    // index2_data[0] (token 14) = 5: no such block column.
    let e = bad(&deudeu_block(Some((14, "5"))));
    assert_eq!(
        e,
        "bad.dat: token 14 (M index2_data[0]): block column 5 out of range: blocknumber1 = 1 (line 14)"
    );
    // index1_data[1] (token 13) = 2 > filled2 = 1.
    let e = bad(&deudeu_block(Some((13, "2"))));
    assert!(e.starts_with("bad.dat: token 13 (M index1_data[1]): 2 out of range"), "{e}");
    // Block number k (token 15) = 3 instead of 0.
    let e = bad(&deudeu_block(Some((15, "3"))));
    assert_eq!(e, "bad.dat: token 15 (M block number): expected block 0, found 3 (line 15)");
    // Cumulative block size (token 8) = 3 > size0 = 2.
    let e = bad(&deudeu_block(Some((8, "3"))));
    assert_eq!(e, "bad.dat: token 8 (M blocksize0[0]): 3 exceeds size0 = 2 (line 8)");
}

#[test]
fn bad_storage_flag() {
    let e = bad("2 3 2 2 2 2 2 1 1 2 -5 -6");
    assert_eq!(
        e,
        "bad.dat: token 2 (M storage): unknown storage 3: expected 0 (dense), 1 (sparse block) or 2 (CSparse)"
    );
    let e = bad("2 x 2 2");
    assert_eq!(e, "bad.dat: token 2 (M storage): expected an integer, found 'x' (line 1)");
}

#[test]
fn io_error_names_the_file() {
    let e = read_lcp(Path::new("/nonexistent/perp/lcp.dat")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }));
    assert!(e.to_string().starts_with("/nonexistent/perp/lcp.dat: "), "{e}");
}

/// Small problems in each storage, for the exhaustive corruption test.
const SAMPLES: [&str; 3] = [
    "2\n0\n2\n2\n2 2\n2 1\n1 2\n-5 -6\n",
    "2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2.0 1.0 1.0 2.0 -5 -6",
    "2\n2\n2\n2\n2\nCSparse Version 3.1.9\n2-by-2, nzmax: 3 nnz: 3, 1-norm: 3\n    col 0 : locations 0 to 1\n      \
     0 : 2\n      1 : 1\n    col 1 : locations 2 to 2\n      1 : 2\n-5 -6\n",
];

#[test]
fn no_truncation_or_corruption_panics() {
    for text in SAMPLES {
        let full = parse_lcp(text, Path::new("s.dat")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(full.m().get(1, 1), 2.0);
        // Every truncation at a token boundary is an error naming the file.
        let bounds: Vec<usize> =
            text.char_indices().filter(|(_, c)| c.is_whitespace()).map(|(i, _)| i).collect();
        for &cut in &bounds {
            if text[cut..].trim().is_empty() {
                continue;
            }
            let e = parse_lcp(&text[..cut], Path::new("s.dat")).unwrap_err();
            assert!(e.to_string().starts_with("s.dat: token "), "{e}");
        }
        // Every single-token corruption returns (Ok or Err), never panics.
        let toks: Vec<&str> = text.split_whitespace().collect();
        for k in 0..toks.len() {
            for junk in [
                "-1",
                "0",
                "1",
                "7",
                "x",
                "nan",
                "1e300",
                "99999999999",
                "9223372036854775807",
                "-9223372036854775808",
                "-99999999999999999999",
            ] {
                let mut t = toks.clone();
                t[k] = junk;
                let _ = parse_lcp(&t.join("\n"), Path::new("s.dat"));
                let _ = parse_lcp(&t.join(" "), Path::new("s.dat"));
            }
        }
    }
}
