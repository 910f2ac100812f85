//! Every entry's parameter list and constructor against its solver's own defaults: building
//! from the defaults gives the solver's `new()` (so a default written in the list cannot drift
//! from the solver's), and every parameter set to another value changes what is built (so a
//! constructor cannot ignore a parameter it declares).

use super::*;
use crate::params::{ParamKind, Params};
use std::fmt::Debug;

fn debug(x: impl Debug) -> String {
    format!("{x:?}")
}

/// The entry's list as its solver's module exports it, what the solver's typed constructor
/// builds from `p` and the solver's own default (`new()` or the named constructor the entry
/// stands for), both as `Debug` text. An entry added without a row here fails the tests.
fn typed(e: &Entry, p: &Resolved) -> (&'static [Param], String, String) {
    use perp_cones::lemke_pyramid::LemkePyramid;
    match (e.family, e.name) {
        (Family::Lcp, "lemke") => (lemke::params::PARAMS, debug(Lemke::from_params(p)), debug(Lemke::new())),
        (Family::Lcp, "pgs") => (pgs::params::PGS_PARAMS, debug(Pgs::from_params(p)), debug(Pgs::pgs())),
        (Family::Lcp, "psor") => {
            (pgs::params::PSOR_PARAMS, debug(Pgs::from_params(p)), debug(Pgs::psor(pgs::DEFAULT_PSOR_OMEGA)))
        }
        (Family::Lcp, "rpgs") => {
            (pgs::params::RPGS_PARAMS, debug(Pgs::from_params(p)), debug(Pgs::rpgs(pgs::DEFAULT_RPGS_RHO)))
        }
        (Family::Lcp, "projected-newton") => (
            projected_newton::params::PARAMS,
            debug(ProjectedNewton::from_params(p)),
            debug(ProjectedNewton::new()),
        ),
        (Family::Lcp | Family::Mcp, "fb-newton") => {
            (fb_newton::params::PARAMS, debug(FbNewton::from_params(p)), debug(FbNewton::new()))
        }
        (Family::Lcp | Family::Mcp, "bdiff-newton") => {
            (bdiff_newton::params::PARAMS, debug(BdiffNewton::from_params(p)), debug(BdiffNewton::new()))
        }
        (Family::Mcp, "schur-lemke") => {
            (schur_lemke::params::PARAMS, debug(SchurLemke::from_params(p)), debug(SchurLemke::new()))
        }
        (Family::Friction, "nsgs") => (nsgs::params::PARAMS, debug(Nsgs::from_params(p)), debug(Nsgs::new())),
        (Family::Friction, "ac-newton") => (
            newton::params::PARAMS,
            debug(SemismoothNewton::from_params(NewtonFunction::AlartCurnier, p)),
            debug(SemismoothNewton::alart_curnier()),
        ),
        (Family::Friction, "fb-newton") => (
            newton::params::PARAMS,
            debug(SemismoothNewton::from_params(NewtonFunction::FischerBurmeister, p)),
            debug(SemismoothNewton::fischer_burmeister()),
        ),
        (Family::Friction, "nm-newton") => (
            newton::params::PARAMS,
            debug(SemismoothNewton::from_params(NewtonFunction::NaturalMap, p)),
            debug(SemismoothNewton::natural_map()),
        ),
        (Family::Friction, "prox") => (prox::params::PARAMS, debug(Prox::from_params(p)), debug(Prox::new())),
        (Family::Friction, "lemke-pyramid") => {
            (lemke_pyramid::params::PARAMS, debug(LemkePyramid::from_params(p)), debug(LemkePyramid::new()))
        }
        (Family::Friction, "admm") => (admm::params::PARAMS, debug(Admm::from_params(p)), debug(Admm::new())),
        (Family::Friction, "apgd") => (apgd::params::PARAMS, debug(Apgd::from_params(p)), debug(Apgd::new())),
        (Family::Friction, "global-ac-newton") => {
            (global_newton::params::PARAMS, debug(GlobalNewton::from_params(p)), debug(GlobalNewton::new()))
        }
        (Family::Friction, "global-ipm") => {
            (global_ipm::params::PARAMS, debug(GlobalIpm::from_params(p)), debug(GlobalIpm::new()))
        }
        (f, name) => panic!("{name} ({f:?}): add its solver's constructor and default to this test"),
    }
}

#[test]
fn every_entry_built_from_its_defaults_is_its_solvers_default() {
    for e in ENTRIES {
        let (list, built, own) = typed(e, &Params::new().resolve(e.name, e.params).unwrap());
        assert_eq!(e.params, list, "{} ({:?}): the entry's list is not its solver's", e.name, e.family);
        assert_eq!(built, own, "{} ({:?}): built from the defaults ≠ the solver's own", e.name, e.family);
    }
}

/// A valid value of `p` other than its default, as text.
fn other_value(p: &'static Param) -> String {
    match p.kind {
        ParamKind::Real { default, .. } => {
            let accepted = |v: f64| {
                v != default
                    && Resolved::defaults(std::slice::from_ref(p)).set("", p.name, &v.to_string()).is_ok()
            };
            let v = [default * 0.5, default + 0.5, default * 2.0, default + 1.0]
                .into_iter()
                .find(|&v| accepted(v));
            v.unwrap_or_else(|| panic!("{}: no other value found", p.name)).to_string()
        }
        ParamKind::OptionalReal { .. } => {
            let accepted =
                |v: f64| Resolved::defaults(std::slice::from_ref(p)).set("", p.name, &v.to_string()).is_ok();
            let v = [1.0, 0.5, 2.0, -1.0].into_iter().find(|&v| accepted(v));
            v.unwrap_or_else(|| panic!("{}: no value found", p.name)).to_string()
        }
        ParamKind::Int { default, max, .. } => {
            (if default < max { default + 1 } else { default - 1 }).to_string()
        }
        ParamKind::Flag { default } => (!default).to_string(),
        ParamKind::Choice { default, options } => options
            .iter()
            .find(|&&o| o != default)
            .unwrap_or_else(|| panic!("{}: one option", p.name))
            .to_string(),
    }
}

#[test]
fn every_parameter_changes_what_its_entry_builds() {
    for e in ENTRIES {
        for p in e.params {
            let value = other_value(p);
            let resolved = Params::new().set(p.name, &value).resolve(e.name, e.params).unwrap();
            let (_, built, own) = typed(e, &resolved);
            assert_ne!(built, own, "{} ({:?}): {}={value} is ignored", e.name, e.family, p.name);
            // And through the catalogue: it builds (a constructor reading an undeclared name
            // panics).
            crate::build(e.family, e.name, &Params::new().set(p.name, &value)).unwrap();
        }
    }
}
