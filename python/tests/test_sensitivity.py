"""Tests of Result.sensitivity(): central finite differences of re-solved problems, the
adjoint identity, degenerate cases flagged, bad input raising perp.Error."""

import json

import numpy as np
import pytest

import perp

H = 1e-6  # the finite-difference step


def central(solve, x, dx):
    """(solve(x + H dx) - solve(x - H dx)) / 2H."""
    return (solve(x + H * dx) - solve(x - H * dx)) / (2 * H)


# ---------------------------------------------------------------------------- LCP


def random_lcp(n, seed):
    """M = A A^T / n + I and a q whose solution has half its z positive, the other half with
    w positive, every margin at least 0.5 (so no index is near degenerate)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (n, n))
    m = a @ a.T / n + np.eye(n)
    active = rng.permutation(n) < n // 2
    z = np.where(active, rng.uniform(0.5, 2.0, n), 0.0)
    w = np.where(active, 0.0, rng.uniform(0.5, 2.0, n))
    return m, w - m @ z, z


def lcp_z(m, q):
    res = perp.solve_lcp(m, q, tol=1e-13)
    assert res.solved, res
    return res.z


def test_lcp_jvp_and_vjp_match_central_differences_n8():
    m, q, z_star = random_lcp(8, seed=1)
    res = perp.solve_lcp(m, q, tol=1e-13)
    assert res.solved
    np.testing.assert_allclose(res.z, z_star, atol=1e-10)
    s = res.sensitivity()
    assert s.kind == "lcp" and s.n == 8
    assert s.degenerate == []
    assert s.free == sorted(np.flatnonzero(z_star > 0).tolist())
    rng = np.random.default_rng(2)
    for _ in range(3):
        dq = rng.normal(size=8)
        np.testing.assert_allclose(s.jvp_q(dq), central(lambda x: lcp_z(m, x), q, dq), atol=1e-7)
        dm = rng.normal(size=(8, 8))
        fd = central(lambda x: lcp_z(x, q), m, dm)
        np.testing.assert_allclose(s.jvp_m(dm), fd, atol=1e-7)
    # The full Jacobian dz/dq from finite differences, column by column: vjp_q is its transpose.
    jac = np.column_stack([central(lambda x: lcp_z(m, x), q, e) for e in np.eye(8)])
    g = rng.normal(size=8)
    np.testing.assert_allclose(s.vjp_q(g), jac.T @ g, atol=1e-7)
    np.testing.assert_allclose(s.vjp_m(g), np.outer(jac.T @ g, res.z), atol=1e-7)


def test_lcp_adjoint_identity_to_round_off():
    m, q, _ = random_lcp(8, seed=5)
    s = perp.solve_lcp(m, q, tol=1e-13).sensitivity()
    rng = np.random.default_rng(6)
    for _ in range(5):
        g, dq, dm = rng.normal(size=8), rng.normal(size=8), rng.normal(size=(8, 8))
        assert np.dot(g, s.jvp_q(dq)) == pytest.approx(np.dot(s.vjp_q(g), dq), rel=1e-12, abs=1e-13)
        assert np.dot(g, s.jvp_m(dm)) == pytest.approx(np.sum(s.vjp_m(g) * dm), rel=1e-12, abs=1e-13)


def test_lcp_sparse_matrix_vjp_m_is_the_gradient_on_the_pattern():
    sp = pytest.importorskip("scipy.sparse")
    n = 8
    m = np.diag(np.full(n, 4.0)) + np.diag(np.full(n - 1, -1.0), 1) + np.diag(np.full(n - 1, -1.0), -1)
    q = np.array([-1.0, 2.0, -3.0, 1.0, -2.0, 3.0, -1.0, 0.5])
    dense = perp.solve_lcp(m, q, tol=1e-13).sensitivity()
    sparse = perp.solve_lcp(sp.csr_matrix(m), q, tol=1e-13).sensitivity()
    assert dense.degenerate == [] and sparse.degenerate == []
    g = np.linspace(-1, 1, n)
    data, indices, indptr = sparse.vjp_m(g)
    grad = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    assert grad.nnz == 3 * n - 2
    np.testing.assert_allclose(grad.toarray(), np.where(m != 0, dense.vjp_m(g), 0.0), atol=1e-14)
    dm = sp.random(n, n, density=0.3, random_state=3, format="csr")
    np.testing.assert_allclose(sparse.jvp_m(dm), dense.jvp_m(dm.toarray()), atol=1e-12)
    np.testing.assert_allclose(sparse.jvp_q(g), dense.jvp_q(g), atol=1e-12)


def test_lcp_degenerate_index_is_flagged_and_stays_at_its_bound():
    # z0 = 0 and w0 = 0: degenerate; z1 = 1, w1 = 0: free.
    s = perp.solve_lcp(np.eye(2), np.array([0.0, -1.0]), tol=1e-13).sensitivity()
    assert s.degenerate == [0] and s.free == [1]
    np.testing.assert_allclose(s.jvp_q([1.0, 1.0]), [0.0, -1.0], atol=1e-14)
    # The documented element is the one-sided derivative from q0 + eps (z0 stays at 0).
    right = (lcp_z(np.eye(2), [H, -1.0 + H]) - lcp_z(np.eye(2), [0.0, -1.0])) / H
    np.testing.assert_allclose(s.jvp_q([1.0, 1.0]), right, atol=1e-8)


def test_unsolved_results_and_bad_lengths_raise_perp_error():
    m, q, _ = random_lcp(8, seed=1)
    one = perp.solve_lcp(m, q, solver="pgs", tol=1e-14, max_iter=1)
    assert one.status == "max_iterations"
    with pytest.raises(perp.Error, match="max_iterations"):
        one.sensitivity()
    s = perp.solve_lcp(m, q, tol=1e-13).sensitivity()
    with pytest.raises(perp.Error, match="dq: has 7 entries"):
        s.jvp_q(np.ones(7))
    with pytest.raises(perp.Error, match="g: has 9 entries"):
        s.vjp_q(np.ones(9))
    with pytest.raises(perp.Error, match="g: has 9 entries"):
        s.vjp_m(np.ones(9))
    with pytest.raises(perp.Error, match="dM: is 8 × 7"):
        s.jvp_m(np.ones((8, 7)))
    with pytest.raises(perp.Error, match="dq"):
        s.jvp_q(np.full(8, np.nan))
    with pytest.raises(perp.Error, match="tol"):
        perp.solve_lcp(m, q).sensitivity(tol=0.0)
    with pytest.raises(AttributeError, match="frictional"):
        s.jvp_mu([1.0])
    with pytest.raises(AttributeError, match="frictional"):
        s.states


# ----------------------------------------------------------------------------- MLCP


def write_mlcp(path, m, q, free):
    path.write_text(
        json.dumps({"kind": "mlcp", "n": len(q), "M": m.tolist(), "q": list(q), "free": list(free)})
    )
    return perp.read(str(path))


def test_mlcp_from_a_file_matches_central_differences(tmp_path):
    n, rng = 6, np.random.default_rng(11)
    a = rng.uniform(-1, 1, (n, n))
    m = a @ a.T / n + np.eye(n)
    free = [True, True, False, False, False, False]
    z = np.array([0.7, -1.2, 1.5, 0.0, 0.8, 0.0])
    w = np.array([0.0, 0.0, 0.0, 1.1, 0.0, 0.6])
    q = w - m @ z

    def solve(mm, qq, name="p.json"):
        res = write_mlcp(tmp_path / name, mm, qq, free).solve(tol=1e-13)
        assert res.solved, res
        return res

    res = solve(m, q)
    np.testing.assert_allclose(res.z, z, atol=1e-9)
    s = res.sensitivity()
    assert s.kind == "mlcp" and s.degenerate == [] and s.free == [0, 1, 2, 4]
    dq, dm = rng.normal(size=n), rng.normal(size=(n, n))
    np.testing.assert_allclose(s.jvp_q(dq), central(lambda x: solve(m, x, "f.json").z, q, dq), atol=1e-7)
    np.testing.assert_allclose(s.jvp_m(dm), central(lambda x: solve(x, q, "f.json").z, m, dm), atol=1e-7)
    g = rng.normal(size=n)
    assert np.dot(g, s.jvp_q(dq)) == pytest.approx(np.dot(s.vjp_q(g), dq), rel=1e-12)
    assert np.dot(g, s.jvp_m(dm)) == pytest.approx(np.sum(s.vjp_m(g) * dm), rel=1e-12)


# ------------------------------------------------------------------ frictional contact


MU = 0.3


def two_contacts():
    """W (6 x 6, coupled, SPD) and q built from a known answer: contact 0 sticking (r inside
    the cone, u = 0), contact 1 sliding (r on the cone, opposite its tangential velocity)."""
    rng = np.random.default_rng(7)
    b = rng.uniform(-1, 1, (6, 6))
    w = np.eye(6) + 0.2 * b @ b.T / 6
    th = 0.4
    r = np.array([1.0, 0.1, -0.05, 0.8, -MU * 0.8 * np.cos(th), -MU * 0.8 * np.sin(th)])
    u = np.array([0.0, 0.0, 0.0, 0.0, 1.5 * np.cos(th), 1.5 * np.sin(th)])
    return w, u - w @ r, r


def fc_r(w, q, mu):
    res = perp.solve_friction(w, q, mu, solver="nsgs", tol=1e-14, max_iter=100000)
    assert res.solved, res
    return res.r


def test_friction_one_sticking_one_sliding_matches_central_differences():
    w, q, r_star = two_contacts()
    mu = np.array([MU, MU])
    res = perp.solve_friction(w, q, mu, solver="nsgs", tol=1e-14, max_iter=100000)
    assert res.solved, res
    np.testing.assert_allclose(res.r, r_star, atol=1e-10)
    s = res.sensitivity()
    assert s.kind == "fc3d" and s.n == 6
    assert s.states == ["sticking", "sliding"] and s.degenerate == []
    rng = np.random.default_rng(8)
    dq, dmu, dw = rng.normal(size=6), rng.normal(size=2), rng.normal(size=(6, 6))
    np.testing.assert_allclose(s.jvp_q(dq), central(lambda x: fc_r(w, x, mu), q, dq), atol=1e-6)
    np.testing.assert_allclose(s.jvp_mu(dmu), central(lambda x: fc_r(w, q, x), mu, dmu), atol=1e-6)
    np.testing.assert_allclose(s.jvp_w(dw), central(lambda x: fc_r(x, q, mu), w, dw), atol=1e-6)
    # The joint direction, and du = W dr + dq + dW r.
    dr, du = s.jvp(dq=dq, dmu=dmu, dW=dw)
    np.testing.assert_allclose(dr, s.jvp_q(dq) + s.jvp_mu(dmu) + s.jvp_w(dw), atol=1e-12)
    np.testing.assert_allclose(du, w @ dr + dq + dw @ res.r, atol=1e-12)
    # One number is the same dmu for every contact.
    np.testing.assert_allclose(s.jvp_mu(0.1), s.jvp_mu([0.1, 0.1]), atol=1e-15)


def test_friction_adjoint_identity_to_round_off():
    w, q, _ = two_contacts()
    res = perp.solve_friction(w, q, MU, solver="nsgs", tol=1e-14, max_iter=100000)
    s = res.sensitivity()
    rng = np.random.default_rng(9)
    for _ in range(5):
        g, gu = rng.normal(size=6), rng.normal(size=6)
        dq, dmu, dw = rng.normal(size=6), rng.normal(size=2), rng.normal(size=(6, 6))
        assert np.dot(g, s.jvp_q(dq)) == pytest.approx(np.dot(s.vjp_q(g), dq), rel=1e-12, abs=1e-13)
        assert np.dot(g, s.jvp_mu(dmu)) == pytest.approx(np.dot(s.vjp_mu(g), dmu), rel=1e-12, abs=1e-13)
        assert np.dot(g, s.jvp_w(dw)) == pytest.approx(np.sum(s.vjp_w(g) * dw), rel=1e-12, abs=1e-13)
        dr, du = s.jvp(dq=dq, dmu=dmu)
        gq, gmu = s.vjp(g, gu)
        lhs = np.dot(g, dr) + np.dot(gu, du)
        assert lhs == pytest.approx(np.dot(gq, dq) + np.dot(gmu, dmu), rel=1e-12, abs=1e-13)


def test_friction_degenerate_contact_is_flagged():
    # Contact 1 has q = 0: r = 0 and u = 0, separating with zero force.
    w, q = np.eye(6), np.array([-1.0, 0.1, 0.0, 0.0, 0.0, 0.0])
    s = perp.solve_friction(w, q, MU, solver="nsgs", tol=1e-14).sensitivity()
    assert s.states == ["sticking", "degenerate"] and s.degenerate == [1]


def test_friction_bad_input_raises_perp_error():
    w, q, _ = two_contacts()
    unsolved = perp.solve_friction(w, q, MU, solver="nsgs", tol=1e-15, max_iter=1)
    assert not unsolved.solved
    with pytest.raises(perp.Error, match="solved"):
        unsolved.sensitivity()
    s = perp.solve_friction(w, q, MU, solver="nsgs", tol=1e-14, max_iter=100000).sensitivity()
    with pytest.raises(perp.Error, match="dmu: has 3 entries, the problem has 2 contacts"):
        s.jvp_mu(np.ones(3))
    with pytest.raises(perp.Error, match="dW: is 5 × 6"):
        s.jvp_w(np.ones((5, 6)))
    with pytest.raises(perp.Error, match="g_u: has 5 entries"):
        s.vjp(np.ones(6), np.ones(5))
    with pytest.raises(AttributeError, match="jvp_m"):
        s.jvp_m(np.eye(6))


class Coulomb(perp.Cone):
    """Coulomb's cone in Python (projection only: the sensitivity differentiates it)."""

    dim = 3

    def project(self, x, mu):
        n, t = x[0], np.hypot(x[1], x[2])
        if t <= mu * n:
            return x
        if mu * t <= -n:
            return np.zeros(3)
        a = (n + mu * t) / (1 + mu * mu)
        return np.array([a, mu * a * x[1] / t, mu * a * x[2] / t])


