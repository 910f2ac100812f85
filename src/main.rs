//! The `perp` command: solve a problem file, benchmark solvers, list what is available.
//!
//! Exit status (ARCHITECTURE.md): 0 on success, 1 when a solve did not converge or a check
//! failed, 2 on bad usage or unreadable input, with a one-line message naming the file.

#[macro_use]
mod cmd;

use clap::{Parser, Subcommand};
use perp::core::Error;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "perp", version, about = "Complementarity solvers for contact mechanics")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve one problem file (Siconos LCP, MLCP or FrictionContact `.dat`, FCLIB `.hdf5`; the
    /// kind is detected).
    Solve(cmd::solve::Args),
    /// Run solvers on a suite; write results.csv, summary.md, profile.svg and results.json.
    Bench(cmd::bench::Args),
    /// Run a built-in scene (the papers' experiments) and write its trajectory and picture.
    Simulate(cmd::simulate::Args),
    /// Convert a problem file between formats (Siconos `.dat`, FCLIB `.hdf5`, MatrixMarket, JSON).
    Convert(cmd::convert::Args),
    /// List solvers and built-in problems.
    List,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        // The reader went away (`perp list | head -1`): nothing left to say to it.
        Err(e) if cmd::is_closed_stdout(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("perp: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Solve(a) => cmd::solve::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Simulate(a) => cmd::simulate::run(a),
        Command::Convert(a) => cmd::convert::run(a),
        Command::List => cmd::list::run(),
    }
}
