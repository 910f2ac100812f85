//! `perp list`: solvers, built-in problems, scenes and formats.

use perp::core::Error;
use std::process::ExitCode;

/// Runs `perp list`.
pub fn run() -> Result<ExitCode, Error> {
    println!("LCP solvers: {}", perp::lcp::SOLVER_NAMES.join(", "));
    println!("NCP/MCP/MLCP solvers: {}", perp::ncp::SOLVER_NAMES.join(", "));
    println!("frictional contact solvers: {}", perp::cones::SOLVER_NAMES.join(", "));
    let names: Vec<String> = perp::suite::generate::builtin_suite().into_iter().map(|(n, _)| n).collect();
    println!("built-in problems: {}", names.join(", "));
    Ok(ExitCode::SUCCESS)
}
