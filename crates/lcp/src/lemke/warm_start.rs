//! Where a run starts: the restart supports of the first Lemke–Howson pivot and their
//! covering vectors, and the warm start that solves a guessed basis directly.

use super::dense::{DenseCols, LuScratch, SMALL_BASIS};
use super::engine::Support;
use crate::Lcp;
use perp_core::linear::small_lu_solve;

/// Supports to restart from after a ray, in the spirit of the first Lemke–Howson pivot: for
/// the columns k in order of increasing qₖ, zₖ alone would have to grow until the last row it
/// helps, r(k) = argmax{−qᵢ/mᵢₖ : mᵢₖ > 0}, becomes feasible; the restart support is {k, r(k)}.
/// On a bimatrix game (M = [[0, A], [Bᵀ, 0]], q = −e) these are the supports of pure-strategy
/// best-response pairs, where Lemke from the all-w start fails (CPS example 4.4.23).
/// Written into `out` (at most `count`), with `order` as scratch.
pub(super) fn restart_supports(
    m: &DenseCols,
    q: &[f64],
    count: usize,
    order: &mut Vec<usize>,
    out: &mut Vec<Support>,
) {
    let n = m.n;
    order.clear();
    order.extend(0..n);
    // The keys are distinct (ties broken by index), so the unstable sort gives the one order.
    order.sort_unstable_by(|&a, &b| q[a].total_cmp(&q[b]).then(a.cmp(&b)));
    out.clear();
    for &k in order.iter() {
        if out.len() >= count {
            break;
        }
        let col = m.col(k);
        let r =
            (0..n).filter(|&i| col[i] > 0.0).max_by(|&a, &b| (-q[a] / col[a]).total_cmp(&(-q[b] / col[b])));
        let mut sup = Support { idx: [k, 0], len: 1 };
        if let Some(r) = r.filter(|&r| r != k) {
            sup = Support { idx: [k.min(r), k.max(r)], len: 2 };
        }
        if !out.contains(&sup) {
            out.push(sup);
        }
    }
}

/// d = B·e for the complementary basis of `support`: Σ_{i ∉ S} eᵢ − Σ_{j ∈ S} M·ⱼ, into `d`.
pub(super) fn basis_times_e(m: &DenseCols, support: &[usize], d: &mut Vec<f64>) {
    d.clear();
    d.resize(m.n, 1.0);
    for &j in support {
        d[j] = 0.0;
    }
    for &j in support {
        for (di, mij) in d.iter_mut().zip(m.col(j)) {
            *di -= mij;
        }
    }
}

/// Where a complementary basis is tried ([`try_warm_basis`], [`crash`]): its solution goes to
/// `zs` and `w = M zs + q` to `w`, each factorization counts in `factorizations`; `idx` and
/// `lu` are scratch (no allocation once sized).
pub(super) struct BasisTry<'a> {
    pub(super) zs: &'a mut [f64],
    pub(super) w: &'a mut [f64],
    pub(super) idx: &'a mut Vec<usize>,
    pub(super) lu: &'a mut LuScratch,
    pub(super) factorizations: &'a mut usize,
}

/// Tries the complementary basis given by the support of `z` (into `out`); returns
/// `(error, residual)` if it is feasible and its error meets `tol`. A factorization (k > 0)
/// counts.
pub(super) fn try_warm_basis(p: &Lcp, z: &[f64], tol: f64, out: BasisTry<'_>) -> Option<(f64, f64)> {
    let BasisTry { zs, w, idx, lu, factorizations } = out;
    let m = p.m();
    let k = z.iter().filter(|&&v| v > 0.0).count();
    zs.fill(0.0);
    if k > 0 {
        *factorizations += 1;
        lu.reserve(p.n());
        idx.clear();
        idx.extend((0..p.n()).filter(|&i| z[i] > 0.0));
        if k <= SMALL_BASIS {
            // Contact steps warm-start tiny LCPs thousands of times per second: the LU of the
            // stack solver, on the first k² entries of the kept scratch (no zeroing of a
            // stack array a call).
            lu.gather_principal(idx, p.q(), |i, j| m.get(i, j), true);
            small_lu_solve(k, &mut lu.a[..k * k], &mut lu.x[..k]).ok()?;
        } else {
            lu.solve_principal(idx, p.q(), |i, j| m.get(i, j));
        }
        for (r, &i) in idx.iter().enumerate() {
            zs[i] = lu.x[r];
        }
    }
    if zs.iter().any(|v| !v.is_finite() || *v < 0.0) {
        return None;
    }
    p.m().mul_vec(zs, w);
    for (wi, qi) in w.iter_mut().zip(p.q()) {
        *wi += qi;
    }
    let (error, residual_inf) = p.errors(zs, w);
    (error <= tol).then_some((error, residual_inf))
}

