//! Solver parameters declared beside their solver: a solver module exports a list of
//! [`Param`]s (name, type, default, valid range, one line of doc), each default a named
//! constant its own `Default` uses too, and a constructor from [`Resolved`] values (every
//! declared parameter with a checked value). The catalogue (`perp-catalogue`) turns a
//! caller's `name=value` text into a [`Resolved`] and prints the lists (`perp list`).
//!
//! ```
//! use perp_core::params::{Bound, Param, Resolved};
//! const OMEGA: f64 = 1.0;
//! const PARAMS: &[Param] = &[Param::real("omega", OMEGA, Bound::Excl(0.0), Bound::Excl(2.0), "relaxation ω")];
//! let mut p = Resolved::defaults(PARAMS);
//! assert_eq!(p.real("omega"), OMEGA);
//! p.set("psor", "omega", "1.5").unwrap();
//! assert_eq!(p.real("omega"), 1.5);
//! let e = p.set("psor", "omega", "2").unwrap_err().to_string();
//! assert!(e.contains("psor: parameter omega") && e.contains("(0, 2)"), "{e}");
//! ```

use crate::Error;

/// One end of a real parameter's valid range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// No bound on this side.
    Open,
    /// The value itself is allowed.
    Incl(f64),
    /// The value itself is excluded.
    Excl(f64),
}

/// The type, default and valid values of a parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A real number in `[lo, hi]` (each end as its [`Bound`] says); always finite.
    Real {
        /// The default value.
        default: f64,
        /// Lower end.
        lo: Bound,
        /// Upper end.
        hi: Bound,
    },
    /// A whole number in `min..=max`.
    Int {
        /// The default value.
        default: usize,
        /// Smallest allowed value.
        min: usize,
        /// Largest allowed value.
        max: usize,
    },
    /// `true` or `false`.
    Flag {
        /// The default value.
        default: bool,
    },
    /// A real number in `[lo, hi]`, or unset (its default): the solver then does what the
    /// parameter's doc says (`none` on the command line's list).
    OptionalReal {
        /// Lower end.
        lo: Bound,
        /// Upper end.
        hi: Bound,
    },
    /// One of a list of words.
    Choice {
        /// The default word.
        default: &'static str,
        /// Every allowed word.
        options: &'static [&'static str],
    },
}

/// A parameter a solver accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    /// Its name, as given on the command line (`--param omega=1.3`).
    pub name: &'static str,
    /// One line: what it does.
    pub doc: &'static str,
    /// Type, default and range.
    pub kind: ParamKind,
}

impl Param {
    /// A real parameter.
    pub const fn real(name: &'static str, default: f64, lo: Bound, hi: Bound, doc: &'static str) -> Param {
        Param { name, doc, kind: ParamKind::Real { default, lo, hi } }
    }

    /// A whole-number parameter.
    pub const fn int(name: &'static str, default: usize, min: usize, max: usize, doc: &'static str) -> Param {
        Param { name, doc, kind: ParamKind::Int { default, min, max } }
    }

    /// A real parameter unset by default ([`Resolved::optional_real`] is then `None`).
    pub const fn optional_real(name: &'static str, lo: Bound, hi: Bound, doc: &'static str) -> Param {
        Param { name, doc, kind: ParamKind::OptionalReal { lo, hi } }
    }

    /// A yes/no parameter.
    pub const fn flag(name: &'static str, default: bool, doc: &'static str) -> Param {
        Param { name, doc, kind: ParamKind::Flag { default } }
    }

