//! Scalable suites: `ball-pile N` (N spheres dropped into a pile) and `box-stack N` (N boxes
//! stacked on the ground), for measuring solvers and warm starts on many contacts.
//!
//! Both use the rigid-body layout of [`crate::rigid`] (`(x, y, z, q_w, q_x, q_y, q_z)` and
//! `(v, ω)` per body), a block-diagonal sparse mass matrix, Coulomb cones (all contacts of
//! local dimension 3, so that one frictional contact problem holds them all), Moreau's
//! midpoint scheme and the exact cones (`Formulation::Cone`): NSGS at tolerance 1e-6 for the
//! pile (see [`BallPile`]'s options), the proximal-point solver at 1e-8 for the boxes.
//!
//! **Candidate contacts are fixed at construction** (the stepper keys warm starts and output
//! columns by position, so [`System::contacts`] must return the same list at every call):
//!
//! * `ball-pile`: a square pyramid. The floor is a fixed `(s+1) × (s+1)` grid of spheres (a
//!   "bumpy floor"), the balls start, slightly spread, over its pockets: layer 0 holds `s × s`
//!   balls, layer k `(s−k) × (s−k)` over the pockets of layer k − 1, the last layer partly
//!   filled; `s` is the larger of `⌈√(N/2.5)⌉` (a wide, low pile: 3 layers for N = 1000) and
//!   the smallest base that holds N. Every ball rests on four balls below, so the pile is
//!   stable without walls. (A box would do worse: its rows jam between the walls, and the
//!   compression along a jammed row is indeterminate, which NSGS pays for with thousands of
//!   sweeps per step.) The candidates are the pairs whose centers start less than `3R` apart
//!   (the in-layer neighbours and diagonals, the four supports below and the four balls
//!   above) and, for layer 0, the floor spheres within `3R`: about 8 per ball, some 8 000 for
//!   N = 1000 instead of 500 000 for all pairs. Why this suffices: each ball sits in a pocket
//!   of four, so it moves by a fraction of a radius relative to its neighbours, and the next
//!   balls beyond the candidates start more than `3R` away. [`BallPile::missed_overlaps`]
//!   checks this at run time (spatial hashing over all pairs, the floor included); the tests
//!   assert it finds nothing.
//! * `box-stack`: four contacts per interface, the bottom corners of each box against the top
//!   face of the box below (the ground for the first). Valid while the stack stays upright
//!   with each box's bottom corners over the face below (small initial offsets and yaws).
//!
//! Mass: spheres have the constant world inertia `⅖ m R² E₃` ([`System::constant_mass`] true,
//! factored once); a box's world inertia `R diag(I) Rᵀ` turns with it, so `box-stack` rebuilds
//! M at each step (false) and includes the gyroscopic force `−ω × (I_w ω)`.

use super::spheres::{body_names, set_sphere_sphere, sphere_energy, sphere_gap, sphere_mass, Side, G};
use super::{Panel, Scene, SceneInfo, Series};
use crate::rigid::{self, NQ, NU};
use crate::stepper::{Formulation, Scheme, StepOptions};
use crate::system::{Contact, Row, System};
use crate::trajectory::Trajectory;
use perp_core::{Error, Matrix, Settings};
use std::collections::HashMap;

mod box_stack;

pub use box_stack::BoxStack;

/// This module's scenes.
pub fn catalog() -> Vec<SceneInfo> {
    vec![
        SceneInfo {
            name: "ball-pile",
            description:
                "N spheres dropped on a bumpy floor settle into a pyramid; candidates fixed at the start (scalable suite)",
            default_size: Some(100),
            build: |n| Ok(Box::new(BallPile::new(n)?)),
        },
        SceneInfo {
            name: "box-stack",
            description: "N boxes stacked on the ground, 4 corner contacts per interface (scalable suite)",
            default_size: Some(5),
            build: |n| Ok(Box::new(BoxStack::new(n)?)),
        },
    ]
}

/// The step options of both suites: midpoint, exact cones, `solver` at tolerance `tol`.
fn options(solver: &str, tol: f64) -> StepOptions {
    StepOptions {
        scheme: Scheme::Midpoint,
        formulation: Formulation::Cone,
        solver: Some(solver.into()),
        settings: Settings { tol, ..Settings::default() },
        ..StepOptions::default()
    }
}

