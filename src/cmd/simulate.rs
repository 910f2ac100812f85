//! `perp simulate SCENE [SIZE]`: runs a built-in scene, writes its trajectory and its picture.

use perp::catalogue::Params;
use perp::core::Error;
use perp::dynamics::scenes::{self, Panel, Scene};
use perp::dynamics::{Activation, Formulation, Simulator, StepOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `perp simulate`.
#[derive(clap::Args)]
pub struct Args {
    /// Scene name (see `perp list`).
    scene: String,
    /// Size of a scalable scene (`ball-pile 1000`).
    size: Option<usize>,
    /// Time step (default: the paper's).
    #[arg(long)]
    dt: Option<f64>,
    /// End time (default: the paper's).
    #[arg(long)]
    t_end: Option<f64>,
    /// Solver name (default: the scene's formulation's).
    #[arg(long)]
    solver: Option<String>,
    /// A solver parameter, NAME=VALUE (repeatable; see `perp list`); with `--formulation
    /// convex`, global-ipm's max_iter, warm_newton, kkt; with `--formulation compliant`, the
    /// contact model's: stiffness, dissipation, beta, sigma.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Contact formulation: gs (Glocker–Studer LCP), st (Stewart–Trinkle LCP: the scene's own
    /// friction directions, else 8),
    /// cone (exact cones; in velocity space with a global solver such as global-ac-newton),
    /// tp (Tzitzouris–Pang NCP), convex (Anitescu's relaxation, interior point in velocity
    /// space), compliant (SAP's regularised contact, near-rigid, Newton in velocity space).
    /// Default: the scene's.
    #[arg(long, value_parser = ["gs", "st", "cone", "tp", "convex", "compliant"])]
    formulation: Option<String>,
    /// Time every step and print the median, 95th percentile and worst step time.
    #[arg(long)]
    step_times: bool,
    /// Record every N-th step (N >= 1).
    #[arg(long, default_value_t = 1)]
    every: usize,
    /// Turn off warm starts.
    #[arg(long)]
    cold: bool,
    /// Contact activation: gap (Moreau's index set) or persistent (loaded contacts stay
    /// while the free motion closes them). Default: the scene's.
    #[arg(long, value_parser = ["gap", "persistent"])]
    activation: Option<String>,
    /// Solvers tried in turn when a step's solve fails, comma-separated (`prox,ac-newton`),
    /// `default` (the formulation's suggested chain) or `none`. Default: the scene's.
    #[arg(long, value_name = "LIST")]
    fallback: Option<String>,
    /// Wall-clock budget in seconds for each step's solves, all attempts together (makes the
    /// run depend on the machine's speed). Default: none.
    #[arg(long, value_name = "SECONDS")]
    step_budget: Option<f64>,
    /// Worker threads of the solver's parallel parts (nsgs with colouring=true, apgd) and of
    /// the islands of a step solved in velocity space; the trajectory is the same for any
    /// count. Default: all cores.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Tolerance of every step's solve, on the solver's error measure (default: the scene's).
    #[arg(long)]
    tol: Option<f64>,
    /// Iteration limit of every step's solve (default: the solver's).
    #[arg(long)]
    max_iter: Option<usize>,
    /// Solve a step in velocity space as one problem instead of island by island (groups of
    /// bodies that no contact joins, solved apart and in parallel).
    #[arg(long)]
    no_islands: bool,
    /// Trajectory CSV file (written row by row as the run goes, unless --plot needs the
    /// trajectory in memory).
    #[arg(long)]
    out: Option<PathBuf>,
    /// SVG picture of the trajectory.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// The CSV's columns, comma-separated: groups (`positions`, `velocities`, `impulses`,
    /// `iterations`) or column names (`b0_z`); `t` is always first. Default: all.
    #[arg(long, value_name = "LIST")]
    columns: Option<String>,
    /// No progress bar (it goes to stderr, on a terminal, once the run has taken a second).
    #[arg(long, short)]
    quiet: bool,
}

/// When to read the clock: every `stride` steps, the stride doubling while the checks come
/// less than 50 ms apart and halving when they come more than 200 ms apart. A slow run (a
/// pile of 1000 balls, a second a step) reads it after every step, so its bar appears after a
/// second; a fast one (the woodpecker, a microsecond a step) soon reads it every few thousand
/// steps, where a read per step cost it 3 %.
struct Ticker {
    stride: usize,
    next: usize,
    last: Instant,
}

impl Ticker {
    /// A ticker whose first check is after step 1.
    fn new() -> Ticker {
        Ticker { stride: 1, next: 1, last: Instant::now() }
    }

    /// Whether step `k` is a check (then the clock was read).
    fn due(&mut self, k: usize) -> bool {
        if k < self.next {
            return false;
        }
        let gap = self.last.elapsed().as_secs_f64();
        self.last = Instant::now();
        if gap < 0.05 {
            self.stride = self.stride.saturating_mul(2);
        } else if gap > 0.2 {
            self.stride = (self.stride / 2).max(1);
        }
        self.next = k.saturating_add(self.stride);
        true
    }
}

/// Runs `perp simulate`.
pub fn run(a: Args) -> Result<ExitCode, Error> {
    if a.every == 0 {
        return Err(Error::setting("--every", 0, "must be at least 1 (record every N-th step)"));
    }
    let scene = scenes::scene(&a.scene, a.size)?;
    let opts = step_options(&a, scene.as_ref())?;
    let dt = a.dt.unwrap_or_else(|| scene.default_dt());
    let t_end = a.t_end.unwrap_or_else(|| scene.default_t_end());
    if !(t_end.is_finite() && t_end > 0.0) {
        return Err(Error::setting("--t-end", t_end, "must be a positive time"));
    }
    let (q0, u0) = scene.initial_state();
    let sys: &dyn perp::dynamics::System = scene.as_ref();
    let mut sim = Simulator::new(sys, q0, u0, dt, opts)?;
    let (qn, un) = scene.state_names();
    let start = Instant::now();
    // The trajectory goes straight to its CSV file, row by row; it is held in memory only for
    // the picture.
    let columns = sim.columns(Some((&qn, &un)));
    let keep: Vec<usize> = match &a.columns {
        Some(list) => {
            let spec: Vec<&str> = list.split(',').map(str::trim).filter(|c| !c.is_empty()).collect();
            perp::dynamics::trajectory::select_columns(&columns, sim.q.len(), sim.u.len(), &spec)?
        }
        None => (0..columns.len()).collect(),
    };
    let kept_names: Vec<String> = keep.iter().map(|&k| columns[k].clone()).collect();
    let mut csv = match (&a.out, &a.plot) {
        (Some(path), None) => Some(perp::dynamics::CsvWriter::create(path, &kept_names)?),
        _ => None,
    };
    let mut kept_row: Vec<f64> = Vec::with_capacity(keep.len());
    let mut held = a.plot.as_ref().map(|_| perp::dynamics::Trajectory::new(columns.clone()));
    let mut bar = ProgressLine { bar: None, ticker: Ticker::new(), quiet: a.quiet, start };
    let mut progress = |k: usize, steps: usize| -> Result<(), Error> {
        bar.update(k, steps);
        Ok(())
    };
    let mut sink = |row: &[f64]| -> Result<(), Error> {
        if let Some(w) = csv.as_mut() {
            if keep.len() == row.len() {
                w.row(row)?;
            } else {
                kept_row.clear();
                kept_row.extend(keep.iter().map(|&k| row[k]));
                w.row(&kept_row)?;
            }
        }
        if let Some(t) = held.as_mut() {
            t.push(row.to_vec());
        }
        Ok(())
    };
    sim.run_observed(t_end, a.every, &mut sink, &mut progress)?;
    if let Some(b) = bar.bar.take() {
        b.finish_and_clear();
    }
    let secs = start.elapsed().as_secs_f64();
    summary(&sim, scene.as_ref(), dt, secs)?;
    if let (Some(path), Some(w)) = (&a.out, csv) {
        w.finish()?;
        outln!("wrote      {}", path.display())?;
    }
    if let Some(traj) = &held {
        if let Some(path) = &a.out {
            traj.select(&keep).write_csv(path)?;
            outln!("wrote      {}", path.display())?;
        }
        if let Some(path) = &a.plot {
            plot(&scene.panels(traj), path)?;
            outln!("wrote      {}", path.display())?;
        }
    }
    Ok(if sim.stats.unsolved == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The step options of `perp simulate`: the scene's, changed by the arguments.
fn step_options(a: &Args, scene: &dyn Scene) -> Result<StepOptions, Error> {
    let mut opts = scene.default_options();
    if let Some(f) = &a.formulation {
        // The scene's own solver and fallback chain may belong to another formulation's
        // family (cone solvers for the LCP of `st`): the new formulation's defaults take over.
        opts.set_formulation(match f.as_str() {
            "gs" => Formulation::GlockerStuder,
            // The scene's own directions where it has them (the sphere scenes' torsional
            // cones), else a uniform polygon of 8.
            "st" => Formulation::StewartTrinkle(
                scene.stewart_directions().unwrap_or(perp::dynamics::Directions::Uniform(8)),
            ),
            "tp" => Formulation::TzitzourisPang,
            "convex" => Formulation::Convex,
            "compliant" => Formulation::Compliant(perp::dynamics::Compliant::default()),
            _ => Formulation::Cone,
        });
    }
    if a.solver.is_some() {
        opts.solver = a.solver.clone();
        opts.params = Params::new();
    }
    // The compliant formulation's parameters are its contact model's; the others' go to the
    // solver.
    if let Formulation::Compliant(c) = &mut opts.formulation {
        let mut params = Params::new();
        for p in &a.params {
            params = params.push_pair(p)?;
        }
        *c = perp::dynamics::Compliant::from_params(&params)?;
    } else {
        for p in &a.params {
            opts.params = std::mem::take(&mut opts.params).push_pair(p)?;
        }
    }
    opts.warm_start = !a.cold;
    opts.time_steps = a.step_times;
    opts.islands = !a.no_islands;
    if let Some(tol) = a.tol {
        opts.settings.tol = tol;
    }
    if let Some(k) = a.max_iter {
        opts.settings.max_iter = k;
    }
    opts.settings.threads = super::threads(a.threads)?;
    if let Some(act) = &a.activation {
        opts.activation = if act == "persistent" { Activation::Persistent } else { Activation::Gap };
    }
    if let Some(list) = &a.fallback {
        opts.fallback = match list.as_str() {
            "none" => Vec::new(),
            "default" => opts.formulation.default_fallback().iter().map(|s| s.to_string()).collect(),
            _ => list.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect(),
        };
    }
    if let Some(b) = a.step_budget {
        if !(b.is_finite() && b > 0.0) {
            return Err(Error::setting("--step-budget", b, "must be a positive number of seconds"));
        }
        // Beyond what a `Duration` holds (1e300): no budget.
        opts.step_budget = perp::core::Settings::limit_from_secs("--step-budget", b)?;
    }
    Ok(opts)
}

/// The progress bar on stderr, shown once the run has taken a second (indicatif draws only on
/// a terminal).
struct ProgressLine {
    bar: Option<indicatif::ProgressBar>,
    ticker: Ticker,
    quiet: bool,
    start: Instant,
}

impl ProgressLine {
    /// At step `k` of `steps`: decided by elapsed time, the clock read as often as the steps'
    /// length allows.
    fn update(&mut self, k: usize, steps: usize) {
        if self.quiet || k >= steps || !self.ticker.due(k) {
            return;
        }
        if self.bar.is_none() && self.start.elapsed().as_secs_f64() > 1.0 {
            let b = indicatif::ProgressBar::with_draw_target(
                Some(steps as u64),
                indicatif::ProgressDrawTarget::stderr(),
            );
            b.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps {elapsed} (eta {eta})")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            // The elapsed time and the estimate move while a long step runs.
            b.enable_steady_tick(std::time::Duration::from_millis(250));
            self.bar = Some(b);
        }
        if let Some(b) = &self.bar {
            b.set_position(k as u64);
        }
    }
}

/// The run's summary on stdout: scene, method, steps, solves, factorizations, islands,
/// fallbacks, wall time and step times.
fn summary(sim: &Simulator, scene: &dyn Scene, dt: f64, secs: f64) -> Result<(), Error> {
    let st = &sim.stats;
    outln!("scene      {} ({})", scene.name(), scene.description())?;
    outln!("method     {}", sim.method())?;
    outln!("steps      {} of dt = {dt:e} to t = {:.6}", st.steps, sim.t)?;
    outln!(
        "solves     {} (largest {}), {} iterations/pivots, {} not solved, worst error {:.3e}",
        st.solves,
        st.max_size,
        st.iterations,
        st.unsolved,
        st.max_error
    )?;
    if st.factorizations > 0 {
        outln!(
            "factor     {} matrix factorizations ({:.1} a solve)",
            st.factorizations,
            st.factorizations as f64 / st.solves.max(1) as f64
        )?;
    }
    if st.max_islands > 1 {
        outln!("islands    up to {} a step, solved apart", st.max_islands)?;
    }
    if st.fallbacks > 0 {
        outln!(
            "fallback   {} solves went to the fallback chain, {} of them solved there",
            st.fallbacks,
            st.rescued
        )?;
    }
    outln!("wall time  {secs:.3} s ({:.0} steps/s)", st.steps as f64 / secs.max(1e-12))?;
    if !st.step_seconds.is_empty() {
        let mut t = st.step_seconds.clone();
        t.sort_by(f64::total_cmp);
        let at = |p: f64| t[((p * (t.len() - 1) as f64).round() as usize).min(t.len() - 1)] * 1e3;
        outln!(
            "step time  median {:.3} ms, p95 {:.3} ms, worst {:.3} ms",
            at(0.5),
            at(0.95),
            t[t.len() - 1] * 1e3
        )?;
    }
    Ok(())
}

/// Draws panels side by side into an SVG file.
pub fn plot(panels: &[Panel], path: &Path) -> Result<(), Error> {
    use plotters::prelude::*;
    let fail = |e: &dyn std::fmt::Display| Error::Io {
        file: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    };
    let k = panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (560 * k, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let areas = root.split_evenly((1, k as usize));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let pts =
            panel.series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
        let (mut x0, mut x1, mut y0, mut y1) =
            (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for &(x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if !x0.is_finite() {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        let pad = |a: f64, b: f64| if b - a > 0.0 { 0.05 * (b - a) } else { 0.5 * a.abs().max(1.0) };
        let (px, py) = (pad(x0, x1), pad(y0, y1));
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d((x0 - px)..(x1 + px), (y0 - py)..(y1 + py))
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc(panel.x_label.as_str())
            .y_desc(panel.y_label.as_str())
            .draw()
            .map_err(|e| fail(&e))?;
        for (i, s) in panel.series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let style = ShapeStyle { color, filled: false, stroke_width: if s.dashed { 1 } else { 2 } };
            let pts: Vec<(f64, f64)> =
                s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
            let series = if s.dashed {
                chart.draw_series(DashedLineSeries::new(pts, 6, 4, style))
            } else {
                chart.draw_series(LineSeries::new(pts, style))
            };
            series
                .map_err(|e| fail(&e))?
                .label(s.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
