//! [`Curve`]: the error against the iteration of one (problem, solver) run, recorded for the
//! failed and the slowest runs of a bench ([`pick`]) by solving them once more with
//! `record_history` on, after the timed runs (so that the timed solves never pay for it).

use super::record::BenchRecord;
use serde::{Deserialize, Serialize};

/// Points kept per curve: longer histories are thinned to this many (first and last kept).
pub const MAX_POINTS: usize = 400;

/// The error after each iteration of one run, as recorded again after the timed runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Curve {
    /// Problem name.
    pub problem: String,
    /// Problem kind.
    pub kind: String,
    /// Solver name.
    pub solver: String,
    /// Why it was recorded: `failed` or `slowest`.
    pub why: String,
    /// The status of the recording solve (may differ from the timed run's near a time limit).
    pub status: String,
    /// `(iteration, error)`, at most [`MAX_POINTS`] of them (1-based iterations).
    pub points: Vec<(usize, f64)>,
}

impl Curve {
    /// The measured errors `history` at the iterations `iterations` (a report's `history` and
    /// `history_iterations`: only the iterations whose error was measured, so that PGS's and
    /// NSGS's curves join their exact checks instead of drawing staircases) thinned to at most
    /// [`MAX_POINTS`] points, evenly spaced in the entries, the last one always kept.
    pub fn thin(history: &[f64], iterations: &[usize]) -> Vec<(usize, f64)> {
        let n = history.len().min(iterations.len());
        if n <= MAX_POINTS {
            return (0..n).map(|i| (iterations[i], history[i])).collect();
        }
        let mut pts: Vec<(usize, f64)> = (0..MAX_POINTS - 1)
            .map(|k| k * (n - 1) / (MAX_POINTS - 1))
            .map(|i| (iterations[i], history[i]))
            .collect();
        pts.push((iterations[n - 1], history[n - 1]));
        pts
    }
}

/// The runs whose convergence curves the report shows, as `(index in records, why)`: every
/// failed run that iterated (not solved, status not `error`, at least one iteration), the
/// longest first, then the slowest solved run of each kind that iterated; at most `max` in all, the slowest
/// runs kept first. Re-solving them costs about what they cost when timed (a run that ended on
/// the time limit costs the limit again).
pub fn pick(records: &[BenchRecord], max: usize) -> Vec<(usize, &'static str)> {
    let mut failed: Vec<usize> = (0..records.len())
        .filter(|&i| !records[i].solved() && records[i].status != "error" && !records[i].not_applicable())
        .collect();
    // A run with no iteration (a refusal, a panic, a solve abandoned at the hard deadline) has
    // no curve to show, and re-solving an abandoned one would cost the deadline again.
    failed.retain(|&i| records[i].iterations >= 2);
    failed.sort_by(|&a, &b| records[b].seconds.total_cmp(&records[a].seconds));
    let mut out: Vec<(usize, &'static str)> = failed.into_iter().map(|i| (i, "failed")).collect();
    let mut kinds: Vec<&str> = Vec::new();
    for r in records {
        if !kinds.contains(&r.kind.as_str()) {
            kinds.push(&r.kind);
        }
    }
    for k in kinds {
        let slowest = (0..records.len())
            .filter(|&i| {
                // Iterated: a solve at its start (a crash guess, a warm start) has no curve, and
                // picking it left the kind without one whenever it happened to be the slowest.
                // At least two iterations: one gives a one-point "curve" (issue 34, item 7).
                let r = &records[i];
                r.kind == k && r.solved() && r.iterations >= 2 && r.seconds.is_finite()
            })
            .max_by(|&a, &b| records[a].seconds.total_cmp(&records[b].seconds));
        if let Some(i) = slowest {
            out.push((i, "slowest"));
        }
    }
    // Keep the slowest runs of every kind even when many runs failed: failed runs first up to
    // what is left.
    let slow = out.iter().filter(|(_, w)| *w == "slowest").count().min(max);
    let failed_room = max - slow;
    let mut kept: Vec<(usize, &'static str)> =
        out.iter().copied().filter(|(_, w)| *w == "failed").take(failed_room).collect();
    kept.extend(out.into_iter().filter(|(_, w)| *w == "slowest").take(slow));
    kept
}
