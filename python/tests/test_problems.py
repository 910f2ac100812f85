"""Issue 34, item 4: the MLCP, box-LCP and NCP built from arrays (and Python callables),
solved by the same calls as the LCP and the frictional problem, with known answers."""

import numpy as np
import pytest

import perp

try:
    import scipy.sparse as sp
except ImportError:  # scipy is a test extra; the sparse cases are skipped without it
    sp = None

# A u + C v + a = 0, w = D u + B v + b, 0 <= v ⊥ w >= 0 with one u and one v:
#   2u + v - 4 = 0,  w = -u + 2v - 1.
# v > 0 and w = 0: 2u + v = 4, -u + 2v = 1, so u = 7/5, v = 6/5 (> 0: the answer).
MLCP = dict(A=[[2.0]], C=[[1.0]], D=[[-1.0]], B=[[2.0]], a=[-4.0], b=[-1.0])


@pytest.mark.parametrize("solver", ["fb-newton", "bdiff-newton", "schur-lemke"])
def test_a_2x2_mlcp_solved_by_hand(solver):
    res = perp.solve_mlcp(**MLCP, solver=solver, tol=1e-12)
    assert res.solved and res.kind == "mlcp" and res.solver == solver
    assert np.allclose(res.z, [7 / 5, 6 / 5], atol=1e-10)
    assert np.allclose(res.w, [0.0, 0.0], atol=1e-10)


def test_an_mlcp_with_its_complementary_variable_at_zero():
    # b = +1 instead: w = -u + 2v + 1; v = 0 gives u = 2 and w = -1 < 0, so v > 0 again...
    # take D = +1: w = u + 2v - 1; v > 0 would need u = 7/3, v = -2/3 < 0: so v = 0, u = 2,
    # w = 1 >= 0.
    res = perp.solve_mlcp([[2.0]], [[1.0]], [[1.0]], [[2.0]], [-4.0], [-1.0], tol=1e-12)
    assert res.solved and np.allclose(res.z, [2.0, 0.0], atol=1e-10)
    assert np.allclose(res.w, [0.0, 1.0], atol=1e-10)


def test_the_mlcp_problem_object_its_matrix_and_a_kept_solver():
    p = perp.mlcp(**MLCP)
    assert p.kind == "mlcp" and p.n == 2 and p.family == "mcp" and p.default_solver == "fb-newton"
    assert np.array_equal(p.dense_matrix(), [[2.0, 1.0], [-1.0, 2.0]])
    assert np.array_equal(p.q, [-4.0, -1.0])
    lo, hi = p.bounds
    assert lo[0] == -np.inf and lo[1] == 0.0 and np.all(hi == np.inf)
    a = p.solve(tol=1e-12)
    kept = perp.Solver("fb-newton", family="mcp", tol=1e-12)
    b = kept.solve(p)
    c = kept.solve_mlcp(**MLCP)
    for r in (a, b, c):
        assert r.solved and np.allclose(r.z, [7 / 5, 6 / 5], atol=1e-10)
    assert np.array_equal(b.z, c.z)


@pytest.mark.skipif(sp is None, reason="needs scipy")
def test_an_mlcp_of_sparse_blocks_equals_the_dense_one():
    blocks = {k: sp.csr_matrix(np.array(MLCP[k])) for k in "ACDB"}
    res = perp.solve_mlcp(blocks["A"], blocks["C"], blocks["D"], blocks["B"], MLCP["a"], MLCP["b"], tol=1e-12)
    assert res.solved and np.allclose(res.z, [7 / 5, 6 / 5], atol=1e-10)
    assert np.array_equal(perp.mlcp(blocks["A"], MLCP["C"], MLCP["D"], MLCP["B"], MLCP["a"], MLCP["b"]).dense_matrix(),
                          [[2.0, 1.0], [-1.0, 2.0]])


