//! Lookups in the table: the names of each family (as `const` arrays), an entry by family and
//! name, the families of a name, and the errors for a name not in a family.

use super::*;

/// Whether entry `i` is of `family`, and of the global form (`Some(true)`), the local one
/// (`Some(false)`) or either (`None`).
pub(super) const fn takes(i: usize, family: Family, global: Option<bool>) -> bool {
    let is_global = matches!(ENTRIES[i].build, Build::Global(_));
    ENTRIES[i].family as u8 == family as u8
        && match global {
            Some(g) => g == is_global,
            None => true,
        }
}

pub(super) const fn count(family: Family, global: Option<bool>) -> usize {
    let (mut i, mut c) = (0, 0);
    while i < ENTRIES.len() {
        if takes(i, family, global) {
            c += 1;
        }
        i += 1;
    }
    c
}

pub(super) const fn names_of<const N: usize>(family: Family, global: Option<bool>) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut c) = (0, 0);
    while i < ENTRIES.len() {
        if takes(i, family, global) {
            out[c] = ENTRIES[i].name;
            c += 1;
        }
        i += 1;
    }
    out
}

pub(super) const LCP_ARRAY: [&str; count(Family::Lcp, None)] = names_of(Family::Lcp, None);
pub(super) const MCP_ARRAY: [&str; count(Family::Mcp, None)] = names_of(Family::Mcp, None);
pub(super) const FRICTION_ARRAY: [&str; count(Family::Friction, Some(false))] =
    names_of(Family::Friction, Some(false));
pub(super) const GLOBAL_ARRAY: [&str; count(Family::Friction, Some(true))] =
    names_of(Family::Friction, Some(true));
pub(super) const FRICTION_ALL_ARRAY: [&str; count(Family::Friction, None)] = names_of(Family::Friction, None);

/// The LCP solvers' names, in catalogue order (derived from [`ENTRIES`] at compile time).
pub const LCP_NAMES: &[&str] = &LCP_ARRAY;
/// The MCP/NCP/MLCP solvers' names.
pub const MCP_NAMES: &[&str] = &MCP_ARRAY;
/// The frictional contact solvers' names: those of the local form `u = W r + q`, which also
/// take global problems (reduced to it).
pub const FRICTION_NAMES: &[&str] = &FRICTION_ARRAY;
/// The solvers of the global form (M, H) only, which take global problems natively.
pub const GLOBAL_NAMES: &[&str] = &GLOBAL_ARRAY;
/// Every solver of a global frictional problem: the local ones (on its reduction) then the
/// global ones, in catalogue order.
pub const GLOBAL_PROBLEM_NAMES: &[&str] = &FRICTION_ALL_ARRAY;

/// The names of `family`'s solvers, in catalogue order.
pub fn names(family: Family) -> &'static [&'static str] {
    match family {
        Family::Lcp => LCP_NAMES,
        Family::Mcp => MCP_NAMES,
        Family::Friction => FRICTION_NAMES,
    }
}

/// Every name of every family, each once, in catalogue order.
pub fn all_names() -> Vec<&'static str> {
    let mut all: Vec<&str> = Vec::new();
    for e in ENTRIES {
        if !all.contains(&e.name) {
            all.push(e.name);
        }
    }
    all
}

/// The entry `name` of `family`; otherwise [`not_in_family`]'s error.
pub fn entry(family: Family, name: &str) -> Result<&'static Entry, Error> {
    ENTRIES.iter().find(|e| e.family == family && e.name == name).ok_or_else(|| not_in_family(name, family))
}

/// The families that have a solver called `name`, in [`Family::ALL`]'s order (empty for a
/// name no solver has; three for `fb-newton`).
pub fn families_of(name: &str) -> Vec<Family> {
    // Every entry, those of the global form (`global-ac-newton`, family friction) included.
    Family::ALL.into_iter().filter(|&f| ENTRIES.iter().any(|e| e.family == f && e.name == name)).collect()
}

/// The one family of `name`: `Some` when the name belongs to exactly one family (`lemke`,
/// `nsgs`), `None` when it belongs to none or to several (`fb-newton`, `bdiff-newton`).
///
/// ```
/// use perp_catalogue::{family_of, Family};
/// assert_eq!(family_of("lemke"), Some(Family::Lcp));
/// assert_eq!(family_of("nsgs"), Some(Family::Friction));
/// assert_eq!(family_of("fb-newton"), None);
/// ```
pub fn family_of(name: &str) -> Option<Family> {
    match families_of(name).as_slice() {
        [f] => Some(*f),
        _ => None,
    }
}

/// The error for `name` asked for problems of `family` when `family` has no solver of that
/// name: [`Error::WrongFamily`] ("nsgs is a frictional-contact solver; for an LCP use one of
/// lemke, pgs, …") when another family has it, [`Error::UnknownSolver`] (listing `family`'s
/// names) when none has.
///
/// ```
/// use perp_catalogue::{not_in_family, Family};
/// let e = not_in_family("nsgs", Family::Lcp).to_string();
/// assert!(e.starts_with("nsgs is a frictional-contact solver; for an LCP use one of lemke, pgs"), "{e}");
/// let e = not_in_family("nope", Family::Lcp).to_string();
/// assert!(e.starts_with("unknown solver 'nope'; valid names: lemke"), "{e}");
/// ```
pub fn not_in_family(name: &str, family: Family) -> Error {
    let others = families_of(name);
    if others.is_empty() {
        return Error::unknown_solver(name, names(family));
    }
    let is = others.iter().map(|f| f.solver_noun()).collect::<Vec<_>>().join(" and ");
    wrong_family(name, &is, family)
}

/// [`Error::WrongFamily`] for the solver `name`, which is `is` (`"a frictional-contact"`),
/// asked to solve a problem of `family`.
pub(crate) fn wrong_family(name: &str, is: &str, family: Family) -> Error {
    Error::WrongFamily {
        name: name.to_string(),
        is: is.to_string(),
        wanted: family.problem_noun().to_string(),
        valid: names(family).iter().map(|s| s.to_string()).collect(),
    }
}
