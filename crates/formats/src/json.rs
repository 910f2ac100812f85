//! JSON problem files (`.json`): one self-describing object per problem.
//!
//! # Schema (version 1)
//!
//! ```text
//! {
//!   "format":   "perp-problem",          optional on input (checked when present)
//!   "version":  1,                       optional on input (must be 1 when present)
//!   "kind":     "lcp" | "mlcp" | "fc2d" | "fc3d"      ("fc<d>d" for contact dimension d, 2 ≤ d ≤ 6)
//!   "n":        N,                       number of unknowns: the size of M and of q
//!   "contacts": nc,                      frictional contact only; optional on input, N = d·nc
//!   "M":        [[M00, M01, …], [M10, …], …]                  dense: N rows of N numbers
//!             | {"nrows": N, "ncols": N, "triplets": [[i, j, v], …]}
//!                                        sparse: 0-based (row, column, value), duplicates summed
//!   "q":        [q0, …, q(N−1)],
//!   "free":     [true, false, …],        MLCP only: true = equality row (free variable)
//!   "mu":       [μ0, …, μ(nc−1)],        frictional contact only, each ≥ 0
//!   "lower":    [l0 | null, …],          LCP only, optional: box bounds, null = −∞
//!   "upper":    [u0 | null, …],          LCP only, optional: box bounds, null = +∞
//!   "comment":  anything                 ignored
//! }
//! ```
//!
//! Meaning: LCP `0 ≤ z ⊥ Mz + q ≥ 0` (with `lower`/`upper`: the box-LCP of [`Lcp::with_bounds`]);
//! MLCP `w = Mz + q` with `wᵢ = 0` on free rows and `0 ≤ zᵢ ⊥ wᵢ ≥ 0` on the others
//! ([`Mlcp`]); frictional contact `u = W r + q` with W stored under `"M"` (`"W"` is accepted
//! instead on input), contacts normal component first ([`FrictionContactProblem`]).
//!
//! Dense matrices stay dense and sparse ones keep their pattern (explicit zeros included);
//! numbers are written in the shortest form that reads back to the same `f64` and read with
//! correct rounding (`serde_json`'s `float_roundtrip`), so a round trip is exact.
//!
//! # Reading (untrusted input)
//!
//! The text is parsed by `serde_json` (memory proportional to the text, nesting limited to
//! 128 levels), then every key is checked: unknown keys are refused (a misspelt `"mu"` must
//! not pass silently), sizes must agree with `n` before any matrix is built, indices must be in
//! range, values finite. Errors are [`Error::Parse`] naming the file and the field as a path
//! (`M[3][4]`, `M.triplets[7][0]`, `q[2]`, `mu[0]`); their position is 0 (JSON has no token
//! positions: a syntax error gives its line and column in the message).

use crate::Problem;
use perp_cones::{FrictionContactProblem, MAX_DIM};
use perp_core::{Error, Matrix};
use perp_lcp::Lcp;
use perp_ncp::mlcp::Mlcp;
use serde_json::{Map, Value};
use std::fmt::Write as _;
use std::path::Path;

/// The keys a problem object may have.
pub const KEYS: &[&str] =
    &["format", "version", "kind", "n", "contacts", "M", "W", "q", "free", "mu", "lower", "upper", "comment"];

/// The value of `"format"`.
pub const FORMAT_NAME: &str = "perp-problem";

/// The schema version written and understood.
pub const VERSION: u64 = 1;

/// Reads a JSON problem file (see the [module docs](self)).
pub fn read_problem(path: &Path) -> Result<Problem, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    parse_problem(&String::from_utf8_lossy(&bytes), path)
}

/// Writes `p` as a JSON problem file (see [`format_problem`]).
pub fn write_problem(p: &Problem, path: &Path) -> Result<(), Error> {
    let text = format_problem(p)?;
    std::fs::write(path, text).map_err(|source| Error::Io { file: path.to_path_buf(), source })
}

struct Ctx<'a> {
    file: &'a Path,
}

