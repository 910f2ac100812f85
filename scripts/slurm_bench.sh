#!/usr/bin/env bash
# A Slurm job array that benchmarks a suite in SHARDS pieces, then merges them.
#
#   bash scripts/slurm_bench.sh SUITE_DIR [SHARDS] [EXTRA perp bench ARGS…]
#
# run on the login node, submits this script as an array (one task per shard, one core each)
# and a merge job that runs when every task has succeeded: the shards land in
# bench-shard-K/, the merged results, summary and profile in bench-merged/. PERP names the
# perp binary (default: `perp` on PATH). Each task runs
#   perp bench SUITE_DIR --threads 1 --shard K/SHARDS --out bench-shard-K [EXTRA…]
# (`tests/bench_cli.rs` runs the tasks and the merge by hand, without Slurm).
#SBATCH --job-name=perp-bench
#SBATCH --cpus-per-task=1
#SBATCH --time=04:00:00
#SBATCH --output=bench-shard-%a.log
set -euo pipefail
suite=${1:?usage: sbatch scripts/slurm_bench.sh SUITE_DIR [SHARDS] [perp bench args…]}
shards=${2:-64}
shift $(( $# >= 2 ? 2 : 1 ))
perp=${PERP:-perp}
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # Not a task of the array: submit the array and the merge job depending on it.
    job=$(sbatch --parsable --array=1-"$shards" "$0" "$suite" "$shards" "$@")
    sbatch --dependency=afterok:"$job" --job-name=perp-merge --output=bench-merge.log \
        --wrap="$perp bench --merge bench-shard-*/ --out bench-merged"
    echo "submitted array $job ($shards shards) and its merge"
    exit 0
fi
# One task: its shard, single-threaded (the task has one core).
exec "$perp" bench "$suite" --threads 1 --shard "$SLURM_ARRAY_TASK_ID/$shards" \
    --out "bench-shard-$SLURM_ARRAY_TASK_ID" "$@"
