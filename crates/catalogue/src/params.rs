//! What a caller passes ([`Params`]: `name=value` pairs, as `perp --param`, Python's
//! `params=` and C's `settings.params` give them), checked against a solver's declaration
//! ([`Param`], declared beside the solver: [`perp_core::params`]) once, before the solver is
//! built ([`Resolved`]).

pub use perp_core::params::{Bound, Param, ParamKind, Resolved};
use perp_core::Error;

/// Parameter values a caller sets, as `name=value` text; the rest keep their defaults.
///
/// ```
/// use perp_catalogue::Params;
/// let p = Params::parse("omega=1.3, local_max_iter=40").unwrap();
/// assert_eq!(p.len(), 2);
/// assert!(Params::parse("omega").is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: Vec<(String, String)>,
}

impl Params {
    /// No parameter set: every default.
    pub fn new() -> Params {
        Params::default()
    }

    /// Sets `name` to `value` (text, checked when the solver is built).
    pub fn set(mut self, name: &str, value: impl ToString) -> Params {
        self.values.retain(|(n, _)| n != name);
        self.values.push((name.to_string(), value.to_string()));
        self
    }

    /// Parses a comma-separated list of `name=value` pairs (spaces allowed; empty is none).
    pub fn parse(text: &str) -> Result<Params, Error> {
        let mut p = Params::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            p = p.push_pair(item)?;
        }
        Ok(p)
    }

    /// Adds one `name=value` pair, as given to `--param`.
    pub fn push_pair(self, pair: &str) -> Result<Params, Error> {
        match pair.split_once('=') {
            Some((n, v)) if !n.trim().is_empty() => Ok(self.set(n.trim(), v.trim())),
            _ => Err(Error::setting("--param", pair, "must be NAME=VALUE, e.g. omega=1.3")),
        }
    }

    /// How many values are set.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The names of the values set, in the order they were set.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.iter().map(|(n, _)| n.as_str())
    }

    /// Checks every value against `declared` (unknown names and out-of-range values are
    /// errors naming the solver, the parameter and the valid values) and fills in the defaults.
    pub fn resolve(&self, solver: &str, declared: &'static [Param]) -> Result<Resolved, Error> {
        let mut resolved = Resolved::defaults(declared);
        for (name, text) in &self.values {
            resolved.set(solver, name, text)?;
        }
        Ok(resolved)
    }
}

/// The values as `name=value` pairs, comma-separated, as [`Params::parse`] reads them.
impl std::fmt::Display for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (n, v)) in self.values.iter().enumerate() {
            write!(f, "{}{n}={v}", if i > 0 { ", " } else { "" })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perp_cones::newton::params::PARAMS as NEWTON;

    #[test]
    fn text_values_resolve_against_a_solvers_declaration() {
        let r = Params::parse("rho_scale=0.5, stall_iterations=7, line_search=no, sparse=yes")
            .unwrap()
            .resolve("ac-newton", NEWTON)
            .unwrap();
        assert_eq!(
            (r.real("rho_scale"), r.int("stall_iterations"), r.flag("line_search"), r.choice("sparse")),
            (0.5, 7, false, "yes")
        );
        assert_eq!(
            r.real("regularization"),
            Params::new().resolve("x", NEWTON).unwrap().real("regularization")
        );
    }

    #[test]
    fn bad_values_name_solver_parameter_and_range() {
        let e = Params::parse("rho_scale=0").unwrap().resolve("ac-newton", NEWTON).unwrap_err().to_string();
        assert!(e.contains("ac-newton: parameter rho_scale") && e.contains("(0, "), "{e}");
        let e = Params::parse("tau=1").unwrap().resolve("ac-newton", NEWTON).unwrap_err().to_string();
        assert!(e.contains("unknown parameter; ac-newton takes sparse, linear, rho_scale,"), "{e}");
        let e = Params::parse("tau=1").unwrap().resolve("lemke", &[]).unwrap_err().to_string();
        assert!(e.contains("lemke takes no parameters"), "{e}");
        let e = Params::new().push_pair("omega").unwrap_err().to_string();
        assert!(e.contains("--param") && e.contains("NAME=VALUE"), "{e}");
    }

    #[test]
    fn the_text_of_params_parses_back_to_them() {
        let p = Params::parse("omega=1.3, hot=no").unwrap();
        assert_eq!(p.to_string(), "omega=1.3, hot=no");
        assert_eq!(Params::parse(&p.to_string()).unwrap(), p);
        assert_eq!(Params::new().to_string(), "");
    }

    #[test]
    fn later_values_replace_earlier_ones() {
        let p = Params::parse("rho_scale=1.1, rho_scale=1.4").unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p.resolve("x", NEWTON).unwrap().real("rho_scale"), 1.4);
    }
}