    /// A parameter taking one of `options`.
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        options: &'static [&'static str],
        doc: &'static str,
    ) -> Param {
        Param { name, doc, kind: ParamKind::Choice { default, options } }
    }

    /// The default, as text (`1.2`, `20`, `true`, `auto`).
    pub fn default_text(&self) -> String {
        match self.kind {
            ParamKind::Real { default, .. } => real_text(default),
            ParamKind::OptionalReal { .. } => "none".into(),
            ParamKind::Int { default, .. } => format!("{default}"),
            ParamKind::Flag { default } => format!("{default}"),
            ParamKind::Choice { default, .. } => default.to_string(),
        }
    }

    /// The valid values, as text (`(0, 2)`, `1..=1000`, `true|false`, `auto|projection`).
    pub fn range_text(&self) -> String {
        match self.kind {
            ParamKind::Real { lo, hi, .. } | ParamKind::OptionalReal { lo, hi } => {
                let l = match lo {
                    Bound::Open => "(-inf".to_string(),
                    Bound::Incl(v) => format!("[{}", real_text(v)),
                    Bound::Excl(v) => format!("({}", real_text(v)),
                };
                let h = match hi {
                    Bound::Open => "inf)".to_string(),
                    Bound::Incl(v) => format!("{}]", real_text(v)),
                    Bound::Excl(v) => format!("{})", real_text(v)),
                };
                format!("{l}, {h}")
            }
            ParamKind::Int { min, max, .. } if max == usize::MAX => format!(">= {min}"),
            ParamKind::Int { min, max, .. } => format!("{min}..={max}"),
            ParamKind::Flag { .. } => "true|false".into(),
            ParamKind::Choice { options, .. } => options.join("|"),
        }
    }

    /// Parses and checks `text` as a value of this parameter.
    fn parse(&self, text: &str) -> Result<Value, Error> {
        let bad = || Error::setting(self.name, text, &format!("must be {}", self.range_text()));
        Ok(match self.kind {
            ParamKind::Real { lo, hi, .. } | ParamKind::OptionalReal { lo, hi } => {
                let v: f64 = text.trim().parse().map_err(|_| bad())?;
                let above = match lo {
                    Bound::Open => true,
                    Bound::Incl(l) => v >= l,
                    Bound::Excl(l) => v > l,
                };
                let below = match hi {
                    Bound::Open => true,
                    Bound::Incl(h) => v <= h,
                    Bound::Excl(h) => v < h,
                };
                if !(v.is_finite() && above && below) {
                    return Err(bad());
                }
                Value::Real(v)
            }
            ParamKind::Int { min, max, .. } => {
                let v: usize = text.trim().parse().map_err(|_| bad())?;
                if v < min || v > max {
                    return Err(bad());
                }
                Value::Int(v)
            }
            ParamKind::Flag { .. } => match text.trim() {
                "true" | "yes" | "on" | "1" => Value::Flag(true),
                "false" | "no" | "off" | "0" => Value::Flag(false),
                _ => return Err(bad()),
            },
            ParamKind::Choice { options, .. } => {
                let t = text.trim();
                Value::Choice(options.iter().copied().find(|o| *o == t).ok_or_else(bad)?)
            }
        })
    }

    fn default_value(&self) -> Value {
        match self.kind {
            ParamKind::Real { default, .. } => Value::Real(default),
            ParamKind::OptionalReal { .. } => Value::Unset,
            ParamKind::Int { default, .. } => Value::Int(default),
            ParamKind::Flag { default } => Value::Flag(default),
            ParamKind::Choice { default, .. } => Value::Choice(default),
        }
    }
}

