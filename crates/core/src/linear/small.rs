//! The small dense LU kernels, for systems of up to 40
//! unknowns held on the stack: the d×d systems of one contact, Lemke's small warm-start
//! bases, and the Newton matrices of problems of up to about a dozen contacts.
//!
//! Two entry points share one elimination rule (partial pivoting, the first largest `|a_ik|`):
//!
//! * [`small_lu_solve`] (and its fixed-size [`small_lu_solve_fixed`] and size-generic
//!   [`small_lu_solve_dyn`], the same bits): one pass that eliminates `a` and `b` together, for
//!   a system solved once. A pivot below `1e-14 · max|a|` is a [`Breakdown::Pivot`] naming it.
//! * `small_lu_in_place` / `small_lu_solve_dispatch` (crate-private): the factors in faer's
//!   packed convention, kept by [`DenseLu`](super::DenseLu) for several solves.

use super::{col, col_mut, Breakdown};
use faer::{MatMut, MatRef};

use super::dense_lu::SMALL_LU;

/// Right-looking LU with partial pivoting of a small `a` in place, in faer's convention (the
/// same packed factors and row permutation `perm`/`perm_inv` as `lu_in_place`, the same pivot
/// choice: the first largest `|a_ik|`). A zero pivot column is left as it is (the caller sees
/// the zero pivot). Dispatched on the order to [`small_lu_fixed`], whose loops have
/// compile-time bounds: the order itself up to 16, then the next multiple of 4 (zero rows
/// padding the columns).
pub(super) fn small_lu_in_place(a: MatMut<'_, f64>, perm: &mut [usize], perm_inv: &mut [usize]) {
    // Above WIDE_MIN also compiled for the machine's widest vectors (AVX2 where the CPU has
    // them, chosen at run time): each operation is the scalar one lane by lane (no fused
    // multiply-adds), so the factors are the same on every machine and either way.
    if a.nrows() <= WIDE_MIN {
        small_lu_dispatch(a, perm, perm_inv)
    } else {
        pulp::Arch::new().dispatch(
            #[inline(always)]
            || small_lu_dispatch(a, perm, perm_inv),
        )
    }
}

/// Orders above which [`small_lu_in_place`] runs its AVX2 build, chosen by measurement: fill,
/// factor and solve of a random matrix (`examples/dense_small.rs`) and ac-newton on the small
/// Siconos files (`perp bench --repeat 300`), each build against the other in interleaved
/// runs; the figures are in `docs/performance.md` ("Dense LU").
pub(super) const WIDE_MIN: usize = 6;

/// [`small_lu_fixed`] for the order of `a`, or the next multiple of 4 above 16, as a
/// compile-time constant.
#[inline(always)]
pub(super) fn small_lu_dispatch(a: MatMut<'_, f64>, perm: &mut [usize], perm_inv: &mut [usize]) {
    match a.nrows() {
        0 => {}
        1 => small_lu_fixed::<1>(a, perm, perm_inv),
        2 => small_lu_fixed::<2>(a, perm, perm_inv),
        3 => small_lu_fixed::<3>(a, perm, perm_inv),
        4 => small_lu_fixed::<4>(a, perm, perm_inv),
        5 => small_lu_fixed::<5>(a, perm, perm_inv),
        6 => small_lu_fixed::<6>(a, perm, perm_inv),
        7 => small_lu_fixed::<7>(a, perm, perm_inv),
        8 => small_lu_fixed::<8>(a, perm, perm_inv),
        9 => small_lu_fixed::<9>(a, perm, perm_inv),
        10 => small_lu_fixed::<10>(a, perm, perm_inv),
        11 => small_lu_fixed::<11>(a, perm, perm_inv),
        12 => small_lu_fixed::<12>(a, perm, perm_inv),
        13 => small_lu_fixed::<13>(a, perm, perm_inv),
        14 => small_lu_fixed::<14>(a, perm, perm_inv),
        15 => small_lu_fixed::<15>(a, perm, perm_inv),
        16 => small_lu_fixed::<16>(a, perm, perm_inv),
        17..=20 => small_lu_fixed::<20>(a, perm, perm_inv),
        21..=24 => small_lu_fixed::<24>(a, perm, perm_inv),
        25..=28 => small_lu_fixed::<28>(a, perm, perm_inv),
        29..=32 => small_lu_fixed::<32>(a, perm, perm_inv),
        33..=36 => small_lu_fixed::<36>(a, perm, perm_inv),
        _ => small_lu_fixed::<SMALL_LU>(a, perm, perm_inv),
    }
}

