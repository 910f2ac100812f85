"""Per-step times of a peer's pile script: runs `../shared/peers/pile/mj_pile.py` (or another
script that steps with `mujoco.mj_step`) unchanged, with `mujoco.mj_step` timed call by call,
and adds the median, 95th percentile and worst step (ms_median, ms_p95, ms_worst) to the JSON
line the script prints, so that scripts/pile/table.py can set a peer's median beside perp's.

    python scripts/pile/step_times.py ../shared/peers/pile/mj_pile.py 1000 --t-end 2 --solver CG
    python scripts/pile/step_times.py --impratio 10 ../shared/peers/pile/mj_pile.py 1000 --solver CG

`--impratio X` (before the script) sets the model's `opt.impratio` before its first step (the
peer scripts have no such option): the ratio of an elliptic contact's normal regulariser
to its frictional ones, `R_T = R_N / impratio` (MuJoCo's default 1). The JSON line then says
`"impratio": X`.

The timer wraps each step as the script's own loop calls it; the script's mean (ms_per_step,
its loop's wall time over the steps) is left as it reports it. `capped_steps` counts the steps
whose solver (on any island) ran its whole `iterations` budget: MuJoCo then steps with the
last iterate, short of its `tolerance` (table.py shows them as unsolved).
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
    args = sys.argv[1:]
    impratio = None
    if args[:1] == ['--impratio']:
        if len(args) < 2:
            sys.exit('step_times.py: --impratio needs a value')
        try:
            impratio = float(args[1])
        except ValueError:
            sys.exit(f'step_times.py: --impratio {args[1]!r} is not a number')
        if not impratio > 0:
            sys.exit(f'step_times.py: --impratio {impratio!r} must be > 0')
        args = args[2:]
    if not args:
        sys.exit('usage: step_times.py [--impratio X] PEER_SCRIPT [ARGS...]')
    script = args[0]
    times = []
    capped = [0]
    step = mujoco.mj_step

    def timed(m, d, *rest):
        if impratio is not None and m.opt.impratio != impratio:
            m.opt.impratio = impratio  # before the first step, outside the timer
        t0 = time.perf_counter()
        step(m, d, *rest)
        times.append(time.perf_counter() - t0)
        # A step whose solver used its whole iteration budget stopped short of its tolerance.
        k = min(max(int(d.nisland), 1), len(d.solver_niter))
        if int(d.solver_niter[:k].max()) >= m.opt.iterations:
            capped[0] += 1

    mujoco.mj_step = timed
    sys.argv = [script] + args[1:]
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
    if impratio is not None:
        d['impratio'] = impratio
    if times:
        # The quantiles as `perp simulate --step-times` takes them (the nearest rank).
        ms = sorted(1e3 * t for t in times)
        at = lambda p: ms[min(len(ms) - 1, round(p * (len(ms) - 1)))]
        d['ms_median'], d['ms_p95'], d['ms_worst'] = round(at(0.5), 4), round(at(0.95), 4), round(ms[-1], 4)
        d['capped_steps'] = capped[0]
    print(json.dumps(d))


if __name__ == '__main__':
    main()