/// `0.5`, `100`, `1e-12`: plain for moderate magnitudes, scientific otherwise (both parse back).
fn real_text(v: f64) -> String {
    if v == 0.0 || (1e-3..1e6).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Real(f64),
    Unset,
    Int(usize),
    Flag(bool),
    Choice(&'static str),
}

/// Every declared parameter with its checked value (the default where none was set): what a
/// solver's constructor from parameters reads.
#[derive(Clone, Debug)]
pub struct Resolved {
    declared: &'static [Param],
    values: Vec<Value>,
}

impl Resolved {
    /// Every parameter of `declared` at its default.
    pub fn defaults(declared: &'static [Param]) -> Resolved {
        Resolved { declared, values: declared.iter().map(Param::default_value).collect() }
    }

    /// Sets the parameter `name` of the solver `solver` from `text`. An unknown name or a
    /// value out of range is [`Error::InvalidSetting`] naming the solver, the parameter and
    /// the valid names or values; the values are then unchanged.
    pub fn set(&mut self, solver: &str, name: &str, text: &str) -> Result<(), Error> {
        let Some(i) = self.declared.iter().position(|p| p.name == name) else {
            let valid: Vec<&str> = self.declared.iter().map(|p| p.name).collect();
            return Err(Error::setting(
                &format!("{solver}: parameter {name}"),
                text,
                &if valid.is_empty() {
                    format!("{solver} takes no parameters")
                } else {
                    format!("unknown parameter; {solver} takes {}", valid.join(", "))
                },
            ));
        };
        self.values[i] = self.declared[i].parse(text).map_err(|e| match e {
            Error::InvalidSetting { name, value, reason } => {
                Error::InvalidSetting { name: format!("{solver}: parameter {name}"), value, reason }
            }
            other => other,
        })?;
        Ok(())
    }

    fn value(&self, name: &str) -> Value {
        let i = self.declared.iter().position(|p| p.name == name);
        // A constructor reading a parameter its list does not declare is a bug of that
        // solver's `params` module, caught by the catalogue's tests (every entry is built with
        // its defaults there).
        self.values[i.unwrap_or_else(|| panic!("parameter {name} is not declared"))]
    }

    /// A real parameter's value.
    pub fn real(&self, name: &str) -> f64 {
        match self.value(name) {
            Value::Real(v) => v,
            other => panic!("parameter {name} is {other:?}, not real"),
        }
    }

    /// An optional real parameter's value ([`Param::optional_real`]; `None` when unset).
    pub fn optional_real(&self, name: &str) -> Option<f64> {
        match self.value(name) {
            Value::Real(v) => Some(v),
            Value::Unset => None,
            other => panic!("parameter {name} is {other:?}, not real"),
        }
    }

    /// A whole-number parameter's value.
    pub fn int(&self, name: &str) -> usize {
        match self.value(name) {
            Value::Int(v) => v,
            other => panic!("parameter {name} is {other:?}, not whole"),
        }
    }

    /// A flag's value.
    pub fn flag(&self, name: &str) -> bool {
        match self.value(name) {
            Value::Flag(v) => v,
            other => panic!("parameter {name} is {other:?}, not a flag"),
        }
    }

    /// A choice's word.
    pub fn choice(&self, name: &str) -> &'static str {
        match self.value(name) {
            Value::Choice(v) => v,
            other => panic!("parameter {name} is {other:?}, not a choice"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECL: &[Param] = &[
        Param::real("omega", 1.0, Bound::Excl(0.0), Bound::Excl(2.0), "relaxation"),
        Param::int("sweeps", 3, 1, 10, "sweeps"),
        Param::flag("hot", true, "hot start"),
        Param::choice("local", "auto", &["auto", "projection"], "local solver"),
    ];

    fn resolve(pairs: &[(&str, &str)]) -> Result<Resolved, Error> {
        let mut r = Resolved::defaults(DECL);
        for (n, v) in pairs {
            r.set("x", n, v)?;
        }
        Ok(r)
    }

    #[test]
    fn defaults_and_values() {
        let r = resolve(&[]).unwrap();
        assert_eq!(
            (r.real("omega"), r.int("sweeps"), r.flag("hot"), r.choice("local")),
            (1.0, 3, true, "auto")
        );
        let r =
            resolve(&[("omega", "1.5"), ("sweeps", "10"), ("hot", "no"), ("local", "projection")]).unwrap();
        assert_eq!(
            (r.real("omega"), r.int("sweeps"), r.flag("hot"), r.choice("local")),
            (1.5, 10, false, "projection")
        );
    }

    #[test]
    fn bad_values_name_solver_parameter_and_range() {
        let mut r = Resolved::defaults(DECL);
        let e = r.set("psor", "omega", "2").unwrap_err().to_string();
        assert!(e.contains("psor: parameter omega") && e.contains("(0, 2)"), "{e}");
        let e = r.set("psor", "omega", "nan").unwrap_err().to_string();
        assert!(e.contains("omega"), "{e}");
        let e = r.set("psor", "sweeps", "0").unwrap_err().to_string();
        assert!(e.contains("1..=10"), "{e}");
        let e = r.set("nsgs", "local", "newton").unwrap_err().to_string();
        assert!(e.contains("auto|projection"), "{e}");
        let e = r.set("nsgs", "tau", "1").unwrap_err().to_string();
        assert!(e.contains("unknown parameter; nsgs takes omega, sweeps, hot, local"), "{e}");
        let e = Resolved::defaults(&[]).set("lemke", "tau", "1").unwrap_err().to_string();
        assert!(e.contains("lemke takes no parameters"), "{e}");
        // A refused value leaves the others as they were.
        assert_eq!((r.real("omega"), r.int("sweeps")), (1.0, 3));
    }

    #[test]
    fn texts_of_defaults_and_ranges() {
        assert_eq!(DECL.iter().map(Param::default_text).collect::<Vec<_>>(), ["1", "3", "true", "auto"]);
        assert_eq!(
            DECL.iter().map(Param::range_text).collect::<Vec<_>>(),
            ["(0, 2)", "1..=10", "true|false", "auto|projection"]
        );
        let tiny = Param::real("eps", 1e-12, Bound::Incl(0.0), Bound::Open, "eps");
        assert_eq!((tiny.default_text(), tiny.range_text()), ("1e-12".to_string(), "[0, inf)".to_string()));
        assert_eq!(Param::int("n", 1, 0, usize::MAX, "n").range_text(), ">= 0");
    }

    #[test]
    fn an_optional_real_is_unset_until_set_and_checked_as_a_real() {
        const OPT: &[Param] = &[Param::optional_real("k", Bound::Excl(0.0), Bound::Open, "stiffness")];
        assert_eq!(
            (OPT[0].default_text(), OPT[0].range_text()),
            ("none".to_string(), "(0, inf)".to_string())
        );
        let mut r = Resolved::defaults(OPT);
        assert_eq!(r.optional_real("k"), None);
        for bad in ["0", "-1", "inf", "nan", "stiff"] {
            let e = r.set("compliant", "k", bad).unwrap_err().to_string();
            assert!(e.contains("compliant: parameter k") && e.contains("(0, inf)"), "{bad}: {e}");
        }
        r.set("compliant", "k", "1e7").unwrap();
        assert_eq!(r.optional_real("k"), Some(1e7));
    }
}