/// [`small_lu_in_place`] for an order `n ≤ N` on a column-major copy `v[j][i]` of `N` rows
/// (rows `n..N` zero): the same operations in the same order (so the same bits) as a loop
/// over a runtime order, with every bound known. The zero rows make each column operation one
/// fixed-length loop of N (vectorized) without changing rows `< n` (they subtract 0 · u) or
/// the pivot choice (a zero never beats the first largest `|a_ik|`). Indexed loops: with the
/// bounds known the checks go, and they measured 3 % fewer instructions than the iterator
/// form on ac-newton's 12×12 LUs.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
pub(super) fn small_lu_fixed<const N: usize>(
    mut a: MatMut<'_, f64>,
    perm: &mut [usize],
    perm_inv: &mut [usize],
) {
    let n = a.nrows();
    debug_assert!(n <= N && a.ncols() == n && perm.len() == n && perm_inv.len() == n);
    let mut v = [[0.0; N]; N];
    for (j, c) in v[..n].iter_mut().enumerate() {
        c[..n].copy_from_slice(&col(a.as_ref(), j)[..n]);
    }
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..n {
        let (mut p, mut m) = (k, v[k][k].abs());
        for i in k + 1..n {
            if v[k][i].abs() > m {
                (p, m) = (i, v[k][i].abs());
            }
        }
        if p != k {
            for c in v[..n].iter_mut() {
                c.swap(k, p);
            }
            perm.swap(k, p);
        }
        let pivot = v[k][k];
        if pivot == 0.0 {
            continue;
        }
        let inv = pivot.recip();
        // The multipliers (rows > k of column k over the pivot) padded with zeros to the full
        // column, so that every loop below runs over all N rows (fixed-length, vectorized):
        // rows ≤ k subtract 0 · u, which leaves them as they are up to the sign of a zero (u
        // is finite wherever the factors mean anything). On ac-newton's 12×12 LUs this takes
        // 4.3k instructions instead of 6.1k (2.9k in the wide build: WIDE_MIN).
        let mut l = [0.0; N];
        for i in 0..N {
            l[i] = if i > k { v[k][i] * inv } else { 0.0 };
        }
        for i in 0..N {
            if i > k {
                v[k][i] = l[i];
            }
        }
        for cj in v[k + 1..n].iter_mut() {
            let u = cj[k];
            for i in 0..N {
                cj[i] -= l[i] * u;
            }
        }
    }
    for (j, c) in v[..n].iter().enumerate() {
        col_mut(a.as_mut(), j)[..n].copy_from_slice(&c[..n]);
    }
    for (i, &p) in perm.iter().enumerate() {
        perm_inv[p] = i;
    }
}

