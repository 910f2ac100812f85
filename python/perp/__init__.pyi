"""Type stubs of the perp package (the extension module perp._perp and perp.Cone)."""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Optional, Sequence, Union, final

import numpy as np
import numpy.typing as npt

_ArrayLike = npt.ArrayLike
_Vector = npt.NDArray[np.float64]
_ParamValue = Union[float, int, bool, str]

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

__version__: str
"""The package's version (the Rust crate's, e.g. "0.1.0")."""

_Map = Callable[[_Vector], _ArrayLike]

class Error(ValueError):
    """Bad input or a failed call; the message is perp's (it names the argument and the value)."""

@final
class Result:
    """The answer of a solve and the solver's report."""

    @property
    def history(self) -> Optional[dict[str, np.ndarray]]:
        """With ``history=True``: ``{"iterations": int array, "errors": float array}``, the
        iterations whose error the solver measured and those errors; else None."""

    @property
    def z(self) -> _Vector:
        """z (LCP, MLCP, NCP), or the reactions r of a frictional problem."""
    @property
    def w(self) -> _Vector:
        """w = M z + q, F(z), or the local velocities u of a frictional problem."""
    @property
    def r(self) -> _Vector:
        """The reactions (frictional problems only; AttributeError otherwise)."""
    @property
    def u(self) -> _Vector:
        """The local velocities u = W r + q (frictional problems only)."""
    @property
    def v(self) -> Optional[_Vector]:
        """The global velocities of a global frictional problem, else None."""
    @property
    def kind(self) -> str:
        """lcp, mlcp, ncp, fc2d, fc3d, gfc3d, rfc2d, rfc3d (rolling), ..."""
    @property
    def solver(self) -> str: ...
    @property
    def status(self) -> str:
        """solved, max_iterations, time_limit, stalled, ray_termination, infeasible, diverged,
        numerical_failure or interrupted."""
    @property
    def solved(self) -> bool:
        """status == "solved"."""
    @property
    def error(self) -> float:
        """The peer-compatible (Siconos) error measure of the returned vectors."""
    @property
    def residual(self) -> float:
        """The natural-map residual, max-norm."""
    @property
    def physical_error(self) -> Optional[float]:
        """The physical check, relative to the problem's own scales: frictional problems
        (penetration, cone, complementarity), LCPs and MLCPs (infeasibility, equality and
        complementarity of z and w), NCPs and MCPs (bounds and F each in its own scale);
        None otherwise (box-LCP)."""
    @property
    def iterations(self) -> int:
        """Iterations (pivots for pivoting methods)."""
    @property
    def seconds(self) -> float:
        """Wall time of the solve."""
    @property
    def message(self) -> Optional[str]:
        """The solver's note (why it stopped), if any."""
    def sensitivity(self, tol: float = 1e-6) -> Sensitivity:
        """The derivatives of this solution with respect to the data (LCP, box-LCP, MLCP: q
        and M; local frictional problems: q, mu and W), by implicit differentiation on the
        active set. ``tol``: the relative threshold of degeneracy. Raises ``Error`` when the
        result is not solved, when the solution is not locally unique, or for another kind."""

_Sparse = tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]

