//! `schur-lemke`: a pivoting method for the mixed LCP (an affine MCP whose variables are free
//! or bounded below only), for the MLCPs that the Newton methods do not solve.
//!
//! Write the MLCP with the free variables `u` first and the complementary ones `v`:
//!
//! ```text
//!   A u + C v + a = 0,        0 ≤ v ⊥ w = D u + B v + b ≥ 0
//! ```
//!
//! 1. **Elimination** (the Schur complement; Cottle, Pang & Stone 1992, §1.5 on the mixed
//!    LCP; the same step as Stewart 2000, Stewart 2000 eq. 2.11–2.16, eliminating velocities):
//!    when `A` is nonsingular, `u = −A⁻¹(a + C v)` and `v` solves the LCP
//!    `0 ≤ v ⊥ S v + s ≥ 0` with `S = B − D A⁻¹ C`, `s = b − D A⁻¹ a`. A singular `A` is an
//!    input this method cannot take (`Error::Requirement`; fb-newton handles those files).
//! 2. **Scaling**: the LCP is solved as `(Δ S Δ, Δ s)` with `Δᵢ = 1/√(maxⱼ |S_ij|)`, which
//!    does not change its solutions (`v = Δ y`) but evens out the ratio tests.
//! 3. **Lemke** (lexicographic, [`perp_lcp::lemke`]) on the scaled LCP.
//! 4. **Polish by block principal pivoting** (Kostreva 1978; Júdice & Pires 1994) on the
//!    original MLCP, from the set `J = {j : vⱼ > 0}` Lemke ended with: solve the equations of
//!    the free rows and of `J` with `v_j = 0` off `J`, then move every `j ∈ J` with `vⱼ < 0`
//!    out and every `j ∉ J` with `wⱼ < 0` in, until nothing moves (at most `polish_rounds`
//!    rounds). Lemke's answer carries the round-off of the elimination and of its ratio tests
//!    (on `deltasigma_mlcp`, cond(A) ≈ 1.4e6, it ends at error 1.7e-6 with one index wrong);
//!    the polished answer is exact up to the solve of the final system. The better of the two
//!    by the MCP error is returned.
//!
//! A variable with a finite lower bound `l` is shifted (`z = l + y`, `y ≥ 0`); upper bounds are
//! not supported (a box-MCP is not an MLCP).

use crate::{Mcp, NcpSolver};
use faer::Mat;
use perp_core::linear::DenseLu;
use perp_core::{Error, Matrix, Settings, Solution, SolveReport, Status};
use perp_lcp::lemke::Lemke;
use perp_lcp::{Lcp, LcpSolver};
use std::time::Instant;

pub mod params;

const NAME: &str = "schur-lemke";

/// The Schur-complement Lemke method with block-pivoting polish (module docs).
#[derive(Clone, Debug)]
pub struct SchurLemke {
    /// Most rounds of block principal pivoting after Lemke (0: no polish). Default 100.
    pub polish_rounds: usize,
}

impl Default for SchurLemke {
    fn default() -> Self {
        SchurLemke { polish_rounds: params::POLISH_ROUNDS }
    }
}

impl SchurLemke {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }
}

fn requirement(what: &str) -> Error {
    Error::Requirement {
        solver: NAME.into(),
        requirement: what.into(),
        suggestion: Some("use fb-newton or bdiff-newton".into()),
    }
}

/// The MLCP in dense form: M, q (shifted so that every complementary variable has bound 0),
/// the free and the complementary indices, the lower bounds of the shift.
struct Split {
    m: Mat<f64>,
    q: Vec<f64>,
    free: Vec<usize>,
    comp: Vec<usize>,
    shift: Vec<f64>,
}

fn split(p: &Mcp<'_>) -> Result<Split, Error> {
    let Some((m, q)) = p.f.affine() else {
        return Err(requirement("an affine F(z) = Mz + q (an LCP or MLCP)"));
    };
    let n = p.n();
    let (mut free, mut comp, mut shift) = (Vec::new(), Vec::new(), vec![0.0; n]);
    for (i, sh) in shift.iter_mut().enumerate() {
        let (l, u) = (p.lower[i], p.upper[i]);
        if u != f64::INFINITY {
            return Err(requirement(&format!(
                "variables free or bounded below only (z[{i}] has the upper bound {u})"
            )));
        }
        if l == f64::NEG_INFINITY {
            free.push(i);
        } else {
            comp.push(i);
            *sh = l;
        }
    }
    let m = m.to_dense();
    let mut q = q.to_vec();
    if shift.iter().any(|&l| l != 0.0) {
        for (i, qi) in q.iter_mut().enumerate() {
            *qi += (0..n).map(|j| m[(i, j)] * shift[j]).sum::<f64>();
        }
    }
    Ok(Split { m, q, free, comp, shift })
}

