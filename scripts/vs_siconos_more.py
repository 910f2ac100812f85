#!/usr/bin/env python3
"""perp against Siconos numerics on rolling and global frictional-contact files, side by side,
interleaved (the rfc3d / grfc3d / gfc3d companion of `scripts/vs_siconos.py`, which keeps fc3d).

    scripts/vs_siconos_more.py SICBENCH_MORE PERP ROUNDS TOL [options] -- [KIND:]FILE...

options: --timeout S (one Siconos call, default 120), --time-limit S (one perp solve, default
30), --check (also recompute each solved perp answer's error with Siconos' measure), --out DIR
(keep every measurement there as `runs.json`).

Each Siconos `.dat` file is one of three kinds, told from the file (d = 5: rolling, global when
its first matrix is not d·nc square; d = 3: global when perp reads it so) or forced by a `KIND:`
prefix:

| kind | file | perp (`PERP bench FILE --kind K`) | Siconos (`SICBENCH_MORE KIND FILE ID TOL 10000 R`) |
|---|---|---|---|
| rfc3d | local rolling `RFC3D_*`, `rockfall_*` | rfc3d: nsgs, prox, ac-newton, admm, apgd | 3000 NSGS (one-contact NSN, its default), 3000:3001 NSGS-PROJ, 3000:3002 NSGS-PROJ-LI (one-contact projection, with local iterations), 3010 ADMM |
| grfc3d | global rolling `GRFC3D_*` | rfc3d (perp reads it reduced to local form, reduction not timed) | 5000 NSGS_WR, 5001 IPM (its default: the convex relaxation), 5001,i17=1 IPM-NS (UPDATE_S = 1: the De Saxcé problem), in global form; and the rfc3d solvers on perp's local form (`perp convert`, written to the work dir), named `local:…` |
| gfc3d | global Coulomb `GFC3D_*`, harvested `*-global.dat` | gfc3d: global-ac-newton, global-ipm, and the local solvers on the reduction (timed) | 600 NSGS_WR, 602 PROX_WR, 606 NSN_AC_WR, 607 NSN_AC, 613 ADMM, 614 ADMM_WR, 615 IPM |

Each file runs ROUNDS rounds (3 x ROUNDS for n <= 30), alternating which side goes first; R
solves per call (200 for n <= 30, 20 for n < 500, 5 below 5000, 1 above; both sides time the
solve alone and record the median). A perp solve counts when its status is `solved` (and, with
--check, Siconos' measure of its answer is <= TOL); a Siconos one when `info` is 0, its own final
error `err` <= TOL and its kind's measure recomputed from the answer `cerr` <= TOL (some Siconos
solvers report info 0 on answers that measure rejects). Per solver, the time is the median
over the rounds (solved in every round); per file, each side's figure is its best solver and
the ratio perp/Siconos. The script prints a line per file, then a markdown table (file, n,
perp best and time, Siconos best and time, ratio), the solved count per solver, and every
disagreement: a Siconos answer with info 0 and err <= TOL whose error recomputed by the kind's
Siconos measure (`cerr`: rolling_friction_3d_compute_error, global_rolling_friction_3d_compute_error
with u = Hᵀ v + b, gfc3d_compute_error) is above TOL, and with --check a perp answer called
solved (one `perp solve --json` per solver and file, global files with `--kind gfc` so that v
comes back) whose error by that measure is above TOL. perp's own errors are these measures
(rfc3d: `rolling_friction_3d_compute_error`; gfc3d global solvers: `gfc3d_compute_error`); the
local solvers on a global file measure the reduced local problem, which --check tells apart.

Build the peer with `../shared/peers/siconos/build.sh`, then `scripts/build_sicbench_more.sh`;
set OPENBLAS_NUM_THREADS=1. Convert FCLIB `.hdf5` global files to Siconos `.dat` first (Siconos
is built without FCLIB). Example (the rolling suite at 1e-6, three rounds):

    export OPENBLAS_NUM_THREADS=1
    scripts/vs_siconos_more.py /tmp/siconos-peer/sicbench_more target/release/perp 3 1e-6 --check -- \\
        ../shared/suites/siconos/rfc/*.dat

The global Coulomb files, Box_Stacks written as Siconos' global `.dat` first:

    cargo run --release -p perp-formats --example global_dat -- \\
        ../shared/suites/siconos/fc3d/Box_Stacks-i0122-82-5.hdf5 /tmp/Box_Stacks-global.dat
    scripts/vs_siconos_more.py /tmp/siconos-peer/sicbench_more target/release/perp 3 1e-6 --check -- \\
        ../shared/suites/siconos/gfc/GFC3D_*.dat /tmp/Box_Stacks-global.dat

Large files (harvested ball-pile steps, 10^4 rows): one round, `--timeout 60 --time-limit 20`.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

SICONOS = {
    'rfc3d': {'3000': 'NSGS', '3000:3001': 'NSGS-PROJ', '3000:3002': 'NSGS-PROJ-LI', '3010': 'ADMM'},
    'grfc3d': {'5000': 'NSGS_WR', '5001': 'IPM', '5001,i17=1': 'IPM-NS'},
    'gfc3d': {'600': 'NSGS_WR', '602': 'PROX_WR', '606': 'NSN_AC_WR', '607': 'NSN_AC', '613': 'ADMM',
              '614': 'ADMM_WR', '615': 'IPM'},
}
PERP_KIND = {'rfc3d': 'rfc3d', 'grfc3d': 'rfc3d', 'gfc3d': 'gfc3d'}

argv = sys.argv[1:]
if '--' not in argv or argv.index('--') < 4:
    sys.exit(__doc__)
files = argv[argv.index('--') + 1:]
head = argv[:argv.index('--')]
sic, perp, rounds, tol = head[0], head[1], int(head[2]), head[3]
opts = head[4:]
timeout, time_limit, check, outdir = 120.0, '30', False, None
i = 0
while i < len(opts):
    if opts[i] == '--timeout':
        timeout, i = float(opts[i + 1]), i + 2
    elif opts[i] == '--time-limit':
        time_limit, i = opts[i + 1], i + 2
    elif opts[i] == '--check':
        check, i = True, i + 1
    elif opts[i] == '--out':
        outdir, i = opts[i + 1], i + 2
    else:
        sys.exit(f'unknown option {opts[i]}\n{__doc__}')
tmp = tempfile.mkdtemp(prefix='vs-siconos-more-')
tolf = float(tol)


def repeats(n):
    return 200 if n <= 30 else 20 if n < 500 else 5 if n < 5000 else 1


def rounds_for(n):
    """ROUNDS, three times over for n <= 30 (as `scripts/vs_siconos.py`: microsecond solves,
    and the shared machine's noise comes by the process)."""
    return 3 * rounds if n <= 30 else rounds


def numbers(path, count):
    """The first `count` numbers of a Siconos `.dat` file (its tokens, comments skipped)."""
    out = []
    with open(path) as fh:
        for line in fh:
            for tok in line.split():
                try:
                    out.append(float(tok))
                except ValueError:
                    break
                if len(out) == count:
                    return out
    return out


def detect_kind(path):
    """rfc3d, grfc3d or gfc3d. perp's reader tells a global Coulomb file from a local one (its
    probe's kind is gfc3d); a rolling file (d = 5) is global when its first matrix is not
    d·nc square (a global rolling file with n_dof = d·nc needs the `grfc3d:` prefix)."""
    d, nc, storage, rows = (int(x) for x in numbers(path, 4))
    if d == 5:
        return 'rfc3d' if rows == d * nc else 'grfc3d'
    out = f'{tmp}/kind-{os.path.basename(path)}'
    p = subprocess.run([perp, 'bench', path, '--solvers', 'nsgs', '--max-iter', '1', '--repeat', '1', '--curves',
                        '0', '--quiet', '--out', out], capture_output=True, text=True)
    rows = list(csv.DictReader(open(f'{out}/results.csv'))) if p.returncode in (0, 1) else []
    if rows and rows[0]['kind'] == 'gfc3d':
        return 'gfc3d'
    sys.exit(f'{path}: {rows[0]["kind"] if rows else p.stderr[-300:]}: not a rolling or global 3-D file '
             f'(fc3d files go to scripts/vs_siconos.py; force with rfc3d:/grfc3d:/gfc3d:)')


def run_perp(f, kind, r, tag):
    out = f'{tmp}/{tag}'
    p = subprocess.run([perp, 'bench', f, '--kind', PERP_KIND[kind], '--tol', tol, '--repeat', str(r),
                        '--time-limit', time_limit, '--curves', '0', '--quiet', '--out', out],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f'perp bench {f}: {p.stderr[-500:]}')
    rows = list(csv.DictReader(open(f'{out}/results.csv')))
    if not rows:
        sys.exit(f'perp bench {f}: no result (kind {PERP_KIND[kind]})')
    res = {row['solver']: {'t': float(row['seconds']) if row['status'] == 'solved' else None,
                           'status': row['status'], 'err': row['error'], 'it': row['iterations']}
           for row in rows if row['status'] != 'not_applicable'}
    return res, int(rows[0]['n'])


def run_siconos(f, kind, r, local_file):
    res = {}
    jobs = [(kind, f, sid, name) for sid, name in SICONOS[kind].items()]
    if local_file:
        jobs += [('rfc3d', local_file, sid, 'local:' + name) for sid, name in SICONOS['rfc3d'].items()]
    for k, path, sid, name in jobs:
        try:
            p = subprocess.run([sic, k, path, sid, tol, '10000', str(r)], capture_output=True, text=True,
                               timeout=timeout, cwd=tmp)
            j = json.loads(p.stdout.strip().splitlines()[-1])
            ok = j['info'] == 0 and j['err'] <= tolf and j['cerr'] <= tolf
            res[name] = {'t': j['med'] if ok else None, 'info': j['info'], 'err': j['err'],
                         'cerr': j['cerr'], 'it': j['iter']}
        except subprocess.TimeoutExpired:
            res[name] = {'t': None, 'info': 'timeout'}
        except (IndexError, json.JSONDecodeError, KeyError):
            res[name] = {'t': None, 'info': 'crash', 'stderr': p.stderr[-300:]}
    return res


def check_perp(f, kind, solver):
    """Siconos' error measure of perp's answer from `perp solve --json`: rfc3d of r, grfc3d of r
    (Siconos computes v = M⁻¹ (f + H r)), gfc3d of (r, v)."""
    extra = ['--kind', 'gfc'] if kind == 'gfc3d' else []  # the global form: v for every solver
    p = subprocess.run([perp, 'solve', f, '--solver', solver, '--tol', tol, '--json', '--quiet',
                        '--time-limit', time_limit] + extra, capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
    except json.JSONDecodeError:
        return None, 'no JSON'
    if j.get('status') != 'solved':
        return None, j.get('status')
    ans = f'{tmp}/answer.txt'
    if kind == 'gfc3d':
        x = j['r'] + j['v']
    else:
        x = j.get('r') or j['z']
    with open(ans, 'w') as fh:
        fh.write('\n'.join(repr(float(v)) for v in x))
    c = subprocess.run([sic, 'check-' + kind, f, ans], capture_output=True, text=True)
    try:
        return json.loads(c.stdout)['err'], j.get('error')
    except json.JSONDecodeError:
        return None, c.stderr[-200:]


def median_times(samples):
    """Per solver the median over rounds (only if solved in every round)."""
    solvers = {}
    for s in samples:
        for k, v in s.items():
            solvers.setdefault(k, []).append(v['t'])
    return {k: statistics.median(v) for k, v in solvers.items() if all(x is not None for x in v)}


def fmt(t):
    if t is None:
        return 'unsolved'
    return f'{t * 1e6:.1f} µs' if t < 1e-3 else f'{t * 1e3:.2f} ms' if t < 1 else f'{t:.2f} s'


rows, counts, disagreements, runs = [], {}, [], []
for i, arg in enumerate(files):
    kind, f = arg.split(':', 1) if arg.split(':', 1)[0] in SICONOS else (None, arg)
    f = os.path.abspath(f)  # Siconos runs in `tmp`, where a relative path does not resolve
    kind = kind or detect_kind(f)
    local_file = None
    if kind == 'grfc3d':
        local_file = f'{tmp}/{i}-local.dat'
        p = subprocess.run([perp, 'convert', f, local_file], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f'perp convert {f}: {p.stderr[-300:]}')
    _, n = run_perp(f, kind, 1, f'probe{i}')
    r = repeats(n)
    ps, ss = [], []
    for rd in range(rounds_for(n)):
        if rd % 2 == 0:
            ps.append(run_perp(f, kind, r, f'{i}-{rd}')[0])
            ss.append(run_siconos(f, kind, r, local_file))
        else:
            ss.append(run_siconos(f, kind, r, local_file))
            ps.append(run_perp(f, kind, r, f'{i}-{rd}')[0])
    runs.append({'file': f, 'kind': kind, 'n': n, 'repeats': r, 'perp': ps, 'siconos': ss})
    pm, sm = median_times(ps), median_times(ss)
    # Siconos answers it calls solved (info 0, err <= TOL) that its kind's measure rejects:
    # not counted as solved (above), reported here once per solver and file.
    seen = set()
    for s in ss:
        for name, v in s.items():
            if v.get('info') == 0 and v['err'] <= tolf and v['cerr'] > tolf and name not in seen:
                seen.add(name)
                disagreements.append(f'{os.path.basename(f)}: Siconos {name} info 0, err {v["err"]:.2e} '
                                     f'but its measure recomputed {v["cerr"]:.2e} > {tol}')
    if check:
        for name in sorted(pm):
            e, own = check_perp(f, kind, name)
            line = f'{os.path.basename(f)}: perp {name} solved, own error {own}, Siconos measure {e}'
            print('  check ' + line, flush=True)
            if e is None or e > tolf:
                disagreements.append(line + (f' > {tol}' if e is not None else ''))
                del pm[name]  # not counted as solved, as on Siconos' side
    # Counted after --check, which takes perp's rejected answers out.
    for side, med, samples in (('perp', pm, ps), ('siconos', sm, ss)):
        for name in samples[0]:
            counts.setdefault((side, name), [0, 0])
            counts[(side, name)][0] += name in med
            counts[(side, name)][1] += 1
    pk = min(pm, key=pm.get) if pm else None
    sk = min(sm, key=sm.get) if sm else None
    pt, st = pm.get(pk), sm.get(sk)
    ratio = pt / st if pt is not None and st is not None else None
    rows.append((os.path.basename(f), kind, n, pk, pt, sk, st, ratio))
    rtxt = f'ratio {ratio:.3g}' if ratio is not None else ''
    print(f'{os.path.basename(f):40} {kind:6} n={n:5} perp {pk} {fmt(pt):>10}  siconos {sk} {fmt(st):>10}  {rtxt}',
          flush=True)
    print('    perp:    ' + ', '.join(f'{k} {fmt(pm.get(k))}' for k in ps[0]), flush=True)
    print('    siconos: ' + ', '.join(f'{k} {fmt(sm.get(k))}' for k in ss[0]), flush=True)

print()
print(f'tol {tol}, {rounds} round(s) (x3 for n <= 30), medians')
print()
print('| file | kind | n | perp best | time | Siconos best | time | perp/Siconos |')
print('|---|---|---|---|---|---|---|---|')
for name, kind, n, pk, pt, sk, st, ratio in rows:
    print(f'| {name} | {kind} | {n} | {pk or "-"} | {fmt(pt)} | {sk or "-"} | {fmt(st)} | '
          f'{f"{ratio:.3g}" if ratio is not None else "-"} |')
print()
print('| side | solver | files solved (every round) |')
print('|---|---|---|')
for (side, name), (k, tot) in sorted(counts.items()):
    print(f'| {side} | {name} | {k} / {tot} |')
print()
print('disagreements:' if disagreements else 'disagreements: none')
for d in disagreements:
    print('  ' + d)
if outdir:
    os.makedirs(outdir, exist_ok=True)
    with open(f'{outdir}/runs.json', 'w') as fh:
        json.dump({'tol': tol, 'rounds': rounds, 'runs': runs, 'rows': rows,
                   'disagreements': disagreements}, fh, indent=1)