def test_a_python_law_gets_the_same_derivatives_as_the_builtin_cone():
    w, q, _ = two_contacts()
    builtin = perp.solve_friction(w, q, MU, solver="nsgs", tol=1e-14, max_iter=100000).sensitivity()
    mine = perp.solve_friction(w, q, MU, solver="nsgs", tol=1e-12, cone=Coulomb())
    assert mine.solved, mine
    s = mine.sensitivity()
    assert s.states == builtin.states
    g = np.linspace(-1.0, 1.0, 6)
    np.testing.assert_allclose(s.vjp_q(g), builtin.vjp_q(g), atol=1e-6)
    np.testing.assert_allclose(s.vjp_mu(g), builtin.vjp_mu(g), atol=1e-6)


# ------------------------------------------------------------------------ files


@pytest.fixture
def siconos():
    import os
    import pathlib

    env = os.environ.get("PERP_SUITES")
    root = pathlib.Path(__file__).resolve().parents[2]
    for d in ([pathlib.Path(env)] if env else []) + [root.parent / "shared" / "suites"]:
        if (d / "siconos").is_dir():
            return d / "siconos"
    pytest.skip("no peer suites: set PERP_SUITES or put shared/suites beside the repository")


def test_a_siconos_friction_file_problem_solve_sensitivity(siconos):
    p = perp.read(str(siconos / "fc3d" / "FC3D_Example1.dat"))
    res = p.solve(solver="nsgs", tol=1e-13, max_iter=100000)
    assert res.solved, res
    s = res.sensitivity()
    assert s.kind == "fc3d" and len(s.states) == 3 and s.degenerate == []
    w, q, mu = p.dense_matrix(), p.q, p.mu
    dq = np.linspace(-1.0, 1.0, p.n)
    np.testing.assert_allclose(s.jvp_q(dq), central(lambda x: fc_r(w, x, mu), q, dq), atol=1e-6)
    dmu = np.array([0.3, -0.2, 0.1])
    np.testing.assert_allclose(s.jvp_mu(dmu), central(lambda x: fc_r(w, q, x), mu, dmu), atol=1e-6)


