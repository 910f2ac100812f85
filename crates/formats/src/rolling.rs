//! Reader of rolling frictional contact files: FCLIB's `/fclib_global_rolling` HDF5
//! ([`crate::fclib`], read by [`read_rolling_file`]) and Siconos' text files (`RollingFrictionContactProblem`, local,
//! and `GlobalRollingFrictionContactProblem`, global), as
//! `rollingFrictionContact_printInFile` and `globalRollingFrictionContact_printInFile`
//! (numerics/src/RollingFrictionContact/) write them:
//!
//! ```text
//! local:   d nc   W (NumericsMatrix, d·nc square)   q (d·nc)   μ (nc)   μ_r (nc)
//! global:  d nc   M (NumericsMatrix, n_dof square)  H (NumericsMatrix, n_dof × d·nc)
//!          q (n_dof, the free impulse f)   b (d·nc)   μ (nc)   μ_r (nc)
//! ```
//!
//! with d = 5 (3-D contacts: normal, 2 tangential, 2 rolling) or 3 (2-D). The layout is the
//! frictional one ([`crate::friction`]) with μ_r appended, read by the same code with the same
//! guarantees: every size checked against the tokens left before anything is allocated,
//! errors naming the file, the token and the field (`mu_r[2]`, …), no data past μ_r
//! ([`Tokens::expect_end`](crate::tokens::Tokens::expect_end)). A global problem is reduced
//! to the local form by [`GlobalFrictionContactProblem::reduce`]
//! (`W = Hᵀ M⁻¹ H`, `q = Hᵀ M⁻¹ f + b`) and given its rolling laws.
//!
//! [`GlobalFrictionContactProblem::reduce`]: perp_cones::global::GlobalFrictionContactProblem::reduce

use crate::friction::parse_friction_text;
use crate::friction_file::FrictionFile;
use perp_cones::{ConeSpec, FrictionContactProblem};
use perp_core::Error;
use std::path::Path;

/// A rolling frictional contact problem as its file holds it: the problem (local, with its
/// rolling laws, or global, without: the global type has no laws) and μ_r.
#[derive(Clone, Debug)]
pub struct RollingFile {
    /// The problem, local or global.
    pub problem: FrictionFile,
    /// The rolling friction coefficients, one per contact.
    pub mu_r: Vec<f64>,
}

impl RollingFile {
    /// The local form with its rolling laws (a global problem reduced first).
    pub fn into_local(self) -> Result<FrictionContactProblem, Error> {
        let p = self.problem.into_local()?;
        if p.rolling_mu().is_some() {
            return Ok(p);
        }
        let cones = self.mu_r.into_iter().map(|mu_r| ConeSpec::Rolling { mu_r }).collect();
        p.with_cones(cones)
    }
}

/// Parses the text of a Siconos rolling frictional contact file, local or global (see the
/// [module docs](self)); `file` names it in error messages.
///
/// ```
/// use perp_formats::rolling::parse_rolling_friction_contact;
/// use std::path::Path;
/// // d = 3 (2-D), one contact, W = I (dense, by columns), q = (-1, 0.5, 0.2), μ = 0.3, μ_r = 0.1.
/// let text = "3 1\n0 3 3 3 3\n1 0 0\n0 1 0\n0 0 1\n-1 0.5 0.2\n0.3\n0.1\n";
/// let f = parse_rolling_friction_contact(text, Path::new("r.dat")).unwrap();
/// let p = f.into_local().unwrap();
/// assert_eq!((p.dim, p.mu[0], p.rolling_mu()), (3, 0.3, Some(vec![0.1])));
/// let e = parse_rolling_friction_contact(&text.replace("0.1\n", "-0.1\n"), Path::new("r.dat")).unwrap_err();
/// assert_eq!(e.to_string(), "r.dat: token 21 (mu_r[0]): rolling friction coefficient must be ≥ 0, found -0.1");
/// ```
pub fn parse_rolling_friction_contact(text: &str, file: &Path) -> Result<RollingFile, Error> {
    let (problem, mu_r) = parse_friction_text(text, file, true)?;
    let mu_r = mu_r.ok_or_else(|| Error::Parse {
        file: file.to_path_buf(),
        position: 1,
        field: "mu_r".into(),
        message: "no rolling friction coefficients were read".into(),
    })?;
    Ok(RollingFile { problem, mu_r })
}

