//! The frictional contact solvers by name.

use crate::lemke_pyramid::LemkePyramid;
use crate::newton::SemismoothNewton;
use crate::nsgs::Nsgs;
use crate::prox::Prox;
use crate::FrictionSolver;
use perp_core::Error;

/// The names [`solver`] accepts.
pub const SOLVER_NAMES: &[&str] = &["nsgs", "ac-newton", "fb-newton", "prox", "lemke-pyramid"];

/// A frictional contact solver by registry name, with its default knobs.
///
/// ```
/// assert_eq!(perp_cones::solver("nsgs").unwrap().name(), "nsgs");
/// let e = perp_cones::solver("path").err().unwrap();
/// assert!(e.to_string().contains("valid names: nsgs, ac-newton"));
/// ```
pub fn solver(name: &str) -> Result<Box<dyn FrictionSolver>, Error> {
    Ok(match name {
        "nsgs" => Box::new(Nsgs::new()),
        "ac-newton" => Box::new(SemismoothNewton::alart_curnier()),
        "fb-newton" => Box::new(SemismoothNewton::fischer_burmeister()),
        "prox" => Box::new(Prox::new()),
        "lemke-pyramid" => Box::new(LemkePyramid::new()),
        _ => return Err(Error::unknown_solver(name, SOLVER_NAMES)),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_listed_name_resolves_to_itself() {
        for name in super::SOLVER_NAMES {
            assert_eq!(super::solver(name).unwrap().name(), *name);
        }
    }
}
