//! The built-in benchmark suite of `perp bench` ([`builtin_problems`]): seeded problems from the
//! solver crates' `samples` modules (`perp_lcp::samples`, `perp_ncp::samples`,
//! `perp_cones::samples`) and problems harvested from the dynamics scenes.

use crate::bench::{BenchProblem, Instance, NcpInstance};
use perp_cones::samples::friction_contact;
use perp_lcp::samples::{contact, contact_dense, degenerate, fathi, murty, p_matrix, psd, spd};
use perp_lcp::Lcp;
use perp_ncp::samples::mixed;

/// The LCPs of the built-in suite, `(name, problem)` pairs named `<family>-<n>`
/// (`contact-dense-1000` is `contact-1000` in dense storage, to measure what sparse storage
/// buys). All seeds are fixed, so the suite is identical on every machine. [`builtin_problems`]
/// is the whole suite (these plus MLCP, NCP and frictional problems).
///
/// | name | storage | what |
/// |---|---|---|
/// | `spd-100`, `spd-500` | dense | [`spd`] |
/// | `contact-200`, `contact-1000` | sparse | [`contact`] |
/// | `contact-dense-1000` (the matrix of `contact-1000`) | dense | [`contact_dense`] |
/// | `pmatrix-100`, `pmatrix-500` | dense | [`p_matrix`] |
/// | `murty-8`, `murty-10` | dense | [`murty`]; `murty-10` needs 2¹⁰ = 1024 Lemke pivots |
/// | `fathi-16`, `fathi-64` | dense | [`fathi`], ill-conditioned |
/// | `degenerate-60`, `degenerate-300` | dense | [`degenerate`] |
/// | `psd-60` | dense | [`psd`] of rank 30 (may have no solution) |
///
/// ```
/// let suite = perp_bench::builtin::builtin_suite();
/// assert!(suite.iter().any(|(name, p)| name == "contact-200" && p.m().is_sparse()));
/// assert!(suite.iter().any(|(name, p)| name == "spd-100" && !p.m().is_sparse()));
/// ```
pub fn builtin_suite() -> Vec<(String, Lcp)> {
    vec![
        ("spd-100".to_string(), spd(100, 1)),
        ("spd-500".to_string(), spd(500, 2)),
        ("contact-200".to_string(), contact(200, 3)),
        ("contact-1000".to_string(), contact(1000, 4)),
        ("contact-dense-1000".to_string(), contact_dense(1000, 4)),
        ("pmatrix-100".to_string(), p_matrix(100, 6)),
        ("pmatrix-500".to_string(), p_matrix(500, 7)),
        ("murty-8".to_string(), murty(8)),
        ("murty-10".to_string(), murty(10)),
        ("fathi-16".to_string(), fathi(16)),
        ("fathi-64".to_string(), fathi(64)),
        ("degenerate-60".to_string(), degenerate(60, 8)),
        ("degenerate-300".to_string(), degenerate(300, 9)),
        ("psd-60".to_string(), psd(60, 30, 10)),
    ]
}

/// The whole built-in suite of `perp bench`, every problem with its name and kind; the LCPs
/// of [`builtin_suite`], then:
///
/// | name | kind | what |
/// |---|---|---|
/// | `mlcp-spd-100` | mlcp | [`mixed`]`(100, 30, 11)`: 30 equality rows |
/// | `kojima-shindo`, `josephy`, `nash-cournot`, … | ncp | every [`perp_ncp::samples::all`] sample, from its first standard start |
/// | `fc3d-contact-40`, `fc3d-contact-200` | fc3d | [`friction_contact`]`(3, ·)`: 40 and 200 contacts (n = 120, 600) |
/// | `fc2d-contact-60` | fc2d | [`friction_contact`]`(2, 60, ·)` (n = 120) |
///
/// Sizes keep `cargo run --release -- bench` (every applicable solver, default time limit)
/// well under a minute on two cores. To add problems (e.g. scenes from `perp-dynamics`, which
/// this crate may not depend on), extend the returned vector with more [`BenchProblem`]s:
///
/// ```
/// use perp_bench::bench::{BenchProblem, Instance};
/// let mut suite = perp_bench::builtin::builtin_problems();
/// suite.push(BenchProblem::new("my-lcp", Instance::Lcp(perp_lcp::samples::spd(5, 1))));
/// assert!(suite.iter().any(|p| p.name == "fc3d-contact-40" && p.kind == "fc3d"));
/// assert!(suite.iter().any(|p| p.name == "josephy" && p.kind == "ncp"));
/// ```
pub fn builtin_problems() -> Vec<BenchProblem> {
    let mut v = generated_problems();
    v.extend(scene_problems());
    v
}

/// The built-in problem named `name` (one of [`builtin_problems`], or an NCP sample of
/// [`perp_ncp::samples::extended`] from its first start), built alone: a harvested scene
/// problem runs only its own scene. `None` for a name that is not built in.
///
/// ```
/// let p = perp_bench::builtin::builtin_problem("fc3d-contact-40").unwrap();
/// assert_eq!((p.kind.as_str(), p.problem.n()), ("fc3d", 120));
/// assert!(perp_bench::builtin::builtin_problem("fc3d-contact-41").is_none());
/// assert_eq!(perp_bench::builtin::builtin_problem("billups").unwrap().kind, "ncp");
/// ```
pub fn builtin_problem(name: &str) -> Option<BenchProblem> {
    if let Some(p) = generated_problems().into_iter().find(|p| p.name == name) {
        return Some(p);
    }
    // The NCP samples outside the bench suite (`perp_ncp::samples::extended`).
    if let Some(p) = NcpInstance::sample(name) {
        return Some(BenchProblem::new(name, Instance::Ncp(p)));
    }
    SCENES
        .iter()
        .filter(|s| name.starts_with(&format!("{}-t", scene_label(s))))
        .map(scene_problem)
        .find(|p| p.name == name)
}

