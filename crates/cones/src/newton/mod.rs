//! `ac-newton` and `fb-newton`: semismooth Newton methods on the whole problem.
//!
//! With `u = W r + q`, stack one complementarity function per contact, `Φ(r)_i = φ(r_i, u_i)`:
//!
//! * **Alart–Curnier** (`ac-newton`; Alart & Curnier 1991):
//!   `φ_N = r_N − max(0, r_N − ρ_N u_N)`, `φ_T = r_T − P_{S(ξ)}(r_T − ρ_T u_T)`,
//!   `ξ = max(0, r_N − ρ_N u_N)`, with `ρ_N = 1/W_ii[N,N]`, `ρ_T = 1/mean(diag W_ii[T,T])`;
//! * **Fischer–Burmeister** (`fb-newton`): the Jordan-algebra FB function of the Lorentz cone
//!   applied to the De Saxcé pair (Fukushima–Luo–Tseng 2001; see [`crate::jordan`]),
//!   for ellipsoidal cones; with direct linear solves the pair is `(r, û/w̄)`, w̄ the mean
//!   diagonal entry of W (`Method::u_scale`).
//!
//! Each iteration solves a linear system for the direction Δ: a sparse LU (faer, symbolic part
//! computed once on the block pattern of W) when W is sparse, a dense LU otherwise. Large
//! sparse systems whose LU is predicted costly ([`LinearSolver`]) are solved instead by
//! BiCGSTAB with a block-Jacobi preconditioner to a relative residual η_k, the forcing term of
//! the inexact Newton method of Dembo, Eisenstat & Steihaug (1982), chosen by Eisenstat &
//! Walker (1996, choice 2): `η_k = γ (‖Φ_k‖/‖Φ_{k−1}‖)^α`, γ = 0.9, α = 2, within
//! `[10⁻¹⁰, 0.1]`; this keeps the local superlinear convergence of the exact method. Then a
//! backtracking Armijo search on `½‖Φ‖²` with a non-monotone reference (the max of the last 5
//! values) picks the step. The loop stops on the problem's own error measure
//! (`FrictionContactProblem::error`), never on `‖Φ‖`.
//!
//! **Regularised Newton matrix.** The generalised Jacobian is `J = D_r + D_u W` (block-diagonal
//! `D_r, D_u` from the cone's generalised Jacobians). When W is singular — a box on four
//! corners, a ball on four supports: many contacts per body, the rule in simulations — J is
//! singular at every sticking configuration (the rows of a sticking contact are `ρ W`). An LU
//! still returns a direction, but its component in the null space of W (self-equilibrated
//! contact forces, which leave u unchanged) is rounding noise amplified by `1/pivot`: such
//! steps flip contacts between open, sticking and sliding at random and the line search cuts
//! them to nothing (measured on the `ball-pile 20` scene: 182 of 193 solves failed, with
//! directions up to `‖Δ‖ ≈ 10⁴ ‖r‖`). The direction therefore solves
//!
//! ```text
//!     (D_r + D_u (W + σ_k I)) Δ = −Φ(r_k),        σ_k = c · w̄ · min(1, e_k),
//! ```
//!
//! the Newton system of the proximal subproblem centred at `r_k` (operator `W + σ_k I`,
//! positive definite), with `w̄` the mean diagonal entry of W, `e_k` the current error and
//! `c` = [`SemismoothNewton::regularization`]. Where all contacts stick this is
//! `Δ = −(W + σ_k I)⁻¹ u`, along which `‖Φ‖²` does not increase to first order since W is
//! positive semi-definite. Φ itself is not changed, and the shift vanishes with the error, so
//! the fast local convergence is kept: this is the proximal-regularised Newton method of Li,
//! Fukushima, Qi & Yamashita (2004), whose shift `μ_k = c‖∇f(x_k)‖` gives quadratic
//! convergence to non-isolated solutions under a local error bound.
//!
//! A J that is singular even so is regularised further (`J + εI`, ε growing).
//!
//! **Prepared solves** ([`FrictionSolver::solve_into`]): W's CSR copy and diagonal blocks,
//! the cone objects (and their Lorentz-cone maps for FB), the iteration vectors and the
//! dense Newton matrix with its LU storage (factorised in place by faer's `lu_in_place` on a
//! scratch buffer sized once) are kept between calls; a call on a problem of the same
//! structure refreshes the values only. With a dense Newton matrix it allocates nothing
//! (Coulomb laws; a custom law's own FB function may allocate). The sparse path keeps the
//! Newton matrix's pattern and symbolic LU while W's pattern is unchanged, but faer's sparse
//! numeric LU may still allocate: the zero-allocation promise is for the dense case.

use crate::cone::{Cone, ConeSpec, SocMap, MAX_DIM};
use crate::delassus::Blocks;
use crate::problem::{
    message_buffer, prepare, reset_report, solve_by_into, solve_refined, ConeCache, FrictionContactProblem,
    FrictionSolution, FrictionSolver, Prepared,
};
use faer::reborrow::ReborrowMut;
use faer::{Mat, MatMut};
use perp_core::line_search::{Backtracking, Search, Verdict};
use perp_core::linear::{DenseLu, KrylovStop};
use perp_core::{iteration, Error, IterativeMethod, Matrix, Settings, SolveReport, Status, StepResult};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

mod sparse;
use sparse::SparseJ;

/// The complementarity function a [`SemismoothNewton`] works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewtonFunction {
    /// Alart–Curnier (any cone with a section projection).
    AlartCurnier,
    /// Fischer–Burmeister on the De Saxcé pair (cones with a [`crate::SocMap`]).
    FischerBurmeister,
    /// The natural map `r − P_K(r − ρ ũ)`, ρ per contact as for Alart–Curnier's ρ_N.
    NaturalMap,
}

/// How the sparse Newton systems are solved (the dense ones always by LU).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinearSolver {
    /// The direct LU below [`AUTO_MIN_N`] unknowns or [`AUTO_MAX_FLOPS`] predicted flops, the
    /// iterative solver above; and the iterative one instead of a factorization predicted to
    /// end after the time limit.
    #[default]
    Auto,
    /// Always the sparse LU (a factorization predicted to end after the time limit is not
    /// started: the solve stops with `TimeLimit` and its best iterate).
    Direct,
    /// Always BiCGSTAB with the block-Jacobi preconditioner, to the forcing term of the
    /// inexact Newton method.
    Iterative,
}

/// Up to this many unknowns the Newton systems are dense whatever W's storage (unless
/// `sparse` says otherwise): there the sparse LU's analysis and dispatch cost more than the
/// dense arithmetic, and the dense direction solves only for the contacts not taking off.
/// ac-newton, `perp bench --repeat 10`, sparse against dense: the generated fc3d-contact-40
/// (n = 120) 430 against 180–265 µs, OneObject-i1028 (69) 344 against 206,
/// OneObject-i100000 (75) 268 against 191, Confeti-ex13 (12) 5.1 against 2.2;
/// above it dense lost: BoxesStack1 (156) 1 446 against 2 576, Box_Stacks-i0122 (246) 272
/// against 2 226, Confeti-ex03 (162) alike.
pub const DENSE_MAX_N: usize = 128;

/// [`DENSE_MAX_N`] for the Fischer–Burmeister function, whose contacts taking off keep whole
/// rows of J (no reduced direction), so that its dense LU is of all n unknowns. fb-newton,
/// three interleaved rounds of `perp bench --repeat 10`, fastest rounds, dense over sparse on
/// generated problems (`examples/gen_fc.rs`, two seeds each): n = 72 0.53 and 0.56, 84 0.57
/// and 1.19, 96 1.02 and 1.01, 108 1.11 and 1.10, 120 1.15 and 1.21 (fc3d-contact-40 read
/// 0.93× after it went dense at 128).
pub const DENSE_MAX_N_FB: usize = 96;

/// Below this many unknowns the sparse Newton systems are always factorized (the automatic
/// choice never changes small problems).
pub const AUTO_MIN_N: usize = 3000;
/// Predicted flops of a sparse LU (from its symbolic analysis) above which the automatic
/// choice is the iterative solver.
pub const AUTO_MAX_FLOPS: f64 = 2e9;
/// Flops per second assumed when predicting whether a factorization ends before the time
/// limit (a low figure for one loaded core: a prediction errs towards not starting).
pub const FLOP_RATE: f64 = 1e9;
/// Eisenstat–Walker forcing terms (choice 2): `η₀`, `γ`, `α`, the largest η and the smallest.
/// `η₀ = η_max = 0.1` rather than Eisenstat and Walker's 0.5 and 0.9: prox judges its inner
/// solves by their Newton iterations (≤ 2 is quick, and σ shrinks), which crude first
/// directions never are; with 0.5/0.9 prox kept σ at its start on 4 of 6 generated problems
/// of 3 000 and 10 000 contacts and did not converge in 200 iterations.
const ETA0: f64 = 0.1;
const EW_GAMMA: f64 = 0.9;
const EW_ALPHA: f64 = 2.0;
const ETA_MAX: f64 = 0.1;
const ETA_MIN: f64 = 1e-10;

/// Semismooth Newton with line search; see the module documentation.
#[derive(Clone, Debug)]
pub struct SemismoothNewton {
    /// The function Φ is built from.
    pub function: NewtonFunction,
    /// `Some(true)` forces the sparse LU, `Some(false)` the dense one; `None` picks sparse when
    /// there are more than [`DENSE_MAX_N`] unknowns ([`DENSE_MAX_N_FB`] for Fischer–Burmeister)
    /// and W is stored sparse or has fewer than 30 % nonzeros.
    pub sparse: Option<bool>,
    /// Scale of all ρ's (1 = the diagonal-based choice above).
    pub rho_scale: f64,
    /// Armijo backtracking on ½‖Φ‖² (default). Without it every finite full step is taken:
    /// `prox` does so for its inner problems, which the proximal term keeps well posed.
    pub line_search: bool,
    /// `c` of the regularised Newton matrix `D_r + D_u (W + σ_k I)`, `σ_k = c w̄ min(1, e_k)`
    /// (module documentation); default [`REGULARIZATION`], 0 turns it off (the plain
    /// generalised Jacobian). Must be finite and ≥ 0.
    pub regularization: f64,
    /// Direct or iterative solves of the sparse Newton systems (default: by size and predicted
    /// fill, [`LinearSolver::Auto`]).
    pub linear: LinearSolver,
    /// Stagnation rule ([`STALL_ITERATIONS`] by default; 0 = never): after this many
    /// iterations without halving the best error, or at once when the line search finds no
    /// decrease, the method goes on in proximal-point mode from its best iterate (`prox`'s
    /// defaults: Φ at `u + σ(r − r_ref)` with full steps, the centre moving as in
    /// [`crate::Prox`]). Not used by `prox` itself.
    pub stall_iterations: usize,
    name: &'static str,
    prepared: Prepared,
}

