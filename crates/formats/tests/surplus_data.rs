//! Issue 36, item 5: every Siconos reader takes exactly what the file's header declares. A
//! file holding more data (a W of 6×6 values under a header declaring one 3-D contact, an M
//! larger than n) is an error naming the file, the token and its line, and what was declared —
//! not a problem read from its first values. The trailing sections real files have (blank
//! lines, comments, the `isComplete` flag of frictional files, an MLCP's reference solution)
//! still read.

use perp_formats::{parse_friction_contact, parse_lcp, parse_mlcp, read_problem, FrictionFile};
use std::path::Path;

/// `rows × cols` values 1, 2, … by columns, one printed line per column.
fn values(rows: usize, cols: usize) -> String {
    (0..cols)
        .map(|j| {
            (0..rows).map(|i| format!("{}", (j * rows + i + 1) as f64 / 10.0)).collect::<Vec<_>>().join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Siconos dense block: the header declares `rows × cols`, `held` holds `h × h` values.
fn dense(rows: usize, cols: usize, held: usize) -> String {
    format!("0 {rows} {cols}\n{rows} {cols}\n{}\n", values(held, held))
}

fn err(r: Result<impl std::fmt::Debug, perp_core::Error>) -> String {
    r.expect_err("surplus data must be refused").to_string()
}

/// The file: one 3-D contact declared (W 3×3), a 6×6 W held (then q and μ of two
/// contacts). Its first 9 numbers used to be taken as W, the next as q and μ.
fn fc3d_holding_two_contacts() -> String {
    format!("3\n1\n{}{}\n{}\n", dense(3, 3, 6), "-1 0.1 0 -1 0 0.2", "0.3 0.4")
}

#[test]
fn a_local_frictional_file_with_a_larger_w_is_refused_naming_what_was_declared() {
    let e = err(parse_friction_contact(&fc3d_holding_two_contacts(), Path::new("two.dat")));
    // 2 + 5 header tokens, W's 9, q's 3 and μ's 1 declared: token 21 is the first surplus.
    assert!(
        e.starts_with("two.dat: token 21 (end of data): expected the end of the data after token 20"),
        "{e}"
    );
    assert!(
        e.contains("d = 3, nc = 1: W (3x3), q (length 3), mu (length 1) and an optional flag 0 or 1"),
        "{e}"
    );
    assert!(
        e.contains("found the number")
            && e.contains("found the number '1.4' (line 7)")
            && e.contains("more data than its header"),
        "{e}"
    );
}

#[test]
fn a_local_frictional_file_takes_its_flag_and_a_comment_but_no_more_numbers() {
    let base = format!("2\n1\n{}-1 0.5\n0.3\n", dense(2, 2, 2));
    for tail in ["", "\n\n   \n", "1\n", "0\n\n", "1\n# solved by hand 1 2\n"] {
        let f = parse_friction_contact(&format!("{base}{tail}"), Path::new("one.dat"))
            .unwrap_or_else(|e| panic!("{tail:?}: {e}"));
        assert!(!f.is_global() && f.contacts() == 1, "{tail:?}");
    }
    for tail in ["2\n", "1 0\n", "0.3\n", "1\n1e-3"] {
        let e = err(parse_friction_contact(&format!("{base}{tail}"), Path::new("one.dat")));
        assert!(e.contains("(end of data)") && e.contains("d = 2, nc = 1: W (2x2)"), "{tail:?}: {e}");
    }
}

/// d = 2, nc = 1, n_dof = 3: M dense diag(2, 2, 4), H dense 3×2, q = f, b, μ.
const GLOBAL: &str = "2\n1\n0 3 3 3 3\n2 0 0\n0 2 0\n0 0 4\n0 3 2 3 2\n1 0 1\n0 1 1\n1 0 -2\n0.5 0\n0.3\n";

#[test]
fn a_global_frictional_file_takes_its_flag_but_no_more_numbers() {
    for tail in ["", "1\n", "0\n# note\n"] {
        let f = parse_friction_contact(&format!("{GLOBAL}{tail}"), Path::new("g.dat")).unwrap();
        assert!(matches!(f, FrictionFile::Global(_)), "{tail:?}");
    }
    // A second μ (two contacts' worth under a header declaring one).
    let e = err(parse_friction_contact(&format!("{GLOBAL}0.4\n"), Path::new("g.dat")));
    assert!(
        e.starts_with("g.dat: token 34 (end of data): expected the end of the data after token 33 (line 12)"),
        "{e}"
    );
    assert!(
        e.contains(
            "d = 2, nc = 1, n_dof = 3: M (3x3), H (3x2), q (length 3), b (length 2), mu (length 1) and an \
             optional flag 0 or 1; found the number '0.4' (line 13)"
        ),
        "{e}"
    );
    // M larger than declared: its surplus values are read as H's header and fail there, or
    // are left over; either way an error naming the file.
    let bigger = GLOBAL.replace("2 0 0\n0 2 0\n0 0 4\n", "2 0 0 0\n0 2 0 0\n0 0 4 0\n0 0 0 1\n");
    let e = err(parse_friction_contact(&bigger, Path::new("g.dat")));
    assert!(e.starts_with("g.dat: token "), "{e}");
}

#[test]
fn an_lcp_file_with_a_larger_m_is_refused_naming_what_was_declared() {
    // n = 2 and M declared 2×2, but 3×3 values and a q of 3 follow.
    let text = format!("2\n{}-1 -2 -3\n", dense(2, 2, 3));
    let e = err(parse_lcp(&text, Path::new("m.dat")));
    // n, the 5 header tokens, M's 4 and q's 2 declared: token 13 is the first surplus.
    assert_eq!(
        e,
        "m.dat: token 13 (end of data): expected the end of the data after token 12 (line 5) as declared, \
         n = 2: M (2x2) and q (length 2); found the number '0.7' (line 6): the file holds more data than its \
         header declares"
    );
    // Blank lines and a comment after q still read (Siconos' lcp_CPS_*.dat, lcp_exp_murty.dat).
    let ok = format!("2\n{}-1 -2\n\n\nExample 4.4.7 CPS 2009\n# 1 2 3\n", dense(2, 2, 2));
    assert_eq!(parse_lcp(&ok, Path::new("ok.dat")).unwrap().n(), 2);
}

/// An MLCP with st1 only: n = 1, m = 1, blocks [0, 1) equality, [1, 2) complementarity, M
/// (dense, declared 2×2 but holding `held`×`held` values) and q.
fn mlcp_m_q(held: usize) -> String {
    format!("1 0 1 1\n0 1 2\n0 1\n{}0 -2\n", dense(2, 2, held))
}

/// The same problem with st2 only: A (1×1), B (1×1), C (1×1), D (1×1), a, b, row by row.
const MLCP_ABCD: &str = "0 1 1 1\n1\n1\n-1\n1\n0\n-2\n";

#[test]
fn an_mlcp_file_with_a_larger_m_or_more_values_is_refused_naming_what_was_declared() {
    let e = err(parse_mlcp(&mlcp_m_q(3), Path::new("mq.dat")));
    assert!(e.starts_with("mq.dat: token "), "{e}");
    assert!(
        e.contains("(end of data)") && e.contains("n = 1, m = 1: block rows, M and q for n + m = 2"),
        "{e}"
    );
    assert!(e.contains("a reference solution of at most n + 2m = 3 values; found the number"), "{e}");
    // A reference solution of up to n + 2m values reads (Siconos' m2n1_mlcp.dat and others keep
    // n + 2m − 1 there), one more is surplus.
    for k in 0..=3 {
        let sol = vec!["0.5"; k].join(" ");
        let p = parse_mlcp(&format!("{}{sol}\n", mlcp_m_q(2)), Path::new("mq.dat"))
            .unwrap_or_else(|e| panic!("{k} values: {e}"));
        assert_eq!(p.n(), 2);
        parse_mlcp(&format!("{MLCP_ABCD}{sol}\n# reference\n"), Path::new("abcd.dat")).unwrap();
    }
    let e = err(parse_mlcp(&format!("{MLCP_ABCD}0.5 0.5 0.5 0.5\n"), Path::new("abcd.dat")));
    assert!(
        e.ends_with(
            "abcd.dat: token 14 (end of data): expected the end of the data after token 13 (line 8) as declared, \
             n = 1, m = 1: A, B, C, D, a and b for n + m = 2, and a reference solution of at most n + 2m = 3 \
             values; found the number '0.5' (line 8): the file holds more data than its header declares"
        ),
        "{e}"
    );
}

/// `read_problem` (what `perp convert` and `perp solve` read through) refuses the file
/// instead of converting a misread problem.
#[test]
fn detection_refuses_the_surplus_file_too() {
    let dir = std::env::temp_dir().join(format!("perp-surplus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Named as a frictional file or not, the error is the frictional reader's (the LCP
    // reader's "expected an integer" on the same text would say nothing useful).
    for name in ["fc3d_two.dat", "two.dat"] {
        let path = dir.join(name);
        std::fs::write(&path, fc3d_holding_two_contacts()).unwrap();
        let e = err(read_problem(&path, None));
        assert!(e.contains(&format!("{name}: token 21 (end of data)")) && e.contains("W (3x3)"), "{e}");
        let e = err(perp_formats::read_friction_contact(&path));
        assert!(e.contains("(end of data)"), "{e}");
    }
    // An LCP file with surplus data keeps the LCP reader's error.
    let path = dir.join("m.dat");
    std::fs::write(&path, format!("2\n{}-1 -2 -3\n", dense(2, 2, 3))).unwrap();
    let e = err(read_problem(&path, None));
    assert!(e.contains("m.dat: token 13 (end of data)") && e.contains("n = 2: M (2x2)"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