/// The built-in problems that are generated, not harvested from scenes.
fn generated_problems() -> Vec<BenchProblem> {
    let mut v: Vec<BenchProblem> =
        builtin_suite().into_iter().map(|(name, p)| BenchProblem::new(&name, Instance::Lcp(p))).collect();
    v.push(BenchProblem::new("mlcp-spd-100", Instance::Mlcp(mixed(100, 30, 11))));
    for s in perp_ncp::samples::all() {
        if let Some(p) = NcpInstance::sample(s.name) {
            v.push(BenchProblem::new(s.name, Instance::Ncp(p)));
        }
    }
    v.push(BenchProblem::new("fc3d-contact-40", Instance::Friction(friction_contact(3, 40, 12))));
    v.push(BenchProblem::new("fc3d-contact-200", Instance::Friction(friction_contact(3, 200, 13))));
    v.push(BenchProblem::new("fc2d-contact-60", Instance::Friction(friction_contact(2, 60, 14))));
    v
}

/// The scenes harvested: (scene, size, steps, every).
type SceneSpec = (&'static str, Option<usize>, usize, usize);
const SCENES: &[SceneSpec] =
    &[("woodpecker", None, 3000, 1), ("ball-pile", Some(60), 120, 10), ("box-stack", Some(6), 60, 10)];

/// `ball-pile-60`, `woodpecker`: the start of a harvested problem's name.
fn scene_label(&(name, size, _, _): &SceneSpec) -> String {
    match size {
        Some(n) => format!("{name}-{n}"),
        None => name.to_string(),
    }
}

/// Contact problems harvested from the dynamics scenes (`perp_dynamics::scenes::harvest`): the
/// largest problem met in the first steps of each scene, as the LCP its formulation solves
/// (the woodpecker's Glocker–Studer LCP, Glocker–Studer 2005 eq. 33) or as the frictional contact problem
/// (ball pile, box stack). Deterministic: the scenes are.
pub fn scene_problems() -> Vec<BenchProblem> {
    SCENES.iter().map(scene_problem).collect()
}

/// One scene's harvested problem, named `{label}-t{time}-{kind}`.
fn scene_problem(spec: &SceneSpec) -> BenchProblem {
    use perp_dynamics::{assembly, scenes, Formulation};
    let &(name, size, steps, every) = spec;
    // A scene that fails to run or to pose its problem is a bug of perp's, never a reason for
    // the built-in suite to shrink in silence: it stops the run with the scene's name.
    let fail =
        |what: &str, e: &dyn std::fmt::Display| -> ! { panic!("built-in suite: scene {name} {what}: {e}") };
    let scene = scenes::scene(name, size).unwrap_or_else(|e| fail("is unknown", &e));
    let problems =
        scenes::harvest(scene.as_ref(), steps, every).unwrap_or_else(|e| fail("failed to run", &e));
    let Some((t, p)) = problems.into_iter().max_by_key(|(_, p)| p.size()) else {
        fail("posed no contact problem", &format!("{steps} steps"))
    };
    let inst = match scene.default_options().formulation {
        Formulation::GlockerStuder => assembly::glocker_studer_lcp(&p).map(Instance::Lcp),
        _ => p.friction_problem().map(Instance::Friction),
    }
    .unwrap_or_else(|e| fail("posed a problem that is not valid", &e));
    let kind = inst.kind_name();
    BenchProblem::new(&format!("{}-t{t:.3}-{kind}", scene_label(spec)), inst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_suite_names_are_unique_and_storages_mixed() {
        let s = builtin_suite();
        let mut names: Vec<&str> = s.iter().map(|(n, _)| n.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), s.len());
        assert!(s.iter().any(|(_, p)| p.m().is_sparse()) && s.iter().any(|(_, p)| !p.m().is_sparse()));
        for (name, p) in &s {
            let size: usize = name.rsplit('-').next().unwrap().parse().unwrap();
            assert_eq!(p.n(), size, "{name}");
        }
    }

    #[test]
    fn builtin_problems_cover_every_kind_with_unique_names() {
        let all = builtin_problems();
        let mut names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for kind in ["lcp", "mlcp", "ncp", "fc2d", "fc3d"] {
            assert!(all.iter().any(|p| p.kind == kind), "{kind}");
        }
        for p in &all {
            assert_eq!(p.kind, p.problem.kind_name(), "{}", p.name);
            if let Some(c) = p.name.strip_prefix("fc3d-contact-").or(p.name.strip_prefix("fc2d-contact-")) {
                let dim: usize = p.name[2..3].parse().unwrap();
                assert_eq!(p.problem.n(), dim * c.parse::<usize>().unwrap(), "{}", p.name);
            } else if let Ok(size) = p.name.rsplit('-').next().unwrap().parse::<usize>() {
                assert_eq!(p.problem.n(), size, "{}", p.name);
            }
        }
        assert_eq!(all.iter().filter(|p| p.kind == "ncp").count(), perp_ncp::samples::all().len());
        // The README's count: 22 generated problems and one harvested from each of 3 scenes
        // (a scene that fails to run stops the suite; it cannot shrink in silence).
        let harvested = all.iter().filter(|p| p.name.contains("-t")).count();
        assert_eq!((all.len(), harvested), (25, 3));
    }
}
