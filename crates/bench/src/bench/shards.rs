//! Which solvers and which problems a run takes: [`default_solvers`], [`shard`], [`parse_shard`].

use super::problems::BenchProblem;
use super::solvers::Registry;
use perp_core::Error;

/// The registry solvers that apply to at least one of `problems`, in registry order (LCP
/// solvers, then MCP, then frictional), each name once.
pub fn default_solvers(problems: &[BenchProblem]) -> Vec<String> {
    Registry::names()
        .into_iter()
        .filter(|s| problems.iter().any(|p| p.problem.accepts(s)))
        .map(str::to_string)
        .collect()
}

/// Parses `K/N` (1 ≤ K ≤ N) as given to `--shard`.
///
/// ```
/// use perp_bench::bench::parse_shard;
/// assert_eq!(parse_shard("2/3").unwrap(), (2, 3));
/// assert!(parse_shard("0/3").is_err() && parse_shard("4/3").is_err() && parse_shard("x").is_err());
/// ```
pub fn parse_shard(text: &str) -> Result<(usize, usize), Error> {
    let bad = || Error::setting("--shard", text, "must be K/N with 1 <= K <= N, e.g. 1/4");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The `k`-th (1-based) of `n` shards of `problems`: sorted by name (stable), then every n-th
/// problem from the k-th on (round-robin, which spreads a family of large problems with
/// similar names over the shards). Deterministic; the n shards partition the list, and
/// `shard(p, 1, 1)` is the sorted list.
pub fn shard(mut problems: Vec<BenchProblem>, k: usize, n: usize) -> Result<Vec<BenchProblem>, Error> {
    if k == 0 || k > n {
        return Err(Error::setting("--shard", format!("{k}/{n}"), "must be K/N with 1 <= K <= N"));
    }
    problems.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(problems.into_iter().enumerate().filter(|(i, _)| i % n == k - 1).map(|(_, p)| p).collect())
}
