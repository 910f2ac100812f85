//! The benchmark runner behind `perp bench`: every applicable solver on every problem, one
//! [`BenchRecord`] each, written as `results.csv`, `results.json`, `summary.md` and
//! `profile.svg` (a Dolan–Moré performance profile, [`crate::profile`]).
//!
//! * **Problems.** A [`BenchProblem`] is a name, a kind (`lcp`, `mlcp`, `ncp`, `fc2d`, `fc3d`)
//!   and a problem (the catalogue's `Problem`, also named [`Instance`] here). [`Registry`]
//!   runs every catalogue solver of the problem's family (`perp_catalogue::names`) through the
//!   catalogue's one dispatch (`perp_catalogue::Solver::solve`, as `perp solve` does). A test
//!   or a caller with its own solvers implements [`SolverSet`] and calls [`run_with`].
//! * **Timing.** Each (problem, solver) runs on its own worker thread, and each solve is timed
//!   there with a monotonic clock (`Instant`) around the solve alone (no reading, no
//!   start-up, no building of the solver). With [`BenchConfig::repeat`] = N the recorded time
//!   is the median of N solves made by **one solver built once** — the prepared path of a
//!   simulator, which keeps its workspaces and factor storage between calls; before each
//!   solve it forgets earlier answers (`bdiff-newton`'s hot start), so every repeat starts
//!   from the same point and the first solve's status, iterations and error stand for all. Problems run in
//!   parallel over [`BenchConfig::threads`] (a rayon pool), each timed solve on one thread (the
//!   solvers use `faer::Par::Seq`). Everything but the times is the same for any thread count.
//! * **Time limits.** The limit `settings.time_limit` is passed to the solver (cooperative);
//!   a solve that returns after more than the limit is recorded as `time_limit`. It is also
//!   **enforced**: when the worker has not answered after [`BenchConfig::hard_deadline`]
//!   (twice the limit plus a grace of 1 s by default), the run is recorded as `time_limit`
//!   and the runner moves on. Rust cannot kill a thread, so that worker is *abandoned*: it
//!   keeps its CPU until the solver returns by itself or the process exits (its answer is then
//!   dropped). A runaway solver can therefore slow down the timings that follow it.
//! * **Failures.** A solver that returns `Err` is recorded with status `error` and the
//!   message; a solver that panics is caught (the worker's `catch_unwind`) and recorded as
//!   `numerical_failure` with the panic message; the run goes on in both cases.
//! * **Reference kernel.** Because these machines are noisy, every problem also gets a
//!   reference time measured in the same run — one dense LU factorization of its M (W for
//!   frictional problems, the Jacobian at the start for NCPs) — and `summary.md` reports each
//!   solver's time as a ratio to it (ARCHITECTURE.md, "Performance").
//! * **Shards.** [`shard`] picks the K-th of N round-robin slices of the problem list sorted
//!   by name; [`merge`] combines the [`BenchReport`]s of several shards (read back by
//!   [`read_report`]) into the report an unsharded run would have written (times aside).

mod config;
mod curves;
mod html;
mod params;
mod problems;
mod record;
mod report;
mod runner;
mod shards;
mod solvers;
#[cfg(test)]
mod tests;

pub use config::BenchConfig;
pub use curves::{pick, Curve};
pub use html::report_html;
pub use params::{SolverParams, Tuned};
pub use perp_catalogue::NcpInstance;
pub use problems::{BenchProblem, Instance, ReferenceKernel};
pub use record::{parse_results_csv, results_csv, BenchRecord, CSV_HEADER, NOT_APPLICABLE};
pub use report::{
    kind_profile_svg, kinds, merge, read_report, summary_md, write, BenchReport, Machine, RunSettings,
    Unreadable,
};
pub use runner::{record_curves, run, run_with};
pub use shards::{default_solvers, parse_shard, shard};
pub use solvers::{Registry, SolverSet};