impl Ctx<'_> {
    fn err(&self, field: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Parse {
            file: self.file.to_path_buf(),
            position: 0,
            field: field.into(),
            message: message.into(),
        }
    }

    fn describe(v: &Value) -> String {
        let s = match v {
            Value::Null => "null".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Number(x) => x.to_string(),
            Value::String(s) => format!("the string {:?}", crate::tokens::shorten(s)),
            Value::Array(a) => format!("an array of {} elements", a.len()),
            Value::Object(_) => "an object".to_string(),
        };
        crate::tokens::shorten(&s)
    }

    fn array<'v>(&self, v: &'v Value, field: &str, len: Option<usize>) -> Result<&'v Vec<Value>, Error> {
        let a = v
            .as_array()
            .ok_or_else(|| self.err(field, format!("expected an array, found {}", Self::describe(v))))?;
        if let Some(n) = len {
            if a.len() != n {
                return Err(self.err(field, format!("expected {n} elements, found {}", a.len())));
            }
        }
        Ok(a)
    }

    fn number(&self, v: &Value, field: impl Fn() -> String) -> Result<f64, Error> {
        match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(self.err(field(), format!("expected a finite number, found {}", Self::describe(v)))),
        }
    }

    fn size(&self, v: &Value, field: &str) -> Result<usize, Error> {
        v.as_u64().and_then(|x| usize::try_from(x).ok()).ok_or_else(|| {
            self.err(field, format!("expected a non-negative integer, found {}", Self::describe(v)))
        })
    }

    fn index(&self, v: &Value, field: impl Fn() -> String, bound: usize) -> Result<usize, Error> {
        match v.as_u64() {
            Some(i) if (i as u128) < bound as u128 => Ok(i as usize),
            _ => {
                Err(self
                    .err(field(), format!("expected an index below {bound}, found {}", Self::describe(v))))
            }
        }
    }

    fn vector(&self, v: &Value, field: &str, n: usize) -> Result<Vec<f64>, Error> {
        let a = self.array(v, field, Some(n))?;
        a.iter().enumerate().map(|(i, x)| self.number(x, || format!("{field}[{i}]"))).collect()
    }

    /// Bounds: numbers or null (= `missing`, an infinity).
    fn bounds(&self, v: &Value, field: &str, n: usize, missing: f64) -> Result<Vec<f64>, Error> {
        let a = self.array(v, field, Some(n))?;
        a.iter()
            .enumerate()
            .map(|(i, x)| if x.is_null() { Ok(missing) } else { self.number(x, || format!("{field}[{i}]")) })
            .collect()
    }

    fn matrix(&self, v: &Value, key: &str, n: usize) -> Result<Matrix, Error> {
        match v {
            Value::Array(rows) => {
                if rows.len() != n {
                    return Err(self.err(key, format!("expected {n} rows (n = {n}), found {}", rows.len())));
                }
                // Capacity from what the text holds, not from n² (n is only backed by q).
                let held: usize = rows.iter().map(|r| r.as_array().map_or(0, Vec::len)).sum();
                let mut data = Vec::with_capacity(held.min(n.saturating_mul(n)));
                for (i, row) in rows.iter().enumerate() {
                    let f = format!("{key}[{i}]");
                    let row = self.array(row, &f, Some(n))?;
                    for (j, x) in row.iter().enumerate() {
                        data.push(self.number(x, || format!("{key}[{i}][{j}]"))?);
                    }
                }
                Matrix::from_row_major(n, n, &data)
            }
            Value::Object(o) => {
                for k in o.keys() {
                    if !["nrows", "ncols", "triplets"].contains(&k.as_str()) {
                        return Err(self.err(
                            format!("{key}.{k}"),
                            "unknown key: a sparse matrix has nrows, ncols and triplets",
                        ));
                    }
                }
                let get = |k: &str| o.get(k).ok_or_else(|| self.err(format!("{key}.{k}"), "missing"));
                for k in ["nrows", "ncols"] {
                    let f = format!("{key}.{k}");
                    let s = self.size(get(k)?, &f)?;
                    if s != n {
                        return Err(self.err(f, format!("expected n = {n}, found {s}")));
                    }
                }
                let f = format!("{key}.triplets");
                let t = self.array(get("triplets")?, &f, None)?;
                let mut triplets = Vec::with_capacity(t.len());
                for (k, e) in t.iter().enumerate() {
                    let fk = format!("{f}[{k}]");
                    let e = self.array(e, &fk, Some(3)).map_err(|_| {
                        self.err(&fk, format!("expected [row, column, value], found {}", Self::describe(e)))
                    })?;
                    let i = self.index(&e[0], || format!("{fk}[0] (row)"), n)?;
                    let j = self.index(&e[1], || format!("{fk}[1] (column)"), n)?;
                    let x = self.number(&e[2], || format!("{fk}[2] (value)"))?;
                    triplets.push((i, j, x));
                }
                Matrix::from_triplets(n, n, &triplets)
            }
            other => Err(self.err(
                key,
                format!(
                    "expected an array of rows or an object {{\"nrows\", \"ncols\", \"triplets\"}}, found {}",
                    Self::describe(other)
                ),
            )),
        }
    }

    /// Wraps an error of a problem constructor so that it names the file.
    fn wrap(&self, e: Error) -> Error {
        match e {
            e @ Error::Parse { .. } => e,
            other => self.err("problem", other.to_string()),
        }
    }
}

