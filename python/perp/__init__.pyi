"""Type stubs of the perp package (the extension module perp._perp and perp.Cone)."""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Sequence, Union, final

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
    "Simulation",
    "read",
    "scenes",
    "simulate",
    "solve_friction",
    "solve_lcp",
    "solvers",
]

class Error(ValueError):
    """Bad input or a failed call; the message is perp's (it names the argument and the value)."""

@final
class Result:
    """The answer of a solve and the solver's report."""

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
        """lcp, mlcp, ncp, fc2d, fc3d, gfc3d, ..."""
    @property
    def solver(self) -> str: ...
    @property
    def status(self) -> str:
        """solved, max_iterations, time_limit, stalled, ray_termination, infeasible,
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
        """Frictional problems: penetration, cone and complementarity violation relative to
        the problem's scale; None otherwise."""
    @property
    def iterations(self) -> int:
        """Iterations (pivots for pivoting methods)."""
    @property
    def seconds(self) -> float:
        """Wall time of the solve."""
    @property
    def message(self) -> Optional[str]:
        """The solver's note (why it stopped), if any."""

@final
class Problem:
    """A problem read by ``read``."""

    @property
    def kind(self) -> str:
        """lcp, mlcp, ncp, fc2d, fc3d (fcNd), gfc2d, gfc3d."""
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
        """q of an LCP or of a local frictional problem, else None."""
    @property
    def mu(self) -> Optional[_Vector]:
        """The friction coefficients of a local frictional problem, else None."""
    @property
    def dim(self) -> Optional[int]:
        """The contact dimension of a frictional problem, else None."""
    def dense_matrix(self) -> Optional[npt.NDArray[np.float64]]:
        """M (LCP) or W (local frictional problem) as a dense array, else None."""
    def solve(
        self,
        solver: Optional[str] = None,
        tol: float = 1e-8,
        max_iter: Optional[int] = None,
        time_limit: Optional[float] = None,
        warm: Optional[_ArrayLike] = None,
        params: Optional[Mapping[str, _ParamValue]] = None,
    ) -> Result:
        """Solves the problem (its kind's default solver when ``solver`` is None)."""

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

def solvers(kind: Optional[str] = None) -> list[str]:
    """The catalogue's solver names, all or those of a kind: "lcp", "mcp" or "friction"."""

def solve_lcp(
    M: Any,
    q: _ArrayLike,
    solver: str = "lemke",
    tol: float = 1e-8,
    max_iter: Optional[int] = None,
    time_limit: Optional[float] = None,
    warm: Optional[_ArrayLike] = None,
    params: Optional[Mapping[str, _ParamValue]] = None,
) -> Result:
    """Solves 0 <= z ⊥ M z + q >= 0; M dense (array-like) or sparse (scipy.sparse or any
    object with tocsr() or CSR attributes)."""

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
) -> Result:
    """Solves u = W r + q, K ∋ r ⊥ ũ ∈ K* (local form; Coulomb cones unless ``cone`` is given)."""

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
) -> Simulation:
    """Runs a built-in scene as ``perp simulate`` does."""
