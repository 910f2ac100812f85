//! What a Newton solver keeps between calls: the structure of the problem (W's blocks, the
//! cones, FB's Lorentz maps, the linear solver's storage) and the iteration vectors.

use super::dense::{fill_dense, DenseJ};
use super::sparse::SparseJ;
use super::{
    LinearSolver, NewtonFunction, SemismoothNewton, AUTO_MAX_FLOPS, AUTO_MIN_N, DENSE_MAX_N, DENSE_MAX_N_FB,
};
use crate::cone::{ConeSpec, SocMap};
use crate::delassus::Blocks;
use crate::problem::{opaque_workspace, ConeCache, FrictionContactProblem};
use perp_core::line_search::NonMonotone;
use perp_core::Error;

/// The Newton matrix's storage and solver.
pub(super) enum Linear {
    Dense(Box<DenseJ>),
    Sparse(Box<SparseJ>),
}

/// What a [`SemismoothNewton`] (or [`crate::Prox`]) keeps between calls: what depends on the
/// problem's structure, and the iteration vectors' storage. Opaque; `Workspace::default()` is
/// empty (the next solve prepares afresh), and a clone is empty.
#[derive(Default)]
pub struct Workspace {
    pub(super) blocks: Option<Blocks>,
    pub(super) cones: ConeCache,
    /// FB: the Lorentz-cone map of every built-in contact with μ > 0 (`None` otherwise: the
    /// cone's own `fischer_burmeister` is called), and the μ (bits) it was built for.
    pub(super) maps: Vec<Option<SocMap>>,
    pub(super) map_mu: Vec<u64>,
    pub(super) linear: Option<Linear>,
    pub(super) rho: Vec<(f64, f64)>,
    pub(super) vectors: Vectors,
    pub(super) merit_memory: NonMonotone,
}

opaque_workspace!(Workspace);

/// The iteration vectors of a solve: owned by its [`super::method::Method`] while it runs, kept
/// in the [`Workspace`] between calls so that a solve of the same size allocates nothing.
#[derive(Default)]
pub(super) struct Vectors {
    /// The iterate, its velocities `u = W r + q` (shifted in prox mode when Φ is evaluated),
    /// and Φ at it.
    pub(super) r: Vec<f64>,
    pub(super) u: Vec<f64>,
    pub(super) phi: Vec<f64>,
    /// `∂Φ/∂r` and `∂Φ/∂u` at r, one `d × d` block per contact.
    pub(super) jr: Vec<f64>,
    pub(super) ju: Vec<f64>,
    /// `jr + σ ju`: the blocks the Newton matrix `jr_eff + ju W` is assembled from.
    pub(super) jr_eff: Vec<f64>,
    /// The line search's last trial point, its u, Φ and (for the full step) Jacobian blocks.
    pub(super) trial: Vec<f64>,
    pub(super) trial_u: Vec<f64>,
    pub(super) trial_phi: Vec<f64>,
    pub(super) trial_jr: Vec<f64>,
    pub(super) trial_ju: Vec<f64>,
    /// The Newton direction Δ.
    pub(super) dir: Vec<f64>,
    /// The iterate with the smallest error so far.
    pub(super) best: Vec<f64>,
    /// `J Δ` and `W Δ`, for the direction's residual check.
    pub(super) jd: Vec<f64>,
    pub(super) wd: Vec<f64>,
    /// Prox mode's centre and best inner iterate (lent to its state while it lives).
    pub(super) r_ref: Vec<f64>,
    pub(super) r_inner: Vec<f64>,
}

impl Vectors {
    /// Sizes the vectors for `r0.len()` unknowns in contacts of dimension `d`: r = r0, the
    /// best iterate empty, the others zero (no allocation once their capacities suffice).
    pub(super) fn start(&mut self, r0: &[f64], d: usize) {
        let n = r0.len();
        self.r.clear();
        self.r.extend_from_slice(r0);
        self.best.clear();
        for (v, len) in [
            (&mut self.u, n),
            (&mut self.phi, n),
            (&mut self.jr, n * d),
            (&mut self.ju, n * d),
            (&mut self.jr_eff, n * d),
            (&mut self.trial, n),
            (&mut self.trial_u, n),
            (&mut self.trial_phi, n),
            (&mut self.trial_jr, n * d),
            (&mut self.trial_ju, n * d),
            (&mut self.dir, n),
            (&mut self.jd, n),
            (&mut self.wd, n),
        ] {
            v.clear();
            v.resize(len, 0.0);
        }
    }
}