/// Default `c` of [`SemismoothNewton::regularization`]. Measured on the scene suites
/// (`ball-pile 20, 40, 60, 100` and `box-stack 3, 6, 12, 20`, about 1560 solves) and the
/// Siconos fc files: with c from 0.003 to 0.1 `ac-newton` fails 2 to 6 scene solves (1525
/// without regularisation) and none of the Siconos files (5 without); 0.01 needed the fewest
/// iterations, and 0.1 makes `fb-newton` fail `BoxesStack1`.
pub const REGULARIZATION: f64 = 0.01;

/// Default [`SemismoothNewton::stall_iterations`]. The Alart–Curnier merit ½‖Φ‖² has local
/// minima that are not solutions, where the Newton iteration stalls or cycles: 5 of 160
/// generated problems (`examples/gen_fc 3 {12,24,36,48,64} 9..40`) and `gen_fc 3 36 1`
/// ended with errors of 10⁻⁴ to 10⁻² at the iteration limit (or stalled with 3 000
/// iterations allowed), which `prox` solves in 9 to 36 iterations. Siconos offers hybrid
/// strategies for NSN_AC for the same reason (`SICONOS_FRICTION_3D_NSN_HYBRID_STRATEGY`);
/// its own full Newton step on a failed line search did not help here.
pub const STALL_ITERATIONS: usize = 20;

/// `prox`'s defaults (σ₀ = max diag W, ν = 100, 10 inner iterations per centre), also those
/// of a Newton method gone proximal on stagnation.
pub(crate) const PROX_DEFAULTS: ProxParams = ProxParams { sigma0: 1.0, nu: 100.0, inner_max: 10 };

impl SemismoothNewton {
    fn with(function: NewtonFunction, name: &'static str) -> Self {
        SemismoothNewton {
            function,
            sparse: None,
            rho_scale: 1.0,
            line_search: true,
            regularization: REGULARIZATION,
            linear: LinearSolver::Auto,
            stall_iterations: STALL_ITERATIONS,
            name,
            prepared: Prepared::default(),
        }
    }

    /// `ac-newton`.
    pub fn alart_curnier() -> Self {
        Self::with(NewtonFunction::AlartCurnier, "ac-newton")
    }

    /// `fb-newton`.
    pub fn fischer_burmeister() -> Self {
        Self::with(NewtonFunction::FischerBurmeister, "fb-newton")
    }

    /// Newton on the natural map (`nm-newton`).
    pub fn natural_map() -> Self {
        Self::with(NewtonFunction::NaturalMap, "nm-newton")
    }
}

/// Default iteration limit.
pub(crate) const DEFAULT_MAX_ITER: usize = 200;
/// Default iteration limit of `prox` (inner Newton iterations over all centres). The proximal
/// point's outer loop converges linearly where W is singular (redundant contacts), at a rate
/// a Newton limit does not allow for: `ball-pile 100`'s step 15 (1 026 unknowns, a ball on
/// four supports) needs 528 (6.8e-6 at 200, tol 1e-6); Siconos' PROX allows 1 000 outer
/// iterations by default.
pub(crate) const PROX_MAX_ITER: usize = 1000;
/// Backtracking halvings before the step is taken anyway.
const MAX_HALVINGS: usize = 30;
/// Length of the non-monotone memory.
const MEMORY: usize = 5;

#[allow(clippy::large_enum_variant)] // one per prepared solver, never moved in a loop
enum Linear {
    /// W dense, and the Newton matrix J with its LU in place ([`DenseLu`]), sized once for n;
    /// `j` keeps J itself by columns (before any regularization), for the residual check of
    /// the direction (one dense product instead of W Δ and the blocks).
    ///
    /// When some contacts' rows of J are `[I 0]` (an Alart–Curnier contact taking off: its Φ
    /// is r, Jr = I, Ju = 0), the first attempt solves only for the others (`reduced`; the
    /// contacts in `active`, J_AA in `lu` and in `j`, the right-hand side in `rhs`, `x`
    /// scratch): see [`reduced_direction`].
    Dense {
        w: Mat<f64>,
        lu: DenseLu,
        j: Vec<f64>,
        reduced: bool,
        active: Vec<usize>,
        rhs: Vec<f64>,
        x: Vec<f64>,
    },
    Sparse(Box<SparseJ>),
}

impl Linear {
    /// The dense storage for size n.
    fn dense(n: usize) -> Linear {
        let mut lu = DenseLu::new();
        lu.resize(n, 1);
        Linear::Dense {
            w: Mat::zeros(n, n),
            lu,
            j: vec![0.0; n * n],
            reduced: false,
            // At most n contacts: no allocation at a later solve.
            active: Vec::with_capacity(n),
            rhs: vec![0.0; n],
            x: vec![0.0; n],
        }
    }
}

/// `out = w` as `Matrix::to_dense` computes it (same values bit for bit), in place.
fn fill_dense(w: &Matrix, out: &mut Mat<f64>) {
    match w {
        Matrix::Dense(m) => out.as_mut().copy_from(m.as_ref()),
        Matrix::Sparse(s) => {
            out.as_mut().fill(0.0);
            for (v, (i, j)) in s.iter() {
                out[(i, j)] += *v;
            }
        }
    }
}

/// What a [`SemismoothNewton`] (or [`crate::Prox`]) keeps between calls: what depends on the
/// problem's structure, and the iteration vectors' storage.
#[derive(Default)]
pub(crate) struct Workspace {
    blocks: Option<Blocks>,
    cones: ConeCache,
    /// FB: the Lorentz-cone map of every built-in contact with μ > 0 (`None` otherwise: the
    /// cone's own `fischer_burmeister` is called), and the μ (bits) it was built for.
    maps: Vec<Option<SocMap>>,
    map_mu: Vec<u64>,
    linear: Option<Linear>,
    rho: Vec<(f64, f64)>,
    vecs: [Vec<f64>; 17],
    merit_memory: Vec<f64>,
}

/// Indices into [`Workspace::vecs`].
const V_R: usize = 0;
const V_U: usize = 1;
const V_PHI: usize = 2;
const V_JR: usize = 3;
const V_JU: usize = 4;
const V_JR_EFF: usize = 5;
const V_TRIAL: usize = 6;
const V_TRIAL_U: usize = 7;
const V_TRIAL_PHI: usize = 8;
const V_DIR: usize = 9;
const V_BEST: usize = 10;
const V_R_REF: usize = 11;
const V_JD: usize = 12;
const V_WD: usize = 13;
const V_TRIAL_JR: usize = 14;
const V_TRIAL_JU: usize = 15;
const V_R_INNER: usize = 16;

/// `v` emptied and refilled with `len` zeros (no allocation once its capacity suffices).
fn zeroed(v: &mut Vec<f64>, len: usize) -> Vec<f64> {
    let mut v = std::mem::take(v);
    v.clear();
    v.resize(len, 0.0);
    v
}

struct Method<'a> {
    opts: &'a SemismoothNewton,
    p: &'a FrictionContactProblem,
    blocks: &'a Blocks,
    cones: &'a [Arc<dyn Cone>],
    /// FB's Lorentz-cone maps (see [`Workspace::maps`]; empty for the other functions).
    maps: &'a [Option<SocMap>],
    /// Every contact has the built-in Coulomb law (its cone object is a `Coulomb`).
    coulomb: bool,
    /// `(ρ_N, ρ_T)` per contact, from the diagonal blocks of W (of `W + σI` in prox mode).
    rho: Vec<(f64, f64)>,
    linear: &'a mut Linear,
    r: Vec<f64>,
    u: Vec<f64>,
    phi: Vec<f64>,
    /// `∂Φ/∂r` and `∂Φ/∂u` at r, one `d × d` block per contact.
    jr: Vec<f64>,
    ju: Vec<f64>,
    /// `jr + σ ju`: the blocks the Newton matrix `jr_eff + ju W` is assembled from.
    jr_eff: Vec<f64>,
    trial: Vec<f64>,
    trial_u: Vec<f64>,
    trial_phi: Vec<f64>,
    /// The Jacobian blocks at the last trial point.
    trial_jr: Vec<f64>,
    trial_ju: Vec<f64>,
    dir: Vec<f64>,
    merit_memory: Vec<f64>,
    error: f64,
    factorizations: usize,
    line_search_steps: usize,
    regularized: usize,
    fail: Option<(Status, &'static str)>,
    /// The iterate with the smallest error so far, and that error.
    best: (Vec<f64>, f64),
    /// Proximal-point state (`prox`): Φ is evaluated at `u + σ (r − r_ref)`.
    prox: Option<ProxState>,
    /// Mean diagonal entry of W, the scale of the regularisation σ_k.
    w_mean: f64,
    /// fb-newton with direct linear solves: Φ pairs r with `u / w̄` instead of u, the same
    /// zeros (K* is a cone) with both arguments in the units of r; 1 otherwise. Where ‖r‖ is
    /// far from ‖u‖ (Confeti-ex03: ‖r‖ ≈ 6e5) the unscaled FB merit was flat along the Newton
    /// directions and the line search crept: 200 iterations to 7.4e-7 there, 9 scaled; the
    /// Rover files take 5–7 iterations instead of 8–17, BoxesStack1 49 instead of 183.
    /// Not with BiCGSTAB (the iterative path of large problems): its block-Jacobi
    /// preconditioned solves of the scaled systems needed so many more inner iterations that
    /// 4 of 8 generated 10 000-contact problems ran out of a 10 s limit they met unscaled.
    u_scale: f64,
    /// Storage of `J Δ` and `W Δ` in [`Method::residual_ok`].
    jd: Vec<f64>,
    wd: Vec<f64>,
    /// The instant the time limit falls (start of the solve + `time_limit`).
    deadline: Option<Instant>,
    /// Inexact Newton (iterative solves): the forcing term of this iteration and `‖Φ‖` at the
    /// previous one (`None` after a prox update, which changes Φ).
    eta: f64,
    phi_prev: Option<f64>,
    /// BiCGSTAB iterations, and directions that missed their forcing term (but not `η_max`).
    krylov_iterations: usize,
    short_directions: usize,
    /// The automatic choice went iterative because a factorization would end too late.
    switched_for_time: bool,
    /// Stagnation ([`SemismoothNewton::stall_iterations`]): iterations since the best error
    /// last halved, the error it halved to, and the iteration at which the method went
    /// proximal, with why.
    stalled_for: usize,
    progress_mark: f64,
    went_proximal: Option<(usize, &'static str)>,
    iterations: usize,
    /// The largest diagonal entry of W, the scale of σ for a proximal start.
    w_max: f64,
    /// Storage of `r_ref` and `r_inner` for a proximal start (taken from the workspace).
    spare: Option<(Vec<f64>, Vec<f64>)>,
}

/// What [`Method::direction`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Found,
    /// Even the regularised systems failed.
    Failed,
    /// The time limit falls before the system can be solved.
    TimeLimit,
}

