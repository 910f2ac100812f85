#!/usr/bin/env bash
# Runs every reader fuzz target for SECONDS each (default 600), two at a time, seeded from the
# peer suites when PERP_SUITES is set. Needs cargo-fuzz (`cargo install cargo-fuzz`); the
# nightly features libFuzzer needs come from RUSTC_BOOTSTRAP=1 on the stable toolchain.
# Crashes land in fuzz/artifacts/<target>/; each fixed one becomes a test in crates/formats/tests.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${1:-600}
export RUSTC_BOOTSTRAP=1
if [ -n "${PERP_SUITES:-}" ]; then
  mkdir -p corpus/{lcp_dat,mlcp_dat,fc_dat,fclib_hdf5}
  cp "$PERP_SUITES"/siconos/lcp/*.dat corpus/lcp_dat/
  cp "$PERP_SUITES"/siconos/mlcp/*.dat corpus/mlcp_dat/
  cp "$PERP_SUITES"/siconos/fc2d/*.dat "$PERP_SUITES"/siconos/fc3d/*.dat corpus/fc_dat/
  cp "$PERP_SUITES"/siconos/fc3d/*.hdf5 corpus/fclib_hdf5/
  # MatrixMarket and JSON seeds: the suite's files converted by perp itself.
  mkdir -p corpus/{mtx_problem,json_problem}
  (cd .. && cargo build --release -q)
  for f in "$PERP_SUITES"/siconos/{lcp,mlcp,fc2d,fc3d}/*.dat; do
    b=$(basename "$f" .dat)
    ../target/release/perp convert "$f" "corpus/json_problem/$b.json" >/dev/null 2>&1 || true
    # The mtx target reads matrix, q, mu and free joined by NUL bytes.
    t=/tmp/perp-fuzz-seed-$b
    if ../target/release/perp convert "$f" "$t.mtx" >/dev/null 2>&1; then
      for part in "" _q _mu _free; do cat "$t$part.mtx" 2>/dev/null || true; printf '\0'; done \
        > "corpus/mtx_problem/$b"
      rm -f "$t".mtx "$t"_*.mtx
    fi
  done
fi
cargo fuzz build -O
run() { cargo fuzz run -O "$1" -- -max_total_time="$SECONDS_EACH" -max_len="$2" -rss_limit_mb=4096 -print_final_stats=1; }
run lcp_dat 65536 & run fclib_hdf5 262144 & wait
run mlcp_dat 65536 & run fc_dat 262144 & wait
run mtx_problem 65536 & run json_problem 65536 & wait
