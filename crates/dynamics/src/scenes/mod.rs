//! Built-in scenes: the papers' experiments and scalable suites, each a [`Scene`] that
//! `perp simulate NAME` runs and the examples reproduce.
//!
//! | name | source |
//! |---|---|
//! | `woodpecker` | Glocker–Studer 2005 §4, Table I, eq. 13–16 |
//! | `sphere-spin`, `sphere-slide` | Trinkle–Tzitzouris–Pang 2001 §4.1.1–4.1.4 |
//! | `bowling-ball` | Trinkle–Tzitzouris–Pang 2001 §4.1.5 |
//! | `sphere-two-spheres` | Trinkle–Tzitzouris–Pang 2001 §4.2 |
//! | `sphere-rolling`, `sphere-rolling-slope` | rolling resistance, derived in [`spheres::SphereRolling`] (issue 35) |
//! | `disk-rolling` | rolling resistance in the plane (2-D rolling contact), derived in [`disk_rolling`] (issue 35) |
//! | `painleve-rod`, `painleve-impact` | Stewart 2000 §1.3, fig. 2.4 |
//! | `billiards` | Stewart 2000 fig. 2.3 |
//! | `frictional-catastrophe` | Moreau 1988 example 15.3 |
//! | `bouncing-ball`, `block-incline` | textbook checks |
//! | `ball-pile N`, `box-stack N` | scalable suites |

use crate::stepper::StepOptions;
use crate::system::System;
use crate::trajectory::Trajectory;
use perp_core::Error;

pub mod disk_rolling;
pub mod planar;
pub mod spheres;
pub mod stacks;
pub mod woodpecker;

/// One curve of a plot panel.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Points `(x, y)`.
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (reference / analytic curves).
    pub dashed: bool,
}

/// One panel of a scene's natural picture.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Title.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Curves.
    pub series: Vec<Series>,
}

/// A runnable scene: a [`System`] with its initial state, step, duration, formulation and
/// output column names.
pub trait Scene: System {
    /// Registry name (`woodpecker`, `sphere-spin`, …).
    fn name(&self) -> String;
    /// One line: what it shows and where it comes from.
    fn description(&self) -> String;
    /// `(q0, u0)`.
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>);
    /// The paper's step size.
    fn default_dt(&self) -> f64;
    /// The paper's duration.
    fn default_t_end(&self) -> f64;
    /// Scheme, formulation and solver the paper used.
    fn default_options(&self) -> StepOptions;
    /// Names of the coordinates and of the velocities (CSV columns after `t`).
    fn state_names(&self) -> (Vec<String>, Vec<String>);
    /// The friction directions this scene's contacts need when posed as a Stewart–Trinkle LCP
    /// (`perp simulate --formulation st`), when a uniform polygon would not do: the sphere
    /// scenes' torsional cones need the aligned directions of Trinkle–Tzitzouris–Pang 2001 eq. 5, without which a
    /// sphere pushed along x slides off diagonally. Default `None` (uniform directions).
    fn stewart_directions(&self) -> Option<crate::assembly::Directions> {
        None
    }
    /// Total mechanical energy at `(q, u)` when the scene defines it.
    fn energy(&self, _q: &[f64], _u: &[f64]) -> Option<f64> {
        None
    }
    /// The natural picture of a trajectory (default: every velocity against time).
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let (_, un) = self.state_names();
        let series = time_series(traj, &un);
        vec![Panel { title: self.name(), x_label: "t [s]".into(), y_label: "velocity".into(), series }]
    }
}

/// The named columns of a trajectory against time, one solid curve each (absent names skipped).
pub fn time_series(traj: &Trajectory, names: &[String]) -> Vec<Series> {
    let t = traj.column("t").unwrap_or_default();
    names
        .iter()
        .filter_map(|n| {
            traj.column(n).map(|v| Series {
                name: n.clone(),
                points: t.iter().copied().zip(v).collect(),
                dashed: false,
            })
        })
        .collect()
}

/// A catalog entry.
pub struct SceneInfo {
    /// Registry name.
    pub name: &'static str,
    /// One-line description with its source.
    pub description: &'static str,
    /// Whether it takes a size argument (`ball-pile N`) and its default.
    pub default_size: Option<usize>,
    /// Builds the scene (the size is ignored by fixed scenes); `Err` for a size beyond the
    /// scene's maximum.
    pub build: fn(usize) -> Result<Box<dyn Scene>, Error>,
}

/// The most memory a built-in scene may need to be stepped, by its estimate per body
/// (32 GiB): the scalable scenes refuse sizes beyond it before allocating anything
/// ([`stacks::BallPile::MAX_BALLS`], [`stacks::BoxStack::MAX_BOXES`]).
pub const MAX_SCENE_BYTES: u64 = 32 << 30;