/// Parses the text of a JSON problem file (see the [module docs](self)); `file` names it in
/// error messages.
///
/// ```
/// use perp_formats::{json::parse_problem, Problem};
/// use std::path::Path;
/// let text = r#"{"kind": "fc2d", "n": 2, "M": [[2.0, 0.0], [0.0, 1.0]], "q": [-1, 0.5], "mu": [0.3]}"#;
/// let Problem::Friction(p) = parse_problem(text, Path::new("one.json")).unwrap() else { panic!() };
/// assert_eq!((p.dim, p.w.get(0, 0), p.mu[0]), (2, 2.0, 0.3));
/// let e = parse_problem(&text.replace("0.3", "-0.3"), Path::new("one.json")).unwrap_err();
/// assert_eq!(e.to_string(), "one.json: token 0 (mu[0]): friction coefficient must be ≥ 0, found -0.3");
/// ```
pub fn parse_problem(text: &str, file: &Path) -> Result<Problem, Error> {
    let c = Ctx { file };
    let v: Value = serde_json::from_str(text).map_err(|e| c.err("JSON syntax", e.to_string()))?;
    let o = c.top_level(&v)?;
    let (kind, dim) = c.kind(o)?;
    let n = c.size(o.get("n").ok_or_else(|| c.err("n", "missing"))?, "n")?;
    if let Some(d) = dim {
        if n % d != 0 {
            return Err(
                c.err("n", format!("n = {n} is not a multiple of the contact dimension {d} ({kind})"))
            );
        }
    }
    let (mkey, mv) = match (o.get("M"), o.get("W")) {
        (Some(m), None) => ("M", m),
        (None, Some(w)) => ("W", w),
        (Some(_), Some(_)) => return Err(c.err("W", "give the matrix once, as \"M\" or as \"W\", not both")),
        (None, None) => return Err(c.err("M", "missing")),
    };
    let q = c.vector(o.get("q").ok_or_else(|| c.err("q", "missing"))?, "q", n)?;
    let m = c.matrix(mv, mkey, n).map_err(|e| c.wrap(e))?;
    match (kind, dim) {
        ("lcp", _) => c.lcp(o, m, q),
        ("mlcp", _) => c.mlcp(o, m, q),
        (_, Some(d)) => c.friction(o, d, m, q),
        _ => Err(c.err("kind", format!("unknown kind {kind}"))),
    }
}

