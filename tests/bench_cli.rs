//! `perp bench` end to end: the four outputs, unreadable files, FILE arguments, `--kind`,
//! shards and `--merge`, exit codes, and the Siconos LCP suite (with PERP_SUITES).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn perp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_perp"))
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("perp-bench-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn bench(args: &[&str]) -> Output {
    perp().arg("bench").args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read(dir: &Path, f: &str) -> String {
    std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{}: {e}", dir.join(f).display()))
}

/// The curves of profile.svg: `<polyline>`s of stroke width 2 (the curve width; axes and
/// ticks are 1), as documented in `perp_bench::profile`.
fn curves(svg: &str) -> usize {
    let thick: Vec<&str> = svg
        .split("<polyline")
        .skip(1)
        .map(|t| &t[..t.find('>').unwrap()])
        .filter(|t| t.contains("stroke-width=\"2\""))
        .collect();
    // One colour per curve.
    let mut colours: Vec<&str> = thick.iter().filter_map(|t| t.split("stroke=\"").nth(1)).collect();
    colours.sort();
    colours.dedup();
    assert_eq!(colours.len(), thick.len(), "{thick:?}");
    thick.len()
}

/// Checks the SVG is one balanced `<svg>…</svg>` element (every opened tag closed).
fn assert_svg_well_formed(svg: &str) {
    let body = svg.trim_start();
    let body = if body.starts_with("<?xml") { &body[body.find("?>").unwrap() + 2..] } else { body };
    assert!(body.trim_start().starts_with("<svg"), "{}", &svg[..200.min(svg.len())]);
    assert!(svg.trim_end().ends_with("</svg>"));
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').expect("unterminated tag") + i;
        let tag = &rest[i + 1..j];
        rest = &rest[j + 1..];
        if tag.starts_with('?') || tag.starts_with('!') || tag.ends_with('/') {
            continue;
        }
        let name = tag.split_whitespace().next().unwrap_or("");
        if let Some(closing) = name.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(closing), "unbalanced </{closing}>");
        } else {
            stack.push(name.to_string());
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}

fn assert_four_outputs(dir: &Path, solvers: usize) -> String {
    let csv = read(dir, "results.csv");
    assert_eq!(csv.lines().next(), Some("problem,kind,n,solver,status,iterations,error,seconds"));
    assert!(csv.lines().count() > 1, "{csv}");
    assert!(read(dir, "summary.md").starts_with("# perp bench summary"));
    let svg = read(dir, "profile.svg");
    assert_svg_well_formed(&svg);
    assert_eq!(curves(&svg), solvers, "one curve per solver");
    let v: serde_json::Value = serde_json::from_str(&read(dir, "results.json")).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), csv.lines().count() - 1);
    csv
}

