//! `report.html`: one self-contained page (inline SVG and CSS, no script, no external
//! resource) with the run's settings, the performance profiles of each problem kind, the
//! per-problem table and the convergence curves of the failed and slowest runs.

use super::curves::Curve;
use super::record::BenchRecord;
use super::report::{kind_profile_svg, kinds, solvers_of_kind, BenchReport};
use crate::profile::{solver_color, Metric};
use plotters::prelude::*;
use std::fmt::Write as _;

/// Escapes `&`, `<`, `>` and `"` for HTML text and attributes.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1900px}\
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}\
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right;vertical-align:top;white-space:nowrap}\
th{background:#eee}td.name{text-align:left}\
td.fastest{background:#d4f4d4;font-weight:bold}td.failed{background:#fbe0e0}td.none,td.na{color:#999}\
.profiles,.curves{display:flex;flex-wrap:wrap;gap:1em}.profiles svg{width:600px;height:auto}\
.curves figure{margin:0}.curves figcaption{font-size:.85em;max-width:460px}\
p.note{font-size:.9em;color:#444}";

/// `report.html` of `report` (see the [module docs](self)). `Err` carries plotters' message.
pub fn report_html(report: &BenchReport) -> Result<String, String> {
    let s = &report.settings;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perp bench: {}</title>\
         <style>{STYLE}</style></head><body>\n<h1>perp bench: {}</h1>\n",
        esc(&s.suite),
        esc(&s.suite)
    );
    let problems = {
        let mut v: Vec<&str> = report.records.iter().map(|r| r.problem.as_str()).collect();
        v.dedup();
        v.len()
    };
    let _ = writeln!(
        out,
        "<p>{problems} problem(s), {} run(s), {} solved; tol {:e}; time limit {}; median of {} solve(s) per run; \
         perp {} on {}/{} ({} CPUs).{}{}</p>",
        report.records.len(),
        report.records.iter().filter(|r| r.solved()).count(),
        s.tol,
        s.time_limit.map_or("none".to_string(), |t| format!("{t} s")),
        s.repeat,
        esc(&report.machine.perp_version),
        esc(&report.machine.os),
        esc(&report.machine.arch),
        report.machine.cpus,
        if s.params.is_empty() { String::new() } else { format!(" Solver parameters: {}.", esc(&s.params.join(", "))) },
        s.interrupted.as_ref().map_or(String::new(), |w| format!(" <b>Interrupted:</b> {}.", esc(w))),
    );
    let _ = writeln!(
        out,
        "<p class=\"note\">Performance profiles (Dolan and Moré, 2002): the fraction of a kind's problems each \
         solver solves within a factor tau of the best solver of that problem, by solve time and by iterations \
         (pivots for pivoting methods). In the table the fastest solved run of each problem is green, the \
         runs that did not solve are red.</p>"
    );
    for kind in kinds(&report.records) {
        let _ = writeln!(out, "<h2 id=\"{0}\">{0}</h2>\n<div class=\"profiles\">", esc(&kind));
        for metric in [Metric::Time, Metric::Iterations] {
            out.push_str(&kind_profile_svg(report, &kind, metric)?);
            out.push('\n');
        }
        out.push_str("</div>\n");
        table(&mut out, report, &kind);
    }
    curves(&mut out, report)?;
    if !report.unreadable.is_empty() {
        out.push_str("<h2>Unreadable files</h2>\n<ul>\n");
        for u in &report.unreadable {
            let _ = writeln!(out, "<li><code>{}</code>: {}</li>", esc(&u.file), esc(&u.reason));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body></html>\n");
    Ok(out)
}

/// The table of the problems of `kind`: each solver's status, time, iterations and error.
fn table(out: &mut String, report: &BenchReport, kind: &str) {
    let (solvers, colours) = solvers_of_kind(report, kind);
    out.push_str("<table><thead><tr><th>problem</th><th>n</th>");
    for (sv, &c) in solvers.iter().zip(&colours) {
        let (r, g, b) = solver_color(c);
        let _ =
            write!(out, "<th><span style=\"color:#{r:02x}{g:02x}{b:02x}\">&#9632;</span> {}</th>", esc(sv));
    }
    out.push_str("</tr></thead><tbody>\n");
    let mut seen: Vec<&str> = Vec::new();
    for rec in report.records.iter().filter(|r| r.kind == kind) {
        if seen.contains(&rec.problem.as_str()) {
            continue;
        }
        seen.push(&rec.problem);
        let row: Vec<&BenchRecord> = report.records.iter().filter(|r| r.problem == rec.problem).collect();
        let fastest = row
            .iter()
            .filter(|r| r.solved() && r.seconds.is_finite())
            .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
            .map(|r| r.solver.as_str());
        let _ = write!(out, "<tr><td class=\"name\">{}</td><td>{}</td>", esc(&rec.problem), rec.n);
        for sv in &solvers {
            match row.iter().find(|r| &r.solver == sv) {
                None => out.push_str("<td class=\"none\">–</td>"),
                Some(r) if r.not_applicable() => {
                    let title =
                        r.message.as_deref().map_or(String::new(), |m| format!(" title=\"{}\"", esc(m)));
                    let _ = write!(out, "<td class=\"na\"{title}>not applicable</td>");
                }
                Some(r) => {
                    let class = if fastest == Some(sv.as_str()) {
                        "fastest"
                    } else if r.solved() {
                        "solved"
                    } else {
                        "failed"
                    };
                    let title =
                        r.message.as_deref().map_or(String::new(), |m| format!(" title=\"{}\"", esc(m)));
                    let _ = write!(
                        out,
                        "<td class=\"{class}\"{title}>{} {} it<br>{} s, err {}</td>",
                        esc(&r.status),
                        r.iterations,
                        if r.seconds.is_finite() { format!("{:.2e}", r.seconds) } else { "–".into() },
                        if r.error.is_finite() { format!("{:.1e}", r.error) } else { "–".into() },
                    );
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
}

/// The convergence curves: log10 of the error against the iteration, one chart per run.
fn curves(out: &mut String, report: &BenchReport) -> Result<(), String> {
    out.push_str("<h2 id=\"curves\">Convergence of the failed and slowest runs</h2>\n");
    if report.curves.is_empty() {
        out.push_str(
            "<p class=\"note\">No curve: no run failed after iterating and no run was slow enough to show, or the \
             curves were not recorded (a report read back from results.csv).</p>\n",
        );
        return Ok(());
    }
    let _ = writeln!(
        out,
        "<p class=\"note\">Each run solved once more after the timed runs, with the error recorded after every \
         step of the solver's loop (a step of lemke-pyramid is one LCP solve, so its pivot count in the \
         table is larger; at most {} points shown); the grey line is the tolerance.</p>\n<div class=\"curves\">",
        super::curves::MAX_POINTS
    );
    for c in &report.curves {
        let colour = report.settings.solvers.iter().position(|s| s == &c.solver).unwrap_or(0);
        let _ = writeln!(
            out,
            "<figure>{}<figcaption>{} on {} ({}, {}): {}; history of {} steps{}</figcaption></figure>",
            curve_svg(c, colour, report.settings.tol)?,
            esc(&c.solver),
            esc(&c.problem),
            esc(&c.kind),
            esc(&c.why),
            esc(&c.status),
            c.points.last().map_or(0, |p| p.0),
            if c.points.iter().any(|p| p.1.is_finite() && p.1 > 0.0) {
                ""
            } else {
                "; no finite positive error to draw"
            },
        );
    }
    out.push_str("</div>\n");
    Ok(())
}

/// The label of a tick at `v`: `v` when it is a whole number, else nothing (so no label
/// repeats another).
fn whole(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        String::new()
    }
}

/// One convergence chart: log10(error) against the iteration.
fn curve_svg(c: &Curve, colour: usize, tol: f64) -> Result<String, String> {
    let pts: Vec<(f64, f64)> = c
        .points
        .iter()
        .filter(|(_, e)| e.is_finite() && *e > 0.0)
        .map(|&(i, e)| (i as f64, e.log10()))
        .collect();
    let x_end = c.points.last().map_or(1.0, |p| p.0 as f64).max(2.0);
    let tol_log = (tol > 0.0 && tol.is_finite()).then(|| tol.log10());
    let (mut lo, mut hi) =
        pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p.1), h.max(p.1)));
    if let Some(t) = tol_log {
        lo = lo.min(t);
        hi = hi.max(t);
    }
    if !lo.is_finite() {
        (lo, hi) = (-1.0, 1.0);
    }
    let (lo, hi) = (lo.floor() - 0.5, hi.ceil() + 0.5);
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (460, 280)).into_drawing_area();
        let e = |e: &dyn std::fmt::Display| format!("drawing a convergence curve: {e}");
        root.fill(&WHITE).map_err(|x| e(&x))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{} on {}", c.solver, c.problem), ("sans-serif", 14))
            .margin(8)
            .margin_right(20)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(1f64..x_end, lo..hi)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc("iteration")
            .y_desc("log10(error)")
            .x_labels((x_end as usize).clamp(2, 10))
            // Whole numbers only, each once: a tick between two integers gets no label (it
            // was rounded, and the labels repeated; issue 34, item 7).
            .x_label_formatter(&whole)
            .y_label_formatter(&whole)
            .draw()
            .map_err(|x| e(&x))?;
        if let Some(t) = tol_log {
            chart
                .draw_series(LineSeries::new([(1.0, t), (x_end, t)], RGBColor(150, 150, 150).stroke_width(1)))
                .map_err(|x| e(&x))?;
        }
        let (r, g, b) = solver_color(colour);
        let style = RGBColor(r, g, b);
        // Few points (a Newton method, a one-step run): a dot on each, so that one point shows.
        if pts.len() <= 50 {
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, style.filled()))).map_err(|x| e(&x))?;
        }
        chart.draw_series(LineSeries::new(pts, style.stroke_width(2))).map_err(|x| e(&x))?;
        root.present().map_err(|x| e(&x))?;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of an SVG's `<text>` elements.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim().to_string()))
            .collect()
    }

    #[test]
    fn curve_tick_labels_are_whole_numbers_each_once() {
        // Issue 34, item 7: a curve spanning less than a decade had its y ticks rounded to the
        // same integer ("-8", "-8", "-8"), and a two-iteration one its x ticks ("1", "2", "2").
        let cases: [(Vec<f64>, f64); 3] = [
            (vec![3e-8, 1e-8], 1e-8),
            (vec![0.5, 0.2, 0.1], 1e-8),
            ((1..=40).map(|k| 10f64.powf(-(k as f64) / 4.0)).collect(), 1e-6),
        ];
        for (errors, tol) in cases {
            let c = Curve {
                problem: "p".into(),
                kind: "lcp".into(),
                solver: "s".into(),
                why: "slowest".into(),
                status: "solved".into(),
                points: errors.iter().enumerate().map(|(i, &e)| (i + 1, e)).collect(),
            };
            let svg = curve_svg(&c, 0, tol).unwrap();
            let labels: Vec<String> = texts(&svg)
                .into_iter()
                .filter(|t| !t.is_empty() && t != "s on p" && t != "iteration" && t != "log10(error)")
                .collect();
            assert!(labels.len() >= 3, "{labels:?}");
            for (i, l) in labels.iter().enumerate() {
                assert!(l.parse::<i64>().is_ok(), "{l:?} in {labels:?}");
                assert!(!labels[..i].contains(l), "{l} twice in {labels:?}");
            }
        }
    }
}