impl Ctx<'_> {
    /// The problem object of `v`, with no unknown key and the right format and version if given.
    fn top_level<'v>(&self, v: &'v Value) -> Result<&'v Map<String, Value>, Error> {
        let o: &Map<String, Value> = v.as_object().ok_or_else(|| {
            self.err("(top level)", format!("expected an object, found {}", Ctx::describe(v)))
        })?;
        for k in o.keys() {
            if !KEYS.contains(&k.as_str()) {
                return Err(self.err(
                    crate::tokens::shorten(k),
                    format!("unknown key; the keys of a problem are {}", KEYS.join(", ")),
                ));
            }
        }
        if let Some(f) = o.get("format") {
            if f.as_str() != Some(FORMAT_NAME) {
                return Err(
                    self.err("format", format!("expected \"{FORMAT_NAME}\", found {}", Ctx::describe(f)))
                );
            }
        }
        if let Some(ver) = o.get("version") {
            if ver.as_u64() != Some(VERSION) {
                return Err(self.err(
                    "version",
                    format!("this reader knows version {VERSION}, found {}", Ctx::describe(ver)),
                ));
            }
        }
        Ok(o)
    }

    /// The problem's `"kind"` and its contact dimension (`None` for `lcp` and `mlcp`), checking
    /// that `o` has no key of another kind.
    fn kind<'v>(&self, o: &'v Map<String, Value>) -> Result<(&'v str, Option<usize>), Error> {
        let kind_v = o
            .get("kind")
            .ok_or_else(|| self.err("kind", "missing: expected \"lcp\", \"mlcp\", \"fc2d\" or \"fc3d\""))?;
        let kind = kind_v
            .as_str()
            .ok_or_else(|| self.err("kind", format!("expected a string, found {}", Ctx::describe(kind_v))))?;
        let dim = match kind {
            "lcp" | "mlcp" => None,
            _ => match kind
                .strip_prefix("fc")
                .and_then(|s| s.strip_suffix('d'))
                .and_then(|d| d.parse::<usize>().ok())
            {
                Some(d) if (2..=MAX_DIM).contains(&d) => Some(d),
                _ => {
                    return Err(self.err(
                        "kind",
                        format!(
                            "unknown kind {}: expected \"lcp\", \"mlcp\", \"fc2d\" or \"fc3d\"",
                            Ctx::describe(kind_v)
                        ),
                    ))
                }
            },
        };
        let allowed: &[&str] = match (kind, dim) {
            ("lcp", _) => &["lower", "upper"],
            ("mlcp", _) => &["free"],
            _ => &["mu", "contacts", "W"],
        };
        for k in ["lower", "upper", "free", "mu", "contacts", "W"] {
            if o.contains_key(k) && !allowed.contains(&k) {
                return Err(self.err(k, format!("not a key of a {kind} problem")));
            }
        }
        Ok((kind, dim))
    }

    /// The LCP of `m` and `q`, with the box of `"lower"` and `"upper"` when either is given.
    fn lcp(&self, o: &Map<String, Value>, m: Matrix, q: Vec<f64>) -> Result<Problem, Error> {
        let n = q.len();
        match (o.get("lower"), o.get("upper")) {
            (None, None) => Lcp::new(m, q).map(Problem::Lcp).map_err(|e| self.wrap(e)),
            (lo, hi) => {
                let lower = match lo {
                    Some(v) => self.bounds(v, "lower", n, f64::NEG_INFINITY)?,
                    None => vec![f64::NEG_INFINITY; n],
                };
                let upper = match hi {
                    Some(v) => self.bounds(v, "upper", n, f64::INFINITY)?,
                    None => vec![f64::INFINITY; n],
                };
                Lcp::with_bounds(m, q, lower, upper).map(Problem::Lcp).map_err(|e| self.wrap(e))
            }
        }
    }

    /// The MLCP of `m` and `q` with the equality rows of `"free"` (one boolean per row).
    fn mlcp(&self, o: &Map<String, Value>, m: Matrix, q: Vec<f64>) -> Result<Problem, Error> {
        let fv = o
            .get("free")
            .ok_or_else(|| self.err("free", "missing: one boolean per row (true = equality)"))?;
        let a = self.array(fv, "free", Some(q.len()))?;
        let free = a
            .iter()
            .enumerate()
            .map(|(i, x)| {
                x.as_bool().ok_or_else(|| {
                    self.err(
                        format!("free[{i}]"),
                        format!("expected true or false, found {}", Ctx::describe(x)),
                    )
                })
            })
            .collect::<Result<Vec<bool>, Error>>()?;
        Mlcp::new(m, q, free).map(Problem::Mlcp).map_err(|e| self.wrap(e))
    }

    /// The frictional contact problem of dimension `d` with W = `m`, `q` and the coefficients of
    /// `"mu"` (non-negative, one per contact; `"contacts"`, when given, must be their number).
    fn friction(&self, o: &Map<String, Value>, d: usize, m: Matrix, q: Vec<f64>) -> Result<Problem, Error> {
        let nc = q.len() / d;
        if let Some(cv) = o.get("contacts") {
            let given = self.size(cv, "contacts")?;
            if given != nc {
                return Err(self.err("contacts", format!("expected n / {d} = {nc}, found {given}")));
            }
        }
        let mu = self.vector(
            o.get("mu").ok_or_else(|| self.err("mu", "missing: one coefficient per contact"))?,
            "mu",
            nc,
        )?;
        if let Some(i) = mu.iter().position(|&x| x < 0.0) {
            return Err(
                self.err(format!("mu[{i}]"), format!("friction coefficient must be ≥ 0, found {}", mu[i]))
            );
        }
        FrictionContactProblem::new(d, m, q, mu).map(Problem::Friction).map_err(|e| self.wrap(e))
    }
}