def test_a_siconos_mlcp_file_problem_solve_sensitivity(siconos):
    p = perp.read(siconos / "mlcp" / "m2n1_mlcp.dat")
    s = p.solve(tol=1e-13).sensitivity()
    assert s.kind == "mlcp" and s.n == p.n and s.degenerate == []
    g, dq = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.1, -0.4])
    assert np.dot(g, s.jvp_q(dq)) == pytest.approx(np.dot(s.vjp_q(g), dq), rel=1e-12, abs=1e-14)


# ---------------------------------------------------------------------------- rolling (mu_r)


def rolling_pair():
    """Two 3-D rolling contacts (dim 5) on W = I + a small symmetric coupling: contact 0 pressed
    and rolled hard (its rolling moment on its ball's boundary, so r depends on mu_r), contact
    1 pressed and nudged (sticking and not rolling)."""
    rng = np.random.default_rng(35)
    a = rng.uniform(-0.1, 0.1, (10, 10))
    w = np.eye(10) + (a + a.T) / 2
    q = np.array([-1.0, 0.1, 0.0, 0.5, -0.2, -1.0, 0.05, 0.0, 0.01, 0.0])
    return w, q, np.array([0.5, 0.5]), np.array([0.1, 0.2])


def rfc_r(w, q, mu, mu_r):
    res = perp.solve_friction(w, q, mu, dim=5, mu_r=mu_r, solver="nsgs", tol=1e-14, max_iter=100000)
    assert res.solved, res
    return res.r


