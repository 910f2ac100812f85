//! `box-stack N`: N unit boxes stacked on the ground, four corner contacts per interface.

use super::*;

/// `box-stack N`: N boxes (half extents [`BoxStack::HALF`], mass 1) stacked on the ground,
/// each shifted and turned a little from the one below, released 5 mm apart; four contacts
/// per interface (module docs).
#[derive(Clone, Debug)]
pub struct BoxStack {
    n: usize,
    /// Friction coefficient (box–box and box–ground).
    pub mu: f64,
}

impl BoxStack {
    /// Half extents `(a, b, c)` (m).
    pub const HALF: [f64; 3] = [0.5, 0.4, 0.25];
    /// Mass (kg).
    pub const MASS: f64 = 1.0;
    /// Gap between the boxes at the start (m).
    pub const GAP: f64 = 0.005;

    /// Memory per box to step a stack (bytes): q, u, four contacts, M, W. Measured: the peak
    /// resident set of `perp simulate box-stack N --t-end 0.1` grows by 10 KB a box from
    /// N = 400 to 1 600 (few contacts active); 32 KiB allows for all of them.
    pub const BYTES_PER_BOX: u64 = 32 << 10;
    /// The tallest stack, [`crate::scenes::MAX_SCENE_BYTES`] / [`BoxStack::BYTES_PER_BOX`]
    /// (1 048 576 boxes).
    pub const MAX_BOXES: usize = (crate::scenes::MAX_SCENE_BYTES / Self::BYTES_PER_BOX) as usize;

    /// A stack of `n ≥ 1` boxes (`n = 0` is taken as 1); `Err` above [`BoxStack::MAX_BOXES`].
    pub fn new(n: usize) -> Result<BoxStack, Error> {
        crate::scenes::check_size("box-stack", n, Self::MAX_BOXES, Self::BYTES_PER_BOX)?;
        Ok(BoxStack { n: n.max(1), mu: 0.5 })
    }

    /// Number of boxes.
    pub fn boxes(&self) -> usize {
        self.n
    }

    /// Principal moments of inertia `m (b² + c²)/3, m (a² + c²)/3, m (a² + b²)/3`.
    pub fn inertia() -> [f64; 3] {
        let [a, b, c] = Self::HALF;
        let m = Self::MASS;
        [m * (b * b + c * c) / 3.0, m * (a * a + c * c) / 3.0, m * (a * a + b * b) / 3.0]
    }

    /// The four bottom corners in body coordinates.
    fn corners() -> [[f64; 3]; 4] {
        let [a, b, c] = Self::HALF;
        [[a, b, -c], [-a, b, -c], [-a, -b, -c], [a, -b, -c]]
    }
}

pub(super) fn mat_vec(m: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [rigid::dot(m[0], v), rigid::dot(m[1], v), rigid::dot(m[2], v)]
}

pub(super) fn column(m: &[[f64; 3]; 3], k: usize) -> [f64; 3] {
    [m[0][k], m[1][k], m[2][k]]
}