/// Parameters of the proximal-point outer loop (see [`crate::prox`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProxParams {
    /// σ₀ relative to the largest diagonal entry of W.
    pub sigma0: f64,
    /// Factor by which σ shrinks after a quick inner solve (and grows after a slow one).
    pub nu: f64,
    /// Inner Newton iterations before the prox centre moves anyway.
    pub inner_max: usize,
}

/// Bounds of the proximal σ relative to the largest diagonal entry of W.
const PROX_SIGMA_MIN: f64 = 1e-12;
/// The lower bound with iterative solves: below it the block-Jacobi BiCGSTAB meets Newton
/// matrices too ill-conditioned to reach their forcing terms, and prox stalls (measured on
/// generated problems of 3 000 and 10 000 contacts: at σ ≈ 10⁻⁴ max diag W the inner solves
/// took 5 iterations each without end, or BiCGSTAB failed).
const PROX_SIGMA_MIN_ITERATIVE: f64 = 1e-3;
const PROX_SIGMA_MAX: f64 = 1e8;

struct ProxState {
    params: ProxParams,
    sigma: f64,
    sigma_min: f64,
    sigma_max: f64,
    r_ref: Vec<f64>,
    /// The inner iterate with the smallest ‖Φ_σ‖ since the centre last moved, and that norm.
    r_inner: Vec<f64>,
    phi_inner: f64,
    /// The factor σ shrinks by after a quick inner solve: ν, its square root after each
    /// failed inner solve (so that σ does not return to where the inner Newton failed at the
    /// same pace, which repeats the same cycle).
    nu_down: f64,
    inner: usize,
    phi_start: f64,
    updates: usize,
    /// The largest σ reached.
    sigma_peak: f64,
}

impl ProxState {
    /// The proximal state centred at r: σ = σ₀ · `w_max` within its bounds (relative to
    /// `w_max`, the larger lower bound with iterative solves), `r_ref` and `r_inner` in the
    /// storage given.
    fn new(
        params: ProxParams,
        w_max: f64,
        iterative: bool,
        r: &[f64],
        storage: (Vec<f64>, Vec<f64>),
    ) -> Self {
        let sigma = params.sigma0 * w_max;
        let (mut r_ref, mut r_inner) = storage;
        r_ref.clear();
        r_ref.extend_from_slice(r);
        r_inner.clear();
        r_inner.extend_from_slice(r);
        ProxState {
            params,
            sigma,
            sigma_min: if iterative { PROX_SIGMA_MIN_ITERATIVE } else { PROX_SIGMA_MIN } * w_max,
            sigma_max: PROX_SIGMA_MAX * w_max,
            r_ref,
            r_inner,
            phi_inner: f64::INFINITY,
            nu_down: params.nu,
            inner: 0,
            phi_start: f64::INFINITY,
            updates: 0,
            sigma_peak: sigma,
        }
    }
}

/// `(ρ_N, ρ_T)` of every contact for the operator `W + σI`: `ρ_N = 1/(W_ii[N,N] + σ)`,
/// `ρ_T = 1/(mean diag W_ii[T,T] + σ)`, times `scale`.
#[cfg(test)]
fn rho_for(blocks: &Blocks, nc: usize, sigma: f64, scale: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    rho_into(blocks, nc, sigma, scale, &mut out);
    out
}

/// [`rho_for`] into `out` (its storage reused).
fn rho_into(blocks: &Blocks, nc: usize, sigma: f64, scale: f64, out: &mut Vec<(f64, f64)>) {
    let d = blocks.d;
    out.clear();
    out.extend((0..nc).map(|i| {
        let w = blocks.diag(i);
        let wn = w[0] + sigma;
        let rn = if wn > 0.0 { 1.0 / wn } else { 1.0 };
        let wt = (1..d).map(|k| w[k * d + k]).sum::<f64>() / (d - 1) as f64 + sigma;
        let rt = if wt > 0.0 { 1.0 / wt } else { rn };
        (rn * scale, rt * scale)
    }));
}

