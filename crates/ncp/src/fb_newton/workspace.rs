//! The storage of [`FbNewton`] kept between solves ([`Workspace`], named vectors and the LU
//! factors) and the state of one run (`Method`).

use super::*;

/// Buffers reused across iterations and across solves (sized on first use for each n).
pub(super) struct Workspace {
    pub(super) n: usize,
    pub(super) z: Vec<f64>,
    pub(super) f: Vec<f64>,
    pub(super) phi: Vec<f64>,
    pub(super) zt: Vec<f64>,
    pub(super) ft: Vec<f64>,
    pub(super) phit: Vec<f64>,
    pub(super) da: Vec<f64>,
    pub(super) db: Vec<f64>,
    pub(super) d: Vec<f64>,
    pub(super) grad: Vec<f64>,
    /// Non-monotone memory of merits (GLL reference).
    pub(super) memory: NonMonotone,
    /// The iterate with the smallest merit so far (watchdog of the non-monotone search).
    pub(super) best_z: Vec<f64>,
    /// Dense ∇F (used when the function gives no sparse Jacobian).
    pub(super) jac: Mat<f64>,
    /// Dense H, overwritten by its LU factors.
    pub(super) lu: DenseLu,
    pub(super) sized: bool,
    /// Sparse ∇F of the current iterate, as the function returned it.
    pub(super) sjac: Option<CsMat<f64>>,
    /// Sparse H in CSC form.
    pub(super) col_ptr: Vec<usize>,
    pub(super) row_idx: Vec<usize>,
    pub(super) vals: Vec<f64>,
    /// Sparse LU of H (its symbolic analysis kept while the pattern stays the same).
    pub(super) sparse: SparseLu,
    /// Active-set steps: the class of each row at the current point (0 lower, 1 upper,
    /// 2 free), the classes of the last set tried (`tried` valid when `has_tried`), the free
    /// rows, and the LU of M_II.
    pub(super) class: Vec<u8>,
    pub(super) tried: Vec<u8>,
    pub(super) has_tried: bool,
    /// The classes at the previous iterate (valid when `has_prev`).
    pub(super) prev: Vec<u8>,
    pub(super) has_prev: bool,
    pub(super) free: Vec<usize>,
    pub(super) rlu: DenseLu,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            n: 0,
            z: Vec::new(),
            f: Vec::new(),
            phi: Vec::new(),
            zt: Vec::new(),
            ft: Vec::new(),
            phit: Vec::new(),
            da: Vec::new(),
            db: Vec::new(),
            d: Vec::new(),
            grad: Vec::new(),
            memory: NonMonotone::default(),
            best_z: Vec::new(),
            jac: Mat::zeros(0, 0),
            lu: DenseLu::new(),
            sized: false,
            sjac: None,
            col_ptr: Vec::new(),
            row_idx: Vec::new(),
            vals: Vec::new(),
            sparse: SparseLu::new(),
            class: Vec::new(),
            tried: Vec::new(),
            has_tried: false,
            prev: Vec::new(),
            has_prev: false,
            free: Vec::new(),
            rlu: DenseLu::new(),
        }
    }
}

impl Workspace {
    pub(super) fn resize(&mut self, n: usize) {
        if self.n == n && self.sized {
            return;
        }
        self.n = n;
        for v in [
            &mut self.z,
            &mut self.f,
            &mut self.phi,
            &mut self.zt,
            &mut self.ft,
            &mut self.phit,
            &mut self.da,
            &mut self.db,
            &mut self.d,
            &mut self.grad,
            &mut self.best_z,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.jac = Mat::zeros(n, n);
        self.lu.resize(n, 1);
        self.class.clear();
        self.class.resize(n, 0);
        self.tried.clear();
        self.tried.resize(n, 0);
        self.prev.clear();
        self.prev.resize(n, 0);
        self.free.clear();
        self.free.reserve(n);
        self.sized = true;
        self.sparse.forget();
    }
}

/// One solve's state, seen by the shared loop.
pub(super) struct Method<'a, 'p> {
    pub(super) p: &'a Mcp<'p>,
    pub(super) knobs: &'a FbNewton,
    pub(super) ws: &'a mut Workspace,
    pub(super) psi: f64,
    pub(super) factorizations: usize,
    pub(super) line_search_steps: usize,
    /// The accepted step length of the last line search (the observer's log); `None` for an
    /// active-set step.
    pub(super) last_t: Option<f64>,
    pub(super) gradient_steps: usize,
    pub(super) active_set_steps: (usize, usize),
    /// ∇F, dᵃ, dᵇ and ∇Ψ have been computed at the current z (by a damped active-set try).
    pub(super) jac_ready: bool,
    /// Whether this solve tries active-set steps: the knob, and no free row.
    pub(super) active_set: bool,
    /// Try an active-set step whatever the set (at the start and after a step taken); after a
    /// failed try, only once the set is stable (the same at two iterates in a row).
    pub(super) eager: bool,
    pub(super) error: Option<Error>,
    pub(super) message: Option<String>,
    pub(super) initial_error: f64,
    /// Whether the watchdog (the loop's stall rule) has sent the search back to monotone.
    pub(super) monotone: bool,
}

pub(super) fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

pub(super) fn half_norm2(v: &[f64]) -> f64 {
    0.5 * v.iter().map(|x| x * x).sum::<f64>()
}
