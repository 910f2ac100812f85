"""Rolling resistance from Python (issue 35): perp.solve_friction(..., mu_r=...), rolling
problems read from Siconos' files, and the error recomputed here in numpy."""

import numpy as np
import pytest

import perp
from peers import suites


def project_rolling(x, mu, mu_r, dim):
    """The projection onto {‖r_T‖ <= mu r_N, ‖r_R‖ <= mu_r r_N}, written here from its
    definition: for a normal part n >= 0 the nearest point scales x_T into the ball of radius
    mu n and x_R into that of radius mu_r n, so n minimises the convex
    g(n) = (n - x_N)^2 + max(0, a - mu n)^2 + max(0, b - mu_r n)^2 (a = ‖x_T‖, b = ‖x_R‖);
    its minimiser is n = 0 or the stationary point of one of its four quadratic pieces."""
    k = (dim - 1) // 2
    xn, xt, xr = x[0], x[1 : 1 + k], x[1 + k :]
    a, b = np.linalg.norm(xt), np.linalg.norm(xr)

    def g(n):
        return (n - xn) ** 2 + max(0.0, a - mu * n) ** 2 + max(0.0, b - mu_r * n) ** 2

    candidates = [0.0]
    for use_t in (False, True):
        for use_r in (False, True):
            num = xn + (mu * a if use_t else 0.0) + (mu_r * b if use_r else 0.0)
            den = 1.0 + (mu * mu if use_t else 0.0) + (mu_r * mu_r if use_r else 0.0)
            candidates.append(max(0.0, num / den))
    n = min(candidates, key=g)

    def into_ball(v, norm, radius):
        return v if norm <= radius else v * (radius / norm if norm > 0 else 0.0)

    return np.concatenate(([n], into_ball(xt, a, mu * n), into_ball(xr, b, mu_r * n)))


def rolling_error(W, q, mu, mu_r, dim, r):
    """The natural-map error ‖r - P_K(r - ũ)‖ / max(‖q‖, ‖r‖, ‖u‖) with u = W r + q and
    ũ_N = u_N + mu ‖u_T‖ + mu_r ‖u_R‖ (Siconos' rolling_friction_3d_compute_error, perp's
    normalisation), and u."""
    u = W @ r + q
    k = (dim - 1) // 2
    e = np.empty_like(r)
    for i in range(len(mu)):
        s = slice(dim * i, dim * (i + 1))
        ri, ui = r[s], u[s].copy()
        ui[0] += mu[i] * np.linalg.norm(ui[1 : 1 + k]) + mu_r[i] * np.linalg.norm(ui[1 + k :])
        e[s] = ri - project_rolling(ri - ui, mu[i], mu_r[i], dim)
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return np.linalg.norm(e) / scale, u


# With W = I and q_N = -1 a contact presses (u_N = 0, r_N = 1); q_T within mu r_N sticks
# (r_T = -q_T); the rolling q_R = 2 slides: r_R = -mu_r r_N along q_R, u_R = 2 - mu_r = 1.9.
# De Saxcé's complementarity r·ũ = r_N u_N + r_T·u_T + r_R·u_R + r_N (mu‖u_T‖ + mu_r‖u_R‖) = 0.
CASES = {
    5: (
        [-1.0, 0.3, -0.4, 0.0, 2.0, -1.0, 0.0, 0.2, 2.0, 0.0],
        [1.0, -0.3, 0.4, 0.0, -0.1, 1.0, 0.0, -0.2, -0.1, 0.0],
        [0.0, 0.0, 0.0, 0.0, 1.9, 0.0, 0.0, 0.0, 1.9, 0.0],
    ),
    3: ([-1.0, 0.2, 2.0, -1.0, -0.2, -2.0], [1.0, -0.2, -0.1, 1.0, 0.2, 0.1], [0.0, 0.0, 1.9, 0.0, 0.0, -1.9]),
}


