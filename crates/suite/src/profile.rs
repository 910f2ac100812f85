//! Dolan–Moré performance profiles of benchmark results (written by `perp bench`).
