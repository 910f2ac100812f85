"""Tests of the perp Python package: known answers, files, Python friction laws, errors."""

import math
import os

import numpy as np
import pytest

import perp
from peers import ROOT, suites


# ---------------------------------------------------------------------------- LCP


@pytest.mark.parametrize("solver", perp.solvers("lcp"))
def test_every_lcp_solver_finds_the_2x2_answer(solver):
    # 2 z1 + z2 = 5, z1 + 2 z2 = 6: z = (4/3, 7/3), w = 0.
    res = perp.solve_lcp(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-5.0, -6.0]), solver=solver)
    assert res.status == "solved" and res.solved, res
    assert res.solver == solver
    np.testing.assert_allclose(res.z, [4 / 3, 7 / 3], atol=1e-7)
    np.testing.assert_allclose(res.w, [0.0, 0.0], atol=1e-7)
    assert res.error <= 1e-8 and res.iterations >= 1 and res.seconds >= 0.0
    assert isinstance(res.z, np.ndarray) and res.z.dtype == np.float64


def test_lcp_with_an_inactive_row_and_plain_lists():
    res = perp.solve_lcp([[1, 0], [0, 1]], [-1, 2])
    np.testing.assert_allclose(res.z, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(res.w, [0.0, 2.0], atol=1e-12)
    with pytest.raises(AttributeError, match="z and w"):
        res.r


def test_lcp_limits_and_warm_start():
    m = np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]])
    q = np.array([-1.0, -2.0, -3.0])
    one = perp.solve_lcp(m, q, solver="pgs", tol=1e-14, max_iter=1)
    assert one.status == "max_iterations" and one.iterations == 1
    full = perp.solve_lcp(m, q, solver="pgs", tol=1e-12)
    assert full.solved
    np.testing.assert_allclose(m @ full.z + q, full.w, atol=1e-10)
    warm = perp.solve_lcp(m, q, solver="pgs", tol=1e-12, warm=full.z)
    assert warm.solved and warm.iterations <= 2
    psor = perp.solve_lcp(m, q, solver="psor", params={"omega": 1.2})
    np.testing.assert_allclose(psor.z, full.z, atol=1e-7)


class CsrLike:
    """Not scipy: just the CSR attributes."""

    def __init__(self, dense):
        self.shape = dense.shape
        self.indptr, self.indices, self.data = [0], [], []
        for row in dense:
            for j, v in enumerate(row):
                if v != 0:
                    self.indices.append(j)
                    self.data.append(v)
            self.indptr.append(len(self.indices))


def test_sparse_input_with_or_without_scipy():
    m = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    q = np.array([-5.0, -6.0, 3.0])
    ref = perp.solve_lcp(m, q)
    duck = perp.solve_lcp(CsrLike(m), q)
    np.testing.assert_allclose(duck.z, ref.z, atol=1e-10)
    np.testing.assert_allclose(ref.z, [4 / 3, 7 / 3, 0.0], atol=1e-10)
    sp = pytest.importorskip("scipy.sparse")
    for conv in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        res = perp.solve_lcp(conv(m), q)
        np.testing.assert_allclose(res.z, ref.z, atol=1e-10)


# --------------------------------------------------------------- frictional contact

STICK = (np.eye(3), np.array([-1.0, 0.1, 0.0]), 0.5, [1.0, -0.1, 0.0], [0.0, 0.0, 0.0])
# |q_T| = 2 > mu r_N: slides along x, r_T = -mu r_N e_x, u_T = q_T + r_T.
SLIDE = (np.eye(3), np.array([-1.0, 2.0, 0.0]), 0.5, [1.0, -0.5, 0.0], [0.0, 1.5, 0.0])


@pytest.mark.parametrize("solver", ["nsgs", "prox", "ac-newton", "fb-newton"])
@pytest.mark.parametrize("case", [STICK, SLIDE], ids=["stick", "slide"])
def test_one_contact_sticking_and_sliding(solver, case):
    w, q, mu, r, u = case
    res = perp.solve_friction(w, q, mu, solver=solver)
    assert res.solved, res
    np.testing.assert_allclose(res.r, r, atol=1e-7)
    np.testing.assert_allclose(res.u, u, atol=1e-7)
    assert res.kind == "fc3d" and res.physical_error is not None
    np.testing.assert_array_equal(res.z, res.r)


# Issue 36: a particle squeezed between two walls that both push in has no solution; the
# reactions grow without bound while u_N stays at -1. prox (the default) used to call
# r = 1e8 "solved".
SQUEEZED_H = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [-1, 0, 0], [0, 1, 0], [0, 0, -1]])