@pytest.mark.parametrize("solver", ["nsgs", "prox", "ac-newton"])
@pytest.mark.parametrize("dim", [5, 3])
def test_rolling_contacts_solved_by_hand(solver, dim):
    q, r_want, u_want = (np.array(v) for v in CASES[dim])
    W = np.eye(len(q))
    res = perp.solve_friction(W, q, 0.8, dim=dim, mu_r=0.1, solver=solver, tol=1e-12)
    assert res.solved, res
    assert res.kind == f"rfc{3 if dim == 5 else 2}d"
    np.testing.assert_allclose(res.r, r_want, atol=1e-9)
    np.testing.assert_allclose(res.u, u_want, atol=1e-9)
    err, _ = rolling_error(W, q, [0.8, 0.8], [0.1, 0.1], dim, res.r)
    assert err <= 1e-11
    # Per-contact arrays give the same answer; so does a kept solver.
    again = perp.solve_friction(W, q, [0.8, 0.8], dim=dim, mu_r=np.array([0.1, 0.1]), solver=solver, tol=1e-12)
    np.testing.assert_array_equal(again.r, res.r)
    kept = perp.Solver(solver, tol=1e-12).solve_friction(W, q, 0.8, dim=dim, mu_r=0.1)
    np.testing.assert_array_equal(kept.r, res.r)


def test_rolling_input_errors_name_the_argument():
    q = np.array(CASES[5][0])
    W = np.eye(10)
    with pytest.raises(perp.Error, match=r"mu_r\[1\]"):
        perp.solve_friction(W, q, 0.8, dim=5, mu_r=[0.1, -0.2])
    with pytest.raises(perp.Error, match="rolling contacts"):
        perp.solve_friction(np.eye(8), q[:8], 0.8, dim=4, mu_r=0.1)
    with pytest.raises(perp.Error, match="mu_r"):
        perp.solve_friction(W, q, 0.8, dim=5, mu_r=[0.1, 0.1, 0.1])
    with pytest.raises(perp.Error, match="mu_r and cone"):
        perp.solve_friction(W, q, 0.8, dim=5, mu_r=0.1, cone=[None, None])
    with pytest.raises(perp.Error, match="requires ellipsoidal cones"):
        perp.solve_friction(W, q, 0.8, dim=5, mu_r=0.1, solver="fb-newton")
    with pytest.raises(perp.Error, match="no rolling or torsional cones"):
        perp.solve_global(np.eye(1), np.ones((1, 5)), [0.0], np.zeros(5), 0.5, dim=5)


@pytest.fixture
def rfc():
    d = suites()
    if d is None or not (d / "siconos" / "rfc").is_dir():
        pytest.skip("no rolling suite: set PERP_SUITES or put shared/suites beside the repository")
    return d / "siconos" / "rfc"


@pytest.mark.parametrize("solver", ["nsgs", "prox"])
def test_siconos_rolling_sphere_read_solved_and_checked_in_numpy(rfc, solver):
    p = perp.read(rfc / "RFC3D_sphere_1.dat")
    assert p.kind == "rfc3d" and p.dim == 5 and p.n == 5
    mu, mu_r = p.mu, p.mu_r
    assert mu_r is not None and len(mu_r) == 1 and mu_r[0] >= 0.0
    res = p.solve(solver=solver, tol=1e-10)
    assert res.solved, res
    W, q = p.dense_matrix(), p.q
    err, u = rolling_error(W, q, mu, mu_r, 5, res.r)
    np.testing.assert_allclose(res.u, u, atol=1e-12)
    assert err <= 1e-10, err
    assert abs(err - res.error) <= 1e-13 + 1e-6 * err, (err, res.error)
    # The physics: the force in its cone, no penetration, nothing to gain from the arrays.
    r = res.r
    assert r[0] >= 0 and np.linalg.norm(r[1:3]) <= mu[0] * r[0] * (1 + 1e-9)
    assert np.linalg.norm(r[3:5]) <= mu_r[0] * r[0] * (1 + 1e-9) + 1e-12
    assert u[0] >= -1e-9
    # The same problem from its arrays gives the same answer bit for bit.
    again = perp.solve_friction(W, q, mu, dim=5, mu_r=mu_r, solver=solver, tol=1e-10)
    np.testing.assert_array_equal(again.r, res.r)


@pytest.mark.parametrize("name, solver", [("RFC3D_cube_1.dat", "nsgs"), ("rfc3d_sphere_from_grfc3d.dat", "admm")])
def test_more_rolling_suite_files_solved_and_checked_in_numpy(rfc, name, solver):
    p = perp.read(rfc / name)
    assert p.kind == "rfc3d" and p.mu_r is not None and len(p.mu_r) == len(p.mu) == p.n // 5
    res = p.solve(solver=solver, tol=1e-8)
    assert res.solved, res
    err, _ = rolling_error(p.dense_matrix(), p.q, p.mu, p.mu_r, 5, res.r)
    assert err <= 1e-8, (name, err)
    assert abs(err - res.error) <= 1e-13 + 1e-6 * err, (err, res.error)
