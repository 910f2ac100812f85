//! `perp convert IN OUT`: between Siconos `.dat`, FCLIB `.hdf5`, MatrixMarket `.mtx` and
//! JSON, the format of each file chosen by its extension (`perp::formats::convert`).

use perp::core::Error;
use perp::formats::convert::{write_any, Format};
use perp::formats::{Problem, ProblemKind};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `perp convert`.
#[derive(clap::Args)]
pub struct Args {
    /// The input problem file (.dat, .hdf5/.h5, .mtx, .json), or a built-in problem's name
    /// (`perp list`).
    input: PathBuf,
    /// The output file; its extension chooses the format (.dat, .hdf5/.h5, .mtx, .json).
    output: PathBuf,
    /// The problem kind of a `.dat` input, when detection from the file is not wanted.
    #[arg(long, value_parser = ["lcp", "mlcp", "fc"])]
    kind: Option<String>,
}

/// Runs `perp convert`: reads IN, writes OUT (for `.mtx`, also the vector files next to it)
/// and prints one line naming what was written.
pub fn run(a: Args) -> Result<ExitCode, Error> {
    let kind = a.kind.as_deref().map(|k| match k {
        "mlcp" => ProblemKind::Mlcp,
        "fc" => ProblemKind::Friction,
        _ => ProblemKind::Lcp,
    });
    let out_format = Format::from_path(&a.output, "output file")?;
    let problem = super::read_problem(&a.input, kind)?;
    let files = write_any(&problem, &a.output)?;
    // A global frictional file is read in its local form: say what the output leaves out.
    if matches!(problem, Problem::Friction(_))
        && perp::formats::read_friction_file(&a.input).is_ok_and(|f| f.is_global())
    {
        eprintln!(
            "perp convert: {} holds a global frictional problem (M, H, f, w); {} holds its local \
             form W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + b, μ: M, H and f are not written (no writer keeps \
             the global form)",
            a.input.display(),
            a.output.display()
        );
    }
    let n = problem.n();
    let m = match &problem {
        Problem::Lcp(p) => Some(p.m()),
        Problem::Mlcp(p) => Some(p.m()),
        Problem::Friction(p) => Some(&p.w),
        Problem::GlobalFriction(p) => Some(&p.m),
        Problem::Ncp(_) => None,
    };
    let storage = match m {
        Some(m) if m.is_sparse() => format!("sparse, {} entries", m.nnz()),
        Some(_) => "dense".to_string(),
        None => "given by code".to_string(),
    };
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    outln!(
        "{} ({}, n = {n}, {storage}) -> {} ({})",
        a.input.display(),
        problem.kind_name(),
        names.join(", "),
        out_format.name()
    )?;
    Ok(ExitCode::SUCCESS)
}
