//! NCP solvers as LCP solvers: an LCP (or box-LCP) is the MCP with F(z) = Mz + q and bounds
//! [0, ∞) (or [lo, hi]); [`NcpAsLcp`] solves it with any [`NcpSolver`] and scores the answer
//! with the LCP measure (Siconos' ‖min(z, w)‖₂/‖q‖₂).

use crate::{AffineFunction, Mcp, NcpSolver};
use perp_core::{measures, Error, Settings, Solution};
use perp_lcp::{Lcp, LcpSolver};

/// An [`NcpSolver`] seen as an [`LcpSolver`]. The inner solver's tolerance is scaled by
/// ‖q‖₂ (the LCP measure is relative, the NCP one absolute) and the returned point is
/// re-scored through [`Lcp::solution`], so `Solved` still means LCP error ≤ tol.
pub struct NcpAsLcp<S: NcpSolver> {
    /// The NCP solver.
    pub inner: S,
}

impl<S: NcpSolver> LcpSolver for NcpAsLcp<S> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn forget(&mut self) {
        self.inner.forget();
    }

    fn solve(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
        s.validate()?;
        p.check_warm(warm)?;
        let f = AffineFunction::from_lcp(p);
        let mcp = match p.bounds() {
            Some((lo, hi)) => Mcp::new(&f, lo.to_vec(), hi.to_vec())?,
            None => Mcp::ncp(&f),
        };
        let z0 = warm.map_or_else(|| vec![0.0; p.n()], <[f64]>::to_vec);
        let qn = measures::norm2(p.q());
        let inner = Settings { tol: if qn > f64::EPSILON { s.tol * qn } else { s.tol }, ..s.clone() };
        let sol = self.inner.solve(&mcp, &z0, &inner)?;
        let mut report = sol.report;
        report.solver = self.name().to_string();
        // `Mcp::solution` has already projected z onto the bounds.
        Ok(p.solution(sol.z, report, s.tol))
    }
}