@final
class Sensitivity:
    """The derivatives of a solution, made by ``Result.sensitivity()``. Every product takes
    and returns numpy arrays; a wrong length raises ``Error``; a method of the other kind of
    problem raises ``AttributeError``."""

    @property
    def kind(self) -> str:
        """lcp, mlcp, fc2d, fc3d, rfc2d, rfc3d (rolling), ..."""
    @property
    def n(self) -> int:
        """Number of unknowns (z, or the reactions r)."""
    @property
    def degenerate(self) -> list[int]:
        """Indices (LCP, MLCP: z_i at its bound and w_i = 0) or contacts (frictional: at the
        stick/slip boundary, or zero force and zero normal velocity) where the map has only
        directional derivatives; there the derivative is that of a documented piece (the
        index stays at its bound; for Coulomb, the sticking / the separated piece)."""
    @property
    def free(self) -> list[int]:
        """LCP, MLCP: the indices strictly between their bounds."""
    @property
    def states(self) -> list[str]:
        """Frictional: each contact's "separated", "sticking", "sliding" or "degenerate"."""
    def jvp_q(self, dq: _ArrayLike) -> _Vector:
        """dz (frictional: dr) for a perturbation dq of q."""
    def vjp_q(self, g: _ArrayLike) -> _Vector:
        """The gradient with respect to q of <g, z> (frictional: <g, r>)."""
    def jvp_m(self, dM: Any) -> _Vector:
        """LCP, MLCP: dz for a perturbation dM of M (n x n, dense or sparse)."""
    def vjp_m(self, g: _ArrayLike) -> Union[npt.NDArray[np.float64], _Sparse]:
        """LCP, MLCP: the gradient with respect to M of <g, z>, vjp_q(g) z^T: a 2-D array for a
        dense M; for a sparse M, with respect to its stored entries, as the CSR triple
        (data, indices, indptr) of M's pattern."""
    def jvp_mu(self, dmu: Union[float, _ArrayLike]) -> _Vector:
        """Frictional: dr for a perturbation of mu (one per contact, or one number for all)."""
    def vjp_mu(self, g: _ArrayLike) -> _Vector:
        """Frictional: the gradient with respect to mu (one per contact) of <g, r>."""
    def jvp_mu_r(self, dmu_r: Union[float, _ArrayLike]) -> _Vector:
        """Frictional: dr for a perturbation of the rolling coefficients mu_r (one per contact,
        or one number for all; a contact whose law is not rolling ignores its entry)."""
    def vjp_mu_r(self, g: _ArrayLike) -> _Vector:
        """Frictional: the gradient with respect to mu_r (one per contact; 0 where the law is not
        rolling) of <g, r>."""
    def jvp_w(self, dW: Any) -> _Vector:
        """Frictional: dr for a perturbation dW of W (n x n, dense or sparse)."""
    def vjp_w(self, g: _ArrayLike) -> Union[npt.NDArray[np.float64], _Sparse]:
        """Frictional: the gradient with respect to W of <g, r>, as vjp_m."""
    def jvp(
        self,
        dq: Optional[_ArrayLike] = None,
        dmu: Optional[Union[float, _ArrayLike]] = None,
        dW: Any = None,
        dmu_r: Optional[Union[float, _ArrayLike]] = None,
    ) -> tuple[_Vector, _Vector]:
        """Frictional: (dr, du) for dq, dmu, dW and dmu_r (the rolling coefficients) together
        (None: not perturbed)."""
    def vjp(self, g_r: _ArrayLike, g_u: Optional[_ArrayLike] = None) -> tuple[_Vector, _Vector]:
        """Frictional: the gradients (with respect to q, with respect to mu) of
        <g_r, r> + <g_u, u>."""
    def vjp_all(
        self, g_r: _ArrayLike, g_u: Optional[_ArrayLike] = None
    ) -> tuple[_Vector, _Vector, _Vector]:
        """Frictional: vjp with the gradient with respect to mu_r too: (grad_q, grad_mu,
        grad_mu_r), grad_mu_r 0 where the law is not rolling."""

@final
class Problem:
    """A problem read by ``read`` or built by ``lcp``, ``mlcp`` or ``ncp``."""

    @property
    def kind(self) -> str:
        """lcp, mlcp, ncp, fc2d, fc3d (fcNd), gfc2d, gfc3d, rfc2d, rfc3d (rolling)."""
    @property
    def n(self) -> int:
        """Number of unknowns (z, or the reactions r)."""
    @property
    def family(self) -> str:
        """lcp, mcp or friction."""
    @property
    def solvers(self) -> list[str]: ...
    @property
    def default_solver(self) -> str: ...
    @property
    def q(self) -> Optional[_Vector]:
        """q of an LCP, of an MLCP ((a, b) for ``mlcp``) or of a local frictional problem,
        else None."""
    @property
    def bounds(self) -> Optional[tuple[_Vector, _Vector]]:
        """(lower, upper) of a box-LCP, an MLCP (-inf on its free rows) or an NCP/MCP; None
        for an LCP without bounds and for frictional problems."""
    @property
    def mu(self) -> Optional[_Vector]:
        """The friction coefficients of a local frictional problem, else None."""
    @property
    def mu_r(self) -> Optional[_Vector]:
        """The rolling coefficients of a rolling frictional problem (rfc2d, rfc3d), else None."""
    @property
    def dim(self) -> Optional[int]:
        """The contact dimension of a frictional problem, else None."""
    def dense_matrix(self) -> Optional[npt.NDArray[np.float64]]:
        """M (LCP, MLCP: [[A, C], [D, B]] for ``mlcp``) or W (local frictional problem) as a
        dense array, else None."""
    def solve(
        self,
        solver: Optional[str] = None,
        tol: float = 1e-8,
        max_iter: Optional[int] = None,
        time_limit: Optional[float] = None,
        warm: Optional[_ArrayLike] = None,
        params: Optional[Mapping[str, _ParamValue]] = None,
        history: bool = False,
        callback: Optional[Callable[[int, float], Optional[bool]]] = None,
    ) -> Result:
        """Solves the problem (its kind's default solver when ``solver`` is None);
        ``history`` and ``callback`` as for ``solve_lcp``."""

