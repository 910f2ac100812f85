//! The KKT system reduced to the velocities: `S = M + H̃ (W² + δI)⁻¹ H̃ᵀ`, symmetric positive
//! definite with the sparsity of the body graph (M's pattern and one clique per contact, as
//! SAP's Newton matrix), factored by a supernodal Cholesky.
//!
//! Eliminating Δz from the second block row of the KKT system (module docs) gives
//!
//! ```text
//!     S Δv = r₁ − H̃ B⁻¹ r₂,     Δz = −B⁻¹ (r₂ + H̃ᵀ Δv),     B = W² + δI,
//! ```
//!
//! the normal equations of interior-point methods (Vandenberghe 2010 §5; Andersen, Roos &
//! Terlaky 2003 for second-order cones). S is a third of the quasi-definite matrix's order on
//! contact problems (three cone rows per contact against six velocities per body), and its
//! factor is one dense block per supernode: on `ball-pile 1000` its factorization took a tenth
//! of the quasi-definite `LDLᵀ`'s, whose columns faer factors one by one. As W² grows
//! ill-conditioned near the answer (B⁻¹ is taken in closed form, [`Nt::w2_reg_inv`], not by inverting B), the
//! iterative refinement against the unreduced,
//! unregularized KKT matrix ([`super::Kkt::refine`]) keeps the directions' accuracy.

use super::*;
use crate::body_graph::BodyGraph;

/// Kept storage for S's values and the cones' `B⁻¹`; S's pattern is the body graph kept in
/// [`Factors`] across problems ([`BodyGraph::update`]).
pub(super) struct Reduced {
    pub(super) values: Vec<f64>,
    /// The cones' `B⁻¹`, p × p row-major each, at [`BodyGraph::block`].
    ginv: Vec<f64>,
    /// Kept storage for the clique products and the ordered right-hand side.
    pub(super) t: Vec<f64>,
}

impl Reduced {
    /// S's storage for the problem, `graph` made its body graph.
    pub(super) fn new(g: &GlobalFrictionContactProblem, lay: &Layout, graph: &mut BodyGraph) -> Reduced {
        graph.update(&g.m, lay.n, &lay.cones, lay);
        let ginv = vec![0.0; graph.g_len()];
        Reduced { values: Vec::new(), ginv, t: Vec::new() }
    }

    /// Fills S for the cones' `B⁻¹` (`ginv(c, p, out)` writes cone c's) and `M + reg_m I`.
    pub(super) fn fill(
        &mut self,
        graph: &BodyGraph,
        lay: &Layout,
        ginv: &impl Fn(usize, usize, &mut [f64]),
        reg_m: f64,
    ) {
        for c in 0..lay.cones.len() {
            let (p, start) = graph.block(c);
            ginv(c, p, &mut self.ginv[start..start + p * p]);
        }
        graph.fill(&self.ginv, &mut self.values, &mut self.t);
        for &k in &graph.diag {
            self.values[k] += reg_m;
        }
    }

    /// `y = B_c⁻¹ x` for cone c's rows.
    pub(super) fn apply_ginv(&self, graph: &BodyGraph, c: usize, x: &[f64], y: &mut [f64]) {
        let (p, start) = graph.block(c);
        let gi = &self.ginv[start..start + p * p];
        for a in 0..p {
            y[a] = (0..p).map(|b| gi[a * p + b] * x[b]).sum();
        }
    }
}
