#!/usr/bin/env python3
"""perp against Siconos numerics on frictional-contact files, side by side, interleaved.

    scripts/vs_siconos.py SICBENCH PERP ROUNDS TOL -- FILES...

For each Siconos `.dat` FrictionContact file, ROUNDS times (alternating which side goes
first): `PERP bench FILE --tol TOL --repeat R` (every fc3d solver of perp) and
`SICBENCH fc3d FILE ID TOL 10000 R` for each Siconos solver ID below, where R (solves per
call; both sides record the median) is 200 for n <= 30, 20 for n < 500 and 5 above (files
with n <= 30 get 3 x ROUNDS rounds: see `rounds_for`). A solve
counts when its status is `solved` (perp) or `info` is 0 and `err <= TOL` (Siconos). Per
file, each solver's time is the median over the rounds, each side's figure is its best solver
and the ratio is perp/Siconos; the script prints them, then the median ratio per size class
(n <= 30, 30 < n < 500, n >= 500) and overall. Convert FCLIB `.hdf5` to `.dat` first with
`perp convert` (it also writes the built-in problems: `perp convert fc3d-contact-200 x.dat`).

Build the peer with `../shared/peers/siconos/build.sh` and set OPENBLAS_NUM_THREADS=1.
Example (all public fc3d files, three rounds, tolerance 1e-6):

    export OPENBLAS_NUM_THREADS=1
    scripts/vs_siconos.py /tmp/siconos-peer/sicbench target/release/perp 3 1e-6 -- \\
        ../shared/suites/siconos/fc3d/*.dat /tmp/vs/*.dat
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

SICONOS = {500: 'NSGS', 502: 'PROX', 504: 'NSN_AC', 513: 'NSN_FB', 523: 'ADMM'}
TIMEOUT = 120

if '--' not in sys.argv or len(sys.argv) < 6:
    sys.exit(__doc__)
sic, perp, rounds, tol = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
files = sys.argv[sys.argv.index('--') + 1:]
tmp = tempfile.mkdtemp(prefix='vs-siconos-')


def repeats(n):
    return 200 if n <= 30 else 20 if n < 500 else 5


def rounds_for(n):
    """ROUNDS, three times over for n <= 30: their solves take microseconds, so a round is
    mostly process start-up, and the shared machine's noise comes by the process: a process
    tends to run at one of two speeds, about 1.5x apart, for its whole life (seen with
    `crates/bench/examples/small_fc3d.rs`, run after run)."""
    return 3 * rounds if n <= 30 else rounds


def run_perp(f, r, k):
    out = f'{tmp}/{k}'
    p = subprocess.run([perp, 'bench', f, '--kind', 'fc2d,fc3d', '--tol', tol, '--repeat', str(r),
                        '--time-limit', '30', '--curves', '0', '--quiet', '--out', out],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f'perp bench {f}: {p.stderr[-500:]}')
    rows = list(csv.DictReader(open(f'{out}/results.csv')))
    return {row['solver']: (float(row['seconds']) if row['status'] == 'solved' else None) for row in rows}, \
        int(rows[0]['n'])


def run_siconos(f, r):
    res = {}
    for sid, name in SICONOS.items():
        try:
            p = subprocess.run([sic, 'fc3d', f, str(sid), tol, '10000', str(r)], capture_output=True,
                               text=True, timeout=TIMEOUT)
            j = json.loads(p.stdout.strip().splitlines()[-1])
            ok = j['info'] == 0 and j['err'] <= float(tol)
            res[name] = j['med'] if ok else None
        except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError):
            res[name] = None
    return res


def best(samples):
    """Per solver the median over rounds (solved in every round), then the best solver."""
    solvers = {}
    for s in samples:
        for k, v in s.items():
            solvers.setdefault(k, []).append(v)
    med = {k: statistics.median(v) for k, v in solvers.items() if all(x is not None for x in v)}
    if not med:
        return None, None
    k = min(med, key=med.get)
    return k, med[k]


rows = []
for i, f in enumerate(files):
    _, n = run_perp(f, 1, f'probe{i}')
    r = repeats(n)
    ps, ss = [], []
    for rd in range(rounds_for(n)):
        if rd % 2 == 0:
            ps.append(run_perp(f, r, f'{i}-{rd}')[0])
            ss.append(run_siconos(f, r))
        else:
            ss.append(run_siconos(f, r))
            ps.append(run_perp(f, r, f'{i}-{rd}')[0])
    pk, pt = best(ps)
    sk, st = best(ss)
    ratio = pt / st if pt is not None and st is not None else None
    rows.append((os.path.basename(f), n, pk, pt, sk, st, ratio))
    fmt = lambda t: f'{t * 1e6:.1f} µs' if t is not None else 'unsolved'
    print(f'{os.path.basename(f):45} n={n:5} perp {pk} {fmt(pt):>12}  siconos {sk} {fmt(st):>12}  '
          f'ratio {ratio:.2f}' if ratio is not None else
          f'{os.path.basename(f):45} n={n:5} perp {pk} {fmt(pt)}  siconos {sk} {fmt(st)}', flush=True)

print()
print('| size | files | median perp/Siconos | worst | perp only | Siconos only |')
print('|---|---|---|---|---|---|')
classes = [('n <= 30', lambda n: n <= 30), ('30 < n < 500', lambda n: 30 < n < 500),
           ('n >= 500', lambda n: n >= 500), ('all', lambda n: True)]
for label, pred in classes:
    sel = [row for row in rows if pred(row[1])]
    rat = [row[6] for row in sel if row[6] is not None]
    ponly = sum(1 for row in sel if row[3] is not None and row[5] is None)
    sonly = sum(1 for row in sel if row[3] is None and row[5] is not None)
    med = f'{statistics.median(rat):.2f}' if rat else '-'
    worst = f'{max(rat):.2f}' if rat else '-'
    print(f'| {label} | {len(sel)} | {med} | {worst} | {ponly} | {sonly} |')