def test_rolling_sensitivity_in_mu_r_matches_central_differences_and_its_adjoint():
    w, q, mu, mu_r = rolling_pair()
    res = perp.solve_friction(w, q, mu, dim=5, mu_r=mu_r, solver="nsgs", tol=1e-14, max_iter=100000)
    assert res.solved, res
    s = res.sensitivity()
    assert s.kind == "rfc3d" and s.n == 10 and s.degenerate == []
    rng = np.random.default_rng(36)
    dq, dmu, dmu_r = rng.normal(size=10), rng.normal(size=2), rng.normal(size=2)
    fd = central(lambda x: rfc_r(w, q, mu, x), mu_r, dmu_r)
    assert np.linalg.norm(fd) > 1e-3  # contact 0 rolls: r moves with mu_r
    np.testing.assert_allclose(s.jvp_mu_r(dmu_r), fd, atol=1e-6)
    # One number is the same dmu_r for every contact.
    np.testing.assert_allclose(s.jvp_mu_r(0.1), s.jvp_mu_r([0.1, 0.1]), atol=1e-15)
    # The joint direction, and du = W dr + dq.
    dr, du = s.jvp(dq=dq, dmu=dmu, dmu_r=dmu_r)
    np.testing.assert_allclose(dr, s.jvp_q(dq) + s.jvp_mu(dmu) + s.jvp_mu_r(dmu_r), atol=1e-12)
    np.testing.assert_allclose(du, w @ dr + dq, atol=1e-12)
    # The adjoint: <g, jvp_mu_r(d)> = <vjp_mu_r(g), d>, and vjp_all = vjp plus grad_mu_r.
    g, gu = rng.normal(size=10), rng.normal(size=10)
    assert np.dot(g, s.jvp_mu_r(dmu_r)) == pytest.approx(np.dot(s.vjp_mu_r(g), dmu_r), rel=1e-12, abs=1e-13)
    gq, gmu, gmu_r = s.vjp_all(g, gu)
    gq2, gmu2 = s.vjp(g, gu)
    np.testing.assert_array_equal(gq, gq2)
    np.testing.assert_array_equal(gmu, gmu2)
    lhs = np.dot(g, dr) + np.dot(gu, du)
    assert lhs == pytest.approx(np.dot(gq, dq) + np.dot(gmu, dmu) + np.dot(gmu_r, dmu_r), rel=1e-12, abs=1e-13)
    # Wrong lengths raise perp.Error naming the argument.
    with pytest.raises(perp.Error, match="dmu_r"):
        s.jvp_mu_r([0.1, 0.1, 0.1])
    with pytest.raises(perp.Error, match="dmu_r"):
        s.jvp(dmu_r=[1.0])


def test_mu_r_gradients_are_zero_on_a_coulomb_problem():
    w, q, _ = two_contacts()
    s = perp.solve_friction(w, q, MU, solver="nsgs", tol=1e-14, max_iter=100000).sensitivity()
    np.testing.assert_array_equal(s.vjp_mu_r(np.ones(6)), np.zeros(2))
    np.testing.assert_array_equal(s.jvp_mu_r([1.0, 1.0]), np.zeros(6))