impl System for BoxStack {
    fn dofs(&self) -> usize {
        NU * self.n
    }
    fn coords(&self) -> usize {
        NQ * self.n
    }
    fn mass(&self, q: &[f64], _t: f64) -> Matrix {
        let mut t = Vec::with_capacity(12 * self.n);
        for k in 0..self.n {
            for i in 0..3 {
                t.push((NU * k + i, NU * k + i, Self::MASS));
            }
            let iw = rigid::world_inertia(q, k, Self::inertia());
            // Symmetrize exactly: the stepper checks M = Mᵀ.
            for (i, row) in iw.iter().enumerate() {
                for (j, v) in row.iter().enumerate() {
                    t.push((NU * k + 3 + i, NU * k + 3 + j, 0.5 * (v + iw[j][i])));
                }
            }
        }
        Matrix::from_triplets(NU * self.n, NU * self.n, &t).expect("block-diagonal mass triplets")
    }
    fn forces(&self, q: &[f64], u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        for k in 0..self.n {
            h[NU * k + 2] = -Self::MASS * G;
            let iw = rigid::world_inertia(q, k, Self::inertia());
            let w = [u[NU * k + 3], u[NU * k + 4], u[NU * k + 5]];
            let gyro = rigid::cross(w, mat_vec(&iw, w));
            for i in 0..3 {
                h[NU * k + 3 + i] = -gyro[i];
            }
        }
    }
    fn contacts(&self, q: &[f64], _t: f64) -> Vec<Contact> {
        let mut out = Vec::with_capacity(4 * self.n);
        for i in 0..self.n {
            let xi = rigid::position(q, i);
            let ri = rigid::rotation(rigid::orientation(q, i));
            for corner in Self::corners() {
                let arm = mat_vec(&ri, corner);
                let p = [xi[0] + arm[0], xi[1] + arm[1], xi[2] + arm[2]];
                let contact = if i == 0 {
                    let frame = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
                    let rows: Vec<Row> =
                        frame.iter().map(|&d| Row(rigid::point_row(0, arm, d, 1.0))).collect();
                    Contact::new(p[2], rows[0].clone(), vec![rows[1].clone(), rows[2].clone()], self.mu)
                } else {
                    // The top face of the box below: normal and tangents from its frame.
                    let j = i - 1;
                    let xj = rigid::position(q, j);
                    let rj = rigid::rotation(rigid::orientation(q, j));
                    let frame = [column(&rj, 2), column(&rj, 0), column(&rj, 1)];
                    let arm_j = [p[0] - xj[0], p[1] - xj[1], p[2] - xj[2]];
                    let gap = rigid::dot(frame[0], arm_j) - Self::HALF[2];
                    let rows: Vec<Row> = frame
                        .iter()
                        .map(|&d| {
                            let mut v = rigid::point_row(i, arm, d, 1.0);
                            v.extend(rigid::point_row(j, arm_j, d, -1.0));
                            Row(v)
                        })
                        .collect();
                    Contact::new(gap, rows[0].clone(), vec![rows[1].clone(), rows[2].clone()], self.mu)
                };
                out.push(contact);
            }
        }
        out
    }
    fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
        rigid::integrate(q, u, dt, self.n);
    }
    fn normalize(&self, q: &mut [f64]) {
        rigid::normalize(q, self.n);
    }
}

/// Kinetic energy of boxes at `(q, u)`.
pub(super) fn box_kinetic(n: usize, q: &[f64], u: &[f64]) -> f64 {
    (0..n)
        .map(|k| {
            let v = [u[NU * k], u[NU * k + 1], u[NU * k + 2]];
            let w = [u[NU * k + 3], u[NU * k + 4], u[NU * k + 5]];
            let iw = rigid::world_inertia(q, k, BoxStack::inertia());
            0.5 * BoxStack::MASS * rigid::dot(v, v) + 0.5 * rigid::dot(w, mat_vec(&iw, w))
        })
        .sum()
}

impl Scene for BoxStack {
    fn name(&self) -> String {
        "box-stack".into()
    }
    fn description(&self) -> String {
        format!(
            "{} boxes {:?} (half extents) stacked on the ground, 4 corner contacts each",
            self.n,
            Self::HALF
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let c = Self::HALF[2];
        let mut q = Vec::with_capacity(NQ * self.n);
        for i in 0..self.n {
            // Alternating shifts of 3 cm and yaws of ±0.05 rad.
            let s = if i % 2 == 0 { 1.0 } else { -1.0 };
            let yaw: f64 = 0.05 * s;
            let z = c + Self::GAP + i as f64 * (2.0 * c + Self::GAP);
            q.extend_from_slice(&[0.03 * s, 0.02 * s, z, (0.5 * yaw).cos(), 0.0, 0.0, (0.5 * yaw).sin()]);
        }
        (q, vec![0.0; NU * self.n])
    }
    fn default_dt(&self) -> f64 {
        0.01
    }
    fn default_t_end(&self) -> f64 {
        2.0
    }
    /// Midpoint, exact Coulomb cones, `prox` (four contacts per body make W singular; the
    /// proximal loop regularizes it).
    fn default_options(&self) -> StepOptions {
        options("prox", 1e-8)
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(self.n)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        let pot: f64 = (0..self.n).map(|k| Self::MASS * G * q[NQ * k + 2]).sum();
        Some(box_kinetic(self.n, q, u) + pot)
    }
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let (qn, _) = self.state_names();
        let t = traj.column("t").unwrap_or_default();
        let heights = (0..self.n)
            .filter_map(|k| {
                let z = traj.column(&qn[NQ * k + 2])?;
                Some(Series {
                    name: format!("box {k}"),
                    points: t.iter().copied().zip(z).collect(),
                    dashed: false,
                })
            })
            .collect();
        let n = self.n;
        vec![
            Panel {
                title: "heights".into(),
                x_label: "t [s]".into(),
                y_label: "z [m]".into(),
                series: heights,
            },
            kinetic_panel(traj, n, "box-stack", &|q, u| box_kinetic(n, q, u)),
        ]
    }
}