impl Method<'_> {
    /// Φ (and the Jacobian blocks when `jac`) at `r` with velocities `u` (shifted by
    /// `σ (r − r_ref)` in prox mode).
    fn eval(&self, r: &[f64], u: &[f64], phi: &mut [f64], jac: Option<(&mut [f64], &mut [f64])>) {
        let d = self.p.dim;
        let dd = d * d;
        let f = self.opts.function;
        let mut ok = true;
        // Contact i's velocity, shifted in prox mode, on a stack buffer (no allocation per
        // evaluation: the line search evaluates Φ many times per iteration).
        let velocity = |i: usize, buf: &mut [f64; MAX_DIM]| {
            let s = d * i;
            for k in 0..d {
                buf[k] = match &self.prox {
                    Some(ps) => u[s + k] + ps.sigma * (r[s + k] - ps.r_ref[s + k]),
                    None => u[s + k],
                };
            }
        };
        let mut ui = [0.0; MAX_DIM];
        // FB pairs r with u/w̄ (see `u_scale`).
        let (fb, rho) = (self.u_scale != 1.0, self.u_scale);
        let velocity = |i: usize, buf: &mut [f64; MAX_DIM]| {
            velocity(i, buf);
            if fb {
                buf[..d].iter_mut().for_each(|v| *v *= rho);
            }
        };
        match jac {
            None => {
                for (i, cone) in self.cones.iter().enumerate() {
                    let s = d * i..d * i + d;
                    velocity(i, &mut ui);
                    ok &= self.contact(f, &**cone, i, &r[s.clone()], &ui[..d], &mut phi[s], None);
                }
            }
            Some((jr, ju)) => {
                for (i, cone) in self.cones.iter().enumerate() {
                    let s = d * i..d * i + d;
                    velocity(i, &mut ui);
                    let jac = Some((&mut jr[i * dd..(i + 1) * dd], &mut ju[i * dd..(i + 1) * dd]));
                    ok &= self.contact(f, &**cone, i, &r[s.clone()], &ui[..d], &mut phi[s], jac);
                    if fb {
                        ju[i * dd..(i + 1) * dd].iter_mut().for_each(|v| *v *= rho);
                    }
                }
            }
        }
        debug_assert!(ok, "FB requested on a cone without a Lorentz map: checked at start");
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn contact(
        &self,
        f: NewtonFunction,
        cone: &dyn Cone,
        i: usize,
        r: &[f64],
        u: &[f64],
        phi: &mut [f64],
        jac: Option<(&mut [f64], &mut [f64])>,
    ) -> bool {
        use crate::coulomb::{alart_curnier_fixed, COULOMB_2D, COULOMB_3D};
        let mu = self.p.mu[i];
        let (rn, rt) = self.rho[i];
        // The built-in Coulomb law: its functions called statically (the same code as
        // through the trait object).
        match (self.coulomb, r.len(), f) {
            (true, 3, NewtonFunction::AlartCurnier) => {
                alart_curnier_fixed::<2>(mu, rn, rt, r, u, phi, jac);
                return true;
            }
            (true, 2, NewtonFunction::AlartCurnier) => {
                alart_curnier_fixed::<1>(mu, rn, rt, r, u, phi, jac);
                return true;
            }
            (true, 3, NewtonFunction::FischerBurmeister) if mu > 0.0 => {
                if let Some(map) = &self.maps[i] {
                    crate::cone::fb_mapped(&COULOMB_3D, mu, map, r, u, phi, jac);
                    return true;
                }
            }
            (true, 2, NewtonFunction::FischerBurmeister) if mu > 0.0 => {
                if let Some(map) = &self.maps[i] {
                    crate::cone::fb_mapped(&COULOMB_2D, mu, map, r, u, phi, jac);
                    return true;
                }
            }
            _ => {}
        }
        match f {
            NewtonFunction::AlartCurnier => {
                cone.alart_curnier(mu, rn, rt, r, u, phi, jac);
                true
            }
            NewtonFunction::NaturalMap => {
                cone.natural_map(mu, rn, r, u, phi, jac);
                true
            }
            NewtonFunction::FischerBurmeister => {
                if mu > 0.0 {
                    match &self.maps[i] {
                        // What the default `Cone::fischer_burmeister` does, on the cached map.
                        Some(map) => {
                            crate::cone::fb_mapped(cone, mu, map, r, u, phi, jac);
                            true
                        }
                        None => cone.fischer_burmeister(mu, r, u, phi, jac).is_ok(),
                    }
                } else {
                    // μ = 0: frictionless contact; scalar FB on the normal pair, r_T = 0.
                    scalar_fb_frictionless(r, u, phi, jac);
                    true
                }
            }
        }
    }

    /// Recomputes u, Φ, the Jacobian blocks and the true error at the current r.
    fn refresh(&mut self) {
        self.blocks.velocity(&self.r, &self.p.q, &mut self.u);
        let (r, u) = (std::mem::take(&mut self.r), std::mem::take(&mut self.u));
        let (mut phi, mut jr, mut ju) =
            (std::mem::take(&mut self.phi), std::mem::take(&mut self.jr), std::mem::take(&mut self.ju));
        self.eval(&r, &u, &mut phi, Some((&mut jr, &mut ju)));
        (self.r, self.u, self.phi, self.jr, self.ju) = (r, u, phi, jr, ju);
        self.update_error();
    }

    /// [`Method::refresh`] when r is the line search's last trial point: its u, Φ and Jacobian
    /// blocks (the same computations on the same values) are taken over instead of recomputed.
    fn refresh_from_trial(&mut self) {
        std::mem::swap(&mut self.u, &mut self.trial_u);
        std::mem::swap(&mut self.phi, &mut self.trial_phi);
        std::mem::swap(&mut self.jr, &mut self.trial_jr);
        std::mem::swap(&mut self.ju, &mut self.trial_ju);
        self.update_error();
    }

    /// The true error at the current r, and the best iterate.
    fn update_error(&mut self) {
        self.error = self.p.error_with(self.cones, &self.r, &self.u);
        if self.error < self.best.1 {
            self.best.0.clone_from(&self.r);
            self.best.1 = self.error;
        }
    }

    /// The regularisation `σ_k = c w̄ min(1, e_k)` of the Newton matrix (module docs).
    fn regularization(&self) -> f64 {
        let e = if self.error.is_finite() { self.error.min(1.0) } else { 1.0 };
        self.opts.regularization * self.w_mean * e
    }

    /// The shift σ of the Newton matrix `D_r + D_u (W + σI)`: the proximal σ (the exact
    /// Jacobian of the inner problem) in prox mode, plus the regularisation.
    fn jacobian_shift(&self) -> f64 {
        let reg = self.regularization();
        match &self.prox {
            Some(ps) => ps.sigma + reg,
            None => reg,
        }
    }

    /// The stagnation rule ([`SemismoothNewton::stall_iterations`]): a Newton method (not yet
    /// proximal, the rule on) continues in proximal mode from its best iterate, with `prox`'s
    /// defaults. False when it does not apply.
    fn go_proximal(&mut self, why: &'static str) -> bool {
        if self.opts.stall_iterations == 0 || self.went_proximal.is_some() {
            return false;
        }
        let Some(storage) = self.spare.take() else { return false };
        self.went_proximal = Some((self.iterations, why));
        if self.best.1 < self.error {
            self.r.copy_from_slice(&self.best.0);
        }
        let iterative = matches!(&*self.linear, Linear::Sparse(sj) if sj.iterative);
        let ps = ProxState::new(PROX_DEFAULTS, self.w_max, iterative, &self.r, storage);
        rho_into(self.blocks, self.p.contacts(), ps.sigma, self.opts.rho_scale, &mut self.rho);
        self.prox = Some(ps);
        self.merit_memory.clear();
        self.phi_prev = None;
        self.refresh();
        if let Some(ps) = &mut self.prox {
            ps.phi_start = Self::merit(&self.phi).sqrt();
        }
        true
    }

    /// Prox mode: moves the centre to r when the inner problem is solved well enough (‖Φ_σ‖
    /// down by 100) or after `inner_max` iterations, and adapts σ: ÷ν after a quick inner
    /// solve (≤ 2 iterations), ×ν after a slow one, within `[10⁻¹², 10⁸] · max diag W`. The
    /// Alart–Curnier ρ's follow σ: they are those of the inner operator `W + σI`.
    fn prox_update(&mut self) {
        let nphi = Self::merit(&self.phi).sqrt();
        let Some(ps) = &mut self.prox else { return };
        ps.inner += 1;
        if nphi < ps.phi_inner {
            ps.phi_inner = nphi;
            ps.r_inner.copy_from_slice(&self.r);
        }
        let solved = nphi <= 1e-2 * ps.phi_start;
        if !(solved || ps.inner >= ps.params.inner_max) {
            return;
        }
        if !solved {
            // A failed inner solve: the centre moves to its best iterate if that one made
            // progress on the inner problem, else stays. Its last iterate need not be near a
            // solution of the subproblem (an undamped Newton iteration can cycle), and moving
            // the centre there made prox cycle too: on `friction_contact(2, 5, 298)` σ went
            // up and down by ν with the same 24 errors over and over.
            let back = if ps.phi_inner < ps.phi_start { &ps.r_inner } else { &ps.r_ref };
            self.r.copy_from_slice(back);
        }
        ps.phi_inner = f64::INFINITY;
        let old = ps.sigma;
        if solved && ps.inner <= 2 {
            ps.sigma = (ps.sigma / ps.nu_down).max(ps.sigma_min);
        } else if !solved {
            ps.sigma = (ps.sigma * ps.params.nu).min(ps.sigma_max);
            ps.nu_down = ps.nu_down.sqrt();
        }
        ps.sigma_peak = ps.sigma_peak.max(ps.sigma);
        ps.r_ref.copy_from_slice(&self.r);
        ps.inner = 0;
        ps.updates += 1;
        if ps.sigma != old {
            rho_into(self.blocks, self.p.contacts(), ps.sigma, self.opts.rho_scale, &mut self.rho);
        }
        self.merit_memory.clear();
        self.phi_prev = None;
        self.refresh();
        if let Some(ps) = &mut self.prox {
            ps.phi_start = Self::merit(&self.phi).sqrt();
        }
    }

    /// The forcing term of an iteration at `‖Φ_k‖ = nphi`: Eisenstat & Walker (1996), *SIAM
    /// J. Sci. Comput.* 17(1), choice 2 (eq. 2.6 with the safeguard of §2.3):
    /// `η_k = γ (‖Φ_k‖ / ‖Φ_{k−1}‖)^α`, raised to `γ η_{k−1}^α` when that exceeds 0.1, within
    /// `[η_min, η_max]`; `η₀` at the first iteration (and after a prox update).
    fn forcing_term(&mut self, nphi: f64) -> f64 {
        let eta = match self.phi_prev {
            Some(prev) if prev > 0.0 => {
                let mut e = EW_GAMMA * (nphi / prev).powf(EW_ALPHA);
                let guard = EW_GAMMA * self.eta.powf(EW_ALPHA);
                if guard > 0.1 {
                    e = e.max(guard);
                }
                e
            }
            _ => ETA0,
        };
        self.phi_prev = Some(nphi);
        let eta = if eta.is_finite() { eta.clamp(ETA_MIN, ETA_MAX) } else { ETA_MAX };
        self.eta = eta;
        eta
    }

    fn merit(phi: &[f64]) -> f64 {
        0.5 * phi.iter().map(|v| v * v).sum::<f64>()
    }

    /// Newton direction into `self.dir`.
    fn direction(&mut self) -> Direction {
        let n = self.r.len();
        let d = self.p.dim;
        let shift = self.jacobian_shift();
        for ((e, a), b) in self.jr_eff.iter_mut().zip(&self.jr).zip(&self.ju) {
            *e = a + shift * b;
        }
        // The forcing term steers the Krylov solves, which only a sparse J can switch to; a
        // dense J is solved directly and does not need it.
        let eta = match &*self.linear {
            Linear::Sparse(_) => {
                let nphi = self.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
                self.forcing_term(nphi)
            }
            Linear::Dense { .. } => ETA_MAX,
        };
        if let Linear::Sparse(sj) = &mut *self.linear {
            if !sj.iterative && self.deadline.is_some() && n >= AUTO_MIN_N {
                // Do not start a factorization predicted to end after the time limit.
                let predicted = sj.cost().map_or(0.0, |c| c.flops / FLOP_RATE);
                if !fits_before(Instant::now(), predicted, self.deadline) {
                    if self.opts.linear == LinearSolver::Direct {
                        return Direction::TimeLimit;
                    }
                    sj.iterative = true;
                    self.switched_for_time = true;
                }
            }
        }
        // The regularizations' scale, computed only when the plain system fails.
        let mut scale = None;
        for eps_k in 0..4 {
            let eps = if eps_k == 0 {
                0.0
            } else {
                let scale = *scale.get_or_insert_with(|| {
                    self.jr_eff.iter().chain(&self.ju).fold(1.0_f64, |m, v| m.max(v.abs()))
                });
                scale * 10f64.powi(-12 + 3 * eps_k)
            };
            let mut iterative = false;
            let ok = match &mut *self.linear {
                Linear::Sparse(sj) if sj.iterative => {
                    iterative = true;
                    sj.assemble(d, &self.jr_eff, &self.ju);
                    // b = −Φ, in the storage of W Δ (unused by the sparse residual check).
                    for k in 0..n {
                        self.wd[k] = -self.phi[k];
                    }
                    match sj.solve_iterative(d, eps, &self.wd, &mut self.dir, eta, self.deadline) {
                        None => false,
                        Some(out) => {
                            self.krylov_iterations += out.iterations;
                            if out.stop == KrylovStop::Deadline {
                                return Direction::TimeLimit;
                            }
                            true
                        }
                    }
                }
                Linear::Sparse(sj) => {
                    self.factorizations += 1;
                    for k in 0..n {
                        self.dir[k] = -self.phi[k];
                    }
                    sj.assemble(d, &self.jr_eff, &self.ju);
                    sj.solve(eps, &mut self.dir)
                }
                Linear::Dense { w, lu, j: kept, reduced, active, rhs, x } => {
                    self.factorizations += 1;
                    for k in 0..n {
                        self.dir[k] = -self.phi[k];
                    }
                    // A retry after a reduced attempt assembles the whole J: `kept` holds J_AA.
                    let kept_is_whole = !*reduced;
                    *reduced = eps_k == 0 && active_contacts(d, &self.jr_eff, &self.ju, active) < n / d;
                    if *reduced {
                        reduced_direction(
                            d,
                            w,
                            &self.jr_eff,
                            &self.ju,
                            &self.phi,
                            active,
                            lu,
                            kept,
                            rhs,
                            x,
                            &mut self.dir,
                        )
                    } else {
                        if lu.n() != n {
                            lu.resize(n, 1);
                        }
                        // J is assembled once and kept; a regularized retry starts from the copy
                        // (the previous attempt's LU overwrote the matrix).
                        let mut j = lu.matrix_mut();
                        if eps_k == 0 || !kept_is_whole {
                            dense_assemble(d, w, &self.jr_eff, &self.ju, j.rb_mut());
                            for (c, kc) in kept.chunks_exact_mut(n).enumerate() {
                                kc.copy_from_slice(col_slice(&mut j, c));
                            }
                        } else {
                            for (c, kc) in kept.chunks_exact(n).enumerate() {
                                col_slice(&mut j, c).copy_from_slice(kc);
                            }
                        }
                        for k in 0..n {
                            j[(k, k)] += eps;
                        }
                        // LU with partial pivoting in place (perp_core::linear; J is overwritten
                        // by L and U), then the solve; a breakdown or a non-finite Δ is refused.
                        lu.factor().is_ok() && {
                            lu.solve_in_place(&mut self.dir);
                            self.dir.iter().all(|v| v.is_finite())
                        }
                    }
                }
            };
            let accepted = if iterative { self.inexact_ok(eta) } else { self.residual_ok(eps > 0.0) };
            if ok && accepted {
                if eps > 0.0 {
                    self.regularized += 1;
                }
                return Direction::Found;
            }
        }
        Direction::Failed
    }

    /// An inexact Newton direction (Eisenstat & Walker 1996, eq. 1.2): `‖J Δ + Φ‖ ≤ η_max ‖Φ‖`
    /// (a descent direction of ½‖Φ‖²), counted as short when it misses `η ‖Φ‖`.
    fn inexact_ok(&mut self, eta: f64) -> bool {
        let mut jd = std::mem::take(&mut self.jd);
        if let Linear::Sparse(sj) = &*self.linear {
            sj.mul(&self.dir, &mut jd);
        }
        let res: f64 = jd.iter().zip(&self.phi).map(|(a, b)| (a + b) * (a + b)).sum::<f64>().sqrt();
        let nphi = self.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
        self.jd = jd;
        if res > eta * nphi * (1.0 + 1e-8) {
            self.short_directions += 1;
        }
        res <= ETA_MAX * nphi
    }

    /// `‖J Δ + Φ‖ ≤ 1e-6 ‖Φ‖` (the solve was accurate), or, for a regularised system, at
    /// least a descent direction of ½‖Φ‖² (`Φᵀ J Δ < 0`).
    fn residual_ok(&mut self, regularized: bool) -> bool {
        let n = self.r.len();
        let mut jd = std::mem::take(&mut self.jd);
        match &mut *self.linear {
            Linear::Sparse(sj) => sj.mul(&self.dir, &mut jd),
            Linear::Dense { j, reduced: true, active, rhs, x, .. } => {
                // Rows [I 0]: (J Δ)_i = Δ_i (= −Φ_i); the others, with J_AA kept by columns:
                // (J Δ)_A = J_AA Δ_A + J_AT Δ_T = J_AA Δ_A − rhs_A − Φ_A.
                let d = self.p.dim;
                let m = active.len() * d;
                jd[..n].copy_from_slice(&self.dir);
                let y = &mut x[..m];
                y.fill(0.0);
                // (m = 0, every contact taking off: no columns.)
                for (lc, jc) in j[..m * m].chunks_exact(m.max(1)).enumerate() {
                    let xc = self.dir[d * active[lc / d] + lc % d];
                    for (yr, a) in y.iter_mut().zip(jc) {
                        *yr += a * xc;
                    }
                }
                for (ci, &i) in active.iter().enumerate() {
                    for a in 0..d {
                        jd[d * i + a] = y[d * ci + a] - rhs[d * ci + a] - self.phi[d * i + a];
                    }
                }
            }
            Linear::Dense { j, .. } => {
                // J Δ with the copy of J kept (by columns) before its LU overwrote it.
                let jd = &mut jd[..n];
                jd.fill(0.0);
                for (jc, x) in j.chunks_exact(n).zip(&self.dir) {
                    for (y, a) in jd.iter_mut().zip(jc) {
                        *y += a * x;
                    }
                }
            }
        }
        let res: f64 = jd.iter().zip(&self.phi).map(|(a, b)| (a + b) * (a + b)).sum::<f64>().sqrt();
        let nphi = self.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
        let slope: f64 = jd.iter().zip(&self.phi).map(|(a, b)| a * b).sum();
        self.jd = jd;
        res <= 1e-6 * nphi.max(f64::MIN_POSITIVE) || (regularized && slope < 0.0)
    }

    /// Backtracking along `self.dir` from `psi0 = ½‖Φ‖²` against the non-monotone
    /// `reference`: the accepted step, else the best trial step when it decreases `psi0`
    /// (`None` when no trial step does); with it, whether it is the full step, accepted at once
    /// (its u, Φ and Jacobian blocks are then in the `trial_*` vectors: the full step is
    /// evaluated with the Jacobians, Φ being the same either way).
    fn line_search(&mut self, psi0: f64, reference: f64) -> Option<(f64, bool)> {
        let n = self.r.len();
        let mut best: Option<(f64, f64)> = None;
        let take_any = !self.opts.line_search || self.went_proximal.is_some();
        // The shared backtracking (halving, at most MAX_HALVINGS trials) with this method's
        // non-monotone test `ψ(t) ≤ (1 − 2σt)·reference`, σ = 1e-4, written as before.
        let search = Backtracking { min_step: 0.0, max_trials: MAX_HALVINGS, ..Backtracking::default() };
        let found = search.search(|t| {
            for k in 0..n {
                self.trial[k] = self.r[k] + t * self.dir[k];
            }
            self.blocks.velocity(&self.trial, &self.p.q, &mut self.trial_u);
            let (tr, tu) = (std::mem::take(&mut self.trial), std::mem::take(&mut self.trial_u));
            let mut tphi = std::mem::take(&mut self.trial_phi);
            let (mut tjr, mut tju) = (std::mem::take(&mut self.trial_jr), std::mem::take(&mut self.trial_ju));
            // The full step, usually taken, with the Jacobians (wasted when it is refused).
            let first = t == 1.0;
            self.eval(&tr, &tu, &mut tphi, if first { Some((&mut tjr, &mut tju)) } else { None });
            let psi = Self::merit(&tphi);
            self.trial = tr;
            self.trial_u = tu;
            self.trial_phi = tphi;
            (self.trial_jr, self.trial_ju) = (tjr, tju);
            if psi.is_finite() && best.is_none_or(|(_, b)| psi < b) {
                best = Some((t, psi));
            }
            if psi <= (1.0 - 2e-4 * t) * reference || (take_any && psi.is_finite()) {
                Verdict::Accept
            } else {
                Verdict::Reject
            }
        });
        self.line_search_steps += found.trials();
        match found {
            Search::Accepted { step, .. } => Some((step, step == 1.0)),
            Search::Failed(_) => match best {
                Some((tb, psi)) if psi < psi0 => Some((tb, false)),
                _ => None,
            },
        }
    }
}

