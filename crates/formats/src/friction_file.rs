//! [`FrictionFile`]: a frictional contact problem as a file holds it, local or global — the
//! type both the Siconos `.dat` reader ([`crate::friction`]) and the FCLIB reader
//! ([`crate::fclib`]) return.

use perp_cones::global::GlobalFrictionContactProblem;
use perp_cones::FrictionContactProblem;
use perp_core::Error;

/// A frictional contact problem as stored in a file: local (`u = W r + q`) or global
/// (`M v = f + H r`, `u = Hᵀ v + b`).
#[derive(Clone, Debug)]
pub enum FrictionFile {
    /// The local (Delassus) form.
    Local(FrictionContactProblem),
    /// The global form.
    Global(GlobalFrictionContactProblem),
}

impl FrictionFile {
    /// Contact dimension d.
    pub fn dim(&self) -> usize {
        match self {
            FrictionFile::Local(p) => p.dim,
            FrictionFile::Global(g) => g.dim,
        }
    }

    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        match self {
            FrictionFile::Local(p) => p.contacts(),
            FrictionFile::Global(g) => g.contacts(),
        }
    }

    /// Whether the file holds the global form.
    pub fn is_global(&self) -> bool {
        matches!(self, FrictionFile::Global(_))
    }

    /// The local form: the problem itself, or the reduction `W = Hᵀ M⁻¹ H`,
    /// `q = Hᵀ M⁻¹ f + b` of a global one ([`GlobalFrictionContactProblem::reduce`]).
    pub fn into_local(self) -> Result<FrictionContactProblem, Error> {
        match self {
            FrictionFile::Local(p) => Ok(p),
            FrictionFile::Global(g) => Ok(g.reduce()?.0),
        }
    }
}