/// [`small_factored_solve`] for orders up to 16, [`small_lu_solve_in_place`] above.
#[inline(always)]
pub(super) fn small_lu_solve_dispatch(f: MatRef<'_, f64>, perm: &[usize], b: MatMut<'_, f64>) {
    match f.nrows() {
        1 => small_factored_solve::<1>(f, perm, b),
        2 => small_factored_solve::<2>(f, perm, b),
        3 => small_factored_solve::<3>(f, perm, b),
        4 => small_factored_solve::<4>(f, perm, b),
        5 => small_factored_solve::<5>(f, perm, b),
        6 => small_factored_solve::<6>(f, perm, b),
        7 => small_factored_solve::<7>(f, perm, b),
        8 => small_factored_solve::<8>(f, perm, b),
        9 => small_factored_solve::<9>(f, perm, b),
        10 => small_factored_solve::<10>(f, perm, b),
        11 => small_factored_solve::<11>(f, perm, b),
        12 => small_factored_solve::<12>(f, perm, b),
        13 => small_factored_solve::<13>(f, perm, b),
        14 => small_factored_solve::<14>(f, perm, b),
        15 => small_factored_solve::<15>(f, perm, b),
        16 => small_factored_solve::<16>(f, perm, b),
        _ => small_lu_solve_in_place(f, perm, b),
    }
}

/// [`small_lu_solve_in_place`] for the order `N`, known at compile time: the same operations
/// in the same order (the same bits), the triangles' bounds as tests on constant indices.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
pub(super) fn small_factored_solve<const N: usize>(
    f: MatRef<'_, f64>,
    perm: &[usize],
    mut b: MatMut<'_, f64>,
) {
    debug_assert!(f.nrows() == N && perm.len() == N);
    let perm: &[usize; N] = perm.try_into().unwrap_or_else(|_| unreachable!("perm of the order"));
    for c in 0..b.ncols() {
        let mut y = [0.0; N];
        {
            let bc = col(b.as_ref(), c);
            for i in 0..N {
                y[i] = bc[perm[i]];
            }
        }
        for j in 0..N {
            let fj: &[f64; N] = col(f, j)[..N].try_into().unwrap_or_else(|_| unreachable!());
            let yj = y[j];
            for i in 0..N {
                if i > j {
                    y[i] -= fj[i] * yj;
                }
            }
        }
        for j in (0..N).rev() {
            let fj: &[f64; N] = col(f, j)[..N].try_into().unwrap_or_else(|_| unreachable!());
            y[j] /= fj[j];
            let yj = y[j];
            for i in 0..N {
                if i < j {
                    y[i] -= fj[i] * yj;
                }
            }
        }
        col_mut(b.as_mut(), c)[..N].copy_from_slice(&y);
    }
}

/// Solves `A X = B` in place with the factors of [`small_lu_in_place`]: `X = U⁻¹ L⁻¹ P B`.
pub(super) fn small_lu_solve_in_place(f: MatRef<'_, f64>, perm: &[usize], mut b: MatMut<'_, f64>) {
    let n = f.nrows();
    let mut y = [0.0; SMALL_LU];
    let y = &mut y[..n];
    for c in 0..b.ncols() {
        {
            let bc = col(b.as_ref(), c);
            for (yi, &p) in y.iter_mut().zip(perm) {
                *yi = bc[p];
            }
        }
        for j in 0..n {
            let yj = y[j];
            let fj = &col(f, j)[..n];
            for (yi, fij) in y[j + 1..].iter_mut().zip(&fj[j + 1..]) {
                *yi -= fij * yj;
            }
        }
        for j in (0..n).rev() {
            let fj = &col(f, j)[..n];
            y[j] /= fj[j];
            let yj = y[j];
            for (yi, fij) in y[..j].iter_mut().zip(&fj[..j]) {
                *yi -= fij * yj;
            }
        }
        col_mut(b.as_mut(), c)[..n].copy_from_slice(y);
    }
}

