"""What a friction law written in Python costs inside nsgs and prox.

Solves one random frictional problem (20 contacts, 3-D, W = A Aᵀ/n + 0.1 I, seeded) with the
built-in Coulomb cone and with the same law written in Python (`Scaled` of the tests, s = 1):
with its closed-form section projection and support point, and with its projection only
(section and support derived in Rust). The three variants run interleaved, `repeats` times
each; the medians are printed with their ratio to the built-in cone of the same run, and the
answers are checked to agree.

    python python/bench/cone_overhead.py [repeats]
"""

import statistics
import sys
import time

import numpy as np

import perp

sys.path.insert(0, __file__.rsplit("/bench/", 1)[0] + "/tests")
from test_perp import Scaled, ScaledClosedForms, random_problem  # noqa: E402


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    w, q, mu = random_problem(20, seed=11)
    variants = {
        "built-in coulomb": None,
        "python, closed forms": ScaledClosedForms(1.0),
        "python, projection only": Scaled(1.0),
    }
    for solver in ("nsgs", "prox"):
        times = {k: [] for k in variants}
        answers = {}
        for _ in range(repeats):
            for name, cone in variants.items():
                t0 = time.perf_counter()
                res = perp.solve_friction(w, q, mu, solver=solver, cone=cone, tol=1e-8)
                times[name].append(time.perf_counter() - t0)
                assert res.solved, (name, res)
                answers[name] = (res.r, res.iterations)
        ref = statistics.median(times["built-in coulomb"])
        for name in variants:
            med = statistics.median(times[name])
            r, it = answers[name]
            diff = np.abs(r - answers["built-in coulomb"][0]).max()
            print(
                f"{solver:5} {name:24} median {med * 1e3:9.3f} ms  ratio {med / ref:8.1f}x"
                f"  iterations {it:4}  max|r - r_builtin| {diff:.1e}"
            )


if __name__ == "__main__":
    main()