/// Reads a rolling frictional contact file as stored: Siconos `.dat` text (local or global),
/// or FCLIB HDF5 holding `/fclib_global_rolling` ([`crate::fclib`]). The content decides, as
/// for [`crate::read_friction_file`]: a file starting with the HDF5 signature is read as FCLIB.
pub fn read_rolling_file(path: &Path) -> Result<RollingFile, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    if crate::fclib::is_hdf5(&bytes) {
        return match crate::fclib::parse_fclib_problem(bytes, path)? {
            (crate::fclib::FclibProblem::Rolling(r), _) => Ok(r),
            (crate::fclib::FclibProblem::Friction(_), _) => Err(Error::Parse {
                file: path.to_path_buf(),
                position: 0,
                field: crate::fclib::ROLLING_GROUP.into(),
                message: "this FCLIB file holds a frictional contact problem (no μ_r), not a rolling one"
                    .into(),
            }),
        };
    }
    parse_rolling_friction_contact(&String::from_utf8_lossy(&bytes), path)
}

/// Reads a rolling frictional contact file, Siconos `.dat` (local or global) or FCLIB HDF5
/// (`/fclib_global_rolling`), in the local form with its rolling laws
/// ([`RollingFile::into_local`]).
///
/// Errors: [`Error::Io`] when the file cannot be read, [`Error::Parse`] naming the file, the
/// token (or HDF5 dataset) and the field when its content is wrong, [`Error::Requirement`]
/// naming the file when the mass matrix of a global problem cannot be factored.
pub fn read_rolling_friction_contact(path: &Path) -> Result<FrictionContactProblem, Error> {
    read_rolling_file(path)?.into_local().map_err(|e| match e {
        Error::Requirement { solver, requirement, suggestion } => Error::Requirement {
            solver,
            requirement: format!("{requirement} (in {})", path.display()),
            suggestion,
        },
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RollingFile, Error> {
        parse_rolling_friction_contact(text, Path::new("rfc.dat"))
    }

    /// A global file: d = 3, nc = 1, n_dof = 3, M = diag(2, 2, 4), H = I, f = (1, 0, -2),
    /// b = (0.5, 0, 0), μ = 0.3, μ_r = 0.05.
    const GLOBAL: &str = "3\n1\n0 3 3 3 3\n2 0 0\n0 2 0\n0 0 4\n0 3 3 3 3\n1 0 0\n0 1 0\n0 0 1\n\
                          1 0 -2\n0.5 0 0\n0.3\n0.05\n";

    #[test]
    fn a_global_file_is_reduced_and_given_its_rolling_laws() {
        let f = parse(GLOBAL).unwrap();
        assert!(f.problem.is_global());
        let p = f.into_local().unwrap();
        // W = Hᵀ M⁻¹ H = diag(1/2, 1/2, 1/4), q = M⁻¹ f + b = (1, 0, -1/2).
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-15;
        assert!(close(p.w.get(0, 0), 0.5) && close(p.w.get(2, 2), 0.25) && close(p.w.get(0, 1), 0.0));
        assert!(close(p.q[0], 1.0) && close(p.q[1], 0.0) && close(p.q[2], -0.5), "{:?}", p.q);
        assert_eq!((p.mu.clone(), p.rolling_mu()), (vec![0.3], Some(vec![0.05])));
    }

    #[test]
    fn bad_input_is_an_error_naming_the_field() {
        // Without μ_r the tokens left do not hold what H's header announces.
        let e = parse(&GLOBAL.replace("0.05\n", "")).unwrap_err().to_string();
        assert!(e.starts_with("rfc.dat: token ") && e.contains("more values"), "{e}");
        let e = parse(&GLOBAL.replace("0.05\n", "-0.05")).unwrap_err().to_string();
        assert!(
            e.starts_with("rfc.dat: token 38 (mu_r[0]): rolling friction coefficient must be ≥ 0"),
            "{e}"
        );
        let e = parse(&format!("{GLOBAL} 7")).unwrap_err().to_string();
        assert!(e.contains("end of data") && e.contains("mu_r"), "{e}");
        let e = parse(&GLOBAL.replacen('3', "4", 1)).unwrap_err().to_string();
        assert!(e.contains("dimension 3 (2-D) or 5 (3-D), found 4"), "{e}");
        let e = parse("5 100000000 0 5 5").unwrap_err().to_string();
        assert!(e.starts_with("rfc.dat: token") && e.contains("more values"), "{e}");
    }

    #[test]
    fn every_truncation_is_an_error_naming_the_file() {
        let tokens: Vec<&str> = GLOBAL.split_whitespace().collect();
        for k in 0..tokens.len() {
            let e = parse(&tokens[..k].join(" ")).err().unwrap_or_else(|| panic!("{k} tokens parsed"));
            assert!(e.to_string().starts_with("rfc.dat: token "), "{k}: {e}");
        }
    }
}