/// One candidate contact of a [`BallPile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// Ball with a fixed floor sphere (index into [`BallPile::floor`]).
    Floor {
        /// The ball.
        ball: usize,
        /// The floor sphere.
        floor: usize,
    },
    /// Two balls `(a, b)` with `a < b`.
    Pair(usize, usize),
}

/// `ball-pile N`: N uniform spheres (radius [`BallPile::RADIUS`], mass 1) dropped onto a fixed
/// bumpy floor, where they settle into a square pyramid (module docs for the candidates).
#[derive(Clone, Debug)]
pub struct BallPile {
    n: usize,
    floor: Vec<[f64; 3]>,
    q0: Vec<f64>,
    candidates: Vec<Candidate>,
    /// Friction coefficient (ball–ball and ball–floor).
    pub mu: f64,
}

impl BallPile {
    /// Ball radius (m) (the floor spheres too).
    pub const RADIUS: f64 = 0.5;
    /// Below this many balls the scene solves on W (`nsgs`, then prox and ac-newton); from it
    /// on in velocity space (`global-ipm`, then prox and ac-newton on each island it leaves
    /// unsolved). Measured (`perp simulate ball-pile N --threads 1`, 2 s, CPU time, one run
    /// each; `docs/performance.md`, Fallback chains): the W path against velocity space 0.03 s
    /// against 0.05 s at 10 balls, 0.12 against 0.11 at 20, 0.46 against 0.16 at 30, 5.6 s
    /// (1 step unsolved) against 3.0 s at 100, every step solved in velocity space.
    pub const VELOCITY_SPACE_FROM: usize = 30;
    /// Ball mass (kg).
    pub const MASS: f64 = 1.0;
    /// The gap between each ball and its supports at the start (m) (R/25: the balls land at
    /// about 0.3 m/s).
    pub const DROP: f64 = 0.02;
    /// Spacing of the floor grid and of every layer (m): `2.1 R`, so balls of one layer do not
    /// touch while their supports hold them.
    pub const CELL: f64 = 2.1 * Self::RADIUS;

    /// Memory per ball to step a pile (bytes): q, u, some 8 candidate contacts with their
    /// rows of J, W and its solver's copies. Measured: the peak resident set of `perp
    /// simulate ball-pile N --t-end 0.6` (60 steps, the pile settled, ~10 contacts a ball
    /// active) grows by 62 KB a ball from N = 1 000 to 2 000.
    pub const BYTES_PER_BALL: u64 = 64 << 10;
    /// The largest pile, [`super::MAX_SCENE_BYTES`] / [`BallPile::BYTES_PER_BALL`]
    /// (524 288 balls).
    pub const MAX_BALLS: usize = (super::MAX_SCENE_BYTES / Self::BYTES_PER_BALL) as usize;

