#!/usr/bin/env python3
"""Same-run A/B of two `perp` binaries on `perp bench`, interleaved.

    scripts/bench_ab.py OLD_PERP NEW_PERP ROUNDS TAG -- BENCH_ARGS...

Runs `OLD bench BENCH_ARGS --out /tmp/ab-TAG-old-K` and the same with NEW, ROUNDS times each,
alternating which goes first, then prints per solver the geometric mean, median, min and max of
old/new time ratios (median seconds of each (problem, solver) over the rounds; solved runs
only) and every (problem, solver) whose status, iterations or error differ between the two.
Example (the previous commit against this one, on the small Siconos fc3d files):

    git worktree add ../perp-old HEAD~1 && cargo build --release --manifest-path ../perp-old/Cargo.toml
    cargo build --release
    cd ../shared/suites/siconos/fc3d && ../../../../perp/scripts/bench_ab.py \\
        ../../../../perp-old/target/release/perp ../../../../perp/target/release/perp 6 small -- \\
        Rover*.dat FC3D_Example1*.dat NESpheres_10_1.dat --solvers nsgs,ac-newton --repeat 100
"""
import csv
import math
import statistics
import subprocess
import sys
import time

if '--' not in sys.argv or len(sys.argv) < 6:
    sys.exit(__doc__)
old, new, rounds, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
args = sys.argv[sys.argv.index('--') + 1:]
res = {'old': {}, 'new': {}}
walls = {'old': [], 'new': []}
for r in range(rounds):
    order = (('old', old), ('new', new)) if r % 2 == 0 else (('new', new), ('old', old))
    for side, binary in order:
        out = f'/tmp/ab-{tag}-{side}-{r}'
        t = time.time()
        p = subprocess.run([binary, 'bench', *args, '--out', out], capture_output=True, text=True)
        walls[side].append(time.time() - t)
        if p.returncode != 0:
            sys.exit(f'{side}: {p.stderr[-500:]}')
        for row in csv.DictReader(open(f'{out}/results.csv')):
            key = (row['problem'], row['solver'])
            res[side].setdefault(key, []).append(
                (float(row['seconds']), row['status'], row['iterations'], row['error']))
ratios, diffs = {}, []
for key, runs in res['old'].items():
    if key not in res['new']:
        continue
    o = statistics.median(x[0] for x in runs)
    n = statistics.median(x[0] for x in res['new'][key])
    so, sn = runs[0][1:], res['new'][key][0][1:]
    if so != sn:
        diffs.append((key, so, sn))
    if o > 0 and n > 0 and so[0] == 'solved':
        ratios[key] = o / n


def gm(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float('nan')


print(f"whole runs: old median {statistics.median(walls['old']):.2f} s, new {statistics.median(walls['new']):.2f} s")
by = {}
for (_, s), r in ratios.items():
    by.setdefault(s, []).append(r)
for s, v in sorted(by.items()):
    print(f"  {s:18s} n={len(v):3d} old/new geo-mean {gm(v):.2f} median {statistics.median(v):.2f} "
          f"min {min(v):.2f} max {max(v):.2f}")
if ratios:
    print(f"  all                n={len(ratios):3d} geo-mean {gm(list(ratios.values())):.2f} "
          f"median {statistics.median(ratios.values()):.2f}")
print(f"  outcome differences (status, iterations, error): {len(diffs)}")
for d in diffs[:30]:
    print('   ', d)
