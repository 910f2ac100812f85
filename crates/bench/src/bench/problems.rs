//! The problems of a run: [`BenchProblem`] (a name, a kind, a catalogue `Problem`) and the
//! reference kernel timed beside every solve ([`ReferenceKernel`]).

use perp_catalogue::{NcpInstance, Problem};
use std::time::Instant;

/// A problem the runner can solve: the catalogue's [`Problem`] (the name `Instance` is kept
/// for callers of earlier versions).
pub type Instance = Problem;

/// Seconds of the reference kernel measured in the same run as the solves (see the
/// [module docs](self)).
pub trait ReferenceKernel {
    /// Seconds of the reference kernel: one dense LU (partial pivoting, faer) of M (W for
    /// frictional problems, the Jacobian at the start for NCPs), best of three for n ≤ 500,
    /// one for n ≤ 2000, and NaN (not measured) above 2000, where it would cost more than the
    /// solves it is meant to scale.
    fn reference_seconds(&self) -> f64;
}

impl ReferenceKernel for Problem {
    fn reference_seconds(&self) -> f64 {
        let n = self.n();
        if n > 2000 {
            return f64::NAN;
        }
        let m = match self {
            Problem::Lcp(p) => p.m().to_dense(),
            Problem::Mlcp(p) => p.m().to_dense(),
            Problem::Friction(p) => p.w.to_dense(),
            Problem::GlobalFriction(p) => p.m.to_dense(),
            Problem::Ncp(p) => {
                let s = p.build();
                let z = NcpInstance::start(&s);
                let mut j = faer::Mat::<f64>::zeros(n, n);
                s.f.jacobian(&z, j.as_mut());
                j
            }
        };
        (0..if n <= 500 { 3 } else { 1 })
            .map(|_| {
                let t = Instant::now();
                let lu = m.partial_piv_lu();
                std::hint::black_box(&lu);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    }
}

/// One benchmark problem.
#[derive(Clone, Debug)]
pub struct BenchProblem {
    /// File name or built-in name.
    pub name: String,
    /// Problem class: `lcp`, `mlcp`, `ncp`, `fc2d`, `fc3d`.
    pub kind: String,
    /// The problem.
    pub problem: Instance,
}

impl BenchProblem {
    /// A problem named `name`, its kind from the instance.
    pub fn new(name: &str, problem: Instance) -> BenchProblem {
        BenchProblem { name: name.to_string(), kind: problem.kind_name(), problem }
    }
}