@final
class Simulation:
    """A recorded trajectory of a scene."""

    @property
    def columns(self) -> list[str]:
        """t, positions, velocities, impulses P<i>_<n|t|o|r>, iterations."""
    @property
    def data(self) -> npt.NDArray[np.float64]:
        """All recorded values: steps x columns."""
    @property
    def t(self) -> _Vector: ...
    @property
    def q(self) -> npt.NDArray[np.float64]: ...
    @property
    def u(self) -> npt.NDArray[np.float64]: ...
    @property
    def impulses(self) -> npt.NDArray[np.float64]: ...
    @property
    def iterations(self) -> _Vector: ...
    @property
    def scene(self) -> str: ...
    @property
    def steps(self) -> int: ...
    @property
    def solves(self) -> int: ...
    @property
    def unsolved(self) -> int: ...
    @property
    def max_error(self) -> float: ...
    @property
    def seconds(self) -> float: ...
    def __getitem__(self, name: str, /) -> _Vector: ...
    def __len__(self) -> int: ...

class Cone:
    """Base class of a friction law written in Python: set ``dim``, define ``project(x, mu)``;
    optionally ``project_section(t, xi, mu)``, ``support(v, mu)`` and ``soc_map(mu)``."""

    dim: int
    @property
    def name(self) -> str: ...
    def project(self, x: _Vector, mu: float) -> _ArrayLike:
        """The Euclidean projection of x (length dim) onto the cone of coefficient mu."""

