//! # perp-catalogue — every solver declared once
//!
//! The layer between the solver crates (`perp-lcp`, `perp-ncp`, `perp-cones`) and everything
//! that picks a solver by name: the facade's `perp::lcp::solver`, `perp::ncp::solver` and
//! `perp::cones::solver`, `perp list`, `perp solve`, the bench runner and the time stepper.
//!
//! * [`ENTRIES`] declares each solver once: name, [`Family`] of problems, one-line summary,
//!   the paper and equation it implements, its [`Param`]s with defaults and valid ranges, and
//!   its builder; those two come from the solver's own `params` module, beside the solver.
//!   [`LCP_NAMES`], [`MCP_NAMES`] and [`FRICTION_NAMES`] are derived from it at compile time.
//! * [`Problem`] is the one enum of problems (LCP, MLCP, NCP/MCP, frictional contact in local
//!   and global form); [`build`] makes a [`Solver`] by family and name, and [`Solver::solve`]
//!   solves any problem of its family: the one dispatch.
//! * A name of another family is an error saying which family it belongs to and listing the
//!   valid names for the one asked ("nsgs is a frictional-contact solver; for an LCP use one
//!   of …"), a name no solver has lists them too, and [`family_of`] finds the family of an
//!   unambiguous name (`lemke`; not `fb-newton`, which has three); a parameter out of
//!   its range is an error naming the solver, the parameter, the value and the valid values.
//!
//! ```
//! use perp_catalogue::{build, entry, Family, Params};
//! let e = entry(Family::Lcp, "psor")?;
//! assert_eq!(e.params[0].name, "omega");
//! let s = build(Family::Lcp, "psor", &Params::new().set("omega", 1.5))?;
//! assert_eq!(s.name(), "psor");
//! # Ok::<(), perp_core::Error>(())
//! ```
#![warn(missing_docs)]

mod chain;
mod dispatch;
mod entries;
mod params;
mod problem;

