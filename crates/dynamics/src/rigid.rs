//! Rigid bodies in space for scenes: coordinates `(x, y, z, q_w, q_x, q_y, q_z)` per body (unit
//! quaternion), velocities `(v, ω)` per body in the world frame, so `q̇ = T(q) u` with
//! `ẋ = v`, `q̇_rot = ½ (0, ω) ⊗ q_rot`.

/// Coordinates per body.
pub const NQ: usize = 7;
/// Velocities per body.
pub const NU: usize = 6;

/// Hamilton product `a ⊗ b` of quaternions `(w, x, y, z)`.
pub fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// The rotation matrix (row-major) of a unit quaternion.
pub fn rotation(q: [f64; 4]) -> [[f64; 3]; 3] {
    let [w, x, y, z] = q;
    [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ]
}

/// `a × b`.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// `a · b`.
pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Position of body `k`.
pub fn position(q: &[f64], k: usize) -> [f64; 3] {
    [q[NQ * k], q[NQ * k + 1], q[NQ * k + 2]]
}

/// Orientation quaternion of body `k`.
pub fn orientation(q: &[f64], k: usize) -> [f64; 4] {
    [q[NQ * k + 3], q[NQ * k + 4], q[NQ * k + 5], q[NQ * k + 6]]
}

/// `q ← q + dt T(q) u` for `bodies` bodies: positions by `v`, orientations by the exact
/// rotation `exp(½ dt ω) ⊗ q_rot` (stays unit length).
pub fn integrate(q: &mut [f64], u: &[f64], dt: f64, bodies: usize) {
    for k in 0..bodies {
        for i in 0..3 {
            q[NQ * k + i] += dt * u[NU * k + i];
        }
        let w = [u[NU * k + 3], u[NU * k + 4], u[NU * k + 5]];
        let nw = dot(w, w).sqrt();
        let angle = 0.5 * dt * nw;
        if angle == 0.0 {
            continue;
        }
        let s = angle.sin() / nw;
        let dq = [angle.cos(), s * w[0], s * w[1], s * w[2]];
        let r = quat_mul(dq, orientation(q, k));
        q[NQ * k + 3..NQ * k + 7].copy_from_slice(&r);
    }
}

/// Renormalizes every body's quaternion.
pub fn normalize(q: &mut [f64], bodies: usize) {
    for k in 0..bodies {
        let s = &mut q[NQ * k + 3..NQ * k + 7];
        let n = s.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n > 0.0 {
            s.iter_mut().for_each(|x| *x /= n);
        }
    }
}

/// The world inertia `R diag(i_body) Rᵀ` of body `k`.
pub fn world_inertia(q: &[f64], k: usize, i_body: [f64; 3]) -> [[f64; 3]; 3] {
    let r = rotation(orientation(q, k));
    let mut out = [[0.0; 3]; 3];
    for (a, row) in out.iter_mut().enumerate() {
        for (b, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|c| r[a][c] * i_body[c] * r[b][c]).sum();
        }
    }
    out
}

/// Row over body `k`'s velocities giving `n · (v + ω × p)` at the point `p` (relative to the
/// body's center): `(n, p × n)`, scaled by `sign` (−1 for the second body of a pair).
pub fn point_row(k: usize, p: [f64; 3], n: [f64; 3], sign: f64) -> Vec<(usize, f64)> {
    let mut v = Vec::with_capacity(6);
    push_point_row(&mut v, k, p, n, sign);
    v
}

/// Appends [`point_row`]`(k, p, n, sign)` to `v` (rows rebuilt in place every step).
pub fn push_point_row(v: &mut Vec<(usize, f64)>, k: usize, p: [f64; 3], n: [f64; 3], sign: f64) {
    let m = cross(p, n);
    let b = NU * k;
    // One copy of a fixed array (a scene with 10⁴ candidates writes 10⁵ of these a step).
    v.extend_from_slice(&[
        (b, sign * n[0]),
        (b + 1, sign * n[1]),
        (b + 2, sign * n[2]),
        (b + 3, sign * m[0]),
        (b + 4, sign * m[1]),
        (b + 5, sign * m[2]),
    ]);
}

/// Row giving `ω · n` (twist about `n`) of body `k`, scaled by `sign`.
pub fn twist_row(k: usize, n: [f64; 3], sign: f64) -> Vec<(usize, f64)> {
    (0..3).map(|i| (NU * k + 3 + i, sign * n[i])).collect()
}

/// Two unit tangents completing the unit normal `n` to a right-handed frame `(n, t, o)`.
pub fn tangents(n: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let a = if n[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let t = cross(a, n);
    let nt = dot(t, t).sqrt();
    let t = [t[0] / nt, t[1] / nt, t[2] / nt];
    (t, cross(n, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integration_of_a_constant_spin_is_exact_and_unit() {
        let mut q = vec![0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0];
        let u = [0.0, 0.0, 0.0, 0.0, 0.0, 2.0];
        for _ in 0..100 {
            integrate(&mut q, &u, 0.01, 1);
        }
        // Rotation by 2 rad about z: q = (cos 1, 0, 0, sin 1).
        assert!((q[3] - 1f64.cos()).abs() < 1e-12 && (q[6] - 1f64.sin()).abs() < 1e-12);
        let r = rotation(orientation(&q, 0));
        assert!((r[0][0] - 2f64.cos()).abs() < 1e-12 && (r[1][0] - 2f64.sin()).abs() < 1e-12);
    }

    #[test]
    fn point_row_is_the_point_velocity_along_n() {
        let (p, n) = ([0.0, 0.0, -1.0], [0.0, 0.0, 1.0]);
        let u = [1.0, 2.0, 3.0, 0.5, -0.5, 0.25];
        let row = point_row(0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], 1.0);
        // v + ω × (1,0,0) = (1, 2 + 0.25, 3 + 0.5) → y component 2.25.
        let s: f64 = row.iter().map(|&(i, v)| v * u[i]).sum();
        assert!((s - 2.25).abs() < 1e-15);
        let (t, o) = tangents(n);
        assert!(dot(t, n).abs() < 1e-15 && dot(o, n).abs() < 1e-15 && dot(t, o).abs() < 1e-15);
        assert!(dot(cross(n, t), o) > 0.999 && p[2] < 0.0);
    }
}