@pytest.mark.parametrize("solver", ["prox", "ac-newton", "fb-newton", "admm", "apgd", "nsgs"])
def test_a_problem_without_a_solution_is_not_solved(solver):
    w = SQUEEZED_H @ SQUEEZED_H.T
    res = perp.solve_friction(w, [-1.0, 0, 0, -1.0, 0, 0], [0.3, 0.3], solver=solver, tol=1e-8)
    assert not res.solved and res.status != "solved", res
    if solver in ("prox", "ac-newton", "admm", "apgd"):
        assert res.status == "diverged", res


def test_two_dimensional_contact():
    # u = r + q, q = (-1, 3), mu = 0.2: slides, r = (1, -0.2).
    res = perp.solve_friction(np.eye(2), [-1.0, 3.0], [0.2], dim=2, solver="nsgs")
    assert res.solved and res.kind == "fc2d"
    np.testing.assert_allclose(res.r, [1.0, -0.2], atol=1e-8)


def coulomb_projection(x, m):
    """Euclidean projection onto {|x_T| <= m x_N} (any dimension)."""
    n, t = x[0], np.linalg.norm(x[1:])
    if t <= m * n:
        return np.array(x, dtype=float)
    if m * t <= -n:
        return np.zeros_like(x)
    a = (n + m * t) / (1 + m * m)
    return np.concatenate(([a], m * a * x[1:] / t))


class Scaled(perp.Cone):
    """Coulomb's cone with the coefficient scaled by s: only the projection."""

    dim = 3

    def __init__(self, s):
        self.s = s
        self.calls = 0

    def project(self, x, mu):
        self.calls += 1
        return coulomb_projection(x, mu * self.s)


class ScaledClosedForms(Scaled):
    """The same law with its section projection and support point given."""

    def project_section(self, t, xi, mu):
        r = mu * self.s * max(xi, 0.0)
        nt = np.linalg.norm(t)
        return t if nt <= r else t * (r / nt)

    def support(self, v, mu):
        nv = np.linalg.norm(v)
        return np.zeros_like(v) if nv == 0 else -mu * self.s * v / nv


class ScaledWithSocMap(Scaled):
    """The same law with its map to the Lorentz cone, for fb-newton."""

    def soc_map(self, mu):
        m = mu * self.s
        return ([m, 1.0, 1.0], [1.0, m, m]) if m > 0 else None


def random_problem(contacts, seed):
    rng = np.random.default_rng(seed)
    n = 3 * contacts
    a = rng.standard_normal((n, n + 2))
    w = a @ a.T / n + 0.1 * np.eye(n)
    q = rng.standard_normal(n)
    q[::3] = -np.abs(q[::3]) - 0.2  # pressed into contact
    mu = rng.uniform(0.2, 0.8, contacts)
    return w, q, mu


@pytest.mark.parametrize("law", [Scaled, ScaledClosedForms])
@pytest.mark.parametrize("solver", ["nsgs", "prox"])
def test_a_python_cone_inside_the_solvers_matches_the_builtin_cone(law, solver):
    w, q, mu = random_problem(4, seed=7)
    s = 0.6
    builtin = perp.solve_friction(w, q, mu * s, solver=solver, tol=1e-10)
    cone = law(s)
    mine = perp.solve_friction(w, q, mu, solver=solver, cone=cone, tol=1e-10)
    assert builtin.solved and mine.solved, (builtin, mine)
    assert cone.calls > 0
    np.testing.assert_allclose(mine.r, builtin.r, atol=1e-7)
    np.testing.assert_allclose(mine.u, w @ mine.r + q, atol=1e-10)
    # The answer obeys the scaled law: |r_T| <= s mu r_N, checked here in Python.
    r = mine.r.reshape(-1, 3)
    assert np.all(r[:, 0] >= -1e-9)
    assert np.all(np.linalg.norm(r[:, 1:], axis=1) <= s * mu * r[:, 0] + 1e-7)


@pytest.mark.parametrize("solver", perp.solvers("friction"))
def test_every_frictional_solver_takes_a_python_cone(solver):
    w, q, mu = random_problem(3, seed=5)
    builtin = perp.solve_friction(w, q, mu * 0.6, solver="nsgs", tol=1e-10)
    law = ScaledWithSocMap(0.6) if solver == "fb-newton" else Scaled(0.6)
    mine = perp.solve_friction(w, q, mu, solver=solver, cone=law, tol=1e-10)
    assert mine.solved, mine
    np.testing.assert_allclose(mine.r, builtin.r, atol=1e-7)
    if solver == "fb-newton":
        with pytest.raises(perp.Error, match="ellipsoidal"):
            perp.solve_friction(w, q, mu, solver=solver, cone=Scaled(0.6))


def test_a_python_cone_per_contact_and_known_sliding_answer():
    w, q, mu, r, u = SLIDE
    res = perp.solve_friction(w, q, mu / 2, solver="nsgs", cone=[Scaled(2.0)])
    np.testing.assert_allclose(res.r, r, atol=1e-7)
    np.testing.assert_allclose(res.u, u, atol=1e-7)


