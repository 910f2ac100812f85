//! Dolan–Moré performance profiles of benchmark results (`profile.svg` of `perp bench`).
//!
//! E. D. Dolan, J. J. Moré, "Benchmarking optimization software with performance profiles",
//! *Math. Programming* 91 (2002): for problem p and solver s with time `t_{p,s}` (∞ when s
//! did not solve p), the performance ratio is `r_{p,s} = t_{p,s} / min_σ t_{p,σ}` (eq. (1)), and
//! the profile of s is the fraction of problems it solves within a factor τ of the best,
//!
//! ```text
//!     ρ_s(τ) = |{p ∈ P_s : r_{p,s} ≤ τ}| / |P_s|          (eq. (2)),
//! ```
//!
//! so ρ_s(1) is the share of problems on which s is the fastest and ρ_s(τ → ∞) its solve
//! rate. Here `P_s` is the set of problems s was run on (a frictional solver is not run on an
//! LCP): each curve is a fraction of its own kind's problems, which is eq. (2) when every
//! solver runs on every problem. The best time is taken over the solvers that ran on p; a
//! problem nobody solved counts in `P_s` with ratio ∞. Times are floored at 1 ns.
//!
//! [`svg`] draws ρ_s against log₂ τ with plotters' SVG backend: each solver's curve is **one
//! `<polyline>`** of stroke width [`CURVE_STROKE_WIDTH`] in colour [`solver_color`]`(i)` (i its
//! position in the solver list); everything else (axes, ticks) is drawn thinner or in black and
//! grey, and the legend marks are filled `<rect>`s — so a reader (or a test) finds solver i's
//! curve as the polyline with `stroke="#RRGGBB"` of that colour.

use crate::bench::BenchRecord;
use plotters::prelude::*;

/// Stroke width of the profile curves (the axes and ticks are 1).
pub const CURVE_STROKE_WIDTH: u32 = 2;

/// Time floor (seconds) applied before taking ratios, so that a 0-second record is finite.
const TIME_FLOOR: f64 = 1e-9;

const PALETTE: [(u8, u8, u8); 12] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (23, 190, 207),
    (188, 189, 34),
    (0, 0, 128),
    (0, 128, 128),
    (128, 0, 0),
];

/// The colour of the i-th solver's curve: a fixed palette of 12 distinct colours (none of them
/// black or grey), then hues spaced by the golden angle.
///
/// ```
/// use perp_bench::profile::solver_color;
/// assert_eq!(solver_color(0), (31, 119, 180));
/// assert_ne!(solver_color(3), solver_color(4));
/// ```
pub fn solver_color(i: usize) -> (u8, u8, u8) {
    if let Some(&c) = PALETTE.get(i) {
        return c;
    }
    // HSV with s = 0.8, v = 0.7 and hue i·137.5°.
    let h = (i as f64 * 137.507_764) % 360.0 / 60.0;
    let (s, v) = (0.8, 0.7);
    let c = v * s;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let byte = |t: f64| ((t + m) * 255.0).round() as u8;
    (byte(r), byte(g), byte(b))
}

/// The `#rrggbb` text of [`solver_color`]`(i)`, as plotters writes it in the SVG (upper case).
pub fn solver_color_hex(i: usize) -> String {
    let (r, g, b) = solver_color(i);
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// The performance ratios of a set of records (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct PerformanceProfile {
    /// The solvers, in curve order.
    pub solvers: Vec<String>,
    /// Per solver, `r_{p,s}` over the problems it was run on, sorted ascending (∞ = not solved).
    pub ratios: Vec<Vec<f64>>,
}

/// What a profile compares: the solve time (Dolan–Moré's usual cost) or the iteration count
/// (pivots for pivoting methods), both only over solved runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// `BenchRecord::seconds`, floored at 1 ns.
    Time,
    /// `BenchRecord::iterations`, floored at 1 (a run solved at its start counts one).
    Iterations,
}

impl Metric {
    /// `time` or `iterations`, as in the file names `profile-<kind>-<metric>.svg`.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Time => "time",
            Metric::Iterations => "iterations",
        }
    }

    fn cost(self, r: &BenchRecord) -> f64 {
        match self {
            Metric::Time if r.solved() && r.seconds.is_finite() => r.seconds.max(TIME_FLOOR),
            Metric::Iterations if r.solved() => r.iterations.max(1) as f64,
            _ => f64::INFINITY,
        }
    }
}

impl PerformanceProfile {
    /// The time profile of `solvers` over `records` (records of other solvers are ignored).
    ///
    /// ```
    /// use perp_bench::bench::BenchRecord;
    /// use perp_bench::profile::PerformanceProfile;
    /// let rec = |p: &str, s: &str, status: &str, t: f64| BenchRecord {
    ///     problem: p.into(), kind: "lcp".into(), n: 1, solver: s.into(), status: status.into(),
    ///     iterations: 1, error: 0.0, seconds: t, reference_seconds: f64::NAN, message: None };
    /// let records = [rec("p", "a", "solved", 1.0), rec("p", "b", "solved", 4.0),
    ///                rec("q", "a", "max_iterations", 1.0), rec("q", "b", "solved", 2.0)];
    /// let prof = PerformanceProfile::new(&records, &["a".into(), "b".into()]);
    /// assert_eq!(prof.ratios[0], [1.0, f64::INFINITY]);
    /// assert_eq!(prof.ratios[1], [1.0, 4.0]);
    /// assert_eq!((prof.rho(0, 1.0), prof.rho(1, 1.0), prof.rho(1, 4.0)), (0.5, 0.5, 1.0));
    /// ```
    pub fn new(records: &[BenchRecord], solvers: &[String]) -> PerformanceProfile {
        PerformanceProfile::by(records, solvers, Metric::Time)
    }