impl Workspace {
    /// FB: the Lorentz-cone maps of the built-in laws, rebuilt where the law or μ changed
    /// (`rebuilt`: the cones were); a contact with friction and no map is refused.
    pub(super) fn prepare_maps(
        &mut self,
        opts: &SemismoothNewton,
        p: &FrictionContactProblem,
        rebuilt: bool,
    ) -> Result<(), Error> {
        let nc = p.contacts();
        if rebuilt || self.maps.len() != nc {
            self.maps.clear();
            self.maps.resize(nc, None);
            self.map_mu.clear();
            self.map_mu.resize(nc, f64::NAN.to_bits());
        }
        for (i, c) in self.cones.cones.iter().enumerate() {
            let mu = p.mu[i];
            let custom = matches!(&p.cones, Some(specs) if matches!(specs[i], ConeSpec::Custom(_)));
            if self.map_mu[i] != mu.to_bits() {
                self.maps[i] = if mu > 0.0 && !custom { c.soc_map(mu) } else { None };
                self.map_mu[i] = mu.to_bits();
            }
            let has_map = if custom { c.soc_map(mu).is_some() } else { self.maps[i].is_some() };
            if mu > 0.0 && !has_map {
                return Err(Error::Requirement {
                    solver: opts.name.into(),
                    requirement: format!(
                        "ellipsoidal cones (a map to the Lorentz cone); contact {i} is {}",
                        c.name()
                    ),
                    suggestion: Some("use ac-newton or nsgs".into()),
                });
            }
        }
        Ok(())
    }

    /// W's blocks and the Newton matrix's storage for `p` (kept while the sizes and W's
    /// pattern are), dense or sparse by [`SemismoothNewton::sparse`]'s rule, with the automatic
    /// choice between the sparse LU and BiCGSTAB. True when sparse.
    pub(super) fn prepare_linear(&mut self, opts: &SemismoothNewton, p: &FrictionContactProblem) -> bool {
        let (n, d) = (p.size(), p.dim);
        let new_pattern = Blocks::refresh(&mut self.blocks, &p.w, d);
        let Some(blocks) = &self.blocks else { unreachable!("refresh fills the slot") };
        let dense_max =
            if opts.function == NewtonFunction::FischerBurmeister { DENSE_MAX_N_FB } else { DENSE_MAX_N };
        let sparse = opts.sparse.unwrap_or_else(|| {
            opts.linear == LinearSolver::Iterative
                || (n > dense_max && (p.w.is_sparse() || (p.w.nnz() as f64) < 0.3 * (n * n) as f64))
        });
        if sparse {
            // The pattern and symbolic LU are kept while W's pattern is; W's values are refreshed.
            match &mut self.linear {
                Some(Linear::Sparse(sj)) if !new_pattern && sj.diag_pos.len() == n => {
                    sj.refresh_values(blocks)
                }
                slot => *slot = Some(Linear::Sparse(Box::new(SparseJ::new(blocks, n)))),
            }
            if let Some(Linear::Sparse(sj)) = &mut self.linear {
                sj.iterative = match opts.linear {
                    LinearSolver::Direct => false,
                    LinearSolver::Iterative => true,
                    LinearSolver::Auto => {
                        n >= AUTO_MIN_N && sj.cost().is_none_or(|c| c.flops > AUTO_MAX_FLOPS)
                    }
                };
            }
        } else {
            match &mut self.linear {
                Some(Linear::Dense(dj)) if dj.w.nrows() == n => fill_dense(&p.w, &mut dj.w),
                slot => {
                    let mut fresh = DenseJ::new(n);
                    fill_dense(&p.w, &mut fresh.w);
                    *slot = Some(Linear::Dense(Box::new(fresh)));
                }
            }
        }
        sparse
    }
}