def test_mlcp_errors_name_the_argument_and_value():
    bad = dict(MLCP, C=[[1.0, 2.0]])
    with pytest.raises(perp.Error, match=r"C: has shape \(1, 2\), expected \(1, 1\)"):
        perp.solve_mlcp(**bad)
    with pytest.raises(perp.Error, match=r"a\[0\] = NaN"):
        perp.solve_mlcp(**dict(MLCP, a=[np.nan]))
    with pytest.raises(perp.Error, match=r"B\[0, 0\] = inf"):
        perp.mlcp(**dict(MLCP, B=[[np.inf]]))
    # A solver of another family: the family message, listing the MCP solvers.
    with pytest.raises(perp.Error, match="lemke is an LCP solver; for an? .*fb-newton"):
        perp.solve_mlcp(**MLCP, solver="lemke")
    with pytest.raises(perp.Error, match="nsgs is a frictional-contact solver; for an? .*fb-newton"):
        perp.mlcp(**MLCP).solve(solver="nsgs")


# Box-LCP: M = [[2, 1], [1, 2]], q = (-5, -6); unbounded answer z = (4/3, 7/3).
M, Q = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-5.0, -6.0])


@pytest.mark.parametrize("solver", ["pgs", "psor", "fb-newton", "bdiff-newton"])
def test_a_box_lcp_with_active_bounds(solver):
    # z0 <= 1 binds: z0 = 1 (w0 = 2 + 2.5 - 5 = -0.5 <= 0), z1 = 2.5 free (w1 = 0).
    res = perp.solve_lcp(M, Q, solver=solver, upper=[1.0, 10.0], tol=1e-10, max_iter=10000)
    assert res.solved, res
    assert np.allclose(res.z, [1.0, 2.5], atol=1e-8) and np.allclose(res.w, [-0.5, 0.0], atol=1e-8)
    # Both kinds of bound: z0 = 0.5 at its upper bound (w0 = 1 + 3 - 5 = -1 <= 0), z1 = 3 at
    # its lower one (w1 = 0.5 + 6 - 6 = 0.5 >= 0).
    res = perp.solve_lcp(M, Q, solver=solver, lower=[0.0, 3.0], upper=[0.5, np.inf], tol=1e-10, max_iter=10000)
    assert res.solved, res
    assert np.allclose(res.z, [0.5, 3.0], atol=1e-8) and np.allclose(res.w, [-1.0, 0.5], atol=1e-8)


def test_box_lcp_scalars_problem_object_and_kept_solver():
    p = perp.lcp(M, Q, lower=-1.0, upper=1.0)  # a number for every entry: z = (1, 1)
    lo, hi = p.bounds
    assert np.array_equal(lo, [-1.0, -1.0]) and np.array_equal(hi, [1.0, 1.0])
    assert perp.lcp(M, Q).bounds is None
    a = p.solve(solver="pgs", tol=1e-10)
    b = perp.Solver("pgs", tol=1e-10).solve_lcp(M, Q, lower=-1.0, upper=1.0)
    for r in (a, b):
        assert r.solved and np.allclose(r.z, [1.0, 1.0]) and np.allclose(r.w, [-2.0, -3.0])


def test_box_lcp_errors_name_the_bound_and_value():
    with pytest.raises(perp.Error, match=r"lower\[1\] = 3 > upper\[1\] = 2"):
        perp.solve_lcp(M, Q, solver="pgs", lower=[0.0, 3.0], upper=[1.0, 2.0])
    with pytest.raises(perp.Error, match=r"upper: has 3 entries, expected 2"):
        perp.solve_lcp(M, Q, solver="pgs", upper=[1.0, 2.0, 3.0])
    with pytest.raises(perp.Error, match=r"lower\[0\] = NaN"):
        perp.lcp(M, Q, lower=[np.nan, 0.0])
    with pytest.raises(perp.Error, match=r"lower = NaN"):
        perp.lcp(M, Q, lower=float("nan"))


# NCP: F(z) = (z0^3 - 8, z0 + z1 - 1) has the root z = (2, 0), F = (0, 1).
def F(z):
    return [z[0] ** 3 - 8.0, z[0] + z[1] - 1.0]