/// Moreau's midpoint scheme on the exact cones, solved by `nsgs` to 10⁻¹² (the rolling
/// scenes' options).
pub(crate) fn midpoint_cone_nsgs() -> StepOptions {
    StepOptions {
        scheme: crate::stepper::Scheme::Midpoint,
        formulation: crate::stepper::Formulation::Cone,
        solver: Some("nsgs".into()),
        settings: perp_core::Settings { tol: 1e-12, ..perp_core::Settings::default() },
        ..StepOptions::default()
    }
}

/// `Err` naming `scene`'s size when `n` bodies of `bytes_per` each exceed `max`.
fn check_size(scene: &str, n: usize, max: usize, bytes_per: u64) -> Result<(), Error> {
    if n <= max {
        return Ok(());
    }
    let gib = n as f64 * bytes_per as f64 / f64::from(1u32 << 30);
    Err(Error::setting(
        &format!("scene {scene}: size"),
        n,
        &format!(
            "at most {max}: stepping it would need about {gib:.3e} GiB ({} KiB per body), \
             more than the {} GiB a built-in scene may use",
            bytes_per >> 10,
            MAX_SCENE_BYTES >> 30
        ),
    ))
}

/// Every built-in scene.
pub fn catalog() -> Vec<SceneInfo> {
    let mut v = Vec::new();
    v.extend(woodpecker::catalog());
    v.extend(spheres::catalog());
    v.extend(planar::catalog());
    v.extend(disk_rolling::catalog());
    v.extend(stacks::catalog());
    v
}

/// The registry names.
pub fn names() -> Vec<&'static str> {
    catalog().iter().map(|s| s.name).collect()
}

/// Builds the scene `name` (size `size`, or its default); `Err` listing the names otherwise.
pub fn scene(name: &str, size: Option<usize>) -> Result<Box<dyn Scene>, Error> {
    let cat = catalog();
    match cat.iter().find(|s| s.name == name) {
        Some(s) => {
            if let (Some(n), None) = (size, s.default_size) {
                return Err(Error::setting(&format!("scene {name}: size"), n, "this scene has no size"));
            }
            if size == Some(0) {
                return Err(Error::setting(&format!("scene {name}: size"), 0, "must be at least 1"));
            }
            (s.build)(size.or(s.default_size).unwrap_or(0))
        }
        None => {
            Err(Error::setting("scene", name, &format!("unknown; the scenes are: {}", names().join(", "))))
        }
    }
}

/// Contact problems harvested from a scene for benchmarks: the scene is run with its default
/// options for `steps` steps, and the contact problem of every `every`-th step that had an
/// active contact is kept (in its formulation-independent form, from which the frictional
/// problem or an LCP is assembled). The problems are those of the local form, which a step
/// in velocity space does not pose: a scene whose default solver is a global one
/// (`ball-pile` from [`stacks::BallPile::VELOCITY_SPACE_FROM`] balls) is run with `nsgs` on
/// W instead, its fallback chain kept (the built-in suite's `ball-pile 60` problem is the
/// one it was before that default).
pub fn harvest(
    scene: &dyn Scene,
    steps: usize,
    every: usize,
) -> Result<Vec<(f64, crate::assembly::LocalProblem)>, Error> {
    let mut opts = scene.default_options();
    opts.keep_problem = true;
    if opts.solver.as_deref().is_some_and(|n| perp_catalogue::GLOBAL_NAMES.contains(&n)) {
        opts.solver = Some("nsgs".into());
    }
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = scene;
    let mut sim = crate::Simulator::new(sys, q0, u0, scene.default_dt(), opts)?;
    let mut out = Vec::new();
    for k in 1..=steps {
        let rep = sim.step()?;
        if k % every.max(1) == 0 && !rep.active.is_empty() {
            if let Some(p) = sim.last_problem() {
                out.push((sim.t, p.clone()));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    /// `perp list` and `perp simulate` print these; they name the paper (e.g. "Trinkle–
    /// Tzitzouris–Pang 2001 §4.1.1"), never the project's seed-file numbers.
    #[test]
    fn scene_descriptions_name_papers_not_the_seed_files() {
        for info in super::catalog() {
            assert!(!info.description.contains("seed 0"), "{}: {}", info.name, info.description);
            if info.default_size.is_none() {
                let scene = (info.build)(0).unwrap();
                let d = scene.description();
                assert!(!d.contains("seed 0"), "{}: {d}", info.name);
            }
        }
    }
}
