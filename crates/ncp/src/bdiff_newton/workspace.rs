//! The storage of [`BdiffNewton`] kept between solves (`Work`), the classification of the
//! indices into the sets α, β, γ ([`IndexSet`]), and the state of one run (`Method`).

use super::*;

/// Work vectors and matrices, reused across iterations and solves.
#[derive(Clone, Debug)]
pub(super) struct Work {
    pub(super) z: Vec<f64>,
    pub(super) f: Vec<f64>,
    pub(super) h: Vec<f64>,
    pub(super) d: Vec<f64>,
    pub(super) zt: Vec<f64>,
    pub(super) ft: Vec<f64>,
    pub(super) ht: Vec<f64>,
    pub(super) g: Vec<f64>,
    pub(super) sets: Vec<IndexSet>,
    pub(super) a_idx: Vec<usize>,
    pub(super) b_idx: Vec<usize>,
    pub(super) t_idx: Vec<usize>,
    pub(super) jac: Mat<f64>,
    /// ∇F_ββ and its LU (storage kept across iterations and solves).
    pub(super) jbb: DenseLu,
    pub(super) rhs: Mat<f64>,
    pub(super) jac_current: bool,
}

impl Default for Work {
    fn default() -> Self {
        Work {
            z: Vec::new(),
            f: Vec::new(),
            h: Vec::new(),
            d: Vec::new(),
            zt: Vec::new(),
            ft: Vec::new(),
            ht: Vec::new(),
            g: Vec::new(),
            sets: Vec::new(),
            a_idx: Vec::new(),
            b_idx: Vec::new(),
            t_idx: Vec::new(),
            jac: Mat::zeros(0, 0),
            jbb: DenseLu::new(),
            rhs: Mat::zeros(0, 0),
            jac_current: false,
        }
    }
}

impl Work {
    pub(super) fn resize(&mut self, n: usize) {
        for v in [
            &mut self.z,
            &mut self.f,
            &mut self.h,
            &mut self.d,
            &mut self.zt,
            &mut self.ft,
            &mut self.ht,
            &mut self.g,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.sets.clear();
        self.sets.resize(n, IndexSet::Free);
        if self.jac.nrows() != n {
            self.jac = Mat::zeros(n, n);
        }
        self.jac_current = false;
    }
}

pub(super) fn sq(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum()
}

/// The bound of a tied row (ties resolve to α/γ when x ≤ y).
pub(super) fn resolve_to_bound(s: IndexSet) -> IndexSet {
    match s {
        IndexSet::TiedLower => IndexSet::Lower,
        IndexSet::TiedUpper => IndexSet::Upper,
        other => other,
    }
}

/// The index sets at (z, F(z)) (module docs).
pub(super) fn classify(p: &Mcp<'_>, z: &[f64], f: &[f64], tie: f64, sets: &mut [IndexSet]) {
    for i in 0..z.len() {
        let (l, u) = (p.lower[i], p.upper[i]);
        let a = z[i] - l;
        let b = z[i] - u;
        let tol = tie * f[i].abs().max(1.0);
        sets[i] = if l == u {
            IndexSet::Lower
        } else if a.is_finite() && (f[i] - a).abs() <= tol {
            IndexSet::TiedLower
        } else if b.is_finite() && (f[i] - b).abs() <= tol {
            IndexSet::TiedUpper
        } else if f[i] > a {
            IndexSet::Lower
        } else if f[i] < b {
            IndexSet::Upper
        } else {
            IndexSet::Free
        };
    }
}

/// How a direction came out.
pub(super) enum Direction {
    /// The Newton direction of `H'(z; d) = −H(z)`.
    Newton,
    /// ∇F_ββ was singular (or produced non-finite values).
    Singular,
}

/// One solve, seen by the shared loop.
pub(super) struct Method<'p, 'a, 'w> {
    pub(super) p: &'p Mcp<'a>,
    pub(super) ws: &'w mut Work,
    pub(super) sigma: f64,
    pub(super) min_step: f64,
    pub(super) tie: f64,
    /// Remembered sets for the first direction (taken by the first step).
    pub(super) hot_sets: Option<Vec<IndexSet>>,
    /// The resolved sets of the last accepted Newton step.
    pub(super) last_sets: Option<Vec<IndexSet>>,
    pub(super) factorizations: usize,
    pub(super) line_search_steps: usize,
    /// The accepted step length of the last step (the observer's log).
    pub(super) last_t: Option<f64>,
    pub(super) pivots: usize,
    pub(super) message: Option<String>,
}

/// Line-search outcome.
pub(super) enum Step {
    Accepted,
    Failed,
    NonFinite,
}
