//! `perp list`: solvers by problem kind (with the method's source), built-in problems, scenes
//! and file formats.
//!
//! The solvers, their summaries, papers and parameters come from the catalogue
//! (`perp::catalogue::ENTRIES`), the one place a solver is declared.

use perp::catalogue::Family;
use perp::core::Error;
use perp::formats::convert::Format;
use std::process::ExitCode;

/// What each family of built-in problems is, by name prefix (longest prefix first).
const PROBLEM_FAMILIES: &[(&str, &str)] = &[
    ("contact-dense-", "the contact-N problem of the same size, stored dense"),
    ("contact-", "frictionless multi-contact Delassus LCP W = J M⁻¹ Jᵀ, sparse"),
    ("spd-", "dense symmetric positive definite, M = A Aᵀ + I"),
    ("psd-", "dense positive semidefinite of half rank (may have no solution)"),
    ("pmatrix-", "dense non-symmetric P-matrix (diagonally dominant)"),
    ("murty-", "Murty's example: Lemke takes 2ⁿ pivots"),
    ("fathi-", "Fathi's ill-conditioned SPD LCP"),
    ("degenerate-", "SPD LCP built around a degenerate solution"),
    ("mlcp-spd-", "dense SPD MLCP with equality rows"),
    ("fc3d-contact-", "3-D Coulomb frictional contact, Delassus W of random rigid bodies"),
    ("fc2d-contact-", "2-D Coulomb frictional contact, Delassus W of random rigid bodies"),
];

/// Runs `perp list`.
pub fn run() -> Result<ExitCode, Error> {
    print_solvers()?;
    print_builtin_problems()?;
    print_scenes()?;
    print_formats()?;
    Ok(ExitCode::SUCCESS)
}

fn print_solvers() -> Result<(), Error> {
    for family in Family::ALL {
        outln!("{}:", family.title())?;
        let entries: Vec<_> = perp::catalogue::ENTRIES.iter().filter(|e| e.family == family).collect();
        let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
        for e in entries {
            outln!("  {:width$}  {} — {}", e.name, e.summary, e.citation)?;
            print_params(width + 2, e.params)?;
        }
        outln!()?;
    }
    Ok(())
}

/// One line a parameter, `--param NAME=DEFAULT  (RANGE; DOC)`, indented by `indent + 2`.
fn print_params(indent: usize, params: &[perp::core::params::Param]) -> Result<(), Error> {
    for p in params {
        outln!("  {:indent$}  --param {}={}  ({}; {})", "", p.name, p.default_text(), p.range_text(), p.doc)?;
    }
    Ok(())
}

fn print_builtin_problems() -> Result<(), Error> {
    outln!("Built-in problems (perp bench with no folder):")?;
    let problems = perp::suite::builtin::builtin_problems();
    let samples = perp::ncp::samples::all();
    let width = problems.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in &problems {
        let what = PROBLEM_FAMILIES
            .iter()
            .find(|(prefix, _)| p.name.starts_with(prefix))
            .map(|(_, w)| w.to_string())
            .or_else(|| samples.iter().find(|s| s.name == p.name).map(|s| s.description.to_string()))
            .unwrap_or_default();
        outln!("  {:width$}  {:5}  {what}", p.name, p.kind)?;
    }
    outln!()?;
    Ok(())
}

/// The scenes of `perp simulate`, from the scene catalogue of `perp::dynamics`.
fn print_scenes() -> Result<(), Error> {
    outln!("Scenes (perp simulate NAME [N]):")?;
    let cat = perp::dynamics::scenes::catalog();
    let width =
        cat.iter().map(|s| s.name.len() + if s.default_size.is_some() { 2 } else { 0 }).max().unwrap_or(0);
    for s in &cat {
        let name = if s.default_size.is_some() { format!("{} N", s.name) } else { s.name.to_string() };
        outln!("  {name:<width$}  {}", s.description)?;
    }
    outln!()?;
    outln!("The compliant formulation's contact model (perp simulate --formulation compliant):")?;
    print_params(0, perp::dynamics::Compliant::PARAMS)?;
    outln!()?;
    Ok(())
}

fn print_formats() -> Result<(), Error> {
    outln!("Formats (perp convert IN OUT; the extension chooses):")?;
    for f in Format::ALL {
        let exts: Vec<String> = f.extensions().iter().map(|e| format!(".{e}")).collect();
        outln!("  {} ({})", f.name(), exts.join(", "))?;
        outln!("    read:  {}", f.reads())?;
        outln!("    write: {}", f.writes())?;
    }
    Ok(())
}