#[test]
fn builtin_ncp_samples_write_the_four_outputs_quietly() {
    let out = temp_dir("ncp");
    let o = bench(&["builtin", "--kind", "ncp", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mcp_solvers = perp::ncp::SOLVER_NAMES.len();
    let csv = assert_four_outputs(&out, mcp_solvers);
    // Every sample with every MCP solver (schur-lemke's refusals of the nonlinear ones are
    // rows too, with status not_applicable).
    let n_samples = perp::ncp::samples::all().len();
    assert_eq!(csv.lines().count(), 1 + mcp_solvers * n_samples, "{csv}");
    assert!(csv.lines().skip(1).all(|l| l.split(',').nth(1) == Some("ncp")), "{csv}");
    // stderr is not a terminal here: no progress bar, no escape codes.
    let err = stderr(&o);
    assert!(!err.contains('\u{1b}') && !err.contains("problems"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&read(&out, "results.json")).unwrap();
    assert_eq!(v["settings"]["suite"], "builtin");
    assert_eq!(v["settings"]["time_limit"], 2.0, "the built-in default time limit");
    std::fs::remove_dir_all(&out).unwrap();
}

/// Siconos dense LCP: M = [[2,1],[1,2]], q = (−5,−6).
const DEUDEU: &str = "2\n0 2 2\n2 2\n2 1\n1 2\n-5 -6\n";
/// A 2×2 MLCP (one equality row), Siconos MLCP format (as in `perp_formats::read_problem`'s docs).
const MLCP: &str = "1 0 1 1\n0 1 2\n0 1\n0 2 2 2 2\n1 1\n-1 1\n0 -2";

#[test]
fn a_folder_of_json_and_matrix_market_files_is_benchmarked_like_solve_reads_them() {
    let dir = temp_dir("formats");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("deudeu.dat"), DEUDEU).unwrap();
    let convert = |to: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_perp"))
            .args(["convert", dir.join("deudeu.dat").to_str().unwrap(), dir.join(to).to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    };
    convert("as_json.json");
    convert("as_mtx.mtx");
    let out = temp_dir("formats-out");
    let o = bench(&[dir.to_str().unwrap(), "--solvers", "lemke", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = read(&out, "results.csv");
    // The .dat, the .json and the .mtx (its companion as_mtx_q.mtx read with it, not alone).
    for name in ["deudeu.dat", "as_json.json", "as_mtx.mtx"] {
        assert!(csv.contains(&format!("\n{name},lcp,2,lemke,solved,")), "{name}: {csv}");
    }
    assert_eq!(csv.lines().count(), 4, "{csv}");
    let v: serde_json::Value = serde_json::from_str(&read(&out, "results.json")).unwrap();
    assert_eq!(v["unreadable"].as_array().unwrap().len(), 0, "{v}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_folder_with_a_malformed_file_is_benchmarked_and_the_file_reported() {
    let dir = temp_dir("in");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("deudeu.dat"), DEUDEU).unwrap();
    std::fs::write(dir.join("tiny_mlcp.dat"), MLCP).unwrap();
    std::fs::write(dir.join("broken.dat"), "2\n0 2 2\n2 2\n2 x\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "not a problem").unwrap();
    let out = temp_dir("out");
    let o = bench(&[dir.to_str().unwrap(), "--solvers", "lemke,fb-newton", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("broken.dat"), "{err}");
    let csv = assert_four_outputs(&out, 2);
    // lemke and fb-newton on the LCP, fb-newton on the MLCP (now benchmarked, not skipped).
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.contains("\ndeudeu.dat,lcp,2,lemke,solved,"), "{csv}");
    assert!(csv.contains("\ntiny_mlcp.dat,mlcp,2,fb-newton,solved,"), "{csv}");
    let md = read(&out, "summary.md");
    assert!(md.contains("| lemke | 1/1 | 100% |"), "{md}");
    let unreadable = md.split("## Unreadable files").nth(1).unwrap();
    assert!(unreadable.contains("broken.dat`: ") && unreadable.contains("token"), "{unreadable}");
    // A file of no problem format is listed as skipped, not passed over in silence.
    assert!(unreadable.contains("notes.txt`: skipped: not a problem file"), "{unreadable}");
    let v: serde_json::Value = serde_json::from_str(&read(&out, "results.json")).unwrap();
    assert_eq!(v["settings"]["time_limit"], 10.0, "the default time limit for files");
    assert_eq!(v["unreadable"].as_array().unwrap().len(), 2);

    // FILE arguments instead of a folder, and --kind.
    let out2 = temp_dir("files");
    let o = bench(&[
        dir.join("deudeu.dat").to_str().unwrap(),
        dir.join("tiny_mlcp.dat").to_str().unwrap(),
        "--kind",
        "mlcp",
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = read(&out2, "results.csv");
    assert!(csv.lines().skip(1).all(|l| l.starts_with("tiny_mlcp.dat,mlcp,2,")), "{csv}");
    assert_eq!(csv.lines().count(), 1 + perp::ncp::SOLVER_NAMES.len(), "one row per MCP solver: {csv}");
    for d in [&dir, &out, &out2] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn bad_usage_and_missing_folders_exit_2() {
    let missing = temp_dir("missing");
    let o = bench(&[missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(missing.to_str().unwrap()), "{}", stderr(&o));
    for args in [
        &["--shard", "3/2"][..],
        &["--shard", "x"],
        &["--repeat", "0"],
        &["--threads", "0"],
        &["--solvers", "simplex"],
        &["--kind", "qp"],
        &["--time-limit", "-1"],
    ] {
        let out = temp_dir("bad");
        let o = bench(&[args, &["--out", out.to_str().unwrap()]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!out.exists(), "{args:?} wrote output");
    }
    let o = bench(&["--merge", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn merging_two_shards_gives_the_unsharded_results() {
    // A generous time limit (the built-in default is 2 s): no result may depend on the clock
    // (issue 37).
    let args = ["builtin", "--kind", "ncp,fc2d,mlcp", "--threads", "2", "--time-limit", "600"];
    let whole = temp_dir("whole");
    let o = bench(&[&args[..], &["--out", whole.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut shards = Vec::new();
    for k in 1..=2 {
        let d = temp_dir(&format!("shard{k}"));
        let o = bench(&[&args[..], &["--shard", &format!("{k}/2"), "--out", d.to_str().unwrap()]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        shards.push(d);
    }
    let merged = temp_dir("merged");
    let o = bench(&[
        "--merge",
        shards[1].to_str().unwrap(),
        shards[0].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let strip = |csv: String| -> Vec<String> {
        csv.lines().map(|l| l.rsplit_once(',').unwrap().0.to_string()).collect()
    };
    assert_eq!(strip(read(&merged, "results.csv")), strip(read(&whole, "results.csv")));
    // profile.svg is the time profile of the first kind (mlcp here): one curve per solver
    // that ran on it.
    let n_solvers = {
        let v: serde_json::Value = serde_json::from_str(&read(&whole, "results.json")).unwrap();
        let recs = v["records"].as_array().unwrap();
        let mut s: Vec<&str> =
            recs.iter().filter(|r| r["kind"] == "mlcp").map(|r| r["solver"].as_str().unwrap()).collect();
        s.sort();
        s.dedup();
        s.len()
    };
    assert_four_outputs(&merged, n_solvers);
    for f in ["profile-mlcp-time.svg", "profile-ncp-iterations.svg", "profile-fc2d-time.svg", "report.html"] {
        assert!(merged.join(f).is_file(), "{f}");
    }
    for d in shards.iter().chain([&whole, &merged]) {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn the_slurm_script_in_four_shards_merges_to_the_unsharded_summary() {
    // Runs scripts/slurm_bench.sh's four array tasks by hand (SLURM_ARRAY_TASK_ID = 1…4) and
    // then its merge command: the merged run must be the unsharded one, times aside.
    // Small kinds and a generous time limit: no result may depend on the clock.
    let args = ["--kind", "ncp,fc2d,mlcp", "--time-limit", "60"];
    let work = temp_dir("slurm");
    std::fs::create_dir_all(&work).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join("slurm_bench.sh");
    for k in 1..=4 {
        let o = Command::new("bash")
            .arg(&script)
            .args(["builtin", "4"])
            .args(args)
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("PERP", env!("CARGO_BIN_EXE_perp"))
            .current_dir(&work)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "task {k}: {}", stderr(&o));
    }
    let shards: Vec<String> =
        (1..=4).map(|k| work.join(format!("bench-shard-{k}")).display().to_string()).collect();
    let merged = work.join("bench-merged");
    let mut merge_args = vec!["--merge"];
    merge_args.extend(shards.iter().map(String::as_str));
    merge_args.extend(["--out", merged.to_str().unwrap()]);
    let o = bench(&merge_args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let whole = work.join("whole");
    let o =
        bench(&[&["builtin", "--threads", "1"][..], &args[..], &["--out", whole.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // results.csv: every column but the time (the last).
    let strip = |csv: String| -> Vec<String> {
        csv.lines().map(|l| l.rsplit_once(',').unwrap().0.to_string()).collect()
    };
    assert_eq!(strip(read(&merged, "results.csv")), strip(read(&whole, "results.csv")));
    // summary.md: each solver's row of solve counts — name, solved/total, share, worst error
    // — with the times (and time ratios) left out.
    let counts = |md: String| -> Vec<String> {
        md.lines()
            .filter_map(|l| {
                let c: Vec<&str> = l.split('|').map(str::trim).collect();
                let is_count = c.len() == 9
                    && c[2]
                        .split_once('/')
                        .is_some_and(|(a, b)| a.parse::<usize>().is_ok() && b.parse::<usize>().is_ok());
                is_count.then(|| [c[1], c[2], c[3], c[6]].join(" | "))
            })
            .collect()
    };
    let (cm, cw) = (counts(read(&merged, "summary.md")), counts(read(&whole, "summary.md")));
    assert!(!cw.is_empty());
    assert_eq!(cm, cw);
    std::fs::remove_dir_all(&work).unwrap();
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn siconos_lcp_suite_gives_the_four_outputs() {
    let dir = perp::formats::suites_dir().join("siconos").join("lcp");
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "dat"))
        .count();
    let out = temp_dir("siconos-lcp");
    let o = bench(&[
        dir.to_str().unwrap(),
        "--solvers",
        "lemke,pgs,bdiff-newton",
        "--time-limit",
        "2",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = assert_four_outputs(&out, 3);
    let v: serde_json::Value = serde_json::from_str(&read(&out, "results.json")).unwrap();
    let unreadable = v["unreadable"].as_array().unwrap().len();
    assert_eq!(csv.lines().count() - 1, 3 * (files - unreadable), "{csv}");
    assert!(csv.contains("\nlcp_deudeu.dat,lcp,2,lemke,solved,"), "{csv}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn siconos_fc3d_suite_gives_the_four_outputs() {
    let dir = perp::formats::suites_dir().join("siconos").join("fc3d");
    let out = temp_dir("siconos-fc3d");
    let o = bench(&[
        dir.to_str().unwrap(),
        "--solvers",
        "nsgs",
        "--tol",
        "1e-4",
        "--time-limit",
        "1",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = assert_four_outputs(&out, 1);
    // The folder's global file (Box_Stacks) is read in its global form: kind gfc3d.
    assert!(csv.lines().skip(1).all(|l| matches!(l.split(',').nth(1), Some("fc3d" | "gfc3d"))), "{csv}");
    assert!(csv.contains("\nBox_Stacks-i0122-82-5.hdf5,gfc3d,246,nsgs,"), "{csv}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// Ctrl-C (SIGINT) stops `perp bench`: exit 130, and the four outputs are written from the
/// runs that finished (at least the one seen in `results.csv` before the signal), marked as
/// interrupted.
#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_writes_what_finished_and_exits_130() {
    let out = temp_dir("sigint");
    let child = perp()
        .args([
            "bench",
            "builtin",
            "--kind",
            "lcp",
            "--solvers",
            "lemke,pgs",
            "--repeat",
            "1000",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the process catches SIGINT (bit 2 of SigCgt in /proc/PID/status), then let it
    // run a little.
    let status = format!("/proc/{}/status", child.id());
    let catches = || {
        std::fs::read_to_string(&status).ok().and_then(|t| {
            let hex = t.lines().find_map(|l| l.strip_prefix("SigCgt:"))?.trim().to_string();
            u64::from_str_radix(&hex, 16).ok()
        })
    };
    let t = std::time::Instant::now();
    while catches().is_none_or(|m| m & 2 == 0) && t.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // `results.csv` grows as problems finish: interrupt once it holds the first (spd-100, the
    // smallest of the LCPs; the others take far longer), so that the outputs written on Ctrl-C
    // must carry it.
    let csv_path = out.join("results.csv");
    let rows = || std::fs::read_to_string(&csv_path).map_or(0, |t| t.lines().count());
    while rows() < 2 && t.elapsed() < std::time::Duration::from_secs(120) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&read(&out, "results.json")).unwrap();
    let why = v["settings"]["interrupted"].as_str().expect("the run is marked as interrupted");
    assert!(why.contains("Ctrl-C"), "{why}");
    assert!(read(&out, "summary.md").contains("**Interrupted:**"));
    // Every record is a finished run (no status 'interrupted' from the cut solves).
    let csv = read(&out, "results.csv");
    assert!(csv.lines().skip(1).all(|l| !l.contains(",interrupted,")), "{csv}");
    assert_eq!(v["records"].as_array().unwrap().len(), csv.lines().count() - 1);
    assert!(csv.lines().count() >= 2, "the run that finished before Ctrl-C is missing: {csv}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// `--max-iter` is a budget that does not depend on the clock: it reaches the solvers and is
/// recorded in results.json.
#[test]
fn max_iter_limits_every_solve_and_is_recorded() {
    let out = temp_dir("maxiter");
    let o = bench(&[
        "builtin",
        "--kind",
        "lcp",
        "--solvers",
        "pgs",
        "--max-iter",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = read(&out, "results.csv");
    assert!(csv.lines().count() > 1, "{csv}");
    for l in csv.lines().skip(1) {
        let iterations: usize = l.split(',').nth(5).unwrap().parse().unwrap();
        assert!(iterations <= 3, "{l}");
    }
    let v: serde_json::Value = serde_json::from_str(&read(&out, "results.json")).unwrap();
    assert_eq!(v["settings"]["max_iter"], 3);
    std::fs::remove_dir_all(&out).unwrap();
}