/// Solves the equations of the free rows and of `active` (complementary indices with v > 0)
/// with the other complementary variables at 0; `None` when that system is singular.
fn solve_on(sp: &Split, active: &[bool], lu: &mut DenseLu, y: &mut [f64]) -> Option<()> {
    let vars: Vec<usize> = sp
        .free
        .iter()
        .copied()
        .chain(sp.comp.iter().zip(active).filter(|(_, a)| **a).map(|(c, _)| *c))
        .collect();
    let k = vars.len();
    lu.resize(k, 1);
    let mut a = lu.matrix_mut();
    for (r, &i) in vars.iter().enumerate() {
        for (c, &j) in vars.iter().enumerate() {
            a[(r, c)] = sp.m[(i, j)];
        }
    }
    match lu.factor() {
        Ok(p) if k == 0 || !p.singular(k as f64 * f64::EPSILON) => {}
        _ => return None,
    }
    let mut x: Vec<f64> = vars.iter().map(|&i| -sp.q[i]).collect();
    lu.solve_in_place(&mut x);
    y.iter_mut().for_each(|v| *v = 0.0);
    for (r, &i) in vars.iter().enumerate() {
        y[i] = x[r];
    }
    x.iter().all(|v| v.is_finite()).then_some(())
}

/// Step 1: factors the block `A` of the free rows and columns into `lu` and returns
/// `X = A⁻¹[C | a]` (column `nc` is `A⁻¹a`); `Error::Requirement` when `A` is singular.
fn eliminate(sp: &Split, lu: &mut DenseLu) -> Result<Mat<f64>, Error> {
    let (nf, nc) = (sp.free.len(), sp.comp.len());
    lu.resize(nf, nc + 1);
    let mut a = lu.matrix_mut();
    for (r, &i) in sp.free.iter().enumerate() {
        for (c, &j) in sp.free.iter().enumerate() {
            a[(r, c)] = sp.m[(i, j)];
        }
    }
    match lu.factor() {
        Ok(piv) if nf == 0 || !piv.singular(nf as f64 * f64::EPSILON) => {}
        _ => return Err(requirement("a nonsingular block A of the equations (the free rows and columns)")),
    }
    let mut x = Mat::from_fn(nf, nc + 1, |r, c| {
        let i = sp.free[r];
        if c < nc {
            sp.m[(i, sp.comp[c])]
        } else {
            sp.q[i]
        }
    });
    if nf > 0 {
        lu.solve_mat_in_place(x.as_mut());
    }
    Ok(x)
}

/// The Schur LCP `(Δ S Δ, Δ s)` with `S = B − D A⁻¹C`, `s = b − D A⁻¹a` from `X` of
/// [`eliminate`], and the scaling `Δ`.
fn scaled_schur(sp: &Split, x: &Mat<f64>) -> Result<(Lcp, Vec<f64>), Error> {
    let (nf, nc) = (sp.free.len(), sp.comp.len());
    let schur = |r: usize, c: usize| {
        let i = sp.comp[r];
        let base = if c < nc { sp.m[(i, sp.comp[c])] } else { sp.q[i] };
        base - (0..nf).map(|k| sp.m[(i, sp.free[k])] * x[(k, c)]).sum::<f64>()
    };
    let sm = Mat::from_fn(nc, nc, schur);
    let sq: Vec<f64> = (0..nc).map(|r| schur(r, nc)).collect();
    let delta: Vec<f64> = (0..nc)
        .map(|r| {
            let big = (0..nc).map(|c| sm[(r, c)].abs()).fold(0.0, f64::max);
            if big > 0.0 && big.is_finite() {
                1.0 / big.sqrt()
            } else {
                1.0
            }
        })
        .collect();
    let scaled = Mat::from_fn(nc, nc, |r, c| delta[r] * sm[(r, c)] * delta[c]);
    let lcp = Lcp::new(Matrix::Dense(scaled), (0..nc).map(|r| delta[r] * sq[r]).collect())?;
    Ok((lcp, delta))
}

/// The point `y` of the shifted problem that the complementary part `v` gives, with
/// `u = −A⁻¹(a + C v)` from `X` of [`eliminate`].
fn point_of(sp: &Split, x: &Mat<f64>, v: &[f64]) -> Vec<f64> {
    let nc = sp.comp.len();
    let mut y = vec![0.0; sp.m.nrows()];
    for (r, &i) in sp.comp.iter().enumerate() {
        y[i] = v[r];
    }
    for (k, &i) in sp.free.iter().enumerate() {
        y[i] = -x[(k, nc)] - (0..nc).map(|c| x[(k, c)] * v[c]).sum::<f64>();
    }
    y
}

