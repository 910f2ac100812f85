//! Stewart's billiards (Stewart 2000 fig. 2.3).

use super::*;

/// Stewart's billiards (Stewart 2000 fig. 2.3): a ball thrown onto a table bounces and strikes,
/// slightly off-line, the first of three balls lying in a row on the table; restitution
/// ε = 0.9 at every contact, friction with the table and between balls.
///
/// Sizes are those of a pool ball (radius 28.575 mm, mass 0.17 kg); the table balls lie 1 mm
/// apart so that the impacts run one after the other (a Newton's cradle: most of the momentum
/// ends in the third ball). Candidates: each ball with the table (`z = 0`) and every pair of
/// balls (10 contacts, Coulomb cones).
#[derive(Clone, Debug)]
pub struct Billiards {
    /// Ball radius (m).
    pub radius: f64,
    /// Ball mass (kg).
    pub mass: f64,
    /// Restitution ε (normal).
    pub restitution: f64,
    /// Ball–table friction coefficient.
    pub mu_table: f64,
    /// Ball–ball friction coefficient.
    pub mu_ball: f64,
    /// Step options (default: exact cones, `nsgs`, Moreau midpoint).
    pub method: Method,
}

impl Default for Billiards {
    fn default() -> Self {
        Self::new()
    }
}

impl Billiards {
    /// Number of balls (the thrown one first).
    pub const BALLS: usize = 4;

    /// The default scene: ε = 0.9, μ_table = 0.2, μ_ball = 0.06.
    pub fn new() -> Billiards {
        Billiards {
            radius: 0.028575,
            mass: 0.17,
            restitution: 0.9,
            mu_table: 0.2,
            mu_ball: 0.06,
            method: Method::Cone,
        }
    }

    fn balls(&self) -> Vec<(f64, f64)> {
        vec![(self.mass, self.radius); Self::BALLS]
    }

    /// Candidate contacts as `(a, b)`: `b = None` for the table.
    pub fn pairs() -> Vec<(usize, Option<usize>)> {
        let mut v: Vec<(usize, Option<usize>)> = (0..Self::BALLS).map(|a| (a, None)).collect();
        for a in 0..Self::BALLS {
            for b in a + 1..Self::BALLS {
                v.push((a, Some(b)));
            }
        }
        v
    }
}

impl System for Billiards {
    fn dofs(&self) -> usize {
        NU * Self::BALLS
    }
    fn coords(&self) -> usize {
        NQ * Self::BALLS
    }
    fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
        sphere_mass(&self.balls())
    }
    fn constant_mass(&self) -> bool {
        true
    }
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        for k in 0..Self::BALLS {
            h[NU * k + 2] = -self.mass * G;
        }
    }
    fn contacts(&self, q: &[f64], _t: f64) -> Vec<Contact> {
        let r = self.radius;
        let eps = self.restitution;
        Self::pairs()
            .into_iter()
            .map(|(a, b)| {
                let ca = rigid::position(q, a);
                let c = match b {
                    None => {
                        let frame = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
                        sphere_plane(a, ca, r, Plane { frame, offset: 0.0 }, self.mu_table, None)
                    }
                    Some(b) => {
                        let side = Side { body: Some(b), center: rigid::position(q, b), radius: r };
                        sphere_sphere(a, ca, r, side, self.mu_ball, None)
                    }
                };
                c.with_restitution(eps, 0.0)
            })
            .collect()
    }
    fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
        rigid::integrate(q, u, dt, Self::BALLS);
    }
    fn normalize(&self, q: &mut [f64]) {
        rigid::normalize(q, Self::BALLS);
    }
}

impl Scene for Billiards {
    fn name(&self) -> String {
        "billiards".into()
    }
    fn description(&self) -> String {
        format!(
            "thrown ball hits the first of three balls on a table, ε = {} (Stewart 2000 fig. 2.3)",
            self.restitution
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let r = self.radius;
        let mut q = Vec::with_capacity(NQ * Self::BALLS);
        // The thrown ball: 8 cm above the table, 2.5 m/s along x, 4 mm off the line of balls.
        q.extend_from_slice(&[0.0, 0.004, 0.08, 1.0, 0.0, 0.0, 0.0]);
        for k in 0..3 {
            let x = 0.70 + k as f64 * (2.0 * r + 0.001);
            q.extend_from_slice(&[x, 0.0, r, 1.0, 0.0, 0.0, 0.0]);
        }
        let mut u = vec![0.0; NU * Self::BALLS];
        u[0] = 2.5;
        (q, u)
    }
    fn default_dt(&self) -> f64 {
        0.001
    }
    fn default_t_end(&self) -> f64 {
        1.0
    }
    fn default_options(&self) -> StepOptions {
        self.method.options(1.0)
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(Self::BALLS)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(sphere_energy(&self.balls(), q, u))
    }
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let t = traj.column("t").unwrap_or_default();
        let (qn, _) = self.state_names();
        let mut panels = Vec::new();
        for (title, coord) in [("elevation: z", 2usize), ("plan: y", 1)] {
            let series = (0..Self::BALLS)
                .filter_map(|k| {
                    let x = traj.column(&qn[NQ * k])?;
                    let y = traj.column(&qn[NQ * k + coord])?;
                    Some(Series {
                        name: format!("ball {k}"),
                        points: x.into_iter().zip(y).collect(),
                        dashed: false,
                    })
                })
                .collect();
            panels.push(Panel {
                title: title.into(),
                x_label: "x [m]".into(),
                y_label: title[title.len() - 1..].into(),
                series,
            });
        }
        let energy: Vec<(f64, f64)> = traj
            .rows
            .iter()
            .zip(&t)
            .map(|(row, &s)| {
                let nq = NQ * Self::BALLS;
                (s, sphere_energy(&self.balls(), &row[1..1 + nq], &row[1 + nq..1 + nq + NU * Self::BALLS]))
            })
            .collect();
        panels.push(Panel {
            title: "energy".into(),
            x_label: "t [s]".into(),
            y_label: "E [J]".into(),
            series: vec![Series { name: "E".into(), points: energy, dashed: false }],
        });
        panels
    }
}