/// Relative size of a rounding error in the crash's sign tests.
const ROUND_OFF: f64 = 1e-12;

/// Rounds without fewer infeasible indices after which the crash stops.
const STALL_ROUNDS: usize = 2;

/// What [`crash`] found.
pub(super) enum Crash {
    /// A complementary basis whose solution (in `zs`, `w = M zs + q` in `w`) is feasible and
    /// meets the tolerance: (error, residual).
    Solved(f64, f64),
    /// No solution, but a support (in `guess`) to start the pivoting from.
    Guess,
    /// Nothing to start from (q ≥ 0, or the first basis was singular).
    Nothing,
}

/// Scratch of the crash: the support being tried and its membership flags.
#[derive(Default)]
pub(super) struct CrashScratch {
    pub(super) guess: Vec<usize>,
    pub(super) in_s: Vec<bool>,
    /// The rounds the last crash ran.
    pub(super) rounds: usize,
}

/// The crash before a cold start: at most `rounds` rounds of block principal pivoting
/// (Kostreva 1978; Júdice & Pires 1994, "A block principal pivoting algorithm for large-scale
/// strictly monotone linear complementarity problems", Computers & OR 21, Algorithm 1 without
/// its single-pivot safeguard, whose role Lemke's method takes here). From S = {i : qᵢ < 0},
/// each round solves `M_SS z_S = −q_S` (one dense LU), forms `w = q + M·S z_S`, and exchanges
/// every infeasible index: i ∈ S with zᵢ < 0 leaves S, i ∉ S with wᵢ < 0 joins it. A round
/// without infeasible index is the solution (returned if it meets `tol`). Otherwise the
/// support with the fewest infeasible indices seen is the guess, from whose complementary
/// basis Lemke starts. For a P-matrix the rounds usually end within 5–6 on random data, where
/// Lemke from the all-w basis needs about one pivot per index of the solution's support, each
/// O(n·k). A singular M_SS (non-finite z_S) ends the crash. `out`'s `zs`, `w` hold the last
/// basis tried.
pub(super) fn crash(
    p: &Lcp,
    m: &DenseCols,
    tol: f64,
    rounds: usize,
    cs: &mut CrashScratch,
    out: BasisTry<'_>,
) -> Crash {
    let BasisTry { zs, w, idx, lu, factorizations } = out;
    let (n, q) = (p.n(), p.q());
    cs.in_s.clear();
    cs.in_s.extend(q.iter().map(|&x| x < 0.0));
    cs.guess.clear();
    let (mut best, mut stalled) = (usize::MAX, 0);
    cs.rounds = 0;
    lu.reserve(n);
    for _ in 0..rounds {
        idx.clear();
        idx.extend((0..n).filter(|&i| cs.in_s[i]));
        let k = idx.len();
        if k == 0 {
            break; // q ≥ 0 (round 0) or an emptied support: the all-w start is as good
        }
        cs.rounds += 1;
        *factorizations += 1;
        lu.solve_principal(idx, q, |i, j| m.at(i, j));
        let x = &lu.x[..k];
        if !x.iter().all(|v| v.is_finite()) {
            break;
        }
        zs.fill(0.0);
        w.copy_from_slice(q);
        for (&xr, &j) in x.iter().zip(idx.iter()) {
            zs[j] = xr;
            for (wi, mij) in w.iter_mut().zip(m.col(j)) {
                *wi += mij * xr;
            }
        }
        // Round-off is not infeasibility: on a degenerate problem (zᵢ = wᵢ = 0) an exchange
        // on the sign of a rounding error would cycle.
        let z_eps = ROUND_OFF * zs.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let w_eps = ROUND_OFF * q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let bad = (0..n).filter(|&i| if cs.in_s[i] { zs[i] < -z_eps } else { w[i] < -w_eps }).count();
        if bad < best {
            best = bad;
            stalled = 0;
            cs.guess.clear();
            cs.guess.extend_from_slice(idx);
        } else {
            // Júdice–Pires count rounds without progress; so does the crash, and hands over
            // to Lemke instead of to single pivots.
            stalled += 1;
            if stalled == STALL_ROUNDS {
                break;
            }
        }
        if bad == 0 {
            let (error, residual) = p.errors(zs, w);
            if error <= tol {
                return Crash::Solved(error, residual);
            }
            break;
        }
        for i in 0..n {
            cs.in_s[i] = if cs.in_s[i] { zs[i] >= -z_eps } else { w[i] < -w_eps };
        }
    }
    if cs.guess.is_empty() {
        Crash::Nothing
    } else {
        Crash::Guess
    }
}
