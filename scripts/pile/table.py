"""The side-by-side table of a pile_peers.sh results file (JSON lines): one row per
configuration; timing columns are medians over rounds, quality columns from the last round.
median/p95/worst ms per step are perp's own per-step times and MuJoCo's (each mj_step timed by
scripts/pile/step_times.py); pybullet's and Drake's scripts report the mean only. A MuJoCo row's
`unsolved` counts its capped steps (the solver ran its whole iteration budget)."""
import json
import statistics
import sys

rows = {}
for line in open(sys.argv[1]):
    if line.strip().startswith('{'):
        d = json.loads(line)
        rows.setdefault(d['label'], []).append(d)


def f(x, fmt):
    return '-' if x is None else format(x, fmt)


def med(rs, key):
    v = [r[key] for r in rs if r.get(key) is not None]
    return statistics.median(v) if v else None


cols = ['config', 'mean ms', 'median', 'p95', 'worst', 'iter/step', 'unsolved', 'pen mm', 'mean z m', 'status']
w = [16, 9, 8, 8, 9, 10, 9, 8, 9, 14]
print('| ' + ' | '.join(c.ljust(k) for c, k in zip(cols, w)) + ' |')
print('|' + '|'.join('-' * (k + 2) for k in w) + '|')
for label, rs in rows.items():
    last = rs[-1]
    status = 'TIMEOUT' if last.get('timed_out') else (f"rc={last.get('rc')}" if last.get('engine') == 'perp' else last.get('status', 'ok'))
    im, ix = last.get('iter_mean'), last.get('iter_max')
    it = '-' if im is None else (f'{im:g}' + ('' if ix is None else f'/{ix}'))
    fields = [label, f(med(rs, 'ms_per_step'), '.1f'), f(med(rs, 'ms_median'), '.1f'), f(med(rs, 'ms_p95'), '.1f'),
              f(med(rs, 'ms_worst'), '.1f'), it, f(last.get('unsolved', last.get('capped_steps')), 'd'), f(last.get('max_pen_mm'), '.2f'),
              f(last.get('mean_z'), '.4f'), str(status)[:14]]
    print('| ' + ' | '.join(str(x).ljust(k) for x, k in zip(fields, w)) + ' |')
