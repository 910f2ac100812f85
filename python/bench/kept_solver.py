"""Per-call time of a kept ``perp.Solver`` against the one-shot ``perp.solve_friction``, on
the same small dense problems, in interleaved blocks; prints the medians and their ratio.

    python python/bench/kept_solver.py [ROUNDS]
"""

import statistics
import sys
import time

import numpy as np

import perp

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
rng = np.random.default_rng(7)
for nc in (1, 4):
    n = 3 * nc
    j = rng.uniform(-1, 1, (n, n + 3))
    w = j @ j.T + 0.1 * np.eye(n)
    q = np.tile([-1.0, 0.3, -0.2], nc)
    for name in ("nsgs", "prox"):
        kept = perp.Solver(name)
        times = {"one-shot": [], "kept": []}
        for r in range(rounds):
            for side in ("one-shot", "kept") if r % 2 == 0 else ("kept", "one-shot"):
                t = time.perf_counter()
                for _ in range(2000):
                    if side == "one-shot":
                        perp.solve_friction(w, q, 0.5, solver=name)
                    else:
                        kept.solve_friction(w, q, 0.5)
                times[side].append((time.perf_counter() - t) / 2000 * 1e6)
        one, k = statistics.median(times["one-shot"]), statistics.median(times["kept"])
        print(f"{name:5s} nc={nc}  one-shot {one:6.1f} us  kept {k:6.1f} us  ratio {k / one:.2f}")