/// Whether work predicted to take `predicted` seconds, started at `now`, ends before
/// `deadline` (always without one).
fn fits_before(now: Instant, predicted: f64, deadline: Option<Instant>) -> bool {
    match deadline {
        None => true,
        Some(t) => {
            let left = t.saturating_duration_since(now).as_secs_f64();
            predicted.is_finite() && predicted < left
        }
    }
}

/// Column `c` of `j` as a slice (the columns of a faer matrix are contiguous).
fn col_slice<'a>(j: &'a mut MatMut<'_, f64>, c: usize) -> &'a mut [f64] {
    j.rb_mut().col_mut(c).try_as_col_major_mut().expect("contiguous column").as_slice_mut()
}

/// Fills `active` with the contacts whose rows of J are not `[I 0]` (their `jr` block the
/// identity and their `ju` block zero, exactly) and returns how many there are.
fn active_contacts(d: usize, jr: &[f64], ju: &[f64], active: &mut Vec<usize>) -> usize {
    let dd = d * d;
    let nc = ju.len() / dd;
    active.clear();
    for i in 0..nc {
        let (r, u) = (&jr[i * dd..(i + 1) * dd], &ju[i * dd..(i + 1) * dd]);
        let identity = r.iter().enumerate().all(|(k, v)| *v == if k % (d + 1) == 0 { 1.0 } else { 0.0 });
        if !(identity && u.iter().all(|v| *v == 0.0)) {
            active.push(i);
        }
    }
    active.len()
}

