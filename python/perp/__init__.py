"""perp: complementarity solvers for contact mechanics (LCP, NCP/MCP/MLCP, frictional contact).

The solvers are perp's Rust crates; this package calls them on numpy arrays::

    import numpy as np, perp
    res = perp.solve_lcp(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-5.0, -6.0]))
    res.z, res.w, res.status          # array([1.333.., 2.333..]), array([0., 0.]), 'solved'

* ``solve_lcp`` (with ``lower``/``upper``: a box-LCP), ``solve_mlcp`` (Siconos' block
  notation A, C, D, B, a, b), ``solve_ncp`` (F and J Python callables, optional bounds) and
  ``solve_friction`` solve one problem given by its arrays (dense numpy or any scipy.sparse
  matrix); ``lcp``, ``mlcp`` and ``ncp`` build the same problems as ``Problem`` objects; a
  ``Solver`` kept across solves does the same in a loop (a simulation's steps), preparing
  each problem structure once;
* ``read`` reads a problem file (Siconos ``.dat``, FCLIB ``.hdf5``, MatrixMarket, JSON) and
  ``Problem.solve`` solves it;
* ``Result.sensitivity()`` differentiates a solved LCP, MLCP or local frictional problem:
  ``jvp_q``/``vjp_q``, ``jvp_m``/``vjp_m`` (LCP, MLCP), ``jvp_mu``/``vjp_mu``/``jvp_w``,
  ``jvp_mu_r``/``vjp_mu_r`` (frictional; μ_r of rolling contacts), ``degenerate``, ``states``;
* ``solvers`` lists the catalogue's solver names, ``scenes`` the built-in scenes and
  ``simulate`` runs one;
* ``Cone`` is the base class of a friction law written in Python, used by every frictional
  solver that needs only the projection (nsgs, prox, ac-newton, ...);
* ``Error`` (a ``ValueError``) is raised for bad input and failed calls, with perp's message.
"""

from __future__ import annotations

from ._perp import (
    Error,
    Problem,
    Result,
    Sensitivity,
    Simulation,
    Solver,
    __version__,
    lcp,
    mlcp,
    ncp,
    read,
    scenes,
    simulate,
    solve_friction,
    solve_global,
    solve_lcp,
    solve_mlcp,
    solve_ncp,
    solvers,
)

__all__ = [
    "Cone",
    "Error",
    "Problem",
    "Result",
    "Sensitivity",
    "Simulation",
    "Solver",
    "__version__",
    "lcp",
    "mlcp",
    "ncp",
    "read",
    "scenes",
    "simulate",
    "solve_friction",
    "solve_global",
    "solve_lcp",
    "solve_mlcp",
    "solve_ncp",
    "solvers",
]


class Cone:
    """A friction law: a closed convex cone ``K`` in R^dim parametrised by the friction
    coefficient ``mu`` (normal component first, then ``dim - 1`` tangential ones).

    Subclass it, set ``dim`` and define ``project(x, mu)``, the Euclidean projection of ``x``
    (a numpy array of length ``dim``) onto ``K``, returning ``dim`` floats. Pass an instance
    (or a list, one per contact) as ``cone=`` to ``solve_friction``. Everything else the
    solvers need is derived from the projection in Rust: the projection onto a section of the
    cone by a root find on ``P_K``, the support function (maximal dissipation) from the polar
    cone. Two optional methods replace those derivations, when the law has them in closed
    form (faster, and exact):

    * ``project_section(t, xi, mu)``: the projection of ``t`` (length ``dim - 1``) onto the
      section ``S_mu(xi) = {t : (xi, t) in K}``;
    * ``support(v, mu)``: a maximiser ``t`` of ``-t . v`` over ``S_mu(1)``;
    * ``soc_map(mu)``: for an ellipsoidal cone, the pair ``(a, b)`` of diagonal scalings with
      ``r in K <=> a*r in L`` and ``u in K* <=> b*u in L`` (L the Lorentz cone), or None; the
      Fischer-Burmeister solver (``fb-newton``) needs it.

    ``name`` (default: the class name) labels the law in messages. An exception raised in any
    of these methods stops the solve and is raised as ``perp.Error`` (with the original as its
    ``__cause__``).

    Example: Coulomb's cone with the coefficient scaled by ``s``::

        class Scaled(perp.Cone):
            dim = 3
            def __init__(self, s): self.s = s
            def project(self, x, mu):
                m = mu * self.s
                n, t = x[0], np.hypot(x[1], x[2])
                if t <= m * n: return x
                if m * t <= -n: return np.zeros(3)
                a = (n + m * t) / (1 + m * m)
                return np.array([a, m * a * x[1] / t, m * a * x[2] / t])
    """

    dim: int = 3

    @property
    def name(self) -> str:
        return type(self).__name__

    def project(self, x, mu):
        raise NotImplementedError(f"{type(self).__name__}.project(x, mu) is not defined")
