//! `perp convert` and `perp list` from the command line.

use std::path::PathBuf;
use std::process::{Command, Output};

fn perp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perp")).args(args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("perp-convert-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(o: &Output) -> String {
    format!("stdout: {}\nstderr: {}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A 3-D frictional contact problem with one contact, in Siconos dense storage:
/// W = [[2, 0.5, 0], [0.5, 1, 0], [0, 0, 1]], q = (−1, 0.1, 0), μ = 0.3.
const FC: &str = "3 1\n0 3 3\n3 3\n2 0.5 0\n0.5 1 0\n0 0 1\n-1 0.1 0\n0.3\n";

#[test]
fn convert_goes_through_every_format_and_solve_agrees() {
    let dir = scratch("chain");
    let src = dir.join("one.dat");
    std::fs::write(&src, FC).unwrap();
    let chain = ["one.json", "one.mtx", "one.hdf5", "back.dat"];
    let mut from = src.clone();
    for name in chain {
        let to = dir.join(name);
        let out = perp(&["convert", from.to_str().unwrap(), to.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out));
        let line = String::from_utf8_lossy(&out.stdout);
        assert!(line.contains("fc3d, n = 3") && line.contains(&to.display().to_string()), "{line}");
        from = to;
    }
    assert!(dir.join("one_q.mtx").exists() && dir.join("one_mu.mtx").exists());
    let back = std::fs::read_to_string(dir.join("back.dat")).unwrap();
    let p = perp::formats::convert::read_any(&dir.join("back.dat")).unwrap();
    let perp::formats::Problem::Friction(p) = p else { panic!("{back}") };
    // Through FCLIB the dense W became sparse (zeros not stored), values unchanged.
    assert_eq!((p.w.get(0, 1), p.w.get(1, 0), p.w.get(2, 2), p.w.nnz()), (0.5, 0.5, 1.0, 5));
    assert_eq!((p.q.clone(), p.mu.clone()), (vec![-1.0, 0.1, 0.0], vec![0.3]));

    // `perp solve` on the original and on the converted file: the same answer.
    let solve = |f: &PathBuf| {
        let out = perp(&["solve", f.to_str().unwrap(), "--json", "--tol", "1e-12"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let key = if v.get("r").is_some() { "r" } else { "z" };
        serde_json::from_value::<Vec<f64>>(v[key].clone()).unwrap()
    };
    let (a, b) = (solve(&src), solve(&dir.join("back.dat")));
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-10), "{a:?} vs {b:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_errors_exit_2_with_one_line_naming_the_file() {
    let dir = scratch("errors");
    let lcp = dir.join("p.dat");
    std::fs::write(&lcp, "2\n0 2 2\n2 2\n2 1\n1 2\n-5 -6\n").unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let l = lcp.to_str().unwrap().to_string();
    let cases: [([String; 3], &str); 4] = [
        (["convert".into(), l.clone(), path("p.csv")], "unknown extension '.csv'"),
        (["convert".into(), l.clone(), path("p.hdf5")], "holds frictional contact problems only"),
        (["convert".into(), path("missing.json"), path("p.dat")], "missing.json"),
        (["convert".into(), path("p.xyz"), path("q.json")], "'.xyz'"),
    ];
    for (args, want) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = perp(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("perp: ") && err.contains(want), "{args:?}: {err}");
    }
    // A corrupt JSON file: the error names the file and the field.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"kind": "lcp", "n": 2, "M": [[1, 0], [0, 1]], "q": [1, "x"]}"#).unwrap();
    let out = perp(&["convert", bad.to_str().unwrap(), dir.join("o.dat").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("bad.json") && err.contains("q[1]"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn list_names_every_solver_with_a_reference_and_every_format() {
    let out = perp(&["list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let s = String::from_utf8_lossy(&out.stdout).into_owned();
    let names =
        perp::lcp::SOLVER_NAMES.iter().chain(perp::ncp::SOLVER_NAMES).chain(perp::cones::SOLVER_NAMES);
    for name in names {
        // Listed, with a description and a reference (an em dash before the source).
        let line = s
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} missing from perp list:\n{s}"));
        assert!(line.contains(" — ") && !line.contains("see its module docs"), "{line}");
    }
    for section in
        ["LCP solvers", "NCP / MCP / MLCP solvers", "Frictional contact solvers", "Built-in problems"]
    {
        assert!(s.contains(section), "{section}:\n{s}");
    }
    for (solver, source) in [
        ("lemke", "Lemke 1965"),
        ("nsgs", "Moreau 1988"),
        ("ac-newton", "Alart–Curnier 1991"),
        ("lemke-pyramid", "Stewart–Trinkle 1996"),
    ] {
        assert!(s.lines().any(|l| l.trim_start().starts_with(solver) && l.contains(source)), "{solver}");
    }
    for p in perp::suite::builtin::builtin_problems() {
        assert!(s.lines().any(|l| l.trim_start().starts_with(&format!("{} ", p.name))), "{}", p.name);
    }
    for f in perp::formats::convert::Format::ALL {
        assert!(s.contains(f.name()), "{}", f.name());
        for e in f.extensions() {
            assert!(s.contains(&format!(".{e}")), "{e}");
        }
    }
}

/// A global frictional problem is converted in its local form, and the command says what it
/// leaves out (M, H, f) instead of dropping them without a word.
#[test]
fn converting_a_global_problem_says_what_is_dropped() {
    // d = 3, nc = 1, n_dof = 3: M = diag(2, 3, 4) (one SBM block), H = I, f, b, μ.
    let global = "3\n1\n\
        1 3 3\n1\n1 1\n3\n3\n2 1\n0 1\n0\n0\n2 0 0 0 3 0 0 0 4\n\
        0 3 3\n3 3\n1 0 0\n0 1 0\n0 0 1\n\
        -1 0 0\n0.5 0 0\n0.4\n";
    let dir = scratch("global");
    let input = dir.join("g-fc.dat");
    std::fs::write(&input, global).unwrap();
    let out = dir.join("g.json");
    let o = perp(&["convert", input.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("global frictional problem") && err.contains("M, H and f are not written"), "{err}");
    // A local input says nothing of the kind.
    let local = dir.join("l.json");
    let o = perp(&["convert", out.to_str().unwrap(), local.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("global"));
}

/// The same for a global FCLIB file (`Box_Stacks-i0122-82-5.hdf5` holds M, H, f, w): the
/// `.dat` written is its local form, and the command says so.
#[test]
#[ignore = "needs PERP_SUITES"]
fn converting_a_global_fclib_file_says_what_is_dropped() {
    let input = perp::formats::suites_dir().join("siconos/fc3d/Box_Stacks-i0122-82-5.hdf5");
    let out = scratch("global-fclib").join("box.dat");
    let o = perp(&["convert", input.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("global frictional problem") && err.contains("M, H and f are not written"), "{err}");
    // What was written is the local problem the global one reduces to, solved the same.
    let solve = |f: &str| {
        let o = perp(&["solve", f, "--solver", "ac-newton", "--json"]);
        assert_eq!(o.status.code(), Some(0), "{f}: {}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (v["status"].clone(), v["iterations"].clone(), v["n"].clone())
    };
    assert_eq!(solve(input.to_str().unwrap()), solve(out.to_str().unwrap()));
}

/// A built-in problem's name (`perp list`) is an input like a file: `solve` solves it and
/// `convert` writes it, and the written file solves the same; a name that is neither a file
/// nor a built-in problem is refused with both possibilities named.
#[test]
fn builtin_problems_are_inputs_of_solve_and_convert() {
    let dir = scratch("builtin");
    let out = dir.join("c40.dat");
    let o = perp(&["convert", "fc3d-contact-40", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("fc3d-contact-40 (fc3d, n = 120"), "{}", text(&o));
    let solve = |input: &str| {
        let o = perp(&["solve", input, "--solver", "nsgs", "--json"]);
        assert_eq!(o.status.code(), Some(0), "{input}: {}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (v["status"].clone(), v["iterations"].clone(), v["r"].clone())
    };
    let (from_name, from_file) = (solve("fc3d-contact-40"), solve(out.to_str().unwrap()));
    assert_eq!(from_name.0, "solved");
    assert_eq!(from_name, from_file);
    // A name with a dot in it (the harvested scene problems) is a name, not an extension.
    let o = perp(&["convert", "box-stack-6-t0.600-fc3d", dir.join("b.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The NCP samples outside the bench suite too.
    let o = perp(&["solve", "billups", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(r#""status":"solved""#), "{}", text(&o));
    let o = perp(&["solve", "no-such-problem"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no-such-problem") && err.contains("built-in problem") && err.contains("perp list"),
        "{err}"
    );
    let o = perp(&["solve", "missing.dat"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.dat: No such file"), "{}", text(&o));
}
