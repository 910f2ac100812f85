//! Shared by the criterion benches: reading criterion's own estimates back to print ratios
//! against the reference kernel of the same run.

use std::path::PathBuf;

/// Criterion's mean estimate (seconds) for `group/function/n`, from `target/criterion`.
pub fn mean_seconds(group: &str, function: &str, n: usize) -> Option<f64> {
    let root = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    let path = root
        .join("criterion")
        .join(group.replace('/', "_"))
        .join(function)
        .join(n.to_string())
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["mean"]["point_estimate"].as_f64().map(|ns| ns * 1e-9)
}
