"""One perp run of `ball-pile N` in the JSON shape of ../shared/peers/pile's scripts, with
perp's per-step times (median, p95, worst, from `perp simulate --step-times`).

  perp_run.py N --t-end T [--csv out.csv] [--ref other.csv] [--timeout S] [-- PERP ARGS]

The shared folder (../shared/peers/pile, or $PILE) gives the scene (pile.py) and the quality
figures, computed from the CSV's last row exactly as for the peers.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

PILE = os.environ.get('PILE', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'peers', 'pile'))
sys.path.insert(0, PILE)
import pile as P  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument('n', type=int)
ap.add_argument('--t-end', type=float, default=P.T_END)
ap.add_argument('--csv', default=None)
ap.add_argument('--perp', default=os.environ.get('PERP', 'target/release/perp'))
ap.add_argument('--ref', default=None)
ap.add_argument('--timeout', type=float, default=None)
a, extra = ap.parse_known_args()
if extra and extra[0] == '--':
    extra = extra[1:]

csv_path = a.csv or f'/tmp/perp_run_{a.n}_{os.getpid()}.csv'
cmd = [a.perp, 'simulate', 'ball-pile', str(a.n), '--t-end', repr(a.t_end), '--out', csv_path,
       '--every', '1000000000', '--threads', '1', '--step-times', '-q'] + extra
t0 = time.perf_counter()
timed_out = False
try:
    pr = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    rc, txt = pr.returncode, pr.stdout + pr.stderr
except subprocess.TimeoutExpired as e:
    timed_out, rc = True, None
    txt = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or '')
proc = time.perf_counter() - t0


def grab(pat, cast=float, default=None):
    m = re.search(pat, txt)
    return cast(m.group(1)) if m else default


steps = grab(r'steps\s+(\d+) of', int, 0)
wall = grab(r'wall time\s+([0-9.eE+-]+) s')
iters = grab(r'(\d+) iterations/pivots', int)
solves = grab(r'solves\s+(\d+)', int)
out = dict(engine='perp', n=a.n, steps=steps, rc=rc, cmd=' '.join(cmd[1:]),
           method=grab(r'method\s+(.*)', str),
           wall_s=wall, ms_per_step=round(1e3 * wall / steps, 4) if wall and steps else None,
           ms_median=grab(r'step time\s+median ([0-9.]+) ms'),
           ms_p95=grab(r'p95 ([0-9.]+) ms'), ms_worst=grab(r'worst ([0-9.]+) ms'),
           proc_s=round(proc, 3),
           iter_mean=round(iters / steps, 2) if iters is not None and steps else None,
           solves=solves, unsolved=grab(r'(\d+) not solved', int),
           worst_error=grab(r'worst error\s+([0-9.eE+-]+)'))
if timed_out:
    out['timed_out'] = True
elif os.path.exists(csv_path) and steps:
    try:
        last = P.read_perp_csv(csv_path, a.n)['last']
        floor, _ = P.pile(a.n)
        out['t_end'] = last['t']
        out.update(P.quality(last['pos'], last['vel'], floor, omega=last['omega']))
        if a.ref:
            out.update(P.compare(last['pos'], P.read_perp_csv(a.ref, a.n)['last']['pos']))
    except Exception as e:  # a run cut short leaves a partial CSV
        out['csv_error'] = repr(e)
if rc not in (0, 1):
    out['stderr_tail'] = txt[-400:]
print(json.dumps(out))