class Broken(perp.Cone):
    dim = 3

    def project(self, x, mu):
        raise RuntimeError("the law is not finished")


class WrongLength(perp.Cone):
    dim = 3

    def project(self, x, mu):
        return [0.0, 0.0]


def test_errors_raised_by_a_python_cone_surface_as_perp_error():
    w, q, mu, _, _ = SLIDE
    for solver in ("nsgs", "prox"):
        with pytest.raises(perp.Error, match="raised RuntimeError: the law is not finished") as e:
            perp.solve_friction(w, q, mu, solver=solver, cone=Broken())
        assert isinstance(e.value.__cause__, RuntimeError)
    with pytest.raises(perp.Error, match="cone WrongLength: project returned 2 values, 3 expected"):
        perp.solve_friction(w, q, mu, solver="nsgs", cone=WrongLength())

    class NotAProjection(perp.Cone):
        dim = 3

        def project(self, x, mu):
            return [np.nan] * 3

    for solver in ("nsgs", "prox", "lemke-pyramid"):
        with pytest.raises(perp.Error, match="NotAProjection.*does not behave as a projection"):
            perp.solve_friction(w, q, mu, solver=solver, cone=NotAProjection())
    with pytest.raises(perp.Error, match="no integer attribute dim"):
        perp.solve_friction(w, q, mu, cone=object())

    class NoProjection:
        dim = 3

    with pytest.raises(perp.Error, match="no method project"):
        perp.solve_friction(w, q, mu, cone=NoProjection())
    with pytest.raises(perp.Error, match="is not defined"):
        perp.solve_friction(w, q, mu, solver="nsgs", cone=perp.Cone())
    with pytest.raises(perp.Error, match="cone"):

        class TwoD(Scaled):
            dim = 2

        perp.solve_friction(w, q, mu, cone=TwoD(1.0))
    with pytest.raises(perp.Error, match="2 friction laws given for 1 contacts"):
        perp.solve_friction(w, q, mu, cone=[Scaled(1.0), Scaled(1.0)])


# --------------------------------------------------------------------------- errors


def test_bad_input_raises_perp_error_naming_the_argument():
    assert issubclass(perp.Error, ValueError)
    m, q = np.eye(2), np.array([-1.0, -1.0])
    cases = [
        (lambda: perp.solve_lcp(np.ones((2, 3)), q), "M"),
        (lambda: perp.solve_lcp(m, [1.0, 2.0, 3.0]), "q"),
        (lambda: perp.solve_lcp(np.array([[1.0, np.nan], [0.0, 1.0]]), q), r"M\[0, 1\] = NaN"),
        (lambda: perp.solve_lcp(m, [np.inf, 0.0]), r"q\[0\]"),
        (lambda: perp.solve_lcp(m, q, solver="nope"), "valid names: lemke, pgs"),
        (lambda: perp.solve_lcp(m, q, solver="nsgs"), "nsgs"),
        (lambda: perp.solve_lcp(m, q, tol=-1.0), "tol"),
        (lambda: perp.solve_lcp(m, q, max_iter=0), "max_iter"),
        (lambda: perp.solve_lcp(m, q, time_limit=0.0), "time_limit"),
        (lambda: perp.solve_lcp(m, q, warm=[1.0]), "warm"),
        (lambda: perp.solve_lcp(m, q, solver="psor", params={"omega": 3}), "omega"),
        (lambda: perp.solve_lcp(m, "ab"), "q"),
        (lambda: perp.solve_lcp([[1.0, 2.0], [3.0]], q), "M"),
        (lambda: perp.solve_friction(np.eye(3), [-1.0, 0.0, 0.0], -0.5), "mu"),
        (lambda: perp.solve_friction(np.eye(4), np.zeros(4), 0.5), "dim"),
        (lambda: perp.solve_friction(np.eye(3), np.zeros(3), 0.5, dim=7), "dim"),
        (lambda: perp.solve_friction(np.eye(3), np.zeros(3), 0.5, solver="lemke"), "lemke is an LCP solver; for a frictional-contact problem use one of nsgs"),
        (lambda: perp.solvers("quantum"), "kind"),
        (lambda: perp.read("/nonexistent/problem.dat"), "problem.dat"),
        (lambda: perp.simulate("no-such-scene"), "no-such-scene"),
        (lambda: perp.simulate("bouncing-ball", formulation="xx"), "formulation"),
        (lambda: perp.simulate("bouncing-ball", every=0), "every"),
        (lambda: perp.simulate("ball-pile", size=-1), "size"),
        (lambda: perp.simulate("bouncing-ball", size=3), "size"),
        (lambda: perp.simulate("bouncing-ball", dt=-1.0), "dt"),
    ]
    for call, pattern in cases:
        with pytest.raises(perp.Error, match=pattern):
            call()


