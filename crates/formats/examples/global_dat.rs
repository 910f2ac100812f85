//! Writes a global frictional contact file (FCLIB `.hdf5` or Siconos `.dat`, read in its global
//! form M, H, f, b, μ) as Siconos' global `.dat` (`globalFrictionContact_printInFile`'s layout),
//! so that Siconos' global solvers, which read no HDF5 in a build without FCLIB, take the same
//! problem as perp's (`scripts/vs_siconos_more.py`). `perp convert` writes the reduced local
//! form only.
//!
//! ```sh
//! cargo run --release -p perp-formats --example global_dat -- \
//!     ../shared/suites/siconos/fc3d/Box_Stacks-i0122-82-5.hdf5 /tmp/Box_Stacks-global.dat
//! ```

use perp_formats::{convert::write_siconos, read_problem, ProblemKind};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: global_dat INPUT(.hdf5|.dat, global) OUTPUT.dat");
        return ExitCode::from(2);
    };
    let written = read_problem(Path::new(input), Some(ProblemKind::GlobalFriction))
        .and_then(|p| write_siconos(&p, Path::new(output)));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("global_dat: {e}");
            ExitCode::FAILURE
        }
    }
}