/// Solves the small dense system `a x = b` (`a` row-major `n × n`, overwritten; `b` overwritten by `x`, on the caller's storage) by
/// Gaussian elimination with partial pivoting; `Err(Breakdown::Pivot(k))` when pivot k is
/// below `1e-14 · max|a|` (numerically singular; k = 0 for a zero or non-finite `a`), and
/// `Err(Breakdown::NonFinite(i))` when the solution is not finite.
///
/// Dispatches to [`small_lu_solve_fixed`] for `n ≤ 6` (the same operations in the same order,
/// on stack arrays of the constant size: the same bits) and to [`small_lu_solve_dyn`] above.
#[inline]
pub fn small_lu_solve(n: usize, a: &mut [f64], b: &mut [f64]) -> Result<(), Breakdown> {
    fn fixed<const N: usize>(a: &mut [f64], b: &mut [f64]) -> Result<(), Breakdown> {
        let mut am = [[0.0; N]; N];
        for (i, row) in am.iter_mut().enumerate() {
            row.copy_from_slice(&a[i * N..(i + 1) * N]);
        }
        let mut bv = [0.0; N];
        bv.copy_from_slice(&b[..N]);
        let result = small_lu_solve_fixed(&mut am, &mut bv);
        a[..N * N].copy_from_slice(am.as_flattened());
        b[..N].copy_from_slice(&bv);
        result
    }
    match n {
        1 => fixed::<1>(a, b),
        2 => fixed::<2>(a, b),
        3 => fixed::<3>(a, b),
        4 => fixed::<4>(a, b),
        5 => fixed::<5>(a, b),
        6 => fixed::<6>(a, b),
        _ => small_lu_solve_dyn(n, a, b),
    }
}

/// [`small_lu_solve`] for a constant size `N` on arrays (`a` row-major by rows); `b` holds the
/// solution on success (on failure both hold partial eliminations, as in [`small_lu_solve`]).
// Index loops as in the textbook elimination: the same operations in the same order as
// small_lu_solve_dyn, which is what keeps the two bit-identical.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
pub fn small_lu_solve_fixed<const N: usize>(
    a: &mut [[f64; N]; N],
    b: &mut [f64; N],
) -> Result<(), Breakdown> {
    let scale = a.as_flattened().iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !scale.is_finite() {
        return Err(Breakdown::Pivot(0));
    }
    for k in 0..N {
        let (mut p, mut best) = (k, a[k][k].abs());
        for i in k + 1..N {
            if a[i][k].abs() > best {
                best = a[i][k].abs();
                p = i;
            }
        }
        if best <= 1e-14 * scale {
            return Err(Breakdown::Pivot(k));
        }
        if p != k {
            a.swap(k, p);
            b.swap(k, p);
        }
        let rowk = a[k];
        let piv = rowk[k];
        for i in k + 1..N {
            let f = a[i][k] / piv;
            if f != 0.0 {
                for j in k..N {
                    a[i][j] -= f * rowk[j];
                }
                b[i] -= f * b[k];
            }
        }
    }
    for k in (0..N).rev() {
        let mut s = b[k];
        for j in k + 1..N {
            s -= a[k][j] * b[j];
        }
        b[k] = s / a[k][k];
    }
    super::finite(b)
}

/// [`small_lu_solve`] for `k` right-hand sides at once, `a` eliminated once: `b` row-major
/// `n × k` (entry i of column c at `b[i·k + c]`), overwritten by the solutions. Each column
/// undergoes the operations of a [`small_lu_solve`] of it alone, in the same order (the same
/// bits); the errors are [`small_lu_solve`]'s (a `NonFinite` index counts in `b`).
pub fn small_lu_solve_many(n: usize, a: &mut [f64], b: &mut [f64], k: usize) -> Result<(), Breakdown> {
    match (n, k) {
        (1, ..=MANY) => many_fixed::<1>(a, b, k),
        (2, ..=MANY) => many_fixed::<2>(a, b, k),
        (3, ..=MANY) => many_fixed::<3>(a, b, k),
        (4, ..=MANY) => many_fixed::<4>(a, b, k),
        (5, ..=MANY) => many_fixed::<5>(a, b, k),
        (6, ..=MANY) => many_fixed::<6>(a, b, k),
        _ => {
            // Larger systems: one elimination per column, on copies.
            let (mut am, mut col) = (Vec::with_capacity(n * n), vec![0.0; n]);
            for c in 0..k {
                am.clear();
                am.extend_from_slice(&a[..n * n]);
                (0..n).for_each(|i| col[i] = b[i * k + c]);
                let out = small_lu_solve(n, &mut am, &mut col);
                (0..n).for_each(|i| b[i * k + c] = col[i]);
                out?;
            }
            Ok(())
        }
    }
}