fn push_list(s: &mut String, v: impl IntoIterator<Item = String>) {
    s.push('[');
    for (k, x) in v.into_iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        s.push_str(&x);
    }
    s.push(']');
}

/// A finite f64 in its shortest round-trip form, valid JSON (`1.0`, `-2.5e-7`, `1e300`).
fn num(x: f64) -> String {
    format!("{x:?}")
}

fn push_matrix(s: &mut String, m: &Matrix) {
    match m {
        Matrix::Dense(d) => {
            s.push('[');
            for i in 0..d.nrows() {
                s.push_str(if i == 0 { "\n    " } else { ",\n    " });
                push_list(s, (0..d.ncols()).map(|j| num(d[(i, j)])));
            }
            s.push_str(if d.nrows() > 0 { "\n  ]" } else { "]" });
        }
        Matrix::Sparse(sp) => {
            let csr = sp.to_csr();
            let _ = write!(s, "{{\"nrows\": {}, \"ncols\": {}, \"triplets\": [", csr.rows(), csr.cols());
            let mut first = true;
            for (i, row) in csr.outer_iterator().enumerate() {
                for (j, &v) in row.iter() {
                    s.push_str(if first { "\n    " } else { ",\n    " });
                    first = false;
                    let _ = write!(s, "[{i}, {j}, {}]", num(v));
                }
            }
            s.push_str(if first { "]}" } else { "\n  ]}" });
        }
    }
}