/// One exchange of block principal pivoting at `y`: `w = M y + q` (on the shifted problem),
/// then every active `j` with `yⱼ < 0` leaves and every inactive `j` with `wⱼ < 0` enters.
/// Returns how many moved.
fn exchange(sp: &Split, y: &[f64], w: &mut [f64], active: &mut [bool]) -> usize {
    let n = y.len();
    for (i, wi) in w.iter_mut().enumerate() {
        *wi = sp.q[i] + (0..n).map(|j| sp.m[(i, j)] * y[j]).sum::<f64>();
    }
    let mut moved = 0;
    for (r, &i) in sp.comp.iter().enumerate() {
        if active[r] && y[i] < 0.0 {
            active[r] = false;
            moved += 1;
        } else if !active[r] && w[i] < 0.0 {
            active[r] = true;
            moved += 1;
        }
    }
    moved
}

impl NcpSolver for SchurLemke {
    fn name(&self) -> &str {
        NAME
    }

    fn solve(&mut self, p: &Mcp<'_>, _z0: &[f64], s: &Settings) -> Result<Solution, Error> {
        s.validate()?;
        let start = Instant::now();
        let sp = split(p)?;
        let (nc, n) = (sp.comp.len(), p.n());
        let mut report = SolveReport::new(NAME);
        // 1. u = −A⁻¹(a + C v): factor A and solve for [C | a] at once.
        let mut lu = DenseLu::new();
        report.factorizations += 1;
        let x = eliminate(&sp, &mut lu)?;
        // S = B − D A⁻¹C, s = b − D A⁻¹a, scaled by Δ.
        let (lcp, delta) = scaled_schur(&sp, &x)?;
        // 2. Lemke on the scaled LCP, with what is left of the time limit.
        let inner = Settings {
            time_limit: s.time_limit.map(|t| t.saturating_sub(start.elapsed())),
            record_history: false,
            observer: None,
            ..s.clone()
        };
        let lem = Lemke::new().solve(&lcp, None, &inner)?;
        report.pivots = lem.report.pivots;
        report.iterations = lem.report.iterations;
        report.factorizations += lem.report.factorizations;
        let v: Vec<f64> = (0..nc).map(|r| delta[r] * lem.z[r]).collect();
        // The point Lemke's v gives.
        let mut y = point_of(&sp, &x, &v);
        let to_z = |y: &[f64]| -> Vec<f64> { y.iter().zip(&sp.shift).map(|(a, b)| a + b).collect() };
        let mut f = vec![0.0; n];
        let score = |z: &[f64], f: &mut [f64]| {
            p.f.eval(z, f);
            p.error(z, f)
        };
        let mut best_z = to_z(&y);
        let mut best = score(&best_z, &mut f);
        let mut how = format!("Lemke on the Schur LCP ({:?}) at error {best:.2e}", lem.report.status);
        // 3. Block principal pivoting from Lemke's support.
        let mut active: Vec<bool> = v.iter().map(|&vj| vj > 0.0).collect();
        let mut w = vec![0.0; n];
        let mut rounds = 0;
        while rounds < self.polish_rounds && best > s.tol * 1e-3 {
            if s.time_limit.is_some_and(|t| start.elapsed() >= t) {
                break;
            }
            rounds += 1;
            report.factorizations += 1;
            if solve_on(&sp, &active, &mut lu, &mut y).is_none() {
                how.push_str(&format!("; polish stopped at a singular system (round {rounds})"));
                break;
            }
            let z = to_z(&y);
            let e = score(&z, &mut f);
            if e < best {
                best = e;
                best_z.clone_from(&z);
            }
            if exchange(&sp, &y, &mut w, &mut active) == 0 {
                break;
            }
        }
        if rounds > 0 {
            how.push_str(&format!("; {rounds} round(s) of block pivoting, error {best:.2e}"));
        }
        report.iterations += rounds;
        report.status = if best <= s.tol {
            Status::Solved
        } else if s.time_limit.is_some_and(|t| start.elapsed() >= t) {
            Status::TimeLimit
        } else {
            Status::Stalled
        };
        report.message = Some(how);
        report.elapsed = start.elapsed();
        Ok(p.solution(best_z, report, s.tol))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mlcp::Mlcp;
    use crate::AffineFunction;

    fn solve(m: &[f64], q: Vec<f64>, free: Vec<bool>) -> Result<Solution, Error> {
        let n = q.len();
        let p = Mlcp::new(Matrix::from_row_major(n, n, m).unwrap(), q, free).unwrap();
        let f = p.to_function();
        let (lo, hi) = p.bounds();
        let mcp = Mcp::new(&f, lo, hi).unwrap();
        SchurLemke::new().solve(&mcp, &vec![0.0; n], &Settings::default())
    }

    #[test]
    fn solves_a_small_mlcp_with_a_known_answer() {
        // u − v = 0 (free u), w = u + v − 2 ≥ 0 ⊥ v ≥ 0: u = v = 1.
        let sol = solve(&[1.0, -1.0, 1.0, 1.0], vec![0.0, -2.0], vec![true, false]).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-14 && (sol.z[1] - 1.0).abs() < 1e-14, "{:?}", sol.z);
    }

