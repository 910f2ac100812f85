#!/usr/bin/env python3
"""Re-runs the measured figures of docs/performance.md and prints claimed against measured.

    scripts/figures.py --list                 the figures, what they need and how long they take
    scripts/figures.py --quick                run every figure that takes under a minute
    scripts/figures.py ID [ID ...]            run these figures
    scripts/figures.py --tag TAG              run the figures with this tag (e.g. lcp, dynamics)
    scripts/figures.py --all                  run every figure (hours: the peers' runs included)
    scripts/figures.py --self-test            check the record parser (doctests) and that every record
                                              is cited in docs/performance.md and back (no figure runs)

The records are docs/figures.toml (`--records FILE` for another): one `[[figure]]` table per
figure with its id, the command that reproduces it, how to read the measured value from that
command's output, the claimed value, its unit, a relative tolerance, what it needs and the
minutes it takes (see the header of docs/figures.toml). A figure whose needs are missing prints
"skipped: needs X" and does not fail the run; a figure whose command fails or whose output does
not match its pattern prints "error: ..." and makes the exit status 1. Figures that read the
same command's output (the rows of one table) share one run of it. A measured value off the
claim by more than the tolerance is flagged OFF (exit status 0: drift is reported, not failed,
since timings move with the machine's load; use --strict to fail on it).

Placeholders in a command: {perp} (the release binary: $PERP, else $CARGO_TARGET_DIR or
target/ + release/perp), {suites} ($PERP_SUITES, else ../shared/suites), {sicbench} ($SICBENCH,
else /tmp/siconos-peer/sicbench), {peer_python} ($PEER_PYTHON, else ~/peer-venv/bin/python),
{root} (the repository) and {tmp} (a fresh directory per figure). Commands run under bash from
the repository's root.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDS = os.path.join(ROOT, 'docs', 'figures.toml')

REQUIRED = {'id': str, 'what': str, 'command': str, 'parse': str, 'claimed': (int, float),
            'unit': str, 'tolerance': (int, float), 'minutes': (int, float), 'taken': str,
            'reference': str}
OPTIONAL = {'tags': list, 'needs': list, 'repeat': int, 'ok': list, 'scale': (int, float),
            'section': str, 'bound': str}
KNOWN_NEEDS = ('suites', 'sicbench', 'peer-venv', 'python-perp', 'cargo')


class RecordError(ValueError):
    pass


RecordError.__module__ = 'builtins'  # tracebacks say "RecordError" under `python3 -m doctest` too


def parse_records(text):
    r"""Parses and checks the figure records of a TOML text; returns a list of dicts.

    >>> recs = parse_records(BASE)
    >>> recs[0]['id'], recs[0]['repeat'], recs[0]['needs'], recs[0]['ok']
    ('x', 1, [], [0])

    A missing or ill-typed field is an error naming the figure and the field:

    >>> parse_records('[[figure]]\nid = "y"\nwhat = "w"')
    Traceback (most recent call last):
    ...
    RecordError: figure 'y': missing field 'command'
    >>> parse_records(BASE.replace('claimed = 42', 'claimed = "42"'))
    Traceback (most recent call last):
    ...
    RecordError: figure 'x': field 'claimed' is '42', expected int or float
    >>> parse_records(BASE + 'needs = ["gpu"]')
    Traceback (most recent call last):
    ...
    RecordError: figure 'x': unknown need 'gpu' (known: suites, sicbench, peer-venv, python-perp, cargo)
    >>> parse_records(BASE.replace('(\d+)', '\d+'))
    Traceback (most recent call last):
    ...
    RecordError: figure 'x': parse pattern 'total \\d+ steps' must have exactly one group
    >>> parse_records(BASE + BASE)
    Traceback (most recent call last):
    ...
    RecordError: figure 'x': id given twice
    """
    if tomllib is None:
        raise RecordError('reading docs/figures.toml needs Python 3.11 (tomllib)')
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RecordError(f'not valid TOML: {e}') from None
    out, seen = [], set()
    for k, rec in enumerate(data.get('figure', [])):
        name = rec.get('id', f'#{k + 1}')
        for field, ty in REQUIRED.items():
            if field not in rec:
                raise RecordError(f'figure {name!r}: missing field {field!r}')
        for field, ty in list(REQUIRED.items()) + list(OPTIONAL.items()):
            if field in rec and (not isinstance(rec[field], ty) or isinstance(rec[field], bool)):
                names = ' or '.join(t.__name__ for t in (ty if isinstance(ty, tuple) else (ty,)))
                raise RecordError(f'figure {name!r}: field {field!r} is {rec[field]!r}, expected {names}')
        unknown = set(rec) - set(REQUIRED) - set(OPTIONAL)
        if unknown:
            raise RecordError(f'figure {name!r}: unknown field(s) {", ".join(sorted(unknown))}')
        if name in seen:
            raise RecordError(f'figure {name!r}: id given twice')
        seen.add(name)
        rec.setdefault('tags', [])
        rec.setdefault('needs', [])
        rec.setdefault('repeat', 1)
        rec.setdefault('ok', [0])
        rec.setdefault('scale', 1.0)
        rec.setdefault('bound', 'about')
        if rec['bound'] not in ('about', 'at-most', 'at-least'):
            raise RecordError(f'figure {name!r}: bound {rec["bound"]!r} is none of about, at-most, at-least')
        for need in rec['needs']:
            if need not in KNOWN_NEEDS:
                raise RecordError(f'figure {name!r}: unknown need {need!r} (known: {", ".join(KNOWN_NEEDS)})')
        if rec['parse'] not in ('cpu', 'wall'):
            try:
                groups = re.compile(rec['parse']).groups
            except re.error as e:
                raise RecordError(f'figure {name!r}: parse pattern {rec["parse"]!r}: {e}') from None
            if groups != 1:
                raise RecordError(f'figure {name!r}: parse pattern {rec["parse"]!r} must have exactly one group')
        if rec['tolerance'] < 0:
            raise RecordError(f'figure {name!r}: tolerance {rec["tolerance"]} is negative')
        out.append(rec)
    return out


BASE = '''[[figure]]
id = "x"
what = "a count"
command = "echo 'total 42 steps'"
parse = 'total (\\d+) steps'
claimed = 42
unit = "steps"
tolerance = 0
minutes = 0.01
taken = "2026-11-28"
reference = "absolute"
'''


def extract(pattern, output, scale=1.0):
    r"""The number the pattern's group captures in output (the last match), times scale.

    Thin spaces and commas inside the number are dropped.

    >>> extract(r'solves +\d+ \(largest \d+\), (\d+) iterations', 'solves     18 (largest 4), 3 iterations/pivots')
    3.0
    >>> extract(r'prox,solved,\d+,[^,]+,([0-9.e+-]+)', 'a\nCapsules,fc3d,828,prox,solved,13,3.4e-7,1.5e-2\n', 1e3)
    15.0
    >>> extract(r'error (\S+)', 'no such line')
    Traceback (most recent call last):
    ...
    RecordError: pattern 'error (\\S+)' not found in the output
    """
    matches = re.findall(pattern, output, flags=re.MULTILINE)
    if not matches:
        raise RecordError(f'pattern {pattern!r} not found in the output')
    text = matches[-1].replace('\u2009', '').replace(',', '').replace(' ', '')
    try:
        return float(text) * scale
    except ValueError:
        raise RecordError(f'pattern {pattern!r} captured {text!r}, not a number') from None


def judge(claimed, measured, tolerance, bound='about'):
    """The ratio measured/claimed and whether it is within the relative tolerance.

    A claim "at most" (a limit such as "under a minute") is only off above it, one "at least"
    only below it.

    >>> judge(0.150, 0.155, 0.3)
    (1.0333333333333334, True)
    >>> judge(10, 12, 0)
    (1.2, False)
    >>> judge(0, 0, 0)
    (1.0, True)
    >>> judge(60, 20, 0, 'at-most'), judge(60, 61, 0, 'at-most')
    ((0.3333333333333333, True), (1.0166666666666666, False))
    """
    if claimed == 0:
        return (1.0 if measured == 0 else float('inf')), measured == 0
    ratio = measured / claimed
    if bound == 'at-most':
        return ratio, ratio <= 1.0 + tolerance + 1e-12
    if bound == 'at-least':
        return ratio, ratio >= 1.0 - tolerance - 1e-12
    return ratio, abs(ratio - 1.0) <= tolerance + 1e-12


def cross_check(recs, page):
    """Lines naming the records docs/performance.md does not cite as `[id]` (a warm-start
    table's `[warm-SCENE]` covers every warm-/cold- record) and the `[id]`s it cites that no
    record has; empty when the page and the records agree."""
    text = open(page, encoding='utf-8').read()
    cited = set(re.findall(r'`\[([a-z0-9.-]+)\]`', text))
    out = []
    for r in recs:
        i = r['id']
        if i not in cited and not (re.match(r'(warm|cold)-', i) and '[warm-SCENE]' in text) \
                and not (i.startswith('dense-small-') and '[dense-small-*]' in text):
            out.append(f'record {i!r} is not cited as `[{i}]` in {os.path.relpath(page)}')
    ids = {r['id'] for r in recs}
    out += [f'{os.path.relpath(page)} cites `[{c}]`, which no record has' for c in sorted(cited - ids - {'id'})]
    return out


def places():
    target = os.environ.get('CARGO_TARGET_DIR', os.path.join(ROOT, 'target'))
    return {
        'perp': os.environ.get('PERP', os.path.join(target, 'release', 'perp')),
        'suites': os.environ.get('PERP_SUITES', os.path.join(os.path.dirname(ROOT), 'shared', 'suites')),
        'sicbench': os.environ.get('SICBENCH', '/tmp/siconos-peer/sicbench'),
        'peer_python': os.environ.get('PEER_PYTHON', os.path.expanduser('~/peer-venv/bin/python')),
        'root': ROOT,
    }


def missing(rec, where, cache):
    """The first need of rec this machine lacks, with how to provide it, or None."""
    if '{perp}' in rec['command'] and not os.access(where['perp'], os.X_OK):
        return f'the release binary {where["perp"]} (cargo build --release, or PERP=...)'
    for need in rec['needs']:
        if need in cache:
            ok = cache[need]
        elif need == 'suites':
            ok = os.path.isdir(where['suites'])
        elif need == 'sicbench':
            ok = os.access(where['sicbench'], os.X_OK)
        elif need == 'peer-venv':
            ok = os.access(where['peer_python'], os.X_OK) and subprocess.run(
                [where['peer_python'], '-c', 'import mujoco, pybullet'],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        elif need == 'python-perp':
            ok = subprocess.run([sys.executable, '-c', 'import perp'], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode == 0
        elif need == 'cargo':
            ok = shutil.which('cargo') is not None
        cache[need] = ok
        if not ok:
            return {'suites': f'suites ({where["suites"]}, or PERP_SUITES=...)',
                    'sicbench': f'Siconos sicbench ({where["sicbench"]}, or SICBENCH=...)',
                    'peer-venv': f'a peer venv with mujoco and pybullet ({where["peer_python"]}, or PEER_PYTHON=...)',
                    'python-perp': 'the perp Python package (pip install ./python)',
                    'cargo': 'cargo'}[need]
    return None


OUTPUTS = {}  # command template -> output, for figures that read one run's output (a table)


def run_once(rec, where):
    key = rec['command']
    if rec['parse'] not in ('cpu', 'wall') and rec['repeat'] == 1 and key in OUTPUTS:
        return extract(rec['parse'], OUTPUTS[key], rec['scale'])
    with tempfile.TemporaryDirectory(prefix='perp-fig-') as tmp:
        cmd = rec['command'].format(tmp=tmp, **where)
        before = os.times()
        t0 = time.perf_counter()
        p = subprocess.run(['bash', '-c', cmd], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors='replace')
        wall = time.perf_counter() - t0
        after = os.times()
    if p.returncode not in rec['ok']:
        tail = '\n'.join(p.stdout.strip().splitlines()[-3:])
        raise RecordError(f'exit status {p.returncode}: {tail}')
    if rec['parse'] == 'cpu':
        return (after.children_user - before.children_user
                + after.children_system - before.children_system) * rec['scale']
    if rec['parse'] == 'wall':
        return wall * rec['scale']
    if rec['repeat'] == 1:
        OUTPUTS[key] = p.stdout
    return extract(rec['parse'], p.stdout, rec['scale'])


def fmt(x):
    if x == int(x) and abs(x) < 1e9:
        return str(int(x))
    if x == 0 or 1e-3 <= abs(x) < 1e6:
        return f'{x:.4g}'
    return f'{x:.3e}'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('ids', nargs='*')
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--quick', action='store_true', help='only figures under a minute')
    ap.add_argument('--tag', action='append', default=[])
    ap.add_argument('--all', action='store_true')
    ap.add_argument('--strict', action='store_true', help='exit 1 when a figure is OFF')
    ap.add_argument('--records', default=RECORDS)
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    if a.self_test:
        import doctest
        failed, tried = doctest.testmod(optionflags=doctest.ELLIPSIS)
        recs = parse_records(open(a.records, encoding='utf-8').read())
        print(f'{tried} doctests, {failed} failed; {len(recs)} records in {os.path.relpath(a.records)} parse')
        unmatched = cross_check(recs, os.path.join(ROOT, 'docs', 'performance.md'))
        for line in unmatched:
            print(line)
        sys.exit(1 if failed or unmatched else 0)
    try:
        recs = parse_records(open(a.records, encoding='utf-8').read())
    except RecordError as e:
        sys.exit(f'{a.records}: {e}')
    known = {r['id'] for r in recs}
    for i in a.ids:
        if i not in known:
            sys.exit(f'unknown figure {i!r}; scripts/figures.py --list shows them')
    sel = [r for r in recs if (a.all or (a.quick and r['minutes'] < 1) or r['id'] in a.ids
                               or set(a.tag) & set(r['tags']) or a.list)]
    if a.list:
        print(f'{"id":34} {"min":>5}  {"needs":22} {"claimed":>12} unit')
        for r in sel:
            print(f'{r["id"]:34} {r["minutes"]:5.1f}  {",".join(r["needs"]) or "-":22} '
                  f'{fmt(r["claimed"]):>12} {r["unit"]}  [{",".join(r["tags"])}]')
        print(f'{len(sel)} figures, {sum(r["minutes"] for r in sel):.0f} minutes in all; '
              f'{sum(r["minutes"] < 1 for r in sel)} under a minute (--quick)')
        return
    if not sel:
        sys.exit('no figure selected: give IDs, --tag, --quick, --all or --list')
    where, cache, errors, off = places(), {}, 0, 0
    print(f'{"id":34} {"claimed":>11} {"measured":>11} {"unit":10} {"m/c":>6} {"tol":>5}  verdict')
    for r in sel:
        head = f'{r["id"]:34} {fmt(r["claimed"]):>11}'
        need = missing(r, where, cache)
        if need:
            print(f'{head} {"":>11} {r["unit"]:10} {"":>6} {"":>5}  skipped: needs {need}', flush=True)
            continue
        try:
            vals = [run_once(r, where) for _ in range(r['repeat'])]
        except RecordError as e:
            errors += 1
            print(f'{head} {"":>11} {r["unit"]:10} {"":>6} {"":>5}  error: {e}', flush=True)
            continue
        m = statistics.median(vals)
        ratio, ok = judge(r['claimed'], m, r['tolerance'], r['bound'])
        off += not ok
        verdict = 'ok' if ok else 'OFF'
        if r['repeat'] > 1:
            verdict += f' (median of {r["repeat"]})'
        print(f'{head} {fmt(m):>11} {r["unit"]:10} {ratio:6.2f} {r["tolerance"]:5.2f}  {verdict}', flush=True)
    sys.exit(1 if errors or (a.strict and off) else 0)


if __name__ == '__main__':
    main()
