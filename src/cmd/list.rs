//! `perp list`: solvers by problem kind (with the method's source), built-in problems, scenes
//! and file formats.
//!
//! The solver names come from the registries themselves (`perp::lcp::SOLVER_NAMES`,
//! `perp::ncp::SOLVER_NAMES`, `perp::cones::SOLVER_NAMES`), so a new solver is listed even
//! before it gets a line in [`SOLVERS`]; the descriptions and references below are read off
//! each solver's module docs (`crates/*/src`).

use perp::core::Error;
use perp::suite::convert::Format;
use std::process::ExitCode;

/// Which registry a description belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Lcp,
    Ncp,
    Friction,
}

/// `(family, name, what it does, where it comes from)`.
const SOLVERS: &[(Family, &str, &str, &str)] = &[
    (
        Family::Lcp,
        "lemke",
        "complementary pivoting with lexicographic degeneracy resolution; ray termination reported",
        "Lemke 1965; Cottle–Pang–Stone 1992 §4.4, §4.9",
    ),
    (Family::Lcp, "pgs", "projected Gauss–Seidel sweeps (also box-LCP)", "Cottle–Pang–Stone 1992 ch. 5"),
    (
        Family::Lcp,
        "psor",
        "projected successive over-relaxation, 0 < ω < 2",
        "Mangasarian 1977; Cottle–Pang–Stone 1992 ch. 5",
    ),
    (
        Family::Lcp,
        "rpgs",
        "regularized (proximal-point) PGS, for PSD M with zero diagonal entries",
        "Rockafellar 1976; Siconos lcp_rpgs (Acary–Brogliato 2008)",
    ),
    (
        Family::Lcp,
        "projected-newton",
        "projected Newton on the QP of a symmetric positive semidefinite M",
        "Bertsekas 1982",
    ),
    (
        Family::Lcp,
        "fb-newton",
        "Fischer–Burmeister semismooth Newton (through the MCP form)",
        "De Luca–Facchinei–Kanzow 1996",
    ),
    (
        Family::Lcp,
        "bdiff-newton",
        "B-differentiable min-map Newton with hot start (through the MCP form)",
        "Harker–Pang 1990; Pang 1990; Tzitzouris–Pang, seed 002",
    ),
    (
        Family::Ncp,
        "fb-newton",
        "Fischer–Burmeister semismooth Newton with Armijo search",
        "De Luca–Facchinei–Kanzow 1996 (seed 001 ref. [6])",
    ),
    (
        Family::Ncp,
        "bdiff-newton",
        "B-differentiable (min-map) Newton, degenerate rows by a small Lemke LCP, hot start",
        "Harker–Pang 1990; Pang 1990; Trinkle–Tzitzouris–Pang 2001, seed 002",
    ),
    (
        Family::Friction,
        "nsgs",
        "nonsmooth Gauss–Seidel over contacts, each one-contact problem solved exactly",
        "Moreau 1988, seed 003 §15–16; Jean 1999",
    ),
    (Family::Friction, "ac-newton", "semismooth Newton on the Alart–Curnier function", "Alart–Curnier 1991"),
    (
        Family::Friction,
        "fb-newton",
        "semismooth Newton on the Jordan-algebra Fischer–Burmeister function of the De Saxcé pair",
        "Fukushima–Luo–Tseng 2001",
    ),
    (
        Family::Friction,
        "prox",
        "proximal-point outer loop (W + σI) around the Alart–Curnier Newton",
        "Acary–Brémond–Huber 2018",
    ),
    (
        Family::Friction,
        "lemke-pyramid",
        "Lemke on the LCP of a polyhedral friction cone, with pyramid alignment",
        "Stewart–Trinkle 1996, seed 000 eq. 2.11–2.16; seed 002",
    ),
];

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
    print_solvers();
    print_builtin_problems();
    print_scenes();
    print_formats();
    Ok(ExitCode::SUCCESS)
}

fn print_solvers() {
    let sections: [(Family, &str, &[&str]); 3] = [
        (Family::Lcp, "LCP solvers (0 ≤ z ⊥ Mz + q ≥ 0; perp solve on an LCP file)", perp::lcp::SOLVER_NAMES),
        (
            Family::Ncp,
            "NCP / MCP / MLCP solvers (perp solve on an MLCP file, perp bench on NCPs)",
            perp::ncp::SOLVER_NAMES,
        ),
        (
            Family::Friction,
            "Frictional contact solvers (u = W r + q, K ∋ r ⊥ ũ ∈ K*)",
            perp::cones::SOLVER_NAMES,
        ),
    ];
    for (family, title, names) in sections {
        println!("{title}:");
        let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
        for name in names {
            match SOLVERS.iter().find(|(f, n, _, _)| *f == family && n == name) {
                Some((_, _, what, source)) => println!("  {name:width$}  {what} — {source}"),
                None => println!("  {name:width$}  (see its module docs)"),
            }
        }
        println!();
    }
}

fn print_builtin_problems() {
    println!("Built-in problems (perp bench with no folder):");
    let problems = perp::suite::generate::builtin_problems();
    let samples = perp::ncp::samples::all();
    let width = problems.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in &problems {
        let what = PROBLEM_FAMILIES
            .iter()
            .find(|(prefix, _)| p.name.starts_with(prefix))
            .map(|(_, w)| w.to_string())
            .or_else(|| samples.iter().find(|s| s.name == p.name).map(|s| s.description.to_string()))
            .unwrap_or_default();
        println!("  {:width$}  {:5}  {what}", p.name, p.kind);
    }
    println!();
}

/// The scenes of `perp simulate`.
///
/// RESERVED: scenes live in the `perp::dynamics` crate, which this listing does not depend
/// on yet; when it does, print one line per scene here (name, what it shows, its paper), in
/// the layout of the sections above. Until then this prints nothing.
fn print_scenes() {
    println!("Scenes (perp simulate NAME [N]):");
    let cat = perp::dynamics::scenes::catalog();
    let width =
        cat.iter().map(|s| s.name.len() + if s.default_size.is_some() { 2 } else { 0 }).max().unwrap_or(0);
    for s in &cat {
        let name = if s.default_size.is_some() { format!("{} N", s.name) } else { s.name.to_string() };
        println!("  {name:<width$}  {}", s.description);
    }
    println!();
}

fn print_formats() {
    println!("Formats (perp convert IN OUT; the extension chooses):");
    for f in Format::ALL {
        let exts: Vec<String> = f.extensions().iter().map(|e| format!(".{e}")).collect();
        println!("  {} ({})", f.name(), exts.join(", "));
        println!("    read:  {}", f.reads());
        println!("    write: {}", f.writes());
    }
}