    /// The pile of `n ≥ 1` balls (`n = 0` is taken as 1); `Err` above
    /// [`BallPile::MAX_BALLS`] (by the memory estimate, before anything is allocated).
    /// Building it takes time linear in `n` (the candidates are found on a grid).
    pub fn new(n: usize) -> Result<BallPile, Error> {
        super::check_size("ball-pile", n, Self::MAX_BALLS, Self::BYTES_PER_BALL)?;
        let n = n.max(1);
        let r = Self::RADIUS;
        let cell = Self::CELL;
        let capacity = |s: usize| (1..=s).map(|k| k * k).sum::<usize>();
        let mut side = ((n as f64 / 2.5).sqrt().ceil() as usize).max(1);
        while capacity(side) < n {
            side += 1;
        }
        // Floor spheres at z = 0 on an (s+1)² grid; layer k over the pockets of layer k − 1,
        // each ball DROP from its four supports.
        let mut floor = Vec::with_capacity((side + 1) * (side + 1));
        for j in 0..=side {
            for i in 0..=side {
                floor.push([i as f64 * cell, j as f64 * cell, 0.0]);
            }
        }
        let rise = ((2.0 * r + Self::DROP).powi(2) - 0.5 * cell * cell).sqrt();
        // A deterministic jitter (a cheap hash, no RNG dependency) of ±R/100 breaks the symmetry.
        let hash = |i: usize, k: u64| {
            let mut x =
                (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x ^= x >> 31;
            x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^= x >> 29;
            (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let jit = 0.01 * r;
        let mut q0 = Vec::with_capacity(NQ * n);
        let mut layer = 0;
        while q0.len() < NQ * n {
            let m = side - layer;
            let off = 0.5 * (layer + 1) as f64 * cell;
            let z = (layer + 1) as f64 * rise;
            for k in 0..m * m {
                let i = q0.len() / NQ;
                if i == n {
                    break;
                }
                let x = (k % m) as f64 * cell + off + jit * hash(i, 1);
                let y = (k / m) as f64 * cell + off + jit * hash(i, 2);
                q0.extend_from_slice(&[x, y, z, 1.0, 0.0, 0.0, 0.0]);
            }
            layer += 1;
        }
        let candidates = candidates(&floor, &q0, n);
        Ok(BallPile { n, floor, q0, candidates, mu: 0.3 })
    }

    /// Number of balls.
    pub fn balls(&self) -> usize {
        self.n
    }

    /// Centers of the fixed floor spheres.
    pub fn floor(&self) -> &[[f64; 3]] {
        &self.floor
    }

    /// The candidate contacts, in the order of [`System::contacts`].
    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    /// Candidate `c`'s ball (the contact's first side) and its other side at `q`.
    fn sides(&self, q: &[f64], c: Candidate) -> (usize, Side) {
        let r = Self::RADIUS;
        match c {
            Candidate::Floor { ball, floor } => {
                (ball, Side { body: None, center: self.floor[floor], radius: r })
            }
            Candidate::Pair(a, b) => (a, Side { body: Some(b), center: rigid::position(q, b), radius: r }),
        }
    }

    /// Pairs (ball, ball) and (ball, floor sphere) that overlap by more than `tol` at `q` but
    /// are not candidates, as `(ball, other, overlap)` with `other ≥ N` for floor sphere
    /// `other − N`: a check of the fixed candidate list (spatial hashing, cells of one diameter).
    pub fn missed_overlaps(&self, q: &[f64], tol: f64) -> Vec<(usize, usize, f64)> {
        let d = 2.0 * Self::RADIUS;
        let key =
            |p: [f64; 3]| ((p[0] / d).floor() as i64, (p[1] / d).floor() as i64, (p[2] / d).floor() as i64);
        let center = |k: usize| if k < self.n { rigid::position(q, k) } else { self.floor[k - self.n] };
        let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
        for k in 0..self.n + self.floor.len() {
            grid.entry(key(center(k))).or_default().push(k);
        }
        let cands: std::collections::HashSet<(usize, usize)> = self
            .candidates
            .iter()
            .map(|c| match *c {
                Candidate::Pair(a, b) => (a, b),
                Candidate::Floor { ball, floor } => (ball, self.n + floor),
            })
            .collect();
        let mut out = Vec::new();
        for i in 0..self.n {
            let p = center(i);
            let (a, b, c) = key(p);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let Some(list) = grid.get(&(a + dx, b + dy, c + dz)) else { continue };
                        for &j in list {
                            if j <= i || cands.contains(&(i, j)) {
                                continue;
                            }
                            let pj = center(j);
                            let dist =
                                ((p[0] - pj[0]).powi(2) + (p[1] - pj[1]).powi(2) + (p[2] - pj[2]).powi(2))
                                    .sqrt();
                            if dist < d - tol {
                                out.push((i, j, dist - d));
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

impl System for BallPile {
    fn dofs(&self) -> usize {
        NU * self.n
    }
    fn coords(&self) -> usize {
        NQ * self.n
    }
    fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
        sphere_mass(&vec![(Self::MASS, Self::RADIUS); self.n])
    }
    fn constant_mass(&self) -> bool {
        true
    }
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        for k in 0..self.n {
            h[NU * k + 2] = -Self::MASS * G;
        }
    }
    fn contacts(&self, q: &[f64], t: f64) -> Vec<Contact> {
        let mut out = Vec::new();
        self.contacts_into(q, t, &mut out);
        out
    }
    /// In place: the candidates' rows are rewritten in their storage (the pile has ~10⁴).
    fn contacts_into(&self, q: &[f64], _t: f64, out: &mut Vec<Contact>) {
        out.truncate(self.candidates.len());
        out.resize_with(self.candidates.len(), || Contact::new(0.0, Row::default(), Vec::new(), 0.0));
        for (slot, &c) in out.iter_mut().zip(&self.candidates) {
            let (a, other) = self.sides(q, c);
            set_sphere_sphere(slot, a, rigid::position(q, a), Self::RADIUS, other, self.mu, None);
        }
    }
    /// The gaps alone: a settled pile has about 2.5 candidates per contact.
    fn gaps_into(&self, q: &[f64], _t: f64, gaps: &mut Vec<f64>) -> bool {
        gaps.clear();
        gaps.extend(self.candidates.iter().map(|&c| {
            let (a, other) = self.sides(q, c);
            sphere_gap(rigid::position(q, a), Self::RADIUS, &other)
        }));
        true
    }
    fn contact_into(&self, i: usize, q: &[f64], _t: f64, out: &mut Contact) {
        match self.candidates.get(i) {
            Some(&c) => {
                let (a, other) = self.sides(q, c);
                set_sphere_sphere(out, a, rigid::position(q, a), Self::RADIUS, other, self.mu, None);
            }
            None => out.gap = f64::NAN,
        }
    }
    fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
        rigid::integrate(q, u, dt, self.n);
    }
    fn normalize(&self, q: &mut [f64]) {
        rigid::normalize(q, self.n);
    }
}

/// Whether two centers are less than `3R` apart (a candidate pair of a [`BallPile`]).
fn near(a: [f64; 3], b: [f64; 3]) -> bool {
    let r = BallPile::RADIUS;
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2) < 9.0 * r * r
}

/// The candidates of a pile of `n` balls at `q0` over `floor`: for each ball in turn, the floor
/// spheres and then the later balls nearer than `3R`, each in index order (the list of the
/// loop over all pairs, found on a grid of cells of `3R`: two such centers lie in neighbouring
/// cells).
fn candidates(floor: &[[f64; 3]], q0: &[f64], n: usize) -> Vec<Candidate> {
    let cell = 3.0 * BallPile::RADIUS;
    let key = |p: [f64; 3]| p.map(|x| (x / cell).floor() as i64);
    let mut floor_grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (f, &c) in floor.iter().enumerate() {
        floor_grid.entry(key(c)).or_default().push(f);
    }
    let mut ball_grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for i in 0..n {
        ball_grid.entry(key(rigid::position(q0, i))).or_default().push(i);
    }
    let (mut out, mut found) = (Vec::new(), Vec::new());
    for i in 0..n {
        let p = rigid::position(q0, i);
        let k = key(p);
        for balls in [false, true] {
            found.clear();
            let grid = if balls { &ball_grid } else { &floor_grid };
            for d in 0..27 {
                let at = [k[0] + d % 3 - 1, k[1] + d / 3 % 3 - 1, k[2] + d / 9 - 1];
                for &j in grid.get(&at).into_iter().flatten() {
                    let c = if balls { rigid::position(q0, j) } else { floor[j] };
                    if (!balls || j > i) && near(p, c) {
                        found.push(j);
                    }
                }
            }
            found.sort_unstable();
            out.extend(found.iter().map(|&j| {
                if balls {
                    Candidate::Pair(i, j)
                } else {
                    Candidate::Floor { ball: i, floor: j }
                }
            }));
        }
    }
    out
}

/// Kinetic energy per time of a trajectory of `bodies` bodies, with `kinetic(u_k)` per body.
fn kinetic_panel(
    traj: &Trajectory,
    bodies: usize,
    title: &str,
    kinetic: &dyn Fn(&[f64], &[f64]) -> f64,
) -> Panel {
    let nq = NQ * bodies;
    let points = traj
        .rows
        .iter()
        .map(|row| (row[0], kinetic(&row[1..1 + nq], &row[1 + nq..1 + nq + NU * bodies])))
        .collect();
    Panel {
        title: title.into(),
        x_label: "t [s]".into(),
        y_label: "kinetic energy [J]".into(),
        series: vec![Series { name: "T".into(), points, dashed: false }],
    }
}

impl Scene for BallPile {
    fn name(&self) -> String {
        "ball-pile".into()
    }
    fn description(&self) -> String {
        format!(
            "{} spheres (R = {}) dropped on a bumpy floor of {} fixed spheres, {} candidate contacts",
            self.n,
            Self::RADIUS,
            self.floor.len(),
            self.candidates.len()
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (self.q0.clone(), vec![0.0; NU * self.n])
    }
    fn default_dt(&self) -> f64 {
        0.01
    }
    fn default_t_end(&self) -> f64 {
        2.0
    }
    /// Midpoint, exact Coulomb cones at tolerance 1e-6, with the fallback chain prox, then
    /// ac-newton. From [`BallPile::VELOCITY_SPACE_FROM`] balls `global-ipm` in velocity space
    /// (M + Hᵀ G H has the sparsity of the body graph; W fills in); below, `nsgs` on W (one
    /// sweep costs one pass over the sparse W). Each ball rests on four supports, so W is
    /// singular and the impulses are indeterminate; NSGS settles a resting pile to 1e-6 in a
    /// few sweeps per step (warm start), but at 1e-8 many landing steps run into its sweep
    /// limit, and from a warm start it can drift along the null space of W at a constant error
    /// of ~1e-7 (measured on `ball-pile 20`).
    fn default_options(&self) -> StepOptions {
        let solver = if self.n >= Self::VELOCITY_SPACE_FROM { "global-ipm" } else { "nsgs" };
        let mut o = options(solver, 1e-6);
        o.fallback = vec!["prox".into(), "ac-newton".into()];
        o
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(self.n)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(sphere_energy(&vec![(Self::MASS, Self::RADIUS); self.n], q, u))
    }
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let balls = vec![(Self::MASS, Self::RADIUS); self.n];
        let kinetic = |q: &[f64], u: &[f64]| {
            sphere_energy(&balls, q, u) - (0..self.n).map(|k| Self::MASS * G * q[NQ * k + 2]).sum::<f64>()
        };
        vec![kinetic_panel(traj, self.n, "ball-pile", &kinetic)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ball_pile_contacts_into_a_used_buffer_equals_fresh_contacts() {
        let pile = BallPile::new(12).unwrap();
        let (q0, _) = pile.initial_state();
        let mut q1 = q0.clone();
        q1.iter_mut().enumerate().for_each(|(i, x)| *x += 1e-3 * (i as f64).sin());
        // A buffer from another state, and one with stale twist rows and an elliptic cone.
        let mut used = pile.contacts(&q0, 0.0);
        let stale = sphere_sphere_twisted();
        let mut odd = vec![stale; 3];
        for buf in [&mut used, &mut odd] {
            pile.contacts_into(&q1, 0.0, buf);
            let fresh = pile.contacts(&q1, 0.0);
            assert_eq!(buf.len(), fresh.len());
            for (a, b) in buf.iter().zip(&fresh) {
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
            }
        }
    }

    #[test]
    fn ball_pile_gaps_and_single_contacts_equal_the_whole_list() {
        let pile = BallPile::new(30).unwrap();
        let (mut q, _) = pile.initial_state();
        // Some candidates closed, some open.
        q.iter_mut().enumerate().for_each(|(i, x)| *x += 0.3 * (i as f64).sin());
        let all = pile.contacts(&q, 0.0);
        let mut gaps = vec![f64::NAN; 3];
        assert!(pile.gaps_into(&q, 0.0, &mut gaps));
        assert_eq!(gaps.len(), all.len());
        assert!(gaps.iter().any(|&g| g <= 0.0) && gaps.iter().any(|&g| g > 0.0));
        let mut slot = sphere_sphere_twisted();
        for (i, c) in all.iter().enumerate() {
            assert_eq!(gaps[i].to_bits(), c.gap.to_bits(), "candidate {i}");
            pile.contact_into(i, &q, 0.0, &mut slot);
            assert_eq!(format!("{slot:?}"), format!("{c:?}"), "candidate {i}");
        }
        pile.contact_into(all.len(), &q, 0.0, &mut slot);
        assert!(slot.gap.is_nan(), "no such candidate");
    }

    fn sphere_sphere_twisted() -> Contact {
        let other = Side { body: Some(1), center: [0.0, 0.0, 0.0], radius: 1.0 };
        super::super::spheres::sphere_sphere(0, [0.0, 0.0, 2.5], 1.0, other, 0.4, Some(0.3))
    }

    #[test]
    fn ball_pile_starts_disjoint_with_neighbour_candidates() {
        for n in [1, 20, 27, 64, 200] {
            let p = BallPile::new(n).unwrap();
            let (q, _) = p.initial_state();
            let cs = p.contacts(&q, 0.0);
            assert_eq!(cs.len(), p.candidates().len());
            assert!(cs.iter().all(|c| c.gap > 0.0), "n = {n}: an initial gap is closed");
            assert!(p.missed_overlaps(&q, 0.0).is_empty());
            let pairs = p.candidates().iter().filter(|c| matches!(c, Candidate::Pair(..))).count();
            assert!(pairs <= 10 * n, "n = {n}: {pairs} pair candidates");
        }
        // 20 balls: base 4 (16 balls over a 5 × 5 floor), then 4 of the 9 pockets of layer 1.
        // Ball 16 sits over the pocket of balls 0, 1, 4, 5 and starts DROP from each.
        let p = BallPile::new(20).unwrap();
        assert_eq!(p.floor().len(), 25);
        let (q, _) = p.initial_state();
        for b in [0, 1, 4, 5] {
            assert!(p.candidates().contains(&Candidate::Pair(b, 16)), "pocket pair ({b}, 16)");
            let (a, c) = (rigid::position(&q, b), rigid::position(&q, 16));
            let d = ((a[0] - c[0]).powi(2) + (a[1] - c[1]).powi(2) + (a[2] - c[2]).powi(2)).sqrt();
            assert!((d - 2.0 * BallPile::RADIUS - BallPile::DROP).abs() < 0.02, "distance {d}");
        }
        // Each ball of layer 0 has its four floor supports among the candidates.
        for b in 0..16 {
            let k = p
                .candidates()
                .iter()
                .filter(|c| matches!(c, Candidate::Floor { ball, .. } if *ball == b))
                .count();
            assert!(k >= 4, "ball {b}: {k} floor candidates");
        }
    }

    #[test]
    fn grid_candidates_are_the_all_pairs_list() {
        for n in [1, 7, 20, 64, 301] {
            let p = BallPile::new(n).unwrap();
            let (q, _) = p.initial_state();
            let mut all = Vec::new();
            for i in 0..n {
                let c = rigid::position(&q, i);
                all.extend(
                    (0..p.floor().len())
                        .filter(|&f| near(c, p.floor()[f]))
                        .map(|f| Candidate::Floor { ball: i, floor: f }),
                );
                all.extend(
                    (i + 1..n).filter(|&j| near(c, rigid::position(&q, j))).map(|j| Candidate::Pair(i, j)),
                );
            }
            assert_eq!(p.candidates(), &all[..], "n = {n}");
        }
    }

    /// Issue 36: `ball-pile 1000000000` spun in the quadratic candidate search (or aborted on
    /// an allocation); sizes beyond the memory estimate are refused by name before anything
    /// is built.
    #[test]
    fn sizes_beyond_the_memory_estimate_are_refused() {
        assert_eq!(BallPile::MAX_BALLS, 524_288);
        assert_eq!(BoxStack::MAX_BOXES, 1_048_576);
        for n in [BallPile::MAX_BALLS + 1, 1_000_000_000, usize::MAX] {
            let e = BallPile::new(n).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("invalid setting scene ball-pile: size = {n}: at most 524288")),
                "{e}"
            );
            assert!(e.contains("GiB"), "{e}");
        }
        for n in [BoxStack::MAX_BOXES + 1, usize::MAX] {
            let e = BoxStack::new(n).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("invalid setting scene box-stack: size = {n}: at most 1048576")),
                "{e}"
            );
        }
        let e = super::super::scene("ball-pile", Some(1_000_000_000)).err().unwrap().to_string();
        assert!(e.contains("ball-pile: size = 1000000000"), "{e}");
        assert_eq!(BoxStack::new(BoxStack::MAX_BOXES).unwrap().boxes(), BoxStack::MAX_BOXES);
    }

    #[test]
    fn missed_overlaps_finds_a_non_candidate_pair() {
        let p = BallPile::new(20).unwrap();
        let (mut q, _) = p.initial_state();
        // Move ball 19 (on top) onto ball 0 (a bottom corner): not a candidate pair.
        assert!(!p.candidates().contains(&Candidate::Pair(0, 19)));
        let c0 = rigid::position(&q, 0);
        q[NQ * 19..NQ * 19 + 3].copy_from_slice(&[c0[0] + 0.1, c0[1], c0[2]]);
        let m = p.missed_overlaps(&q, 0.0);
        assert!(m.iter().any(|&(a, b, _)| (a, b) == (0, 19)), "{m:?}");
    }

    #[test]
    fn box_contacts_start_open_and_mass_is_spd_block_diagonal() {
        let s = BoxStack::new(3).unwrap();
        let (q, _) = s.initial_state();
        let cs = s.contacts(&q, 0.0);
        assert_eq!(cs.len(), 12);
        for c in &cs {
            assert!(c.gap > 0.0 && c.gap < 0.01, "gap {}", c.gap);
        }
        let m = s.mass(&q, 0.0);
        assert!(matches!(m, Matrix::Sparse(_)));
        assert!(crate::mass::MassFactor::new(&m).is_ok());
    }
}