pub use chain::{run_chain, solve_chain};
pub use dispatch::{build, friction_solver, lcp_solver, mcp_solver, solve, Answer, Solver};
pub use entries::{
    all_names, entry, families_of, family_of, names, not_in_family, Build, Entry, Family, ENTRIES,
    FRICTION_NAMES, GLOBAL_NAMES, GLOBAL_PROBLEM_NAMES, LCP_NAMES, MCP_NAMES,
};
pub use params::{Bound, Param, ParamKind, Params, Resolved};
pub use problem::{NcpInstance, Problem, ProblemKind};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_builds_with_its_defaults_and_reports_its_name() {
        for e in ENTRIES {
            let s = build(e.family, e.name, &Params::new()).unwrap();
            assert_eq!(s.name(), e.name, "{:?}", e.family);
            assert_eq!(s.family(), e.family);
            assert!(!e.summary.is_empty() && !e.citation.is_empty(), "{}", e.name);
        }
    }

    #[test]
    fn summaries_and_citations_name_papers_not_the_seed_files() {
        // `perp list` prints them; a user knows "Moreau 1988", not the project's file numbers.
        for e in ENTRIES {
            for text in [e.summary, e.citation] {
                assert!(!text.contains("seed 0"), "{}: {text}", e.name);
            }
        }
    }

    #[test]
    fn names_are_unique_within_a_family_and_derived_lists_match() {
        for f in Family::ALL {
            let from_entries: Vec<&str> = ENTRIES.iter().filter(|e| e.family == f).map(|e| e.name).collect();
            // A family's names are its local-form entries; the global-form ones follow them in
            // a global problem's list.
            let local: Vec<&str> = ENTRIES
                .iter()
                .filter(|e| e.family == f && !matches!(e.build, Build::Global(_)))
                .map(|e| e.name)
                .collect();
            assert_eq!(names(f), local.as_slice());
            for (i, n) in from_entries.iter().enumerate() {
                assert!(!from_entries[i + 1..].contains(n), "{n} twice in {f:?}");
            }
        }
        assert_eq!(
            LCP_NAMES,
            ["lemke", "pgs", "psor", "rpgs", "projected-newton", "fb-newton", "bdiff-newton"]
        );
        assert_eq!(MCP_NAMES, ["fb-newton", "bdiff-newton", "schur-lemke"]);
        assert_eq!(
            FRICTION_NAMES,
            ["nsgs", "ac-newton", "fb-newton", "nm-newton", "prox", "lemke-pyramid", "admm", "apgd"]
        );
        assert_eq!(GLOBAL_NAMES, ["global-ac-newton", "global-ipm"]);
        assert_eq!(GLOBAL_PROBLEM_NAMES, [FRICTION_NAMES, GLOBAL_NAMES].concat().as_slice());
    }

    #[test]
    fn unknown_names_list_the_family() {
        let e = friction_solver("lemke").err().unwrap().to_string();
        assert_eq!(
            e,
            "lemke is an LCP solver; for a frictional-contact problem use one of \
             nsgs, ac-newton, fb-newton, nm-newton, prox, lemke-pyramid, admm, apgd"
        );
        let e = mcp_solver("nsgs").err().unwrap().to_string();
        assert_eq!(e, "nsgs is a frictional-contact solver; for an MCP/NCP/MLCP use one of fb-newton, bdiff-newton, schur-lemke");
        // A name of two other families names both.
        let e = friction_solver("bdiff-newton").err().unwrap().to_string();
        assert!(e.starts_with("bdiff-newton is an LCP and an MCP/NCP/MLCP solver; for a frictional"), "{e}");
        // A name no family has is unknown, and lists the family asked for.
        let e = mcp_solver("nope").err().unwrap().to_string();
        assert_eq!(e, "unknown solver 'nope'; valid names: fb-newton, bdiff-newton, schur-lemke");
    }

    #[test]
    fn an_unambiguous_name_has_one_family() {
        for e in ENTRIES {
            let families = families_of(e.name);
            assert!(families.contains(&e.family));
            assert_eq!(family_of(e.name), (families.len() == 1).then_some(e.family), "{}", e.name);
        }
        assert_eq!(family_of("schur-lemke"), Some(Family::Mcp));
        assert_eq!(families_of("bdiff-newton"), [Family::Lcp, Family::Mcp]);
        assert_eq!(family_of("nope"), None);
    }

    #[test]
    fn a_solver_refuses_a_problem_of_another_family() {
        let lcp =
            perp_lcp::Lcp::new(perp_core::Matrix::from_row_major(1, 1, &[1.0]).unwrap(), vec![-1.0]).unwrap();
        let mut s = build(Family::Friction, "nsgs", &Params::new()).unwrap();
        let e = s.solve(&Problem::Lcp(lcp), None, &perp_core::Settings::default()).unwrap_err().to_string();
        assert!(e.starts_with("nsgs is a frictional-contact solver; for an LCP use one of lemke"), "{e}");
    }

    #[test]
    fn solve_into_answers_as_solve_bit_for_bit_on_kept_buffers() {
        use perp_core::{Matrix, Settings};
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let lcp = |k: f64| {
            let m = Matrix::from_row_major(3, 3, &[4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0]).unwrap();
            Problem::Lcp(perp_lcp::Lcp::new(m, vec![-1.0 - k, 0.5, -2.0 + k]).unwrap())
        };
        let fc = |k: f64| {
            let w = Matrix::from_row_major(3, 3, &[1.0, 0.1, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
            Problem::Friction(
                perp_cones::FrictionContactProblem::new(3, w, vec![-1.0 - k, 0.5, 0.2], vec![0.3]).unwrap(),
            )
        };
        let s = Settings { tol: 1e-12, ..Settings::default() };
        for (family, name, make) in [
            (Family::Lcp, "lemke", &lcp as &dyn Fn(f64) -> Problem),
            (Family::Lcp, "pgs", &lcp),
            (Family::Friction, "nsgs", &fc),
            (Family::Friction, "prox", &fc),
        ] {
            let mut kept = build(family, name, &Params::new()).unwrap();
            let mut a = Answer::empty();
            for k in 0..3 {
                let p = make(k as f64 * 0.25);
                kept.solve_into(&p, false, &mut a, &s).unwrap();
                let fresh = build(family, name, &Params::new()).unwrap().solve(&p, None, &s).unwrap();
                assert_eq!((bits(&a.z), bits(&a.w)), (bits(&fresh.z), bits(&fresh.w)), "{name} call {k}");
                assert_eq!(
                    (a.report.status, a.report.iterations),
                    (fresh.report.status, fresh.report.iterations)
                );
                assert_eq!(a.report.error.to_bits(), fresh.report.error.to_bits(), "{name} call {k}");
            }
        }
        // Another family's problem is refused, as by `solve`.
        let mut nsgs = build(Family::Friction, "nsgs", &Params::new()).unwrap();
        let e = nsgs.solve_into(&lcp(0.0), false, &mut Answer::empty(), &s).unwrap_err().to_string();
        assert!(e.starts_with("nsgs is a frictional-contact solver; for an LCP"), "{e}");
    }
}
