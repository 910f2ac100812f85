"""Per-step times of a peer's pile script: runs `../shared/peers/pile/mj_pile.py` (or another
script that steps with `mujoco.mj_step`) unchanged, with `mujoco.mj_step` timed call by call,
and adds the median, 95th percentile and worst step (ms_median, ms_p95, ms_worst) to the JSON
line the script prints, so that scripts/pile/table.py can set a peer's median beside perp's.

    python scripts/pile/step_times.py ../shared/peers/pile/mj_pile.py 1000 --t-end 2 --solver CG

The timer wraps each step as the script's own loop calls it; the script's mean (ms_per_step,
its loop's wall time over the steps) is left as it reports it.
"""
import contextlib
import io
import json
import os
import runpy
import sys
import time

import mujoco


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: step_times.py PEER_SCRIPT [ARGS...]')
    script = sys.argv[1]
    times = []
    step = mujoco.mj_step

    def timed(m, d, *rest):
        t0 = time.perf_counter()
        step(m, d, *rest)
        times.append(time.perf_counter() - t0)

    mujoco.mj_step = timed
    sys.argv = [script] + sys.argv[2:]
    # As `python SCRIPT` would: the script's folder first on the path (its `import pile`).
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(script, run_name='__main__')
    lines = out.getvalue().splitlines()
    last = max((i for i, l in enumerate(lines) if l.startswith('{')), default=None)
    for i, line in enumerate(lines):
        if i != last:
            print(line)
    if last is None:
        sys.exit(f'step_times.py: {script} printed no JSON line')
    d = json.loads(lines[last])
    if times:
        # The quantiles as `perp simulate --step-times` takes them (the nearest rank).
        ms = sorted(1e3 * t for t in times)
        at = lambda p: ms[min(len(ms) - 1, round(p * (len(ms) - 1)))]
        d['ms_median'], d['ms_p95'], d['ms_worst'] = round(at(0.5), 4), round(at(0.95), 4), round(ms[-1], 4)
    print(json.dumps(d))


if __name__ == '__main__':
    main()