    /// The profile of `solvers` over `records` by `metric`: eq. (1)–(2) with `t_{p,s}` the
    /// metric's cost of s on p (∞ when s did not solve p).
    pub fn by(records: &[BenchRecord], solvers: &[String], metric: Metric) -> PerformanceProfile {
        // A run whose solver cannot take the problem counts for neither side (issue 34, item 7):
        // the solver's fraction is over the problems it applies to.
        let mine: Vec<&BenchRecord> =
            records.iter().filter(|r| solvers.contains(&r.solver) && !r.not_applicable()).collect();
        let time = |r: &BenchRecord| metric.cost(r);
        let best = |problem: &str| {
            mine.iter().filter(|r| r.problem == problem).map(|r| time(r)).fold(f64::INFINITY, f64::min)
        };
        let ratios = solvers
            .iter()
            .map(|s| {
                let mut v: Vec<f64> = mine
                    .iter()
                    .filter(|r| &r.solver == s)
                    .map(|r| {
                        let t = time(r);
                        if t.is_finite() {
                            t / best(&r.problem)
                        } else {
                            f64::INFINITY
                        }
                    })
                    .collect();
                v.sort_by(f64::total_cmp);
                v
            })
            .collect();
        PerformanceProfile { solvers: solvers.to_vec(), ratios }
    }

    /// `ρ_s(τ)` for the solver at index `s` (0 when it ran on no problem).
    pub fn rho(&self, s: usize, tau: f64) -> f64 {
        let r = &self.ratios[s];
        if r.is_empty() {
            return 0.0;
        }
        r.iter().filter(|&&x| x <= tau).count() as f64 / r.len() as f64
    }

    /// The largest finite ratio of any solver (1 when there is none).
    pub fn tau_max(&self) -> f64 {
        self.ratios.iter().flatten().copied().filter(|r| r.is_finite()).fold(1.0, f64::max)
    }

    /// The step function `log₂ τ ↦ ρ_s(τ)` of solver `s` as polyline vertices from log₂ τ = 0
    /// to `x_end`: right-continuous steps up at each ratio.
    pub fn steps(&self, s: usize, x_end: f64) -> Vec<(f64, f64)> {
        let mut pts = vec![(0.0, self.rho(s, 1.0))];
        let mut cur = pts[0].1;
        let mut last = 1.0;
        for &r in self.ratios[s].iter().filter(|r| r.is_finite() && **r > 1.0) {
            if r == last {
                continue;
            }
            last = r;
            let x = r.log2();
            pts.push((x, cur));
            cur = self.rho(s, r);
            pts.push((x, cur));
        }
        pts.push((x_end, cur));
        pts
    }
}

/// The legend's font size as plotters takes it (the SVG says `font-size` 26/1.24 = 21 px, in
/// a profile 900 px wide).
pub const LEGEND_FONT_PX: u32 = 26;

/// The time profile of `solvers` over `records` as an SVG document (see the
/// [module docs](self) for how the curves are drawn). `Err` carries plotters' message.
pub fn svg(records: &[BenchRecord], solvers: &[String], title: &str) -> Result<String, String> {
    let colours: Vec<usize> = (0..solvers.len()).collect();
    svg_by(records, solvers, &colours, title, Metric::Time)
}