class SparseLike:
    def __init__(self, indptr, indices, data, shape):
        self.indptr, self.indices, self.data, self.shape = indptr, indices, data, shape


def test_malformed_sparse_input_is_an_error():
    q = [-1.0, -1.0]
    with pytest.raises(perp.Error, match="indices"):
        perp.solve_lcp(SparseLike([0, 1, 2], [0, 5], [1.0, 1.0], (2, 2)), q)
    with pytest.raises(perp.Error, match="indptr"):
        perp.solve_lcp(SparseLike([0, 2], [0, 1], [1.0, 1.0], (2, 2)), q)
    with pytest.raises(perp.Error, match="data"):
        perp.solve_lcp(SparseLike([0, 1, 2], [0, 1], [1.0, np.nan], (2, 2)), q)


# ------------------------------------------------------------------------ catalogue


def test_solvers_lists_the_catalogue():
    assert perp.solvers("lcp")[0] == "lemke"
    assert perp.solvers("friction") == ["nsgs", "ac-newton", "fb-newton", "nm-newton", "prox", "lemke-pyramid", "admm", "apgd"]
    assert "schur-lemke" in perp.solvers("mcp")
    every = perp.solvers()
    assert len(every) == len(set(every)) and {"lemke", "nsgs", "bdiff-newton"} <= set(every)


# ---------------------------------------------------------------------------- files


@pytest.fixture
def siconos():
    d = suites()
    if d is None:
        pytest.skip("no peer suites: set PERP_SUITES or put shared/suites beside the repository")
    return d / "siconos"


def test_a_siconos_lcp_file_read_and_solved(siconos):
    p = perp.read(siconos / "lcp" / "lcp_CPS_1.dat")
    assert p.kind == "lcp" and p.family == "lcp" and p.default_solver == "lemke"
    res = p.solve(tol=1e-10)
    assert res.solved, res
    m, q = p.dense_matrix(), p.q
    assert m.shape == (p.n, p.n) and len(res.z) == p.n
    # Checked here, not by perp's own measure: z >= 0, w = M z + q >= 0, z . w = 0.
    w = m @ res.z + q
    np.testing.assert_allclose(res.w, w, atol=1e-9)
    assert res.z.min() >= -1e-12 and w.min() >= -1e-9 and abs(res.z @ w) <= 1e-9


def test_a_siconos_friction_file_read_and_solved(siconos):
    p = perp.read(str(siconos / "fc3d" / "FC3D_Example1.dat"))
    assert p.kind == "fc3d" and p.dim == 3 and "nsgs" in p.solvers
    res = p.solve(solver="nsgs", tol=1e-10)
    assert res.solved, res
    w, q, mu = p.dense_matrix(), p.q, p.mu
    np.testing.assert_allclose(res.u, w @ res.r + q, atol=1e-9)
    r = res.r.reshape(-1, 3)
    u = res.u.reshape(-1, 3)
    assert np.all(r[:, 0] >= -1e-10) and np.all(u[:, 0] >= -1e-8)
    assert np.all(np.linalg.norm(r[:, 1:], axis=1) <= mu * r[:, 0] + 1e-8)
    prox = p.solve(tol=1e-10)
    assert prox.solver == "prox" and prox.solved
    np.testing.assert_allclose(prox.r, res.r, atol=1e-6)


def test_an_fclib_file_is_read(siconos):
    p = perp.read(siconos / "fc3d" / "Box_Stacks-i0122-82-5.hdf5")
    assert p.kind in ("fc3d", "gfc3d") and p.n > 0 and p.family == "friction"


def test_an_mlcp_file_read_and_solved(siconos):
    p = perp.read(siconos / "mlcp" / "m2n1_mlcp.dat")
    assert p.kind == "mlcp" and len(p.q) == p.n
    assert p.dense_matrix().shape == (p.n, p.n)  # issue 34: was None for an MLCP
    res = p.solve()
    assert res.solved and len(res.z) == p.n


def test_json_files_read_and_solved(tmp_path):
    import json

    lcp = tmp_path / "two.json"
    lcp.write_text(json.dumps({"kind": "lcp", "n": 2, "M": [[2, 1], [1, 2]], "q": [-5, -6]}))
    p = perp.read(lcp)
    assert (p.kind, p.n) == ("lcp", 2)
    np.testing.assert_allclose(p.solve().z, [4 / 3, 7 / 3], atol=1e-10)
    fc = tmp_path / "slide.json"
    w, q, mu, r, _ = SLIDE
    fc.write_text(json.dumps({"kind": "fc3d", "n": 3, "M": w.tolist(), "q": q.tolist(), "mu": [mu]}))
    p = perp.read(str(fc))
    assert (p.kind, p.dim) == ("fc3d", 3)
    np.testing.assert_allclose(p.solve(solver="nsgs").r, r, atol=1e-8)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "lcp", "n": 2, "M": [[2, 1], [1, 2]], "q": [-5, "x"]}))
    with pytest.raises(perp.Error, match=r"q\[1\]"):
        perp.read(bad)
    with pytest.raises(perp.Error, match="kind"):
        perp.read(lcp, kind="fc")


