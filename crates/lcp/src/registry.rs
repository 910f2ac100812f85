//! The LCP solver registry: solvers by name.

use crate::lemke::Lemke;
use crate::pgs::Pgs;
use crate::projected_newton::ProjectedNewton;
use crate::LcpSolver;
use perp_core::Error;

/// The names [`solver`] accepts, in the order `perp list` shows them.
pub const SOLVER_NAMES: &[&str] = &["lemke", "pgs", "psor", "rpgs", "projected-newton"];

/// A solver by registry name, with its default knobs.
///
/// ```
/// let s = perp_lcp::solver("lemke").unwrap();
/// assert_eq!(s.name(), "lemke");
/// let e = perp_lcp::solver("simplex").err().unwrap();
/// assert!(e.to_string().contains("valid names: lemke, pgs"));
/// ```
pub fn solver(name: &str) -> Result<Box<dyn LcpSolver>, Error> {
    Ok(match name {
        "lemke" => Box::new(Lemke::new()),
        "pgs" | "psor" | "rpgs" => Box::new(Pgs::named(name).expect("a PGS-family name")),
        "projected-newton" => Box::new(ProjectedNewton::new()),
        _ => return Err(Error::unknown_solver(name, SOLVER_NAMES)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_resolves_to_itself() {
        for name in SOLVER_NAMES {
            assert_eq!(solver(name).unwrap().name(), *name);
        }
    }
}
