//! `perp convert IN OUT`: between Siconos `.dat`, FCLIB `.hdf5`, MatrixMarket and JSON.

use perp::core::Error;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `perp convert`.
#[derive(clap::Args)]
pub struct Args {
    /// The input problem file.
    input: PathBuf,
    /// The output file; its extension chooses the format.
    output: PathBuf,
}

/// Runs `perp convert`.
pub fn run(a: Args) -> Result<ExitCode, Error> {
    Err(Error::setting("convert", a.output.display(), "not implemented yet"))
}