# --------------------------------------------------------------------------- scenes


def test_simulate_block_on_incline_accelerates_as_coulomb_says():
    assert "block-incline" in perp.scenes()
    sim = perp.simulate("block-incline", t_end=0.5)
    assert sim.unsolved == 0 and sim.steps > 0 and len(sim) == sim.data.shape[0]
    assert sim.columns[0] == "t" and sim.columns[-2:] == ["iterations", "factorizations"]
    assert sim.factorizations.shape == sim.iterations.shape == (len(sim),)
    assert sim.q.shape == (len(sim), 3) and sim.u.shape == (len(sim), 3)
    np.testing.assert_array_equal(sim["v_x"], sim.u[:, 0])
    a = 9.81 * (math.sin(math.radians(30)) - 0.3 * math.cos(math.radians(30)))
    t, v = sim.t, sim["v_x"]
    assert np.all(np.diff(t) > 0)
    np.testing.assert_allclose(v[-1], a * t[-1], rtol=1e-3)
    with pytest.raises(KeyError):
        sim["nope"]


def test_simulate_in_velocity_space_convex_and_compliant():
    # The convex relaxation lifts a sliding block off the incline at v_N = μ v_T (its first
    # step); the exact cones keep it on the slope.
    exact = perp.simulate("block-incline", t_end=0.001)
    convex = perp.simulate("block-incline", t_end=0.001, formulation="convex")
    assert convex.unsolved == 0
    assert abs(exact["v_y"][-1]) <= 1e-12
    np.testing.assert_allclose(convex["v_y"][-1], 0.3 * convex["v_x"][-1], rtol=1e-7)
    compliant = perp.simulate("box-stack", 1, t_end=0.1, formulation="compliant")
    assert compliant.unsolved == 0 and compliant.steps == 10
    with pytest.raises(perp.Error, match="formulation"):
        perp.simulate("block-incline", formulation="sap")


def test_simulate_compliant_params_set_the_contact_model():
    # A box on four corners of stiffness k = 5e3 sinks by m g / (4k) = 4.9e-4 (m = 1), the
    # rigid default (bounded by the near-rigid limit) by less than half that.
    def rest(**kw):
        sim = perp.simulate("box-stack", 1, t_end=2.0, formulation="compliant", columns=["b0_z"], **kw)
        assert sim.unsolved == 0
        return sim["b0_z"][-1]

    soft = rest(params={"stiffness": 5e3, "dissipation": 0.05})
    rigid = rest()
    assert 0.5 * 9.81 / (4 * 5e3) < rigid - soft < 9.81 / (4 * 5e3)
    with pytest.raises(perp.Error, match="compliant: parameter sigma"):
        rest(params={"sigma": 0})
    with pytest.raises(perp.Error, match="compliant takes stiffness, dissipation, beta, sigma"):
        rest(params={"omega": 1.2})


def test_solve_global_matches_the_reduced_problem_and_its_known_answer():
    # A particle of mass 2 sliding on a plane (μ = 0.5): Coulomb gives r = (2, −1, 0),
    # v = (2.5, 0, 0) from the free velocity (3, 0, −1).
    M = 2.0 * np.eye(3)
    H = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    f = M @ np.array([3.0, 0.0, -1.0])
    b = np.zeros(3)
    for solver in ("global-ipm", "global-ac-newton", "nsgs"):
        res = perp.solve_global(M, H, f, b, 0.5, solver=solver, tol=1e-10)
        assert res.status == "solved", (solver, res.status)
        np.testing.assert_allclose(res.r, [2.0, -1.0, 0.0], atol=1e-8)
        np.testing.assert_allclose(res.v, [2.5, 0.0, 0.0], atol=1e-8)
    with pytest.raises(perp.Error, match="f"):
        perp.solve_global(M, H, f[:2], b, 0.5)
    with pytest.raises(perp.Error, match="dim"):
        perp.solve_global(M, H, f, b, 0.5, dim=5)
    sp = pytest.importorskip("scipy.sparse")
    res = perp.solve_global(sp.csr_matrix(M), sp.csc_matrix(H), f, b, [0.5])
    assert res.status == "solved"


# --------------------------------------------------------------------------- README


