#!/usr/bin/env bash
# perp's formulations and the physics engines on `ball-pile N`, interleaved in one run, one
# thread each (issue 32 item 5). From the repository root, with ../shared beside it:
#
#   python3 -m venv ~/peer-venv && ~/peer-venv/bin/pip install mujoco pybullet drake numpy
#   cargo build --release
#   PY=~/peer-venv/bin/python scripts/pile_peers.sh 1000 0.6      # 60 steps
#
# ROUNDS=1 interleaved rounds (medians in the table); ONLY="perp-convex mj-cg" runs only these;
# TIMEOUT_S=0 per-run limit; OUT= output folder (results.jsonl, table.md, logs); TOL= every
# perp run's solve tolerance (default: the scene's, 1e-6; issue 32's goals certify 1e-8).
set -u
N=${1:?usage: pile_peers.sh N T_END}
T=${2:?usage: pile_peers.sh N T_END}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PILE=${PILE:-$ROOT/../shared/peers/pile}
PY=${PY:-python3}
PERP=${PERP:-$ROOT/target/release/perp}
ROUNDS=${ROUNDS:-1}
TIMEOUT_S=${TIMEOUT_S:-0}
ONLY=${ONLY:-}
TOL=${TOL:-}
OUT=${OUT:-$PWD/pile-peers-$N-$T-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PILE PERP
RES=$OUT/results.jsonl
: > "$RES"
TO=""
[ "$TIMEOUT_S" -gt 0 ] && TO="timeout -k 10 $TIMEOUT_S"
run() {  # run LABEL ROUND CMD...
    local label=$1 round=$2; shift 2
    if [ -n "$ONLY" ] && [[ " $ONLY " != *" $label "* ]]; then return; fi
    local line
    line=$($TO "$@" 2>>"$OUT/stderr.txt" | grep '^{' | tail -n 1)
    [ -z "$line" ] && line='{"status": "no output"}'
    echo "$line" | "$PY" -c 'import json,sys; d=json.loads(sys.stdin.read()); d["label"], d["round"] = sys.argv[1], int(sys.argv[2]); print(json.dumps(d))' "$label" "$round" >> "$RES"
    echo "$label round $round: $(tail -n 1 "$RES" | cut -c1-160)" | tee -a "$OUT/log.txt"
}
P="$PY $ROOT/scripts/pile/perp_run.py $N --t-end $T"
TA=()
[ -n "$TOL" ] && TA=(--tol "$TOL")
for r in $(seq 1 "$ROUNDS"); do
    REF=$OUT/perp-default-r$r.csv
    run perp-default    "$r" $P --csv "$REF" -- "${TA[@]}"
    run perp-global     "$r" $P --ref "$REF" -- --solver global-ac-newton --fallback none "${TA[@]}"
    run perp-convex     "$r" $P --ref "$REF" -- --formulation convex "${TA[@]}"
    run perp-compliant  "$r" $P --ref "$REF" -- --formulation compliant "${TA[@]}"
    # Drake's contact model (drake_pile.py: point contact k = 1e7 N/m, τ_d = 0.1 s) in perp.
    run perp-compliant-drake "$r" $P --ref "$REF" -- --formulation compliant --param stiffness=1e7 --param dissipation=0.1 "${TA[@]}"
    # MuJoCo's regularisation in SAP's terms (docs/simulation.md, "The compliant model against
    # MuJoCo's"): solimp's impedance d = 0.95 gives R_N = (1 − d)/d · w_N, so β = 2π √((1 − d)/d)
    # = 1.44, and R_T = R_N / impratio gives σ = R_T / w_T = 0.0150 / impratio for these balls
    # (w_T = 3.5 w_N): impratio 1 (MuJoCo's default) and 10.
    run perp-compliant-mj "$r" $P --ref "$REF" -- --formulation compliant --param beta=1.44 --param sigma=0.015 "${TA[@]}"
    run perp-compliant-mj10 "$r" $P --ref "$REF" -- --formulation compliant --param beta=1.44 --param sigma=0.0015 "${TA[@]}"
    # MuJoCo's script unchanged, each mj_step timed (scripts/pile/step_times.py): its median,
    # p95 and worst step beside perp's.
    run mj-newton       "$r" "$PY" "$ROOT/scripts/pile/step_times.py" "$PILE/mj_pile.py" "$N" --t-end "$T" --solver Newton --cone elliptic
    run mj-cg           "$r" "$PY" "$ROOT/scripts/pile/step_times.py" "$PILE/mj_pile.py" "$N" --t-end "$T" --solver CG --cone elliptic
    run mj-cg-impratio10 "$r" "$PY" "$ROOT/scripts/pile/step_times.py" --impratio 10 "$PILE/mj_pile.py" "$N" --t-end "$T" --solver CG --cone elliptic
    run pybullet        "$r" "$PY" "$PILE/pb_pile.py" "$N" --t-end "$T"
    run drake-sap       "$r" "$PY" "$PILE/drake_pile.py" "$N" --t-end "$T" --approx sap
done
"$PY" "$ROOT/scripts/pile/table.py" "$RES" | tee "$OUT/table.md"