/// The JSON text of a problem (see the [module docs](self) for the schema): one key per
/// line, a dense matrix one row per line, a sparse one one triplet per line. Errors: a friction
/// law other than Coulomb, which the schema cannot hold.
///
/// ```
/// use perp_core::Matrix;
/// use perp_lcp::Lcp;
/// use perp_formats::{json, Problem};
/// use std::path::Path;
/// let p = Problem::Lcp(Lcp::new(Matrix::from_row_major(1, 1, &[2.0]).unwrap(), vec![-0.1]).unwrap());
/// let text = json::format_problem(&p).unwrap();
/// assert!(text.contains("\"kind\": \"lcp\""));
/// let Problem::Lcp(back) = json::parse_problem(&text, Path::new("p.json")).unwrap() else { panic!() };
/// assert_eq!(back.q(), &[-0.1]);
/// ```
pub fn format_problem(p: &Problem) -> Result<String, Error> {
    let mut s = String::from("{\n");
    let _ = writeln!(s, "  \"format\": \"{FORMAT_NAME}\",\n  \"version\": {VERSION},");
    let _ = writeln!(s, "  \"kind\": \"{}\",", p.kind_name());
    let (m, q) = match p {
        Problem::Ncp(_) | Problem::GlobalFriction(_) => return Err(p.cannot_be_written_as("JSON")),
        Problem::Lcp(l) => (l.m(), l.q()),
        Problem::Mlcp(m) => (m.m(), m.q()),
        Problem::Friction(f) => {
            if !f.is_coulomb() {
                return Err(Error::setting(
                    "output file",
                    "JSON",
                    "only Coulomb friction can be written: this problem has other friction laws",
                ));
            }
            (&f.w, &f.q[..])
        }
    };
    let _ = writeln!(s, "  \"n\": {},", q.len());
    if let Problem::Friction(f) = p {
        let _ = writeln!(s, "  \"contacts\": {},", f.contacts());
    }
    s.push_str("  \"M\": ");
    push_matrix(&mut s, m);
    s.push_str(",\n  \"q\": ");
    push_list(&mut s, q.iter().map(|&x| num(x)));
    match p {
        Problem::Lcp(l) => {
            if let Some((lo, hi)) = l.bounds() {
                s.push_str(",\n  \"lower\": ");
                push_list(&mut s, lo.iter().map(|&x| if x.is_finite() { num(x) } else { "null".into() }));
                s.push_str(",\n  \"upper\": ");
                push_list(&mut s, hi.iter().map(|&x| if x.is_finite() { num(x) } else { "null".into() }));
            }
        }
        Problem::Mlcp(m) => {
            s.push_str(",\n  \"free\": ");
            push_list(&mut s, m.free().iter().map(|b| b.to_string()));
        }
        Problem::Friction(f) => {
            s.push_str(",\n  \"mu\": ");
            push_list(&mut s, f.mu.iter().map(|&x| num(x)));
        }
        Problem::Ncp(_) | Problem::GlobalFriction(_) => unreachable!("refused above"),
    }
    s.push_str("\n}\n");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Problem, Error> {
        parse_problem(text, Path::new("t.json"))
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn every_kind_round_trips_exactly() {
        let awkward = [0.1, -1.0 / 3.0, 1e-300, 5e-324, f64::MAX, -0.0, 123456789.12345679, 2.0f64.sqrt()];
        let dense = Matrix::from_row_major(2, 2, &awkward[..4]).unwrap();
        let sparse =
            Matrix::from_triplets(4, 4, &[(0, 0, awkward[4]), (3, 1, awkward[5]), (2, 2, 0.0)]).unwrap();
        let problems = [
            Problem::Lcp(Lcp::new(dense.clone(), awkward[4..6].to_vec()).unwrap()),
            Problem::Lcp(
                Lcp::with_bounds(
                    dense.clone(),
                    vec![1.0, 2.0],
                    vec![f64::NEG_INFINITY, -1.0],
                    vec![0.5, f64::INFINITY],
                )
                .unwrap(),
            ),
            Problem::Mlcp(
                Mlcp::new(sparse.clone(), awkward[..4].to_vec(), vec![true, false, false, true]).unwrap(),
            ),
            Problem::Friction(
                FrictionContactProblem::new(2, sparse, awkward[4..].to_vec(), vec![0.5, 0.0]).unwrap(),
            ),
        ];
        for p in &problems {
            let text = format_problem(p).unwrap();
            let back = parse(&text).unwrap();
            assert_eq!(format_problem(&back).unwrap(), text);
            let (a, b) = match (p, &back) {
                (Problem::Lcp(a), Problem::Lcp(b)) => {
                    assert_eq!(a.bounds(), b.bounds());
                    (a.m(), b.m())
                }
                (Problem::Mlcp(a), Problem::Mlcp(b)) => (a.m(), b.m()),
                (Problem::Friction(a), Problem::Friction(b)) => (&a.w, &b.w),
                _ => panic!("kind changed"),
            };
            assert_eq!(a.is_sparse(), b.is_sparse());
            assert_eq!(a.nnz(), b.nnz());
            for i in 0..a.nrows() {
                for j in 0..a.ncols() {
                    assert_eq!(a.get(i, j).to_bits(), b.get(i, j).to_bits(), "({i}, {j})");
                }
            }
        }
        // -0.0 keeps its sign, 5e-324 (subnormal) and f64::MAX their bits.
        let text = format_problem(&problems[0]).unwrap();
        assert!(text.contains("-0.0") && text.contains("5e-324"), "{text}");
    }

    #[test]
    fn errors_name_the_field() {
        let ok = r#"{"kind": "lcp", "n": 2, "M": [[1, 0], [0, 1]], "q": [1, 2]}"#;
        assert!(parse(ok).is_ok());
        for (text, want) in [
            ("[1, 2]", "t.json: token 0 ((top level)): expected an object, found an array of 2 elements"),
            (
                "{\"kind\": \"lcp\",",
                "t.json: token 0 (JSON syntax): EOF while parsing a value at line 1 column 15",
            ),
            (&ok.replace("\"q\"", "\"Q\""), "t.json: token 0 (Q): unknown key; the keys of a problem are"),
            (&ok.replace("lcp", "qp"), "t.json: token 0 (kind): unknown kind the string \"qp\""),
            (&ok.replace("[1, 2]}", "[1]}"), "t.json: token 0 (q): expected 2 elements, found 1"),
            (
                &ok.replace("[0, 1]]", "[0, \"x\"]]"),
                "t.json: token 0 (M[1][1]): expected a finite number, found the string \"x\"",
            ),
            (&ok.replace("[1, 2]}", "[1, 1e999]}"), "t.json: token 0 (JSON syntax): number out of range"),
            (
                &ok.replace("\"n\": 2", "\"n\": -2"),
                "t.json: token 0 (n): expected a non-negative integer, found -2",
            ),
            (&ok.replace("}", ", \"mu\": [1]}"), "t.json: token 0 (mu): not a key of a lcp problem"),
            (
                &ok.replace("\"kind\"", "\"version\": 2, \"kind\""),
                "t.json: token 0 (version): this reader knows version 1",
            ),
            (
                r#"{"kind": "mlcp", "n": 1, "M": {"nrows": 1, "ncols": 1, "triplets": [[0, 1, 2.0]]}, "q": [1], "free": [true]}"#,
                "t.json: token 0 (M.triplets[0][1] (column)): expected an index below 1, found 1",
            ),
            (
                r#"{"kind": "mlcp", "n": 1, "M": {"nrows": 9, "ncols": 1, "triplets": []}, "q": [1], "free": [true]}"#,
                "t.json: token 0 (M.nrows): expected n = 1, found 9",
            ),
            (
                r#"{"kind": "mlcp", "n": 1, "M": [[1]], "q": [1], "free": [1]}"#,
                "t.json: token 0 (free[0]): expected true or false, found 1",
            ),
            (
                r#"{"kind": "fc3d", "n": 4, "M": [[1]], "q": [1, 2, 3, 4], "mu": []}"#,
                "t.json: token 0 (n): n = 4 is not a multiple of the contact dimension 3 (fc3d)",
            ),
            (
                r#"{"kind": "fc2d", "n": 2, "contacts": 2, "W": [[1, 0], [0, 1]], "q": [1, 2], "mu": [0.1]}"#,
                "t.json: token 0 (contacts): expected n / 2 = 1, found 2",
            ),
            (
                r#"{"kind": "lcp", "n": 1, "M": [[1]], "q": [1], "lower": [2], "upper": [1]}"#,
                "t.json: token 0 (problem): bounds at index 0: lower 2 > upper 1",
            ),
        ] {
            let e = err(text);
            assert!(e.starts_with(want), "{text}\n{e}\nwanted {want}");
        }
    }

    #[test]
    fn no_truncation_or_corruption_panics() {
        let p = Problem::Mlcp(
            Mlcp::new(
                Matrix::from_triplets(3, 3, &[(0, 0, 1.0), (1, 2, -2.5), (2, 1, 0.125)]).unwrap(),
                vec![1.0, -1.0, 0.0],
                vec![true, false, false],
            )
            .unwrap(),
        );
        let text = format_problem(&p).unwrap();
        for cut in 0..text.len() - 2 {
            if text.is_char_boundary(cut) {
                assert!(parse(&text[..cut]).is_err(), "{cut}");
            }
        }
        let toks: Vec<&str> = text.split(' ').collect();
        for k in 0..toks.len() {
            for junk in ["", "-1", "0", "1e999", "99999999999999999999,", "null,", "[]", "{}", "\"x\""] {
                let mut t = toks.clone();
                t[k] = junk;
                let _ = parse(&t.join(" "));
            }
        }
    }
}