def test_the_readme_python_examples_run():
    readme = ROOT / "README.md"
    if not readme.exists():
        pytest.skip("not run from the repository")
    text = readme.read_text()
    section = text.split("\n## Python", 1)
    assert len(section) == 2, "README.md has no '## Python' section"
    section = section[1].split("\n## ", 1)[0]
    blocks = [b.split("\n```", 1)[0] for b in section.split("```python\n")[1:]]
    # The solve and friction-law example, the MLCP, box-LCP and NCP, then the sensitivities.
    assert len(blocks) == 3, f"README.md's Python section has {len(blocks)} python blocks"
    for k, block in enumerate(blocks):
        exec(compile(block, f"README.md (Python section, block {k + 1})", "exec"), {})


# ----------------------------------------------- the derivations from the projection


def test_section_and_support_derived_from_the_projection_match_the_closed_forms():
    from perp import _perp

    rng = np.random.default_rng(3)
    law = ScaledClosedForms(0.7)
    for _ in range(200):
        mu = rng.uniform(0.0, 1.5)
        t = rng.standard_normal(2) * 10.0 ** rng.uniform(-3, 3)
        xi = rng.choice([0.0, 1e-12, rng.uniform(0.0, 3.0), 1e3])
        v = rng.standard_normal(2) * 10.0 ** rng.uniform(-3, 3)
        p, h, s = _perp._derived(law, t, xi, v, mu)
        scale = np.linalg.norm(t) + xi
        np.testing.assert_allclose(p, law.project_section(t, xi, mu), atol=1e-12 * scale + 1e-300)
        exact = law.support(v, mu)
        np.testing.assert_allclose(h, -exact @ v, rtol=1e-10, atol=1e-300)
        np.testing.assert_allclose(s, exact, rtol=1e-6, atol=1e-12 * mu)


def test_a_time_limit_ends_a_solve_with_its_status():
    rng = np.random.default_rng(1)
    n = 300
    a = rng.standard_normal((n, n))
    m, q = a @ a.T + np.eye(n), rng.standard_normal(n)
    res = perp.solve_lcp(m, q, solver="pgs", tol=0.0, max_iter=10**9, time_limit=0.2)
    assert res.status == "time_limit" and not res.solved
    assert 0.2 <= res.seconds < 5.0 and res.iterations > 1


def test_a_kept_solver_answers_as_the_one_shot_calls_in_a_loop():
    rng = np.random.default_rng(7)
    j = rng.uniform(-1, 1, (6, 9))
    w = j @ j.T + 0.1 * np.eye(6)
    for name in ["nsgs", "prox", "ac-newton"]:
        kept = perp.Solver(name, tol=1e-10)
        assert kept.name == name and kept.family == "friction"
        r = None
        for step in range(4):
            q = np.array([-1.0 - 0.1 * step, 0.3, -0.2, -0.5, -0.4, 0.1])
            a = kept.solve_friction(w, q, [0.4, 0.6], warm=r)
            b = perp.solve_friction(w, q, [0.4, 0.6], solver=name, tol=1e-10, warm=r)
            assert a.solved and a.status == b.status and a.iterations == b.iterations, (a, b)
            assert np.array_equal(a.r, b.r) and np.array_equal(a.u, b.u), name
            r = a.r
    lemke = perp.Solver("lemke", family="lcp")
    for k in range(3):
        m = np.array([[2.0, 1.0], [1.0, 2.0]]) * (1 + k)
        a = lemke.solve_lcp(m, [-5.0, -6.0])
        assert a.solved and np.array_equal(a.z, perp.solve_lcp(m, [-5.0, -6.0]).z)
    with pytest.raises(perp.Error, match="family"):
        perp.Solver("lemke", family="ncp")
    with pytest.raises(perp.Error, match="lemke is an LCP solver; for a frictional-contact problem use one of nsgs"):
        lemke.solve_friction(w, np.zeros(6), 0.5)


def test_an_unambiguous_name_needs_no_family_and_a_wrong_one_names_its_family():
    # Issue 34, item 3: the family defaulted to friction, so perp.Solver("lemke") was refused.
    for name, family in [("lemke", "lcp"), ("pgs", "lcp"), ("schur-lemke", "mcp"), ("nsgs", "friction")]:
        assert perp.Solver(name).family == family
    a = perp.Solver("lemke").solve_lcp(np.array([[2.0, 1.0], [1.0, 2.0]]), [-5.0, -6.0])
    assert a.solved and np.allclose(a.z, [4.0 / 3.0, 7.0 / 3.0])
    # fb-newton (three families) stays the frictional one; bdiff-newton (LCP, MCP) needs it.
    assert perp.Solver("fb-newton").family == "friction"
    assert perp.Solver("bdiff-newton", family="mcp").family == "mcp"
    with pytest.raises(perp.Error, match='bdiff-newton is a solver of several families .* give family='):
        perp.Solver("bdiff-newton")
    with pytest.raises(perp.Error, match="unknown solver 'nope'"):
        perp.Solver("nope")
    with pytest.raises(perp.Error, match="nsgs is a frictional-contact solver; for an LCP use one of lemke, pgs"):
        perp.Solver("nsgs", family="lcp")
    with pytest.raises(perp.Error, match="nsgs is a frictional-contact solver; for an LCP use one of lemke"):
        perp.solve_lcp(np.eye(2), [-1.0, 1.0], solver="nsgs")