/// The Newton direction when the contacts outside `active` (the set T) have rows `[I 0]` of
/// J: their Δ_T = −Φ_T (already in `dir`, which holds −Φ), and the others solve the reduced
/// system `J_AA Δ_A = rhs_A = −Φ_A − J_AT Δ_T`, with `J_AA = Jr_A + Ju_A W_AA` and
/// `J_AT Δ_T = Ju_A (W_AT Δ_T)`: the same direction as the whole system in exact arithmetic,
/// for the LU of |A|·d unknowns instead of n (an Alart–Curnier contact taking off has Φ = r,
/// Jr = I, Ju = 0; on the generated fc3d-contact-40 more than half of the contacts are so at
/// every iteration). `J_AA` is kept by columns in `kept` for the residual check, whose
/// entries have the bits of the same entries of the whole J ([`dense_assemble`]'s sums).
/// False on a breakdown of the LU or a non-finite Δ.
#[allow(clippy::too_many_arguments)]
fn reduced_direction(
    d: usize,
    w: &Mat<f64>,
    jr: &[f64],
    ju: &[f64],
    phi: &[f64],
    active: &[usize],
    lu: &mut DenseLu,
    kept: &mut [f64],
    rhs: &mut [f64],
    x: &mut [f64],
    dir: &mut [f64],
) -> bool {
    let (m, dd, nc) = (active.len() * d, d * d, ju.len() / (d * d));
    if m == 0 {
        return true;
    }
    // v = W_AT Δ_T, into x, column by column over T (W is stored by columns).
    let v = &mut x[..m];
    v.fill(0.0);
    let mut next = 0;
    for jc in 0..nc {
        if next < active.len() && active[next] == jc {
            next += 1;
            continue;
        }
        for k in 0..d {
            let xc = dir[d * jc + k];
            let wc = w.col_as_slice(d * jc + k);
            for (ci, &i) in active.iter().enumerate() {
                for a in 0..d {
                    v[d * ci + a] += wc[d * i + a] * xc;
                }
            }
        }
    }
    for (ci, &i) in active.iter().enumerate() {
        let jui = &ju[i * dd..(i + 1) * dd];
        for a in 0..d {
            rhs[d * ci + a] = -phi[d * i + a] - block_row_dot(jui, a, &v[d * ci..d * (ci + 1)]);
        }
    }
    if lu.n() != m {
        lu.resize(m, 1);
    }
    let mut j = lu.matrix_mut();
    for (cc, &cj) in active.iter().enumerate() {
        for k in 0..d {
            let wc = w.col_as_slice(d * cj + k);
            let jc = col_slice(&mut j, d * cc + k);
            for (rc, &ri) in active.iter().enumerate() {
                let jui = &ju[ri * dd..(ri + 1) * dd];
                for a in 0..d {
                    jc[d * rc + a] = block_row_dot(jui, a, &wc[d * ri..d * (ri + 1)]);
                }
            }
            for a in 0..d {
                jc[d * cc + a] += jr[cj * dd + a * d + k];
            }
            kept[(d * cc + k) * m..(d * cc + k + 1) * m].copy_from_slice(&jc[..m]);
        }
    }
    let x = &mut x[..m];
    x.copy_from_slice(&rhs[..m]);
    lu.factor().is_ok() && {
        lu.solve_in_place(x);
        for (ci, &i) in active.iter().enumerate() {
            dir[d * i..d * (i + 1)].copy_from_slice(&x[d * ci..d * (ci + 1)]);
        }
        dir.iter().all(|v| v.is_finite())
    }
}

/// Row `a` of the `d×d` row-major block `b` times `x` (`d = x.len()`), summed from 0 in
/// order: the sums of [`dense_assemble`].
#[inline]
fn block_row_dot(b: &[f64], a: usize, x: &[f64]) -> f64 {
    let d = x.len();
    b[a * d..(a + 1) * d].iter().zip(x).fold(0.0, |s, (bk, xk)| s + bk * xk)
}

/// `J = jr + ju W` (block-diagonal `jr`, `ju`), column by column on W's contiguous columns:
/// every entry is the sum of [`dense_assemble_dyn`] in the same order (the same bits).
fn dense_assemble(d: usize, w: &Mat<f64>, jr: &[f64], ju: &[f64], mut j: MatMut<'_, f64>) {
    fn fixed<const D: usize>(w: &Mat<f64>, jr: &[f64], ju: &[f64], mut j: MatMut<'_, f64>) {
        let n = w.nrows();
        let nc = n / D;
        for c in 0..n {
            let wc = &w.col_as_slice(c)[..nc * D];
            let jc = &mut col_slice(&mut j, c)[..nc * D];
            for ((wi, ji), jui) in wc.chunks_exact(D).zip(jc.chunks_exact_mut(D)).zip(ju.chunks_exact(D * D))
            {
                for a in 0..D {
                    let mut s = 0.0;
                    for k in 0..D {
                        s += jui[a * D + k] * wi[k];
                    }
                    ji[a] = s;
                }
            }
        }
        for i in 0..nc {
            for k in 0..D {
                let jc = col_slice(&mut j, D * i + k);
                for a in 0..D {
                    jc[D * i + a] += jr[i * D * D + a * D + k];
                }
            }
        }
    }
    match d {
        2 => fixed::<2>(w, jr, ju, j.rb_mut()),
        3 => fixed::<3>(w, jr, ju, j.rb_mut()),
        _ => dense_assemble_dyn(d, w, jr, ju, j.rb_mut()),
    }
}

/// [`dense_assemble`] for any d (its reference).
fn dense_assemble_dyn(d: usize, w: &Mat<f64>, jr: &[f64], ju: &[f64], mut j: MatMut<'_, f64>) {
    let n = w.nrows();
    for i in 0..n / d {
        for a in 0..d {
            let row = d * i + a;
            for c in 0..n {
                let mut s = 0.0;
                for k in 0..d {
                    s += ju[i * d * d + a * d + k] * w[(d * i + k, c)];
                }
                j[(row, c)] = s;
            }
            for k in 0..d {
                j[(row, d * i + k)] += jr[i * d * d + a * d + k];
            }
        }
    }
}

/// Frictionless contact in FB form: `φ_N = r_N + u_N − √(r_N² + u_N²)`, `φ_T = r_T`.
fn scalar_fb_frictionless(r: &[f64], u: &[f64], phi: &mut [f64], jac: Option<(&mut [f64], &mut [f64])>) {
    let d = r.len();
    let s = (r[0] * r[0] + u[0] * u[0]).sqrt();
    phi[0] = r[0] + u[0] - s;
    phi[1..].copy_from_slice(&r[1..]);
    if let Some((jr, ju)) = jac {
        jr.iter_mut().for_each(|v| *v = 0.0);
        ju.iter_mut().for_each(|v| *v = 0.0);
        let (a, b) = if s > 0.0 {
            (1.0 - r[0] / s, 1.0 - u[0] / s)
        } else {
            (1.0 - 0.5f64.sqrt(), 1.0 - 0.5f64.sqrt())
        };
        jr[0] = a;
        ju[0] = b;
        for k in 1..d {
            jr[k * d + k] = 1.0;
        }
    }
}

impl IterativeMethod for Method<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        Some(self.error)
    }

    fn counters(&self) -> iteration::Counters {
        iteration::Counters {
            pivots: 0,
            factorizations: self.factorizations,
            line_search_steps: self.line_search_steps,
        }
    }

    fn step(&mut self) -> StepResult {
        let n = self.r.len();
        let psi0 = Self::merit(&self.phi);
        let reference = self.merit_memory.iter().fold(psi0, |m, v| m.max(*v));
        match self.direction() {
            Direction::Found => {}
            Direction::Failed => {
                self.fail =
                    Some((Status::NumericalFailure, "the Newton system is singular even regularised"));
                return StepResult { error: self.error, stop: Some(Status::NumericalFailure) };
            }
            Direction::TimeLimit => {
                self.fail =
                    Some((Status::TimeLimit, "the time limit falls before the Newton system is solved"));
                return StepResult { error: self.error, stop: Some(Status::TimeLimit) };
            }
        }
        self.iterations += 1;
        let Some((t, last)) = self.line_search(psi0, reference) else {
            if self.go_proximal("the line search found no decrease of ½‖Φ‖²") {
                return StepResult::go(self.error);
            }
            self.fail = Some((Status::Stalled, "the line search found no decrease of ½‖Φ‖²"));
            return StepResult { error: self.error, stop: Some(Status::Stalled) };
        };
        for k in 0..n {
            self.r[k] += t * self.dir[k];
        }
        if last {
            self.refresh_from_trial();
        } else {
            self.refresh();
        }
        if self.merit_memory.len() == MEMORY {
            self.merit_memory.remove(0);
        }
        self.merit_memory.push(psi0);
        if self.error > 0.0 {
            self.prox_update();
        }
        if self.error <= 0.5 * self.progress_mark {
            (self.progress_mark, self.stalled_for) = (self.error, 0);
        } else {
            self.stalled_for += 1;
            if self.stalled_for >= self.opts.stall_iterations {
                let why = "no halving of the error in stall_iterations iterations";
                self.go_proximal(why);
            }
        }
        StepResult::go(self.error)
    }
}

impl FrictionSolver for SemismoothNewton {
    fn name(&self) -> &str {
        self.name
    }

