//! Reading the Siconos MLCP suite: every file's sizes and equality rows, hand-picked entries
//! of M and q as they stand in the files (dense storage is column-major), the one file that
//! cannot be an MLCP (`Rectangular_mlcp.dat`, M is 3x2), kind detection, and bad input giving
//! an error that names the file and the token position, never a panic.
//!
//! Tests marked `#[ignore = "needs PERP_SUITES"]` read the peer suite from the folder named by
//! the environment variable `PERP_SUITES`; run them with
//! `PERP_SUITES=/work/shared/suites cargo test -p perp-bench -- --include-ignored`.

#![allow(clippy::excessive_precision)]

use perp_core::{Error, Matrix};
use perp_formats::{parse_mlcp, read_mlcp, read_problem, Problem, ProblemKind};
use perp_ncp::mlcp::Mlcp;
use std::path::{Path, PathBuf};

fn suites() -> PathBuf {
    perp_formats::suites_dir()
}

fn path(name: &str) -> PathBuf {
    suites().join("siconos/mlcp").join(name)
}

fn mlcp(name: &str) -> Mlcp {
    read_mlcp(&path(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn rows(m: &Matrix) -> Vec<Vec<f64>> {
    (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m.get(i, j)).collect()).collect()
}

/// (file, n, m) from each header; every file has blocks `0 n n+m` with kinds `0 1`.
const FILES: [(&str, usize, usize); 17] = [
    ("Buck2_mlcp.dat", 20, 12),
    ("BuckConverter_mlcp.dat", 20, 12),
    ("BuckFirstStep_mlcp.dat", 20, 12),
    ("PDSym_mlcp.dat", 3, 4),
    ("PD_mlcp.dat", 3, 4),
    ("RCD_mlcp.dat", 2, 1),
    ("RLCD_mlcp.dat", 6, 2),
    ("deltasigma2_mlcp.dat", 65, 156),
    ("deltasigma_mlcp.dat", 65, 156),
    ("deudeu_mlcp.dat", 1, 1),
    ("diodeBridge20_mlcp.dat", 11, 20),
    ("diodeBridge40_mlcp.dat", 21, 40),
    ("diodeBridge_mlcp.dat", 3, 4),
    ("m2n1_mlcp.dat", 1, 2),
    ("m3n2_mlcp.dat", 2, 3),
    ("relay2_mlcp.dat", 4, 2),
    ("relay3_mlcp.dat", 4, 2),
];

#[test]
#[ignore = "needs PERP_SUITES"]
fn every_mlcp_file_reads_with_its_sizes_and_equality_rows() {
    for (name, n, m) in FILES {
        let p = mlcp(name);
        assert_eq!(p.n(), n + m, "{name}");
        assert_eq!(p.n_free(), n, "{name}");
        assert!(p.free()[..n].iter().all(|&f| f) && p.free()[n..].iter().all(|&f| !f), "{name}");
        assert!(!p.m().is_sparse(), "{name}: every suite file stores M dense");
        // Through the generic entry point too (kind detected from the name).
        assert!(matches!(read_problem(&path(name), None).unwrap(), Problem::Mlcp(_)), "{name}");
    }
    // The folder holds exactly these and Rectangular_mlcp.dat.
    let count = std::fs::read_dir(suites().join("siconos/mlcp"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "dat"))
        .count();
    assert_eq!(count, FILES.len() + 1);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn rectangular_file_is_refused_with_its_sizes() {
    // n = m = 1 but M is stored 3x2 (Siconos comments this file out of its own tests).
    let e = read_mlcp(&path("Rectangular_mlcp.dat")).unwrap_err().to_string();
    assert!(
        e.ends_with("Rectangular_mlcp.dat: token 11 (M size0): M is 3x2 but n + m = 2 (n at token 3)"),
        "{e}"
    );
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn m2n1_by_hand() {
    let p = mlcp("m2n1_mlcp.dat");
    // Columns (1, 0, 0), (2, 1, 0), (0, 1.3333, 1); q = (-1, 1, -3).
    assert_eq!(
        rows(p.m()),
        vec![vec![1.0, 2.0, 0.0], vec![0.0, 1.0, 1.333299999999999929656269], vec![0.0, 0.0, 1.0]]
    );
    assert_eq!(p.q(), &[-1.0, 1.0, -3.0]);
    assert_eq!(p.free(), &[true, false, false]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn deudeu_and_rcd_by_hand() {
    let p = mlcp("deudeu_mlcp.dat");
    // Columns (1, 0), (-1, 1); q = (-1, 1).
    assert_eq!(rows(p.m()), vec![vec![1.0, -1.0], vec![0.0, 1.0]]);
    assert_eq!(p.q(), &[-1.0, 1.0]);
    // Solution z = (u, v) = (1, 0): u − v − 1 = 0 and w = v + 1 = 1 > 0 with v = 0.
    assert_eq!(p.error_at(&[1.0, 0.0]), 0.0);

    let p = mlcp("RCD_mlcp.dat");
    assert_eq!(p.m().get(0, 0), 1.000000000000000055511151e-01);
    assert_eq!(p.m().get(1, 0), -1.504999999999999893418590e+00);
    assert_eq!(p.m().get(0, 1), -1.000000000000000055511151e-01);
    assert_eq!(p.m().get(2, 1), -1.0);
    assert_eq!(p.m().get(0, 2), -1.0);
    assert_eq!(p.m().get(2, 2), 0.0);
    assert_eq!(p.q(), &[0.0, 4.949999999999999955591079e-01, 0.0]);
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn explicit_kind_is_obeyed() {
    // Forced to LCP, an MLCP file is refused: its first tokens read as n = 1, an empty
    // sparse-block M and q = (1) (which the LCP reader used to return), and the rest is more
    // data than that declares.
    let e = read_problem(&path("deudeu_mlcp.dat"), Some(ProblemKind::Lcp)).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "deudeu_mlcp.dat: token 7 (end of data): expected the end of the data after token 6 (line 5) as \
             declared, n = 1: M (1x1) and q (length 1); found the number '2' (line 5): the file holds more \
             data than its header declares"
        ),
        "{e}"
    );
    // Unnamed copy: only the MLCP reader accepts it.
    let dir = std::env::temp_dir().join(format!("perp-mlcp-kind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("problem.dat");
    std::fs::copy(path("deudeu_mlcp.dat"), &copy).unwrap();
    assert_eq!(read_problem(&copy, None).unwrap().kind(), ProblemKind::Mlcp);
    std::fs::remove_dir_all(&dir).unwrap();
    let lcp = suites().join("siconos/lcp/lcp_deudeu.dat");
    assert_eq!(read_problem(&lcp, None).unwrap().kind(), ProblemKind::Lcp);
    assert!(read_problem(&lcp, Some(ProblemKind::Mlcp)).is_err());
}

// ---------------------------------------------------------------------------------------
// Bad input: an error naming the file and the token position, never a panic.

fn bad(text: &str) -> String {
    match parse_mlcp(text, Path::new("bad.dat")) {
        Ok(_) => panic!("accepted bad input {text:?}"),
        Err(e) => {
            assert!(matches!(e, Error::Parse { .. }), "{e:?}");
            e.to_string()
        }
    }
}

const DEUDEU: &str = "1\n1\n1\n1\n0 1 2\n0 1\n0\n2\n2\n2 2\n1 0\n-1 1\n-1 1\n1\n1\n-1\n0\n-1\n1\n";

#[test]
fn deudeu_text_reads() {
    let p = parse_mlcp(DEUDEU, Path::new("d.dat")).unwrap();
    assert_eq!(rows(p.m()), vec![vec![1.0, -1.0], vec![0.0, 1.0]]);
}

#[test]
fn truncated_file() {
    // Cut inside the A,B,C,D part (24 of 26 tokens).
    let cut: Vec<&str> = DEUDEU.split_whitespace().take(24).collect();
    let e = bad(&cut.join("\n"));
    assert!(
        e.starts_with("bad.dat: token 21 (A,B,C,D,a,b (n = 1, m = 1)): needs 6 more values but only 4"),
        "{e}"
    );
    let e = bad("1\n1\n1\n");
    assert_eq!(e, "bad.dat: token 4 (m): file ends early");
    let e = bad("1 1 1 1 0 1");
    assert_eq!(e, "bad.dat: token 7 (block rows[2]): file ends early");
}

#[test]
fn non_numeric_token() {
    let e = bad(&DEUDEU.replacen("-1 1\n-1 1", "-1 1\nx 1", 1));
    assert_eq!(e, "bad.dat: token 19 (q[0]): expected a number, found 'x' (line 13)");
    let e = bad(&DEUDEU.replacen("0 1\n0\n", "0 one\n0\n", 1));
    assert_eq!(e, "bad.dat: token 9 (block kinds[1]): expected an integer, found 'one' (line 6)");
}

#[test]
fn huge_size_is_refused_before_any_allocation() {
    let e = bad("1 1 1000000000000 1000000000000 0 1 2");
    assert!(
        e.starts_with("bad.dat: token 4 (n + m = 2000000000000): needs 2000000000000 more values"),
        "{e}"
    );
    // A dense M far bigger than the file.
    let e = bad("1 0 1 1 0 1 2 0 1 0 100000 100000 100000 100000 1 2 3");
    assert!(
        e.starts_with("bad.dat: token 14 (M (100000x100000 dense)): needs 10000000000 more values"),
        "{e}"
    );
}

#[test]
fn io_error_names_the_file() {
    let e = read_mlcp(Path::new("/nonexistent/perp/x_mlcp.dat")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }));
    assert!(e.to_string().starts_with("/nonexistent/perp/x_mlcp.dat: "), "{e}");
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn no_lcp_file_of_the_suite_is_taken_for_an_mlcp() {
    for entry in std::fs::read_dir(suites().join("siconos/lcp")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "dat") {
            assert!(parse_mlcp(&std::fs::read_to_string(&p).unwrap(), &p).is_err(), "{}", p.display());
            assert_eq!(read_problem(&p, None).unwrap().kind(), ProblemKind::Lcp, "{}", p.display());
        }
    }
}