def _tridiagonal_lcp(n, seed):
    """A sparse (CSR) diagonally dominant tridiagonal M of order n and a q."""
    rng = np.random.default_rng(seed)
    m = np.diag(rng.uniform(3.0, 4.0, n))
    off = rng.uniform(-1.0, 1.0, n - 1)
    m += np.diag(off, 1) + np.diag(off, -1)
    return CsrLike(m), rng.uniform(-1.0, 1.0, n)


@pytest.mark.parametrize("solver", ["fb-newton", "lemke", "projected-newton", "pgs"])
def test_a_kept_lcp_solver_follows_a_sparse_problem_that_shrinks(solver):
    # Issue 36: a kept fb-newton raised PanicException on a 30-unknown CSR LCP and then a
    # 10-unknown one (faer's sparse LU kept across sizes).
    kept = perp.Solver(solver, family="lcp")
    for n, seed in [(30, 1), (10, 2), (30, 3), (12, 4), (3, 5)]:
        m, q = _tridiagonal_lcp(n, seed)
        a = kept.solve_lcp(m, q)
        b = perp.solve_lcp(m, q, solver=solver)
        assert a.solved and (a.status, a.iterations) == (b.status, b.iterations), (n, a, b)
        assert np.array_equal(a.z, b.z) and np.array_equal(a.w, b.w), n


def test_a_kept_admm_follows_a_siconos_problem_that_shrinks(siconos):
    # Issue 36: a kept admm on OneObject-i100000-316 then OneObject-i1028-138 raised
    # PanicException (its LU of W + rho I, W not symmetric, kept across sizes).
    kept = perp.Solver("admm", max_iter=50)
    names = ["OneObject-i100000-316.hdf5.dat", "OneObject-i1028-138.hdf5.dat"]
    problems = [perp.read(siconos / "fc3d" / name) for name in names]
    assert problems[0].n > problems[1].n
    for p in problems + problems[:1]:
        a = kept.solve(p)
        b = p.solve(solver="admm", max_iter=50)
        assert (a.status, a.iterations) == (b.status, b.iterations), (p, a, b)
        assert np.array_equal(a.r, b.r) and np.array_equal(a.u, b.u)


def test_every_public_name_has_a_docstring():
    for name in perp.__all__:
        doc = getattr(perp, name).__doc__
        assert doc and len(doc) > 30, name


def test_ctrl_c_stops_a_long_solve():
    import _thread
    import signal
    import threading
    import time

    # Python installs its KeyboardInterrupt handler only when SIGINT is not ignored at start,
    # and a shell's background job (`cmd &`) starts with it ignored: then interrupt_main does
    # nothing and the solve runs to its 60 s limit. Install the handler for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _ctrl_c_stops_a_long_solve(_thread, threading, time)
    finally:
        signal.signal(signal.SIGINT, previous)


def _ctrl_c_stops_a_long_solve(_thread, threading, time):
    rng = np.random.default_rng(0)
    n = 300
    a = rng.standard_normal((n, n))
    m, q = a @ a.T + np.eye(n), rng.standard_normal(n)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        # tol = 0 is never met: only the interrupt (or the 60 s safety limit) ends it.
        perp.solve_lcp(m, q, solver="pgs", tol=0.0, max_iter=10**9, time_limit=60.0)
    timer.join()
    # Generous for a loaded machine (issue 37): unstopped, the run lasts hours.
    assert time.perf_counter() - start < 30.0


# --------------------------------------------------------------------------- issue 36


def test_any_time_limit_is_solved_or_refused_never_a_panic():
    # time_limit = 2e19 panicked ("cannot convert float seconds to Duration"): a limit beyond
    # what the library's clock holds is no limit. A sweep over the range of doubles, and a
    # random sample, as a property test.
    m, q = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-5.0, -6.0])
    rng = np.random.default_rng(36)
    good = [1e-3, 1.0, 1e10, 1.8e19, 2e19, 1e300, np.finfo(float).max]
    good += [10.0 ** e for e in range(-3, 309, 7)]
    good += list(np.exp(rng.uniform(-5, 709, 30)))
    for t in good:
        res = perp.solve_lcp(m, q, solver="lemke", time_limit=float(t))
        assert res.solved, t
        res = perp.solve_friction(np.eye(3), [-1.0, 0.5, 0.0], 0.3, solver="nsgs", time_limit=float(t))
        assert res.solved, t
    for t in [0.0, -1.0, -1e300, float("nan"), float("inf"), float("-inf")]:
        with pytest.raises(perp.Error, match="time_limit"):
            perp.solve_lcp(m, q, time_limit=t)


