//! [`SolverParams`]: the `--param NAME=VALUE` (or `SOLVER.NAME=VALUE`) of a run, checked
//! against the catalogue before any work, and [`Tuned`], the catalogue's solvers built with them.

use super::solvers::Catalogued;
use perp_catalogue::{Family, Params, ENTRIES};
use perp_core::Error;

/// Parameter values per solver name, each checked against every catalogue entry of that name
/// that declares it.
#[derive(Clone, Debug, Default)]
pub struct SolverParams {
    /// `(solver, parameter, value)`, in the order given.
    values: Vec<(String, String, String)>,
}

impl SolverParams {
    /// Reads `pairs` (`NAME=VALUE` or `SOLVER.NAME=VALUE`) for a run of `solvers`.
    /// `NAME=VALUE` goes to the one solver of the run that takes `NAME`; when several do, it is
    /// an error asking for `SOLVER.NAME=VALUE`. Unknown names, solvers outside the run and
    /// values out of the declared range are errors naming the pair and the valid choices.
    ///
    /// ```
    /// use perp_bench::bench::SolverParams;
    /// let run = ["lemke".to_string(), "psor".to_string()];
    /// let p = SolverParams::parse(&["omega=1.5".into()], &run).unwrap();
    /// assert_eq!(p.pairs(), ["psor.omega=1.5"]);
    /// assert!(SolverParams::parse(&["omega=3".into()], &run).unwrap_err().to_string().contains("(0, 2)"));
    /// assert!(SolverParams::parse(&["no_such=1".into()], &run).is_err());
    /// ```
    pub fn parse(pairs: &[String], solvers: &[String]) -> Result<SolverParams, Error> {
        let mut out = SolverParams::default();
        for pair in pairs {
            let bad = |reason: String| Error::setting("--param", pair, &reason);
            let Some((key, value)) = pair.split_once('=') else {
                return Err(bad("must be NAME=VALUE or SOLVER.NAME=VALUE, e.g. omega=1.3".into()));
            };
            let (key, value) = (key.trim(), value.trim());
            let takes = |solver: &str, name: &str| {
                ENTRIES.iter().any(|e| e.name == solver && e.params.iter().any(|p| p.name == name))
            };
            let (solver, name) = match key.split_once('.') {
                Some((s, n)) => {
                    if !solvers.iter().any(|x| x == s) {
                        return Err(bad(format!("solver '{s}' is not in this run ({})", solvers.join(", "))));
                    }
                    if !takes(s, n) {
                        return Err(bad(format!("{s} has no parameter '{n}'; it takes {}", taken_by(s))));
                    }
                    (s.to_string(), n.to_string())
                }
                None => {
                    let who: Vec<&String> = solvers.iter().filter(|s| takes(s, key)).collect();
                    match who.as_slice() {
                        [] => {
                            return Err(bad(format!(
                                "no solver of this run takes a parameter '{key}' (see `perp list`)"
                            )))
                        }
                        [one] => (one.to_string(), key.to_string()),
                        many => {
                            let forms: Vec<String> =
                                many.iter().map(|s| format!("{s}.{key}={value}")).collect();
                            return Err(bad(format!(
                                "'{key}' is a parameter of several solvers of this run; write {}",
                                forms.join(" or ")
                            )));
                        }
                    }
                }
            };
            // The value, against every entry of that name declaring the parameter.
            for e in ENTRIES.iter().filter(|e| e.name == solver && e.params.iter().any(|p| p.name == name)) {
                Params::new().set(&name, value).resolve(e.name, e.params)?;
            }
            out.values.retain(|(s, n, _)| !(s == &solver && n == &name));
            out.values.push((solver, name, value.to_string()));
        }
        Ok(out)
    }

    /// Whether no value is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values as `SOLVER.NAME=VALUE` texts (for `results.json` and the summaries).
    pub fn pairs(&self) -> Vec<String> {
        self.values.iter().map(|(s, n, v)| format!("{s}.{n}={v}")).collect()
    }

    /// The parameters of `solver` that its entry of `family` declares.
    pub fn for_solver(&self, family: Family, solver: &str) -> Params {
        let declared =
            ENTRIES.iter().find(|e| e.family == family && e.name == solver).map_or(&[][..], |e| e.params);
        self.values
            .iter()
            .filter(|(s, n, _)| s == solver && declared.iter().any(|p| p.name == n))
            .fold(Params::new(), |p, (_, n, v)| p.set(n, v))
    }
}

fn taken_by(solver: &str) -> String {
    let mut names: Vec<&str> = Vec::new();
    for e in ENTRIES.iter().filter(|e| e.name == solver) {
        for p in e.params {
            if !names.contains(&p.name) {
                names.push(p.name);
            }
        }
    }
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// The catalogue's solvers ([`Registry`](super::Registry)) built with a run's [`SolverParams`].
#[derive(Clone, Debug, Default)]
pub struct Tuned {
    /// The parameter values.
    pub params: SolverParams,
}

impl Catalogued for Tuned {
    fn params_for(&self, family: Family, solver: &str) -> Params {
        self.params.for_solver(family, solver)
    }
}