    fn solve(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<FrictionSolution, Error> {
        solve_by_into(self, p, warm, s)
    }

    fn solve_into(
        &mut self,
        p: &FrictionContactProblem,
        warm: bool,
        r: &mut [f64],
        u: &mut [f64],
        report: &mut SolveReport,
        s: &Settings,
    ) -> Result<(), Error> {
        let mut ws = std::mem::take(self.prepared.get::<Workspace>());
        let out = solve_refined(p, warm, r, u, report, s, DEFAULT_MAX_ITER, |warm, r, u, rep, s| {
            run(self, &mut ws, None, p, warm, r, u, rep, s)
        });
        *self.prepared.get::<Workspace>() = ws;
        out
    }
}

/// The Newton loop shared by the Newton solvers and `prox`: solves `p` from the reactions in
/// `r` into `r`, `u` and `report`, on the storage of `ws`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    opts: &SemismoothNewton,
    ws: &mut Workspace,
    prox: Option<ProxParams>,
    p: &FrictionContactProblem,
    warm: bool,
    r: &mut [f64],
    u: &mut [f64],
    report: &mut SolveReport,
    s: &Settings,
) -> Result<(), Error> {
    let start = Instant::now();
    let rebuilt = prepare(p, warm, r, u, s, &mut ws.cones)?;
    if !(opts.rho_scale > 0.0 && opts.rho_scale.is_finite()) {
        return Err(Error::setting("rho_scale", opts.rho_scale, "must be finite and > 0"));
    }
    if !(opts.regularization >= 0.0 && opts.regularization.is_finite()) {
        return Err(Error::setting("regularization", opts.regularization, "must be finite and ≥ 0"));
    }
    let cones = &ws.cones.cones;
    let nc = p.contacts();
    if opts.function == NewtonFunction::FischerBurmeister {
        // The Lorentz-cone maps of the built-in laws, rebuilt where the law or μ changed.
        if rebuilt || ws.maps.len() != nc {
            ws.maps.clear();
            ws.maps.resize(nc, None);
            ws.map_mu.clear();
            ws.map_mu.resize(nc, f64::NAN.to_bits());
        }
        for (i, c) in cones.iter().enumerate() {
            let mu = p.mu[i];
            let custom = matches!(&p.cones, Some(specs) if matches!(specs[i], ConeSpec::Custom(_)));
            if ws.map_mu[i] != mu.to_bits() {
                ws.maps[i] = if mu > 0.0 && !custom { c.soc_map(mu) } else { None };
                ws.map_mu[i] = mu.to_bits();
            }
            let has_map = if custom { c.soc_map(mu).is_some() } else { ws.maps[i].is_some() };
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
    }
    let n = p.size();
    let d = p.dim;
    let new_pattern = Blocks::refresh(&mut ws.blocks, &p.w, d);
    let Some(blocks) = &ws.blocks else { unreachable!("refresh fills the slot") };
    // The diagonal of W, read from the diagonal blocks.
    let diagonal = (0..n).map(|k| blocks.diag[(k / d) * d * d + (k % d) * (d + 1)]);
    let w_mean = diagonal.clone().map(|v| v.abs()).sum::<f64>() / n.max(1) as f64;
    let dense_max =
        if opts.function == NewtonFunction::FischerBurmeister { DENSE_MAX_N_FB } else { DENSE_MAX_N };
    let sparse = opts.sparse.unwrap_or_else(|| {
        opts.linear == LinearSolver::Iterative
            || (n > dense_max && (p.w.is_sparse() || (p.w.nnz() as f64) < 0.3 * (n * n) as f64))
    });
    if sparse {
        // The pattern and symbolic LU are kept while W's pattern is; W's values are refreshed.
        match &mut ws.linear {
            Some(Linear::Sparse(sj)) if !new_pattern && sj.diag_pos.len() == n => sj.refresh_values(blocks),
            slot => *slot = Some(Linear::Sparse(Box::new(SparseJ::new(blocks, n)))),
        }
        if let Some(Linear::Sparse(sj)) = &mut ws.linear {
            sj.iterative = match opts.linear {
                LinearSolver::Direct => false,
                LinearSolver::Iterative => true,
                LinearSolver::Auto => n >= AUTO_MIN_N && sj.cost().is_none_or(|c| c.flops > AUTO_MAX_FLOPS),
            };
        }
    } else {
        match &mut ws.linear {
            Some(Linear::Dense { w, .. }) if w.nrows() == n => fill_dense(&p.w, w),
            slot => {
                let mut fresh = Linear::dense(n);
                if let Linear::Dense { w, .. } = &mut fresh {
                    fill_dense(&p.w, w);
                }
                *slot = Some(fresh);
            }
        }
    }
    let Some(linear) = &mut ws.linear else { unreachable!("filled above") };
    let iterative = matches!(linear, Linear::Sparse(sj) if sj.iterative);
    let fb_scaled = opts.function == NewtonFunction::FischerBurmeister && !iterative;
    let u_scale = if fb_scaled && w_mean > 0.0 && w_mean.is_finite() { 1.0 / w_mean } else { 1.0 };
    let w_max = diagonal.fold(0.0_f64, |m, v| m.max(v.abs())).max(f64::MIN_POSITIVE);
    let storage = (std::mem::take(&mut ws.vecs[V_R_REF]), std::mem::take(&mut ws.vecs[V_R_INNER]));
    let (prox, spare) = match prox {
        Some(params) => (Some(ProxState::new(params, w_max, iterative, r, storage)), None),
        None => (None, Some(storage)),
    };
    let mut rho = std::mem::take(&mut ws.rho);
    rho_into(blocks, nc, prox.as_ref().map_or(0.0, |ps| ps.sigma), opts.rho_scale, &mut rho);
    let mut r0 = zeroed(&mut ws.vecs[V_R], 0);
    r0.extend_from_slice(r);
    let mut merit_memory = std::mem::take(&mut ws.merit_memory);
    merit_memory.clear();
    merit_memory.reserve(MEMORY);
    let v = &mut ws.vecs;
    let mut m = Method {
        opts,
        p,
        blocks,
        cones,
        maps: if opts.function == NewtonFunction::FischerBurmeister { &ws.maps } else { &[] },
        coulomb: p.is_coulomb(),
        rho,
        linear,
        r: r0,
        u: zeroed(&mut v[V_U], n),
        phi: zeroed(&mut v[V_PHI], n),
        jr: zeroed(&mut v[V_JR], n * d),
        ju: zeroed(&mut v[V_JU], n * d),
        jr_eff: zeroed(&mut v[V_JR_EFF], n * d),
        trial: zeroed(&mut v[V_TRIAL], n),
        trial_u: zeroed(&mut v[V_TRIAL_U], n),
        trial_phi: zeroed(&mut v[V_TRIAL_PHI], n),
        trial_jr: zeroed(&mut v[V_TRIAL_JR], n * d),
        trial_ju: zeroed(&mut v[V_TRIAL_JU], n * d),
        dir: zeroed(&mut v[V_DIR], n),
        merit_memory,
        error: 0.0,
        factorizations: 0,
        line_search_steps: 0,
        regularized: 0,
        fail: None,
        best: (zeroed(&mut v[V_BEST], 0), f64::INFINITY),
        prox,
        w_mean,
        u_scale,
        jd: zeroed(&mut v[V_JD], n),
        wd: zeroed(&mut v[V_WD], n),
        deadline: s.deadline(start),
        eta: ETA0,
        phi_prev: None,
        krylov_iterations: 0,
        short_directions: 0,
        switched_for_time: false,
        stalled_for: 0,
        progress_mark: f64::INFINITY,
        went_proximal: None,
        iterations: 0,
        w_max,
        spare,
    };
    m.refresh();
    if let Some(ps) = &mut m.prox {
        ps.phi_start = Method::merit(&m.phi).sqrt();
    }
    let (name, default_max) =
        if m.prox.is_some() { ("prox", PROX_MAX_ITER) } else { (opts.name, DEFAULT_MAX_ITER) };
    let out = iteration::run_with(&mut m, s, default_max, start, Vec::new());
    reset_report(report, name);
    out.record(report);
    let msg = message_buffer(report);
    match &*m.linear {
        Linear::Sparse(sj) if sj.iterative => {
            let _ = write!(
                msg,
                "BiCGSTAB (block-Jacobi), {} inner iterations, {} directions short of their forcing term",
                m.krylov_iterations, m.short_directions
            );
            if m.switched_for_time {
                let _ = write!(msg, " (a factorization would have ended after the time limit)");
            }
        }
        _ => {
            msg.push_str(if sparse { "sparse LU" } else { "dense LU" });
        }
    }
    if let Some(ps) = &m.prox {
        let _ = write!(
            msg,
            "; {} prox updates, final σ = {:.2e} (largest {:.2e})",
            ps.updates, ps.sigma, ps.sigma_peak
        );
    }
    if m.regularized > 0 {
        let _ = write!(msg, "; {} regularised Newton systems", m.regularized);
    }
    if let Some((k, why)) = m.went_proximal {
        let _ = write!(msg, "; proximal from iteration {k} ({why})");
    }
    if let Some((_, why)) = m.fail.take() {
        let _ = write!(msg, "; {why}");
    }
    // The best iterate, not the last (they differ after watchdog steps).
    r.copy_from_slice(if m.best.1 < m.error { &m.best.0 } else { &m.r });
    p.solution_with(cones, r, u, report, s.tol);
    // Hand the storage back.
    let v = &mut ws.vecs;
    (v[V_R], v[V_U], v[V_PHI], v[V_JR], v[V_JU], v[V_JR_EFF]) = (m.r, m.u, m.phi, m.jr, m.ju, m.jr_eff);
    (v[V_TRIAL], v[V_TRIAL_U], v[V_TRIAL_PHI], v[V_DIR]) = (m.trial, m.trial_u, m.trial_phi, m.dir);
    (v[V_BEST], v[V_JD], v[V_WD]) = (m.best.0, m.jd, m.wd);
    (v[V_TRIAL_JR], v[V_TRIAL_JU]) = (m.trial_jr, m.trial_ju);
    if let Some(ps) = m.prox {
        v[V_R_REF] = ps.r_ref;
        v[V_R_INNER] = ps.r_inner;
    } else if let Some((a, b)) = m.spare {
        (v[V_R_REF], v[V_R_INNER]) = (a, b);
    }
    (ws.rho, ws.merit_memory) = (m.rho, m.merit_memory);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Prox;
    use perp_core::Matrix;

    /// One point mass (m = 1) touching the ground twice at the same point: `J = [I; I]`,
    /// `W = J Jᵀ = [[I, I], [I, I]]` (rank 3 of 6), approaching at 1 and sliding at 0.2 along
    /// x, μ = 0.5. The total impulse `R = r₁ + r₂ = (1, −0.2, 0)` stops it (it sticks:
    /// 0.2 ≤ 0.5 · 1); its split between the two contacts is free.
    fn twin_contact() -> FrictionContactProblem {
        let mut t = Vec::new();
        for i in 0..6 {
            t.push((i, i, 1.0));
            t.push((i, (i + 3) % 6, 1.0));
        }
        let w = Matrix::from_triplets(6, 6, &t).unwrap();
        let q = vec![-1.0, 0.2, 0.0, -1.0, 0.2, 0.0];
        FrictionContactProblem::new(3, w, q, vec![0.5, 0.5]).unwrap()
    }

    /// The reduced dense direction (contacts with rows `[I 0]` eliminated) against the LU of
    /// the whole J, for every subset of eliminated contacts of a 5-contact problem: the same
    /// Δ to rounding, and the J_AA it keeps has the bits of the whole J's entries.
    #[test]
    fn reduced_direction_equals_the_whole_systems() {
        let (d, nc) = (3, 5);
        let n = d * nc;
        let mut seed = 5_u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1_u64 << 53) as f64 - 0.5
        };
        // W = A Aᵀ + I (dense, symmetric positive definite).
        let a = Mat::<f64>::from_fn(n, n, |_, _| rnd());
        let w = Mat::<f64>::from_fn(n, n, |i, j| {
            (0..n).map(|k| a[(i, k)] * a[(j, k)]).sum::<f64>() + if i == j { 1.0 } else { 0.0 }
        });
        for mask in 0..(1_u32 << nc) {
            let taking_off = |i: usize| mask & (1 << i) != 0;
            let (mut jr, mut ju) = (vec![0.0; n * d], vec![0.0; n * d]);
            for i in 0..nc {
                for k in 0..d * d {
                    if taking_off(i) {
                        jr[i * d * d + k] = if k % (d + 1) == 0 { 1.0 } else { 0.0 };
                    } else {
                        jr[i * d * d + k] = rnd();
                        ju[i * d * d + k] = rnd() + if k % (d + 1) == 0 { 2.0 } else { 0.0 };
                    }
                }
            }
            let phi: Vec<f64> = (0..n).map(|_| rnd()).collect();
            // The whole system.
            let mut lu = DenseLu::new();
            lu.resize(n, 1);
            let mut whole = Mat::<f64>::zeros(n, n);
            dense_assemble(d, &w, &jr, &ju, whole.as_mut());
            lu.matrix_mut().copy_from(whole.as_ref());
            lu.factor().unwrap();
            let mut want: Vec<f64> = phi.iter().map(|v| -v).collect();
            lu.solve_in_place(&mut want);
            // The reduced one.
            let mut active = Vec::new();
            let m = active_contacts(d, &jr, &ju, &mut active) * d;
            assert_eq!(active, (0..nc).filter(|&i| !taking_off(i)).collect::<Vec<_>>());
            let (mut kept, mut rhs, mut x) = (vec![0.0; n * n], vec![0.0; n], vec![0.0; n]);
            let mut dir: Vec<f64> = phi.iter().map(|v| -v).collect();
            let mut rlu = DenseLu::new();
            assert!(reduced_direction(
                d, &w, &jr, &ju, &phi, &active, &mut rlu, &mut kept, &mut rhs, &mut x, &mut dir
            ));
            let scale = want.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            for k in 0..n {
                assert!(
                    (dir[k] - want[k]).abs() <= 1e-12 * scale,
                    "mask {mask:b}, {k}: {} {}",
                    dir[k],
                    want[k]
                );
            }
            for (lc, col) in kept[..m * m].chunks_exact(m.max(1)).enumerate() {
                let gc = d * active[lc / d] + lc % d;
                for (lr, v) in col.iter().enumerate() {
                    let gr = d * active[lr / d] + lr % d;
                    assert_eq!(v.to_bits(), whole[(gr, gc)].to_bits(), "mask {mask:b} ({gr}, {gc})");
                }
            }
        }
    }

    /// Every contact taking off at a warm start (the reduced system is empty): one step to
    /// r = 0, with the residual check of the empty system.
    #[test]
    fn every_contact_taking_off_is_one_reduced_step() {
        let w = Matrix::from_row_major(
            6,
            6,
            &(0..36).map(|k| if k % 7 == 0 { 1.0 } else { 0.0 }).collect::<Vec<_>>(),
        )
        .unwrap();
        let p =
            FrictionContactProblem::new(3, w, vec![1.0, 0.2, 0.0, 2.0, 0.0, 0.1], vec![0.5, 0.5]).unwrap();
        let warm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
        let s = Settings { tol: 1e-12, ..Settings::default() };
        for mut sv in [SemismoothNewton::alart_curnier(), SemismoothNewton::natural_map()] {
            let sol = sv.solve(&p, Some(&warm), &s).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "{}: {:?}", sv.name(), sol.report);
            assert_eq!(sol.r, vec![0.0; 6], "{}", sv.name());
            assert!(!sol.report.message.unwrap_or_default().contains("regularised"));
        }
    }

    #[test]
    fn singular_twin_contact_is_solved_from_cold_and_off_null_space_starts() {
        let p = twin_contact();
        // A warm start off by a self-equilibrated pair (W (v, −v) = 0) that leaves the cone:
        // the second normal impulse is −1.5.
        let off = [2.5, -0.1, 0.0, -1.5, -0.1, 0.0];
        let s = Settings { tol: 1e-10, ..Settings::default() };
        let solvers: Vec<Box<dyn FrictionSolver>> = vec![
            Box::new(SemismoothNewton::alart_curnier()),
            Box::new(SemismoothNewton::fischer_burmeister()),
            Box::new(SemismoothNewton::natural_map()),
            Box::new(Prox::new()),
        ];
        for mut sv in solvers {
            for warm in [None, Some(&off[..])] {
                let sol = sv.solve(&p, warm, &s).unwrap();
                let name = sv.name().to_string();
                assert_eq!(sol.report.status, Status::Solved, "{name} {warm:?}: {:?}", sol.report);
                let total = [sol.r[0] + sol.r[3], sol.r[1] + sol.r[4], sol.r[2] + sol.r[5]];
                let want = [1.0, -0.2, 0.0];
                for k in 0..3 {
                    assert!((total[k] - want[k]).abs() < 1e-8, "{name} {warm:?}: R = {total:?}");
                }
                for c in [&sol.r[..3], &sol.r[3..]] {
                    assert!(c[0] >= -1e-10 && c[1].hypot(c[2]) <= 0.5 * c[0] + 1e-10, "{name}: {c:?}");
                }
            }
        }
    }

    #[test]
    fn dense_assemble_matches_the_generic_one_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for d in [2, 3] {
            for nc in [1, 2, 5] {
                let n = nc * d;
                let mut w = Mat::<f64>::zeros(n, n);
                for i in 0..n {
                    for j in 0..n {
                        w[(i, j)] =
                            if rng.random_range(0.0..1.0) < 0.3 { 0.0 } else { rng.random_range(-1.0..1.0) };
                    }
                }
                let jr: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
                let ju: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
                let (mut j1, mut j2) = (Mat::<f64>::zeros(n, n), Mat::<f64>::zeros(n, n));
                dense_assemble(d, &w, &jr, &ju, j1.as_mut());
                dense_assemble_dyn(d, &w, &jr, &ju, j2.as_mut());
                for i in 0..n {
                    for j in 0..n {
                        assert_eq!(j1[(i, j)].to_bits(), j2[(i, j)].to_bits(), "d = {d}, ({i}, {j})");
                    }
                }
            }
        }
    }

    #[test]
    fn a_factorization_starts_only_when_predicted_to_end_before_the_deadline() {
        use std::time::Duration;
        let now = Instant::now();
        let deadline = Some(now + Duration::from_millis(500));
        assert!(fits_before(now, 1e9, None));
        assert!(fits_before(now, 0.4, deadline));
        assert!(!fits_before(now, 0.6, deadline));
        assert!(!fits_before(now, f64::NAN, deadline));
        // Past the deadline nothing fits.
        assert!(!fits_before(now + Duration::from_secs(1), 0.0, deadline));
    }

    #[test]
    fn forcing_terms_follow_eisenstat_walker_choice_2() {
        let p = twin_contact();
        let mut ws = Workspace::default();
        let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
        let mut report = SolveReport::new("");
        let s = Settings::default();
        let opts = SemismoothNewton::alart_curnier();
        run(&opts, &mut ws, None, &p, false, &mut r, &mut u, &mut report, &s).unwrap();
        let Some(blocks) = &ws.blocks else { panic!("prepared") };
        let Some(linear) = &mut ws.linear else { panic!("prepared") };
        let mut m = Method {
            opts: &opts,
            p: &p,
            blocks,
            cones: &ws.cones.cones,
            maps: &[],
            coulomb: true,
            rho: Vec::new(),
            linear,
            r: Vec::new(),
            u: Vec::new(),
            phi: Vec::new(),
            jr: Vec::new(),
            ju: Vec::new(),
            jr_eff: Vec::new(),
            trial: Vec::new(),
            trial_u: Vec::new(),
            trial_phi: Vec::new(),
            trial_jr: Vec::new(),
            trial_ju: Vec::new(),
            dir: Vec::new(),
            merit_memory: Vec::new(),
            error: 0.0,
            factorizations: 0,
            line_search_steps: 0,
            regularized: 0,
            fail: None,
            best: (Vec::new(), f64::INFINITY),
            prox: None,
            w_mean: 1.0,
            u_scale: 1.0,
            jd: Vec::new(),
            wd: Vec::new(),
            deadline: None,
            eta: ETA0,
            phi_prev: None,
            krylov_iterations: 0,
            short_directions: 0,
            switched_for_time: false,
            stalled_for: 0,
            progress_mark: f64::INFINITY,
            went_proximal: None,
            iterations: 0,
            w_max: 1.0,
            spare: None,
        };
        assert_eq!(m.forcing_term(1.0), ETA0);
        // ‖Φ‖ down by 10: γ (0.1)² = 0.009, the safeguard γ η² = 0.009 is below 0.1.
        assert!((m.forcing_term(0.1) - 0.009).abs() < 1e-15);
        // ‖Φ‖ up: capped at η_max.
        assert_eq!(m.forcing_term(1.0), ETA_MAX);
        // Converging fast: down to η_min, never below.
        assert!((m.forcing_term(1e-3) - EW_GAMMA * 1e-6).abs() < 1e-18);
        assert_eq!(m.forcing_term(1e-12), ETA_MIN);
    }

    #[test]
    fn prox_rho_follows_sigma() {
        let p = twin_contact();
        let blocks = Blocks::new(&p.w, 3);
        let rho = rho_for(&blocks, 2, 0.0, 1.0);
        assert_eq!(rho, vec![(1.0, 1.0); 2]);
        // The inner operator W + σI has diagonal 1 + σ.
        let rho = rho_for(&blocks, 2, 3.0, 2.0);
        assert_eq!(rho, vec![(0.5, 0.5); 2]);
    }

    #[test]
    fn bad_regularization_is_an_input_error() {
        let p = twin_contact();
        for c in [-1.0, f64::NAN, f64::INFINITY] {
            let mut sv = SemismoothNewton::alart_curnier();
            sv.regularization = c;
            let e = sv.solve(&p, None, &Settings::default()).unwrap_err();
            assert!(e.to_string().contains("regularization"), "{e}");
        }
        // 0 is the plain generalised Jacobian, allowed.
        let mut sv = SemismoothNewton::alart_curnier();
        sv.regularization = 0.0;
        assert!(sv.solve(&p, None, &Settings::default()).is_ok());
    }
}