def test_absurd_scene_sizes_are_refused_by_name():
    # ball-pile 1000000000 spun in a quadratic search or aborted on an allocation.
    import time

    start = time.perf_counter()
    with pytest.raises(perp.Error, match="ball-pile: size = 1000000000: at most 524288"):
        perp.simulate("ball-pile", size=10**9)
    with pytest.raises(perp.Error, match="box-stack: size"):
        perp.simulate("box-stack", size=2**62)
    # Generous for a loaded machine (issue 37): unstopped, the run lasts hours.
    assert time.perf_counter() - start < 30.0


def test_ctrl_c_stops_a_long_simulation():
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _ctrl_c_stops_a_long_simulation(signal)
    finally:
        signal.signal(signal.SIGINT, previous)


def _ctrl_c_stops_a_long_simulation(signal):
    import threading
    import time

    # A real SIGINT sent to this process from another thread while simulate runs with the GIL
    # released: hours of woodpecker steps (recorded only at the end), stopped within a second.
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        perp.simulate("woodpecker", t_end=1e6, every=2**62)
    timer.join()
    # Generous for a loaded machine (issue 37): unstopped, the run lasts hours.
    assert time.perf_counter() - start < 30.0
    # The package still works after the interrupt.
    sim = perp.simulate("woodpecker", t_end=0.01)
    assert len(sim) > 1


def test_simulate_names_every_body_alike_keeps_exact_times_and_chosen_columns():
    # Issue 34, item 6: body 0 was "x" beside "b1_x"; t accumulated rounding.
    sim = perp.simulate("sphere-slide", dt=1e-5, t_end=1.0, every=10000)
    assert sim.columns[1:4] == ["b0_x", "b0_y", "b0_z"] and "x" not in sim.columns
    assert sim.t[-1] == 1.0 and np.array_equal(sim.t, np.arange(len(sim)) * 10000 * 1e-5)
    kept = perp.simulate("sphere-slide", dt=1e-5, t_end=1.0, every=10000, columns=["positions"])
    assert kept.columns == ["t"] + sim.columns[1:8]
    np.testing.assert_array_equal(kept.q, sim.q)
    assert kept.u.shape == (len(kept), 0) and kept.iterations.size == 0
    two = perp.simulate("sphere-slide", t_end=0.1, columns=["b0_z", "iterations"])
    assert two.columns == ["t", "b0_z", "iterations"] and two.iterations.size == len(two)
    with pytest.raises(perp.Error, match="--columns = speed"):
        perp.simulate("sphere-slide", t_end=0.1, columns=["speed"])


def test_history_and_callback_watch_a_solve():
    # Issue 34, item 1: history=True fills result.history; callback is called per measured
    # iteration and can stop the solve.
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (30, 30))
    m, q = a @ a.T + np.eye(30), rng.uniform(-1, 1, 30)
    plain = perp.solve_lcp(m, q, solver="pgs", tol=1e-10)
    assert plain.history is None
    r = perp.solve_lcp(m, q, solver="pgs", tol=1e-10, history=True)
    k, e = r.history["iterations"], r.history["errors"]
    assert k.dtype.kind == "i" and len(k) == len(e) > 1
    # PGS measures its error every few sweeps: those sweeps only, the last one the answer's.
    assert np.all(np.diff(k) > 0) and k[-1] == r.iterations and len(k) < r.iterations
    assert e[-1] == r.error and np.array_equal(r.z, plain.z)
    seen = []
    r2 = perp.solve_lcp(m, q, solver="pgs", tol=1e-10, callback=lambda k, e: seen.append((k, e)))
    # Every measured iteration but the last (the loop does not report the one that ends it).
    assert seen == list(zip(k[:-1].tolist(), e[:-1].tolist())) and r2.iterations == r.iterations
    stop = perp.solve_friction(np.eye(3) * 2, [-1.0, 2.0, 0.0], 0.5, solver="fb-newton",
                               tol=1e-14, callback=lambda k, e: k >= 1, history=True)
    assert stop.status in ("interrupted", "solved") and stop.iterations <= 2
    def boom(k, e):
        raise ValueError("from the callback")
    with pytest.raises(perp.Error, match="the callback raised ValueError: from the callback") as info:
        perp.solve_lcp(m, q, solver="pgs", callback=boom)
    assert isinstance(info.value.__cause__, ValueError)
