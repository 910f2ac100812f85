//! Solver registries: NCP/MCP solvers by name, and the full LCP registry (the perp-lcp
//! solvers plus the NCP solvers seen as LCP solvers).

use crate::bdiff_newton::BdiffNewton;
use crate::fb_newton::FbNewton;
use crate::lcp_adapter::NcpAsLcp;
use crate::NcpSolver;
use perp_core::Error;
use perp_lcp::LcpSolver;

/// The names [`solver`] accepts.
pub const SOLVER_NAMES: &[&str] = &["fb-newton", "bdiff-newton"];

/// Every LCP solver name [`lcp_solver`] accepts: perp-lcp's, then the NCP solvers.
pub const LCP_SOLVER_NAMES: &[&str] =
    &["lemke", "pgs", "psor", "rpgs", "projected-newton", "fb-newton", "bdiff-newton"];

/// An NCP/MCP solver by registry name, with its default knobs.
///
/// ```
/// assert_eq!(perp_ncp::solver("fb-newton").unwrap().name(), "fb-newton");
/// let e = perp_ncp::solver("path").err().unwrap();
/// assert!(e.to_string().contains("valid names: fb-newton, bdiff-newton"));
/// ```
pub fn solver(name: &str) -> Result<Box<dyn NcpSolver>, Error> {
    Ok(match name {
        "fb-newton" => Box::new(FbNewton::new()),
        "bdiff-newton" => Box::new(BdiffNewton::new()),
        _ => return Err(Error::unknown_solver(name, SOLVER_NAMES)),
    })
}

/// Any LCP solver by name: the perp-lcp ones and `fb-newton` / `bdiff-newton` through
/// [`NcpAsLcp`] (sparse M stays sparse: its Jacobian goes to the solver in CSR form).
///
/// ```
/// assert_eq!(perp_ncp::lcp_solver("bdiff-newton").unwrap().name(), "bdiff-newton");
/// assert_eq!(perp_ncp::lcp_solver("lemke").unwrap().name(), "lemke");
/// assert!(perp_ncp::lcp_solver("nope").is_err());
/// ```
pub fn lcp_solver(name: &str) -> Result<Box<dyn LcpSolver>, Error> {
    match name {
        "fb-newton" => Ok(Box::new(NcpAsLcp { inner: FbNewton::new() })),
        "bdiff-newton" => Ok(Box::new(NcpAsLcp { inner: BdiffNewton::new() })),
        _ if perp_lcp::SOLVER_NAMES.contains(&name) => perp_lcp::solver(name),
        _ => Err(Error::unknown_solver(name, LCP_SOLVER_NAMES)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_resolves_to_itself() {
        for name in SOLVER_NAMES {
            assert_eq!(solver(name).unwrap().name(), *name);
        }
        for name in LCP_SOLVER_NAMES {
            assert_eq!(lcp_solver(name).unwrap().name(), *name);
        }
        assert!(perp_lcp::SOLVER_NAMES.iter().all(|n| LCP_SOLVER_NAMES.contains(n)));
    }
}