    #[test]
    fn two_complementary_variables_one_active() {
        // 2u + v1 = 2 (free u); w1 = u + 2 v1 − 2, w2 = v2 + 1: u = 2/3, v1 = 2/3, v2 = 0.
        let m = [2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 1.0];
        let sol = solve(&m, vec![-2.0, -2.0, 1.0], vec![true, false, false]).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        for (a, b) in sol.z.iter().zip([2.0 / 3.0, 2.0 / 3.0, 0.0]) {
            assert!((a - b).abs() < 1e-14, "{:?}", sol.z);
        }
    }

    #[test]
    fn polish_repairs_a_wrong_support() {
        // With the polish forced to start from Lemke's answer, a wrong support is corrected:
        // check the block-pivoting rounds alone from the empty support.
        let m = [2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 1.0];
        let p = Mlcp::new(
            Matrix::from_row_major(3, 3, &m).unwrap(),
            vec![-2.0, -2.0, 1.0],
            vec![true, false, false],
        )
        .unwrap();
        let f = p.to_function();
        let (lo, hi) = p.bounds();
        let mcp = Mcp::new(&f, lo, hi).unwrap();
        let sp = split(&mcp).unwrap();
        let (mut lu, mut y) = (DenseLu::new(), vec![0.0; 3]);
        // J = {} gives u = 1, w1 = −1 < 0: v1 enters; J = {v1} is the answer.
        solve_on(&sp, &[false, false], &mut lu, &mut y).unwrap();
        assert_eq!(y, [1.0, 0.0, 0.0]);
        solve_on(&sp, &[true, false], &mut lu, &mut y).unwrap();
        assert!((y[0] - 2.0 / 3.0).abs() < 1e-15 && (y[1] - 2.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn refuses_what_it_cannot_take() {
        // Singular equality block.
        let e = solve(&[0.0, 1.0, 1.0, 1.0], vec![0.0, -2.0], vec![true, false]).unwrap_err();
        assert!(e.to_string().contains("nonsingular block A"), "{e}");
        // A box bound.
        let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[1.0]).unwrap(), vec![-1.0]).unwrap();
        let mcp = Mcp::new(&f, vec![0.0], vec![0.5]).unwrap();
        let e = SchurLemke::new().solve(&mcp, &[0.0], &Settings::default()).unwrap_err();
        assert!(e.to_string().contains("upper bound 0.5"), "{e}");
        // A nonlinear F.
        let lin = crate::samples::all();
        let nonlinear = lin.iter().find(|s| s.mcp().f.affine().is_none()).expect("a nonlinear sample");
        let e = SchurLemke::new()
            .solve(&nonlinear.mcp(), &nonlinear.starts[0], &Settings::default())
            .unwrap_err();
        assert!(e.to_string().contains("affine"), "{e}");
    }

    #[test]
    fn a_shifted_lower_bound_is_honoured() {
        // z ≥ 1 ⊥ z − 3 ≥ 0 ... F(z) = z − 3, l = 1: z = 3 (F = 0).
        let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[1.0]).unwrap(), vec![-3.0]).unwrap();
        let mcp = Mcp::new(&f, vec![1.0], vec![f64::INFINITY]).unwrap();
        let sol = SchurLemke::new().solve(&mcp, &[0.0], &Settings::default()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!((sol.z[0] - 3.0).abs() < 1e-14);
        // F(z) = z + 1, l = 1: F > 0 at the bound, z = 1.
        let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[1.0]).unwrap(), vec![1.0]).unwrap();
        let mcp = Mcp::new(&f, vec![1.0], vec![f64::INFINITY]).unwrap();
        let sol = SchurLemke::new().solve(&mcp, &[0.0], &Settings::default()).unwrap();
        assert_eq!((sol.report.status, sol.z[0]), (Status::Solved, 1.0));
    }
}
