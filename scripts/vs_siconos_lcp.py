#!/usr/bin/env python3
"""perp's Lemke against Siconos' Lemke and one dense LU, side by side, interleaved.

    scripts/vs_siconos_lcp.py SICBENCH PERP ROUNDS TOL -- FILES...

For each Siconos `.dat` LCP file, ROUNDS times: `PERP solve FILE --solver lemke` (the
default, with its crash), the same with `--param crash=0` (Lemke from the all-w basis), then
`SICBENCH lcp FILE 200 TOL 0 3` (Siconos' LEMKE) and `SICBENCH lu FILE 0 0 0 3` (one OpenBLAS
`dgetrf` of M). perp's figure is the `seconds` its JSON prints (one solve), Siconos' the median
of its 3 repeats. Prints each side's median over the rounds and the ratios to Siconos' Lemke
and to the LU. A run that does not solve is reported, not timed. Write LCP files with
`perp convert` (built-in problems: `perp convert spd-500 spd500.dat`).

    export OPENBLAS_NUM_THREADS=1
    scripts/vs_siconos_lcp.py /tmp/siconos-peer/sicbench target/release/perp 5 1e-8 -- spd500.dat
"""
import json
import statistics
import subprocess
import sys

if '--' not in sys.argv or len(sys.argv) < 6:
    sys.exit(__doc__)
sic, perp, rounds, tol = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
files = sys.argv[sys.argv.index('--') + 1:]


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    lines = [line for line in out.stdout.splitlines() if line.startswith('{')]
    return json.loads(lines[-1]) if lines else None


print(f"{'file':28} {'n':>5} {'perp':>10} {'all-w':>10} {'siconos':>10} {'lu':>10} "
      f"{'perp/sic':>9} {'all-w/sic':>9} {'perp/lu':>8}")
for f in files:
    t = {'perp': [], 'all-w': [], 'siconos': [], 'lu': []}
    n = None
    for _ in range(rounds):
        for key, extra in (('perp', []), ('all-w', ['--param', 'crash=0'])):
            j = run([perp, 'solve', f, '--solver', 'lemke', '--tol', tol, '--json'] + extra)
            n = j['n'] if j else n
            t[key].append(j['seconds'] if j and j['status'] == 'solved' else float('nan'))
        j = run([sic, 'lcp', f, '200', tol, '0', '3'])
        ok = j and j['info'] == 0 and j['err'] <= float(tol)
        t['siconos'].append(j['med'] if ok else float('nan'))
        j = run([sic, 'lu', f, '0', '0', '0', '3'])
        t['lu'].append(j['med'] if j else float('nan'))
    m = {k: statistics.median(v) for k, v in t.items()}
    print(f"{f[-28:]:28} {n or 0:>5} {m['perp']:>10.3e} {m['all-w']:>10.3e} {m['siconos']:>10.3e} "
          f"{m['lu']:>10.3e} {m['perp'] / m['siconos']:>9.3f} {m['all-w'] / m['siconos']:>9.3f} "
          f"{m['perp'] / m['lu']:>8.2f}")
