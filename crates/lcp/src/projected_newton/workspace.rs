//! The solver's workspace: bounds, scaling, iterate and gradient, index sets, the dense and
//! sparse Cholesky storage; sized once per problem size and reused.

use super::*;
use faer::dyn_stack::MemBuffer;
use faer::linalg::cholesky::llt::factor as llt_factor;
use faer::sparse::linalg::solvers::{Llt as SparseLlt, SymbolicLlt};
use faer::{Mat, Par};

/// Everything the iteration writes, allocated once per problem size.
pub(super) struct Workspace {
    /// Bounds (−∞/+∞ where absent; 0/+∞ for the standard LCP).
    pub(super) lo: Vec<f64>,
    pub(super) hi: Vec<f64>,
    /// diag(M).
    pub(super) diag: Vec<f64>,
    /// Diagonal scale rⱼ for pivot tests and regularization: `M_jj`, or `max|M|` if `M_jj ≤ 0`.
    pub(super) scale: Vec<f64>,
    /// `max|M|` (1 for M = 0).
    pub(super) m_max: f64,
    /// Iterate, gradient w = Mz + q, direction, trial point and its gradient.
    pub(super) z: Vec<f64>,
    pub(super) w: Vec<f64>,
    pub(super) d: Vec<f64>,
    pub(super) zt: Vec<f64>,
    pub(super) wt: Vec<f64>,
    /// Candidate ray and M times it.
    pub(super) ray: Vec<f64>,
    pub(super) m_ray: Vec<f64>,
    /// Free set F (ascending), ε-active set I⁺, position of each variable in F.
    pub(super) free: Vec<usize>,
    pub(super) free_saved: Vec<usize>,
    pub(super) active: Vec<usize>,
    pub(super) pos: Vec<usize>,
    /// Right-hand side / solution of `M_FF d_F = −w_F`.
    pub(super) rhs: Vec<f64>,
    /// Dense buffer for `M_FF` and its Cholesky factor (leading `|F|×|F|` block).
    pub(super) dense: Mat<f64>,
    /// Scratch for the in-place dense Cholesky, sized for `dense.nrows()`.
    pub(super) stack: Option<MemBuffer>,
    /// Sparse path: lower triangle of `M_FF + δ diag(r)` in CSC.
    pub(super) col_ptr: Vec<usize>,
    pub(super) row_idx: Vec<usize>,
    pub(super) vals: Vec<f64>,
    /// Sparse path: symbolic factorization and the free set it belongs to.
    pub(super) symbolic: Option<SymbolicLlt<usize>>,
    pub(super) symbolic_free: Vec<usize>,
    /// Sparse path: the numeric factor of the current step.
    pub(super) sparse_llt: Option<SparseLlt<usize, f64>>,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            lo: Vec::new(),
            hi: Vec::new(),
            diag: Vec::new(),
            scale: Vec::new(),
            m_max: 1.0,
            z: Vec::new(),
            w: Vec::new(),
            d: Vec::new(),
            zt: Vec::new(),
            wt: Vec::new(),
            ray: Vec::new(),
            m_ray: Vec::new(),
            free: Vec::new(),
            free_saved: Vec::new(),
            active: Vec::new(),
            pos: Vec::new(),
            rhs: Vec::new(),
            dense: Mat::new(),
            stack: None,
            col_ptr: Vec::new(),
            row_idx: Vec::new(),
            vals: Vec::new(),
            symbolic: None,
            symbolic_free: Vec::new(),
            sparse_llt: None,
        }
    }
}

impl Workspace {
    /// Sizes the buffers for `p` (reusing capacity) and sets the starting point
    /// `z = P(warm)` (or `P(0)`) and `w = M z + q`.
    pub(super) fn prepare(&mut self, p: &Lcp, warm: Option<&[f64]>, prm: &Params) {
        let n = p.n();
        let m = p.m();
        for v in [
            &mut self.z,
            &mut self.w,
            &mut self.d,
            &mut self.zt,
            &mut self.wt,
            &mut self.ray,
            &mut self.m_ray,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.rhs.clear();
        self.rhs.resize(n, 0.0);
        self.pos.clear();
        self.pos.resize(n, NOT_FREE);
        self.free.clear();
        self.active.clear();
        self.lo.clear();
        self.hi.clear();
        match p.bounds() {
            Some((lo, hi)) => {
                self.lo.extend_from_slice(lo);
                self.hi.extend_from_slice(hi);
            }
            None => {
                self.lo.resize(n, 0.0);
                self.hi.resize(n, f64::INFINITY);
            }
        }
        let max_abs = m.max_abs();
        self.m_max = if max_abs > 0.0 { max_abs } else { 1.0 };
        self.diag.clear();
        self.scale.clear();
        for i in 0..n {
            let mii = m.get(i, i);
            self.diag.push(mii);
            self.scale.push(if mii > 0.0 { mii } else { self.m_max });
        }
        let cap = if m.is_sparse() { n.min(prm.dense_limit) } else { n };
        if self.dense.nrows() < cap {
            self.dense = Mat::zeros(cap, cap);
            self.stack = None;
        }
        if self.stack.is_none() {
            let dim = self.dense.nrows();
            self.stack = Some(MemBuffer::new(llt_factor::cholesky_in_place_scratch::<f64>(
                dim,
                Par::Seq,
                Default::default(),
            )));
        }
        self.symbolic = None;
        self.symbolic_free.clear();
        self.sparse_llt = None;
        for i in 0..n {
            let z0 = warm.map_or(0.0, |w| w[i]);
            self.z[i] = z0.max(self.lo[i]).min(self.hi[i]);
        }
        compute_w(p, &self.z, &mut self.w);
    }
}

/// `w = M z + q`.
pub(super) fn compute_w(p: &Lcp, z: &[f64], w: &mut [f64]) {
    p.m().mul_vec(z, w);
    for (wi, qi) in w.iter_mut().zip(p.q()) {
        *wi += qi;
    }
}
