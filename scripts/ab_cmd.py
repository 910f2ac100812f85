#!/usr/bin/env python3
"""Times two whole commands, interleaved, and prints their medians and the A/B ratios.

    scripts/ab_cmd.py [--ok CODES] RUNS 'COMMAND A' 'COMMAND B'

Runs A and B in turn RUNS times each (A B, then B A, alternating, after one unrecorded warm-up
run of each), each command split as a shell splits words and run without a shell, its output
discarded (`--ok 0,1` also accepts exit status 1, which `perp solve` and `perp simulate` return
when something was not solved). Per command it prints the min, median and max of the wall seconds (a monotonic
clock around the child) and of the CPU seconds (user + system of the finished child, from the
operating system's accounting), and the median of the pair-by-pair ratios A/B, which stays
meaningful when the machine's speed drifts during the call. A command that fails stops the
script with its exit status. Example (the previous build against this one):

    scripts/ab_cmd.py 9 'target/release/perp simulate woodpecker --dt 1e-5 --t-end 3' \\
        '../perp-old/target/release/perp simulate woodpecker --dt 1e-5 --t-end 3'
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
ok = {0}
if len(args) >= 2 and args[0] == '--ok':
    ok = {int(c) for c in args[1].split(',')}
    args = args[2:]
if len(args) != 3:
    sys.exit(__doc__)
runs = int(args[0])
cmds = {'A': shlex.split(args[1]), 'B': shlex.split(args[2])}


def run(argv):
    before = os.times()
    t = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = os.times()
    if p.returncode not in ok:
        sys.exit(f'{shlex.join(argv)} exited with {p.returncode}')
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


for side in 'AB':
    run(cmds[side])
res = {'A': [], 'B': []}
for r in range(runs):
    for side in ('AB' if r % 2 == 0 else 'BA'):
        res[side].append(run(cmds[side]))


def fmt(xs):
    return f'{min(xs):.4f} {statistics.median(xs):.4f} {max(xs):.4f}'


print('             min    median max')
for side in 'AB':
    print(f'{side} wall s     {fmt([w for w, _ in res[side]])}')
    print(f'{side} cpu s      {fmt([c for _, c in res[side]])}')
for k, name in ((0, 'wall'), (1, 'cpu')):
    ratios = [a[k] / b[k] for a, b in zip(res['A'], res['B']) if b[k] > 0]
    if ratios:
        print(f'A/B {name:5}    {fmt(ratios)}')