@final
class Solver:
    """A solver built once by name and kept across solves: what it prepares for a problem's
    structure (workspaces, factor storage, a sparse W's symbolic factorization) is kept from
    one solve to the next. Its answers equal ``solve_lcp``'s and ``solve_friction``'s.

    ``family`` ("lcp", "mcp", "friction") is needed only for a name several families have:
    ``Solver("lemke")`` is the LCP solver, ``Solver("fb-newton")`` the frictional one,
    ``Solver("bdiff-newton")`` (LCP and MCP) is refused without it. A name of another family
    than the problem's is refused naming its family ("nsgs is a frictional-contact solver; for
    an LCP use one of lemke, pgs, ...")."""

    def __init__(
        self,
        name: str,
        family: Optional[str] = None,
        tol: float = 1e-8,
        max_iter: Optional[int] = None,
        time_limit: Optional[float] = None,
        params: Optional[Mapping[str, _ParamValue]] = None,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def family(self) -> str:
        """lcp, mcp or friction."""
    def solve_lcp(
        self,
        M: Any,
        q: _ArrayLike,
        warm: Optional[_ArrayLike] = None,
        lower: Optional[Union[float, _ArrayLike]] = None,
        upper: Optional[Union[float, _ArrayLike]] = None,
    ) -> Result:
        """Solves 0 <= z ⊥ M z + q >= 0, or the box-LCP with ``lower``/``upper`` (as
        ``solve_lcp``)."""
    def solve_mlcp(
        self,
        A: Any,
        C: Any,
        D: Any,
        B: Any,
        a: _ArrayLike,
        b: _ArrayLike,
        warm: Optional[_ArrayLike] = None,
    ) -> Result:
        """Solves A u + C v + a = 0, w = D u + B v + b, 0 <= v ⊥ w >= 0 (as ``solve_mlcp``)."""
    def solve_ncp(
        self,
        F: _Map,
        J: Optional[_Map] = None,
        lower: Optional[Union[float, _ArrayLike]] = None,
        upper: Optional[Union[float, _ArrayLike]] = None,
        x0: Optional[_ArrayLike] = None,
        warm: Optional[_ArrayLike] = None,
    ) -> Result:
        """Solves lower <= z <= upper ⊥ F(z) (as ``solve_ncp``), from ``warm``, else ``x0``."""
    def solve_friction(
        self,
        W: Any,
        q: _ArrayLike,
        mu: Union[float, _ArrayLike],
        dim: int = 3,
        cone: Optional[Union[Cone, Sequence[Cone]]] = None,
        warm: Optional[_ArrayLike] = None,
        mu_r: Optional[Union[float, _ArrayLike]] = None,
    ) -> Result:
        """Solves u = W r + q, K ∋ r ⊥ ũ ∈ K* (as ``solve_friction``)."""
    def solve(self, problem: Problem, warm: Optional[_ArrayLike] = None) -> Result:
        """Solves a problem read by ``read`` or built by ``lcp``, ``mlcp`` or ``ncp``."""

def solvers(kind: Optional[str] = None) -> list[str]:
    """The catalogue's solver names, all or those of a kind: "lcp", "mcp" or "friction"."""

def solve_lcp(
    M: Any,
    q: _ArrayLike,
    solver: Optional[str] = None,
    tol: float = 1e-8,
    max_iter: Optional[int] = None,
    time_limit: Optional[float] = None,
    warm: Optional[_ArrayLike] = None,
    params: Optional[Mapping[str, _ParamValue]] = None,
    history: bool = False,
    callback: Optional[Callable[[int, float], Optional[bool]]] = None,
    lower: Optional[Union[float, _ArrayLike]] = None,
    upper: Optional[Union[float, _ArrayLike]] = None,
) -> Result:
    """Solves 0 <= z ⊥ M z + q >= 0; M dense (array-like) or sparse (scipy.sparse or any
    object with tocsr() or CSR attributes). With ``lower`` or ``upper`` (a number for every
    entry or an array; ±inf allowed; defaults 0 and +inf) the box-LCP: lower <= z <= upper,
    w >= 0 where z = lower, w <= 0 where z = upper, w = 0 between (solvers fb-newton,
    bdiff-newton, pgs, psor, rpgs, projected-newton; lemke refuses bounds). ``solver``
    defaults to lemke, and to fb-newton for a box-LCP.

    ``history=True`` fills ``Result.history``. ``callback(iteration, error)`` is called at
    every iteration whose error the solver measured (PGS and NSGS: their exact checks), but
    the last; a true return stops the solve (status "interrupted"); an exception stops it
    and is raised as ``perp.Error`` (the original its ``__cause__``)."""

def solve_friction(
    W: Any,
    q: _ArrayLike,
    mu: Union[float, _ArrayLike],
    dim: int = 3,
    solver: str = "prox",
    cone: Optional[Union[Cone, Sequence[Cone]]] = None,
    tol: float = 1e-8,
    warm: Optional[_ArrayLike] = None,
    max_iter: Optional[int] = None,
    time_limit: Optional[float] = None,
    params: Optional[Mapping[str, _ParamValue]] = None,
    history: bool = False,
    callback: Optional[Callable[[int, float], Optional[bool]]] = None,
    mu_r: Optional[Union[float, _ArrayLike]] = None,
) -> Result:
    """Solves u = W r + q, K ∋ r ⊥ ũ ∈ K* (local form; Coulomb cones unless ``cone`` or
    ``mu_r`` is given). ``mu_r`` (a number for every contact, or one per contact, >= 0) makes
    every contact's law Siconos' rolling cone ‖r_T‖ <= mu r_N, ‖r_R‖ <= mu_r r_N, contacts of
    dimension 5 (normal, 2 tangential, 2 rolling) or 3 in 2-D; the result's kind is rfc3d /
    rfc2d. ``history`` and ``callback`` as for ``solve_lcp``."""

def solve_global(
    M: Any,
    H: Any,
    f: _ArrayLike,
    b: _ArrayLike,
    mu: Union[float, _ArrayLike],
    dim: int = 3,
    solver: str = "global-ipm",
    tol: float = 1e-8,
    warm: Optional[_ArrayLike] = None,
    max_iter: Optional[int] = None,
    time_limit: Optional[float] = None,
    params: Optional[Mapping[str, _ParamValue]] = None,
    history: bool = False,
    callback: Optional[Callable[[int, float], Optional[bool]]] = None,
) -> Result:
    """Solves M v = f + H r, u = Hᵀ v + b, Coulomb's law per contact (global form, W never
    formed by the global solvers); M and H dense or scipy.sparse. ``Result.v`` holds v.
    Coulomb contacts only (dim 2 or 3): rolling contacts go through ``solve_friction`` with
    ``mu_r`` on the reduction W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + b."""

def solve_mlcp(
    A: Any,
    C: Any,
    D: Any,
    B: Any,
    a: _ArrayLike,
    b: _ArrayLike,
    solver: str = "fb-newton",
    tol: float = 1e-8,
    max_iter: Optional[int] = None,
    time_limit: Optional[float] = None,
    warm: Optional[_ArrayLike] = None,
    params: Optional[Mapping[str, _ParamValue]] = None,
    history: bool = False,
    callback: Optional[Callable[[int, float], Optional[bool]]] = None,
) -> Result:
    """Solves the MLCP in Siconos' block notation, A u + C v + a = 0, w = D u + B v + b,
    0 <= v ⊥ w >= 0 (u free, of length len(a); v of length len(b)); blocks dense or sparse.
    ``Result.z`` is (u, v), ``Result.w`` (A u + C v + a, w). Other arguments as for
    ``solve_lcp``; ``solver`` a name of ``solvers("mcp")``."""

def solve_ncp(
    F: _Map,
    J: Optional[_Map] = None,
    lower: Optional[Union[float, _ArrayLike]] = None,
    upper: Optional[Union[float, _ArrayLike]] = None,
    x0: Optional[_ArrayLike] = None,
    solver: str = "fb-newton",
    tol: float = 1e-8,
    max_iter: Optional[int] = None,
    time_limit: Optional[float] = None,
    params: Optional[Mapping[str, _ParamValue]] = None,
    history: bool = False,
    callback: Optional[Callable[[int, float], Optional[bool]]] = None,
) -> Result:
    """Solves the NCP 0 <= z ⊥ F(z) >= 0, or the MCP lower <= z <= upper ⊥ F(z), F(z)
    returning n floats and J(z) its n × n Jacobian (row i the gradient of F_i; None: central
    differences). n is len(x0), else len(lower), else len(upper); the solve starts at x0
    (default 0, projected onto the bounds). An exception raised by F or J is raised as
    ``perp.Error`` (the original its ``__cause__``)."""

def lcp(
    M: Any,
    q: _ArrayLike,
    lower: Optional[Union[float, _ArrayLike]] = None,
    upper: Optional[Union[float, _ArrayLike]] = None,
) -> Problem:
    """The LCP (box-LCP with bounds) as a ``Problem``; arguments as for ``solve_lcp``."""

def mlcp(A: Any, C: Any, D: Any, B: Any, a: _ArrayLike, b: _ArrayLike) -> Problem:
    """The MLCP A u + C v + a = 0, w = D u + B v + b, 0 <= v ⊥ w >= 0 as a ``Problem``."""

def ncp(
    F: _Map,
    J: Optional[_Map] = None,
    lower: Optional[Union[float, _ArrayLike]] = None,
    upper: Optional[Union[float, _ArrayLike]] = None,
    x0: Optional[_ArrayLike] = None,
) -> Problem:
    """The NCP/MCP of a Python F (and J) as a ``Problem``; arguments as for ``solve_ncp``."""

def read(path: Union[str, os.PathLike[str]], kind: Optional[str] = None) -> Problem:
    """Reads a problem file (Siconos .dat, FCLIB .hdf5, MatrixMarket, JSON)."""

def scenes() -> list[str]:
    """The built-in scenes' names."""

def simulate(
    scene: str,
    size: Optional[int] = None,
    dt: Optional[float] = None,
    t_end: Optional[float] = None,
    solver: Optional[str] = None,
    formulation: Optional[str] = None,
    every: int = 1,
    warm_start: bool = True,
    activation: Optional[str] = None,
    tol: Optional[float] = None,
    params: Optional[Mapping[str, _ParamValue]] = None,
    columns: Optional[Sequence[str]] = None,
) -> Simulation:
    """Runs a built-in scene as ``perp simulate`` does. ``columns`` keeps only those columns
    (``t`` always first), as ``perp simulate --columns``: groups ("positions", "velocities",
    "impulses", "iterations") or names ("b0_z"); ``q``, ``u``, ``impulses`` and
    ``iterations`` then hold what was kept."""