/// The most right-hand sides [`small_lu_solve_many`] eliminates together on the stack.
const MANY: usize = 8;

/// [`small_lu_solve_many`] for a constant size `N` and `k ≤ MANY` columns: the elimination of
/// [`small_lu_solve_fixed`], each of its operations on `b` done for every column.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn many_fixed<const N: usize>(a: &mut [f64], b: &mut [f64], k: usize) -> Result<(), Breakdown> {
    let mut am = [[0.0; N]; N];
    let mut bm = [[0.0; MANY]; N];
    for i in 0..N {
        am[i].copy_from_slice(&a[i * N..(i + 1) * N]);
        bm[i][..k].copy_from_slice(&b[i * k..(i + 1) * k]);
    }
    let out = (|| {
        let scale = am.as_flattened().iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        if scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !scale.is_finite() {
            return Err(Breakdown::Pivot(0));
        }
        for p in 0..N {
            let (mut q, mut best) = (p, am[p][p].abs());
            for i in p + 1..N {
                if am[i][p].abs() > best {
                    best = am[i][p].abs();
                    q = i;
                }
            }
            if best <= 1e-14 * scale {
                return Err(Breakdown::Pivot(p));
            }
            if q != p {
                am.swap(p, q);
                bm.swap(p, q);
            }
            let (rowp, bp) = (am[p], bm[p]);
            let piv = rowp[p];
            for i in p + 1..N {
                let f = am[i][p] / piv;
                if f != 0.0 {
                    for j in p..N {
                        am[i][j] -= f * rowp[j];
                    }
                    for c in 0..k {
                        bm[i][c] -= f * bp[c];
                    }
                }
            }
        }
        for p in (0..N).rev() {
            for c in 0..k {
                let mut s = bm[p][c];
                for j in p + 1..N {
                    s -= am[p][j] * bm[j][c];
                }
                bm[p][c] = s / am[p][p];
            }
        }
        Ok(())
    })();
    for i in 0..N {
        a[i * N..(i + 1) * N].copy_from_slice(&am[i]);
        b[i * k..(i + 1) * k].copy_from_slice(&bm[i][..k]);
    }
    out.and_then(|()| super::finite(&b[..N * k]))
}

/// The size-generic elimination ([`small_lu_solve`] for any `n`; the reference its fixed-size
/// versions are tested against).
#[allow(clippy::needless_range_loop)]
pub fn small_lu_solve_dyn(n: usize, a: &mut [f64], b: &mut [f64]) -> Result<(), Breakdown> {
    let scale = a[..n * n].iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !scale.is_finite() {
        return Err(Breakdown::Pivot(0));
    }
    for k in 0..n {
        let (mut p, mut best) = (k, a[k * n + k].abs());
        for i in k + 1..n {
            if a[i * n + k].abs() > best {
                best = a[i * n + k].abs();
                p = i;
            }
        }
        if best <= 1e-14 * scale {
            return Err(Breakdown::Pivot(k));
        }
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
            b.swap(k, p);
        }
        let piv = a[k * n + k];
        for i in k + 1..n {
            let f = a[i * n + k] / piv;
            if f != 0.0 {
                for j in k..n {
                    a[i * n + j] -= f * a[k * n + j];
                }
                b[i] -= f * b[k];
            }
        }
    }
    for k in (0..n).rev() {
        let mut s = b[k];
        for j in k + 1..n {
            s -= a[k * n + j] * b[j];
        }
        b[k] = s / a[k * n + k];
    }
    super::finite(&b[..n])
}