def J(z):
    return np.array([[3.0 * z[0] ** 2, 0.0], [1.0, 1.0]])


@pytest.mark.parametrize("solver", ["fb-newton", "bdiff-newton"])
@pytest.mark.parametrize("jac", [J, None], ids=["J", "finite-differences"])
def test_an_ncp_with_a_known_root(solver, jac):
    res = perp.solve_ncp(F, jac, x0=[1.0, 1.0], solver=solver, tol=1e-12)
    assert res.solved and res.kind == "ncp", res
    assert np.allclose(res.z, [2.0, 0.0], atol=1e-8) and np.allclose(res.w, [0.0, 1.0], atol=1e-8)


def test_an_mcp_with_bounds_a_problem_object_and_a_kept_solver():
    # upper z0 <= 1.5 binds: F0(1.5) = -4.625 <= 0; z1 = 0 with F1 = 0.5.
    res = perp.solve_ncp(F, J, lower=0.0, upper=[1.5, np.inf], tol=1e-12)
    assert res.solved and np.allclose(res.z, [1.5, 0.0]) and np.allclose(res.w, [1.5**3 - 8.0, 0.5])
    p = perp.ncp(F, J, lower=[0.0, 0.0])
    assert p.kind == "ncp" and p.n == 2 and p.dense_matrix() is None
    kept = perp.Solver("bdiff-newton", family="mcp", tol=1e-12)
    for r in (p.solve(tol=1e-12, history=True), kept.solve(p), kept.solve_ncp(F, J, lower=[0.0, 0.0])):
        assert r.solved and np.allclose(r.z, [2.0, 0.0], atol=1e-8)
    assert len(p.solve(tol=1e-12, history=True).history["errors"]) > 0


def test_ncp_errors_and_exceptions_raised_by_f():
    with pytest.raises(perp.Error, match="x0, lower, upper: give at least one"):
        perp.solve_ncp(F)
    with pytest.raises(perp.Error, match="F = 3: must be a callable"):
        perp.solve_ncp(3, x0=[0.0])
    with pytest.raises(perp.Error, match=r"lower\[0\] = 2 > upper\[0\] = 1"):
        perp.solve_ncp(F, lower=[2.0, 0.0], upper=[1.0, 1.0])

    def boom(z):
        raise RuntimeError("no F here")

    with pytest.raises(perp.Error, match="F raised RuntimeError: no F here") as e:
        perp.solve_ncp(boom, x0=[0.0, 0.0])
    assert isinstance(e.value.__cause__, RuntimeError)
    with pytest.raises(perp.Error, match=r"F\(z\): returned 3 values, n = 2"):
        perp.solve_ncp(lambda z: [0.0, 0.0, 0.0], x0=[0.0, 0.0])
    with pytest.raises(perp.Error, match=r"J\(z\): has shape \(1, 1\), expected \(2, 2\)"):
        perp.solve_ncp(F, lambda z: [[1.0]], x0=[1.0, 1.0])
    # The problem object raises the same, solve after solve (the failure does not stick).
    p = perp.ncp(boom, x0=[0.0])
    for _ in range(2):
        with pytest.raises(perp.Error, match="F raised RuntimeError"):
            p.solve()
    with pytest.raises(perp.Error, match="lemke is an LCP solver; for an? .*fb-newton"):
        perp.solve_ncp(F, J, x0=[1.0, 1.0], solver="lemke")


def test_version_and_the_stub_lists_every_public_name():
    import pathlib
    import re

    assert re.fullmatch(r"\d+\.\d+\.\d+.*", perp.__version__)
    stub = (pathlib.Path(perp.__file__).parent / "__init__.pyi").read_text()
    listed = set(re.findall(r'^    "([A-Za-z_]+)",$', stub.split("__all__ = [")[1].split("]")[0], re.M))
    assert listed == set(perp.__all__), set(perp.__all__) ^ listed
    for name in perp.__all__:
        if name != "__version__":
            assert re.search(rf"^(def|class) {name}\b", stub, re.M), f"{name} has no stub"