/// The profile of `solvers` over `records` by `metric` as an SVG document; solver `i` is drawn
/// in [`solver_color`]`(colours[i])` (so that a solver keeps its colour across the profiles of
/// several kinds). `Err` carries plotters' message.
pub fn svg_by(
    records: &[BenchRecord],
    solvers: &[String],
    colours: &[usize],
    title: &str,
    metric: Metric,
) -> Result<String, String> {
    let prof = PerformanceProfile::by(records, solvers, metric);
    let x_end = (prof.tau_max().log2() * 1.05).max(1.0);
    let x_desc = match metric {
        Metric::Time => "log2(tau): time within tau x the best solver's",
        Metric::Iterations => "log2(tau): iterations within tau x the best solver's",
    };
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (900, 560)).into_drawing_area();
        let e = |e: &dyn std::fmt::Display| format!("drawing the performance profile: {e}");
        root.fill(&WHITE).map_err(|x| e(&x))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", LEGEND_FONT_PX))
            .margin(14)
            .x_label_area_size(60)
            .y_label_area_size(76)
            .build_cartesian_2d(0f64..x_end, 0f64..1.02f64)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("fraction of problems solved, rho(tau)")
            // Tick labels and axis titles as readable as the legend on the report's 600 px
            // wide profiles (the defaults read as 5–6 px there).
            .label_style(("sans-serif", LEGEND_FONT_PX - 6))
            .axis_desc_style(("sans-serif", LEGEND_FONT_PX - 4))
            .draw()
            .map_err(|x| e(&x))?;
        for (i, name) in solvers.iter().enumerate() {
            let (r, g, b) = solver_color(colours.get(i).copied().unwrap_or(i));
            let color = RGBColor(r, g, b);
            let solved = prof.ratios[i].iter().filter(|x| x.is_finite()).count();
            chart
                .draw_series(LineSeries::new(prof.steps(i, x_end), color.stroke_width(CURVE_STROKE_WIDTH)))
                .map_err(|x| e(&x))?
                .label(format!("{name} ({solved}/{})", prof.ratios[i].len()))
                .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 16, y + 4)], color.filled()));
        }
        if !solvers.is_empty() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                // plotters writes a font of size s as font-size s/1.24 in the SVG: 26 gives 21 px
                // in the 900 px wide SVG, 14 px on the report's 600 px wide profiles (the
                // default 12 gave 6.5 px there; issue 34, item 7).
                .label_font(("sans-serif", LEGEND_FONT_PX))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|x| e(&x))?;
        }
        root.present().map_err(|x| e(&x))?;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(p: &str, s: &str, status: &str, t: f64) -> BenchRecord {
        BenchRecord {
            problem: p.into(),
            kind: "lcp".into(),
            n: 1,
            solver: s.into(),
            status: status.into(),
            iterations: 1,
            error: 0.0,
            seconds: t,
            reference_seconds: f64::NAN,
            message: None,
        }
    }

    #[test]
    fn ratios_rho_and_steps_by_hand() {
        // p1: a 1 s, b 2 s, c 8 s; p2: a fails, b 3 s, c 3 s; p3: nobody solves.
        let records = [
            rec("p1", "a", "solved", 1.0),
            rec("p1", "b", "solved", 2.0),
            rec("p1", "c", "solved", 8.0),
            rec("p2", "a", "stalled", 0.5),
            rec("p2", "b", "solved", 3.0),
            rec("p2", "c", "solved", 3.0),
            rec("p3", "a", "time_limit", 9.0),
            rec("p3", "b", "error", 0.0),
            rec("p3", "c", "max_iterations", 1.0),
        ];
        let s: Vec<String> = ["a", "b", "c"].iter().map(|x| x.to_string()).collect();
        let p = PerformanceProfile::new(&records, &s);
        let inf = f64::INFINITY;
        assert_eq!(p.ratios, vec![vec![1.0, inf, inf], vec![1.0, 2.0, inf], vec![1.0, 8.0, inf]]);
        assert_eq!(p.rho(0, 1.0), 1.0 / 3.0);
        assert_eq!(p.rho(1, 1.9), 1.0 / 3.0);
        assert_eq!(p.rho(1, 2.0), 2.0 / 3.0);
        assert_eq!(p.rho(2, 100.0), 2.0 / 3.0);
        assert_eq!(p.tau_max(), 8.0);
        let third = 1.0 / 3.0;
        assert_eq!(p.steps(2, 3.5), vec![(0.0, third), (3.0, third), (3.0, 2.0 * third), (3.5, 2.0 * third)]);
        assert_eq!(p.steps(0, 3.5), vec![(0.0, third), (3.5, third)]);
        // A solver with no record: a flat zero curve.
        let q = PerformanceProfile::new(&records, &["z".to_string()]);
        assert_eq!((q.rho(0, 10.0), q.steps(0, 1.0)), (0.0, vec![(0.0, 0.0), (1.0, 0.0)]));
    }

    #[test]
    fn svg_has_one_curve_per_solver_in_its_colour() {
        let records = [rec("p1", "a", "solved", 1.0), rec("p1", "b", "solved", 2.0)];
        let s: Vec<String> = ["a", "b"].iter().map(|x| x.to_string()).collect();
        let text = svg(&records, &s, "test").unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        for i in 0..2 {
            let curves = doc
                .descendants()
                .filter(|n| n.has_tag_name("polyline"))
                .filter(|n| n.attribute("stroke") == Some(solver_color_hex(i).as_str()))
                .count();
            assert_eq!(curves, 1, "solver {i}");
        }
        let thick = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke-width") == Some("2"))
            .count();
        assert_eq!(thick, 2);
        let labels: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        assert!(labels.contains(&"a (1/1)") && labels.contains(&"b (1/1)"), "{labels:?}");
        // No solver at all still gives a document.
        assert!(svg(&[], &[], "empty").unwrap().contains("<svg"));
    }

    #[test]
    fn colours_are_distinct_for_many_solvers() {
        let c: Vec<_> = (0..40).map(solver_color).collect();
        for i in 0..c.len() {
            for j in 0..i {
                assert_ne!(c[i], c[j], "{i} {j}");
            }
            assert!(!(c[i].0 == c[i].1 && c[i].1 == c[i].2), "grey {i}");
        }
    }
}
