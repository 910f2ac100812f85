//! The C API called as C calls it: through the `extern "C"` functions, with raw pointers.

use crate::*;
use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

fn last_error() -> String {
    let n = unsafe { perp_last_error_message(null_mut(), 0) };
    let mut buf = vec![0 as c_char; n + 1];
    assert_eq!(unsafe { perp_last_error_message(buf.as_mut_ptr(), buf.len()) }, n);
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string()
}

/// M = [2 1; 1 2] (column-major), q = (-5, -6): z = (4/3, 7/3), w = 0.
const M: [f64; 4] = [2.0, 1.0, 1.0, 2.0];
const Q: [f64; 2] = [-5.0, -6.0];

/// W = I of order 3 (one 3-D contact).
const EYE3: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

/// Who answers a call: a one-shot call naming the solver, or a kept solver.
#[derive(Clone, Copy)]
enum Via {
    /// `perp_solve_*` with this name (NULL: the family's default).
    Name(*const c_char),
    /// `perp_solver_*` on this handle.
    Kept(*mut PerpSolver),
}

fn named(solver: &CStr) -> Via {
    Via::Name(solver.as_ptr())
}

/// A call's arguments as slices, each passed as NULL when empty, with the sizes stated apart
/// so that a test can state sizes that disagree with the arrays. `settings` is the one-shot
/// calls' (NULL when `None`); a kept solver has its own.
#[derive(Clone, Copy, Default)]
struct Args<'a> {
    m: Option<&'a PerpMatrix>,
    q: &'a [f64],
    /// `n` of the LCP calls, `n_contacts` of the frictional ones.
    n: usize,
    dim: usize,
    mu: &'a [f64],
    lower: &'a [f64],
    upper: &'a [f64],
    n_eq: usize,
    warm: &'a [f64],
    settings: Option<&'a PerpSettings>,
}

impl Args<'_> {
    fn m(&self) -> *const PerpMatrix {
        self.m.map_or(null(), |m| m as *const _)
    }
    fn settings(&self) -> *const PerpSettings {
        self.settings.map_or(null(), |s| s as *const _)
    }
}

fn ptr(v: &[f64]) -> *const f64 {
    if v.is_empty() {
        null()
    } else {
        v.as_ptr()
    }
}

/// What a call writes: the answer pair (z and w, or r and u; an empty one passed as NULL),
/// NaN until written, and the report (passed as NULL unless `report`).
struct Out {
    x: Vec<f64>,
    y: Vec<f64>,
    rep: PerpReport,
    report: bool,
}

impl Out {
    fn new(n: usize) -> Self {
        Out { x: vec![f64::NAN; n], y: vec![f64::NAN; n], rep: new_report(), report: true }
    }

    fn without_report(self) -> Self {
        Out { report: false, ..self }
    }

    fn ptrs(&mut self) -> (*mut f64, *mut f64, *mut PerpReport) {
        let out = |v: &mut Vec<f64>| if v.is_empty() { null_mut() } else { v.as_mut_ptr() };
        (out(&mut self.x), out(&mut self.y), if self.report { &mut self.rep } else { null_mut() })
    }

    /// The status and all the call wrote, as bits: two calls that agree bit for bit.
    fn bits(&self, status: PerpStatus) -> (PerpStatus, usize, Vec<u64>, Vec<u64>, u64) {
        (status, self.rep.iterations, bits(&self.x), bits(&self.y), self.rep.error.to_bits())
    }

    /// Nothing written to the answer pair.
    fn untouched(&self) -> bool {
        self.x.iter().chain(&self.y).all(|v| v.is_nan())
    }
}

impl Via {
    fn lcp(self, a: &Args, o: &mut Out) -> PerpStatus {
        let (x, y, rep) = o.ptrs();
        let (m, q, warm) = (a.m(), ptr(a.q), ptr(a.warm));
        unsafe {
            match self {
                Via::Name(s) => perp_solve_lcp(s, m, q, a.n, warm, a.settings(), x, y, rep),
                Via::Kept(h) => perp_solver_lcp(h, m, q, a.n, warm, x, y, rep),
            }
        }
    }

    fn box_lcp(self, a: &Args, o: &mut Out) -> PerpStatus {
        let (x, y, rep) = o.ptrs();
        let (m, q, warm, lo, hi) = (a.m(), ptr(a.q), ptr(a.warm), ptr(a.lower), ptr(a.upper));
        unsafe {
            match self {
                Via::Name(s) => perp_solve_box_lcp(s, m, q, a.n, lo, hi, warm, a.settings(), x, y, rep),
                Via::Kept(h) => perp_solver_box_lcp(h, m, q, a.n, lo, hi, warm, x, y, rep),
            }
        }
    }

    fn mlcp(self, a: &Args, o: &mut Out) -> PerpStatus {
        let (x, y, rep) = o.ptrs();
        let (m, q, warm) = (a.m(), ptr(a.q), ptr(a.warm));
        unsafe {
            match self {
                Via::Name(s) => perp_solve_mlcp(s, m, q, a.n, a.n_eq, warm, a.settings(), x, y, rep),
                Via::Kept(h) => perp_solver_mlcp(h, m, q, a.n, a.n_eq, warm, x, y, rep),
            }
        }
    }

    fn friction(self, a: &Args, o: &mut Out) -> PerpStatus {
        let (x, y, rep) = o.ptrs();
        let (w, q, mu, warm) = (a.m(), ptr(a.q), ptr(a.mu), ptr(a.warm));
        unsafe {
            match self {
                Via::Name(s) => perp_solve_friction(s, a.dim, w, q, mu, a.n, warm, a.settings(), x, y, rep),
                Via::Kept(h) => perp_solver_friction(h, a.dim, w, q, mu, a.n, warm, x, y, rep),
            }
        }
    }

    fn friction_cone(self, cone: Option<&PerpCone>, a: &Args, o: &mut Out) -> PerpStatus {
        let (x, y, rep) = o.ptrs();
        let c = cone.map_or(null(), |c| c as *const _);
        let (w, q, mu, warm) = (a.m(), ptr(a.q), ptr(a.mu), ptr(a.warm));
        unsafe {
            match self {
                Via::Name(s) => {
                    perp_solve_friction_cone(s, c, a.dim, w, q, mu, a.n, warm, a.settings(), x, y, rep)
                }
                Via::Kept(h) => perp_solver_friction_cone(h, c, a.dim, w, q, mu, a.n, warm, x, y, rep),
            }
        }
    }
}

/// `perp_solve_global` with M (`None`: NULL) and H, f, b, μ for one contact of dimension
/// `dim` (r and u of H's columns, v of its rows): (status, r and u with the report, v).
fn solve_global(
    solver: *const c_char,
    dim: usize,
    (m, h): (Option<&PerpMatrix>, &PerpMatrix),
    (f, b, mu): (&[f64], &[f64], &[f64]),
    settings: Option<&PerpSettings>,
) -> (PerpStatus, Out, Vec<f64>) {
    let (mut o, mut v) = (Out::new(h.ncols), vec![f64::NAN; h.nrows]);
    let a = Args { m, settings, ..Args::default() };
    let (r, u, rep) = o.ptrs();
    let st = unsafe {
        perp_solve_global(
            solver,
            dim,
            a.m(),
            h,
            f.as_ptr(),
            b.as_ptr(),
            mu.as_ptr(),
            mu.len(),
            null(),
            a.settings(),
            r,
            v.as_mut_ptr(),
            u,
            rep,
        )
    };
    (st, o, v)
}

/// `call` on the kept solver `h`, then as the one-shot call naming `name`, each writing a new
/// `Out` of `n`: (the kept call's status, the one-shot call's, what each wrote).
fn kept_and_one_shot(
    h: *mut PerpSolver,
    name: &CStr,
    n: usize,
    call: impl Fn(Via, &mut Out) -> PerpStatus,
) -> (PerpStatus, PerpStatus, Out, Out) {
    let (mut o1, mut o2) = (Out::new(n), Out::new(n));
    let st1 = call(Via::Kept(h), &mut o1);
    let st2 = call(named(name), &mut o2);
    (st1, st2, o1, o2)
}

struct Lcp {
    status: PerpStatus,
    z: Vec<f64>,
    w: Vec<f64>,
    report: PerpReport,
}

fn solve_lcp(solver: &CStr, m: &PerpMatrix, q: &[f64], n: usize, settings: Option<&PerpSettings>) -> Lcp {
    assert!(n <= 2);
    let mut o = Out::new(2);
    let status = named(solver).lcp(&Args { m: Some(m), q, n, settings, ..Args::default() }, &mut o);
    assert_eq!(o.rep.status, status);
    Lcp { status, z: o.x, w: o.y, report: o.rep }
}

#[test]
fn dense_lcp_is_solved_by_lemke() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let r = solve_lcp(c"lemke", &m, &Q, 2, None);
    assert_eq!(r.status, PerpStatus::Solved, "{}", last_error());
    assert!((r.z[0] - 4.0 / 3.0).abs() < 1e-12 && (r.z[1] - 7.0 / 3.0).abs() < 1e-12, "{:?}", r.z);
    assert!(r.w.iter().all(|w| w.abs() < 1e-12), "{:?}", r.w);
    assert!(r.report.error <= 1e-8 && r.report.iterations > 0, "{:?}", r.report);
    assert_eq!(last_error(), "");
}

#[test]
fn csr_lcp_with_a_parameter_agrees_with_lemke() {
    // The same M in CSR, the column indices of row 1 out of order.
    let (row_ptr, col_idx, values) = ([0usize, 2, 4], [0usize, 1, 1, 0], [2.0, 1.0, 2.0, 1.0]);
    let m = perp_matrix_csr(2, 2, 4, row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
    let params = [c"omega=1.2".as_ptr()];
    let s = PerpSettings { tol: 1e-12, params: params.as_ptr(), n_params: 1, ..perp_settings_default() };
    let r = solve_lcp(c"psor", &m, &Q, 2, Some(&s));
    assert_eq!(r.status, PerpStatus::Solved, "{}", last_error());
    assert!((r.z[0] - 4.0 / 3.0).abs() < 1e-9 && (r.z[1] - 7.0 / 3.0).abs() < 1e-9, "{:?}", r.z);
    assert!(r.report.error <= 1e-12);
}

#[test]
fn an_iteration_limit_is_a_status_with_the_best_iterate_written() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let s = PerpSettings { tol: 1e-14, max_iter: 1, ..perp_settings_default() };
    let r = solve_lcp(c"pgs", &m, &Q, 2, Some(&s));
    assert_eq!(r.status, PerpStatus::MaxIterations);
    assert_eq!(r.report.iterations, 1);
    assert!(r.z.iter().all(|z| z.is_finite()) && r.report.error > 1e-14);
    // w = M z + q is written for the returned z.
    assert!((r.w[0] - (2.0 * r.z[0] + r.z[1] - 5.0)).abs() < 1e-12);
    assert_eq!(unsafe { CStr::from_ptr(perp_status_name(r.status as i32)) }, c"max_iterations");
}

/// One 3-D contact, W = I, q = (-1, 0.5, 0), μ = 0.3: it slides, r = (1, -0.3, 0),
/// u = (0, 0.2, 0) (u_n = 0, r_t = -μ r_n u_t/|u_t|).
#[test]
fn frictional_contact_is_solved_dense_and_csr() {
    let dense = perp_matrix_dense(3, 3, EYE3.as_ptr());
    let (row_ptr, col_idx, values) = ([0usize, 1, 2, 3], [0usize, 1, 2], [1.0; 3]);
    let csr = perp_matrix_csr(3, 3, 3, row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
    let (q, mu) = ([-1.0, 0.5, 0.0], [0.3]);
    let s = PerpSettings { tol: 1e-12, ..perp_settings_default() };
    for (solver, m) in [(c"prox", &dense), (c"nsgs", &csr), (c"ac-newton", &csr)] {
        let mut o = Out::new(3);
        let a = Args { m: Some(m), q: &q, n: 1, dim: 3, mu: &mu, settings: Some(&s), ..Args::default() };
        let status = named(solver).friction(&a, &mut o);
        assert_eq!(status, PerpStatus::Solved, "{solver:?}: {}", last_error());
        let (r_want, u_want) = ([1.0, -0.3, 0.0], [0.0, 0.2, 0.0]);
        for i in 0..3 {
            assert!((o.x[i] - r_want[i]).abs() < 1e-9, "{solver:?}: r = {:?}", o.x);
            assert!((o.y[i] - u_want[i]).abs() < 1e-9, "{solver:?}: u = {:?}", o.y);
        }
        assert!(o.rep.error <= 1e-12, "{solver:?}: {:?}", o.rep);
    }
}

/// The global form: a particle of mass 2 sliding on a plane (μ = 0.5, free velocity
/// (3, 0, −1)): r = (2, −1, 0), v = (2.5, 0, 0), u = (0, 2.5, 0), by the global solvers and by
/// a local one on the reduction; M NULL and an H of the wrong shape refused by name.
#[test]
fn the_global_problem_is_solved_in_velocity_space() {
    let m = [2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0];
    // H's columns (column-major): the normal e_z, the tangents e_x, e_y.
    let h = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let (mm, hm) = (perp_matrix_dense(3, 3, m.as_ptr()), perp_matrix_dense(3, 3, h.as_ptr()));
    let (f, b, mu) = ([6.0, 0.0, -2.0], [0.0; 3], [0.5]);
    let s = PerpSettings { tol: 1e-10, ..perp_settings_default() };
    let solve = |solver: *const c_char, hm: &PerpMatrix, mm: Option<&PerpMatrix>| {
        solve_global(solver, 3, (mm, hm), (&f, &b, &mu), Some(&s))
    };
    for solver in [null(), c"global-ac-newton".as_ptr(), c"nsgs".as_ptr()] {
        let (status, o, v) = solve(solver, &hm, Some(&mm));
        assert_eq!(status, PerpStatus::Solved, "{}", last_error());
        for (got, want) in [(o.x, [2.0, -1.0, 0.0]), (v, [2.5, 0.0, 0.0]), (o.y, [0.0, 2.5, 0.0])] {
            assert!(got.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-8), "{got:?} against {want:?}");
        }
    }
    let (status, ..) = solve(null(), &hm, None);
    assert_eq!(status, PerpStatus::NullPointer);
    assert!(last_error().contains('M'), "{}", last_error());
    let narrow = perp_matrix_dense(3, 2, h.as_ptr());
    let (status, ..) = solve(null(), &narrow, Some(&mm));
    assert_eq!(status, PerpStatus::InvalidInput);
    assert!(last_error().contains("H must be"), "{}", last_error());
}

/// Issue 36: a particle squeezed between two walls that both push in has no solution (W = H Hᵀ
/// with opposite normals, q_N = (−1, −1)); prox's reactions grow without bound while u_N stays
/// at −1. It used to return `Solved` with r = 1e8; now `Diverged`, and the message says why.
#[test]
fn a_problem_without_a_solution_is_diverged_not_solved() {
    #[rustfmt::skip]
    let w = [
        1.0, 0.0, 0.0, -1.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 1.0, 0.0, 0.0, -1.0,
        -1.0, 0.0, 0.0, 1.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, -1.0, 0.0, 0.0, 1.0,
    ];
    let m = perp_matrix_dense(6, 6, w.as_ptr());
    let (q, mu) = ([-1.0, 0.0, 0.0, -1.0, 0.0, 0.0], [0.3, 0.3]);
    let s = PerpSettings { tol: 1e-8, ..perp_settings_default() };
    let mut o = Out::new(6);
    let a = Args { m: Some(&m), q: &q, n: 2, dim: 3, mu: &mu, settings: Some(&s), ..Args::default() };
    let status = named(c"prox").friction(&a, &mut o);
    let (r, u) = (&o.x, &o.y);
    assert_eq!(status, PerpStatus::Diverged, "r = {r:?}, u = {u:?}");
    assert_eq!(unsafe { CStr::from_ptr(perp_status_name(status as i32)) }, c"diverged");
    assert!(u[0] < -0.9 && u[3] < -0.9, "u = {u:?}");
}

#[test]
fn a_warm_start_at_the_solution_needs_no_sweep() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let warm = [4.0 / 3.0, 7.0 / 3.0];
    let mut o = Out::new(2);
    o.rep.iterations = 99;
    let s = named(c"pgs").lcp(&Args { m: Some(&m), q: &Q, n: 2, warm: &warm, ..Args::default() }, &mut o);
    assert_eq!(s, PerpStatus::Solved, "{}", last_error());
    assert_eq!(o.rep.iterations, 0, "{:?}", o.rep);
    assert!((o.x[0] - warm[0]).abs() < 1e-12);
}

#[test]
fn a_null_solver_name_or_settings_means_the_defaults() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let mut o = Out::new(2).without_report();
    let status = Via::Name(null()).lcp(&Args { m: Some(&m), q: &Q, n: 2, ..Args::default() }, &mut o);
    assert_eq!(status, PerpStatus::Solved);
    assert!((o.x[1] - 7.0 / 3.0).abs() < 1e-12);
}

#[test]
fn an_unknown_solver_is_refused_with_the_valid_names() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let r = solve_lcp(c"nsgs", &m, &Q, 2, None);
    assert_eq!(r.status, PerpStatus::InvalidInput);
    let e = last_error();
    assert!(
        e.starts_with(
            "perp_solve_lcp: nsgs is a frictional-contact solver; for an LCP use one of lemke, pgs"
        ),
        "{e}"
    );
    // Nothing written, and the report says it was refused.
    assert!(r.z[0].is_nan() && r.report.error.is_nan() && r.report.iterations == 0);
    // The next call that is not refused clears the message.
    solve_lcp(c"lemke", &m, &Q, 2, None);
    assert_eq!(last_error(), "");
}

#[test]
fn a_bad_parameter_is_refused_naming_it_and_its_range() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    for (text, want) in [
        (c"omega=3", "psor: parameter omega = 3"),
        (c"speed=2", "unknown parameter; psor takes"),
        (c"omega", "settings.params[0] = omega: must be \"name=value\""),
    ] {
        let params = [text.as_ptr()];
        let s = PerpSettings { params: params.as_ptr(), n_params: 1, ..perp_settings_default() };
        assert_eq!(solve_lcp(c"psor", &m, &Q, 2, Some(&s)).status, PerpStatus::InvalidInput);
        let e = last_error();
        assert!(e.contains(want), "{e}");
    }
    let params = [null()];
    let s = PerpSettings { params: params.as_ptr(), n_params: 1, ..perp_settings_default() };
    assert_eq!(solve_lcp(c"psor", &m, &Q, 2, Some(&s)).status, PerpStatus::NullPointer);
    assert!(last_error().contains("settings.params[0] is a null"), "{}", last_error());
}

#[test]
fn bad_settings_are_refused_naming_the_field() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    for (s, want) in [
        (PerpSettings { tol: f64::NAN, ..perp_settings_default() }, "settings.tol = NaN"),
        (PerpSettings { time_limit: -1.0, ..perp_settings_default() }, "settings.time_limit = -1"),
        (PerpSettings { n_params: 2, ..perp_settings_default() }, "settings.params is a null"),
    ] {
        let r = solve_lcp(c"lemke", &m, &Q, 2, Some(&s));
        assert!(r.status == PerpStatus::InvalidInput || r.status == PerpStatus::NullPointer);
        assert!(last_error().contains(want), "{}", last_error());
    }
}

#[test]
fn null_pointers_are_refused_naming_the_argument() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    // An empty q, or w of length 0, is passed as NULL.
    let lcp = |m: Option<&PerpMatrix>, q: &[f64], w_len: usize| {
        let mut o = Out::new(2);
        o.rep.status = PerpStatus::Solved;
        o.y.truncate(w_len);
        let s = Via::Name(null()).lcp(&Args { m, q, n: 2, ..Args::default() }, &mut o);
        (s, o.rep.status)
    };
    assert_eq!(lcp(Some(&m), &[], 2), (PerpStatus::NullPointer, PerpStatus::NullPointer));
    assert_eq!(last_error(), "perp_solve_lcp: q is a null or misaligned pointer");
    assert_eq!(lcp(None, &Q, 2).0, PerpStatus::NullPointer);
    assert!(last_error().contains(": M is a null"));
    assert_eq!(lcp(Some(&m), &Q, 0).0, PerpStatus::NullPointer);
    assert!(last_error().contains(": w is a null"));
    let no_values = perp_matrix_dense(2, 2, null());
    assert_eq!(lcp(Some(&no_values), &Q, 2).0, PerpStatus::NullPointer);
    assert!(last_error().contains("M.values is a null"));
    let wm = perp_matrix_dense(3, 3, EYE3.as_ptr());
    let q = [-1.0, 0.0, 0.0];
    let a = Args { m: Some(&wm), q: &q, n: 1, dim: 3, ..Args::default() };
    assert_eq!(Via::Name(null()).friction(&a, &mut Out::new(3)), PerpStatus::NullPointer);
    assert_eq!(last_error(), "perp_solve_friction: mu is a null or misaligned pointer");
}

#[test]
fn sizes_that_disagree_are_refused() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    // q and z of length 1 for a 2x2 M.
    let r = solve_lcp(c"lemke", &m, &Q, 1, None);
    assert_eq!(r.status, PerpStatus::InvalidInput);
    assert!(last_error().contains("n = 1: M is 2x2; n must be its order"), "{}", last_error());
    let rect = perp_matrix_dense(1, 2, M.as_ptr());
    assert_eq!(solve_lcp(c"lemke", &rect, &Q, 1, None).status, PerpStatus::InvalidInput);
    assert!(last_error().contains("M must be square, got 1x2"), "{}", last_error());
    let bad_format = PerpMatrix { format: 7, ..m };
    assert_eq!(solve_lcp(c"lemke", &bad_format, &Q, 2, None).status, PerpStatus::InvalidInput);
    assert!(last_error().contains("M.format = 7"), "{}", last_error());
    // CSR: row_ptr does not end at nnz; a column index out of range.
    let (row_ptr, col_idx, values) = ([0usize, 1, 3], [0usize, 1, 1], [2.0, 1.0, 2.0]);
    let csr = perp_matrix_csr(2, 2, 2, row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
    assert_eq!(solve_lcp(c"lemke", &csr, &Q, 2, None).status, PerpStatus::InvalidInput);
    assert!(
        last_error().contains("M.row_ptr = [0, …, 3]: must start at 0 and end at nnz = 2"),
        "{}",
        last_error()
    );
    // Offsets that decrease (each within nnz), and a duplicate entry.
    let (dec_ptr, dec_idx) = ([0usize, 3, 2], [0usize, 1, 0]);
    let csr = perp_matrix_csr(2, 2, 2, dec_ptr.as_ptr(), dec_idx.as_ptr(), values.as_ptr());
    assert_eq!(solve_lcp(c"lemke", &csr, &Q, 2, None).status, PerpStatus::InvalidInput);
    assert!(
        last_error().contains("M.row_ptr[2] = 2: row offsets must not decrease (M.row_ptr[1] = 3)"),
        "{}",
        last_error()
    );
    let dup_idx = [0usize, 1, 1];
    let csr = perp_matrix_csr(2, 2, 3, row_ptr.as_ptr(), dup_idx.as_ptr(), values.as_ptr());
    assert_eq!(solve_lcp(c"lemke", &csr, &Q, 2, None).status, PerpStatus::InvalidInput);
    assert!(last_error().contains("M (CSR) = 2x2, nnz = 3"), "{}", last_error());
    let col_idx = [0usize, 5, 1];
    let csr = perp_matrix_csr(2, 2, 3, row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
    assert_eq!(solve_lcp(c"lemke", &csr, &Q, 2, None).status, PerpStatus::InvalidInput);
    assert!(last_error().contains("M (CSR)"), "{}", last_error());
    // Friction: 2 contacts stated for a 3x3 W; a 4-D contact.
    let wm = perp_matrix_dense(3, 3, EYE3.as_ptr());
    let (q, mu) = ([-1.0, 0.0, 0.0, -1.0, 0.0, 0.0], [0.3, 0.3]);
    for (dim, nc, want) in [(3, 2, "dim * n_contacts = 6: W is 3x3"), (4, 1, "dim = 4")] {
        let a = Args { m: Some(&wm), q: &q, n: nc, dim, mu: &mu, ..Args::default() };
        let s = Via::Name(null()).friction(&a, &mut Out::new(6).without_report());
        assert_eq!(s, PerpStatus::InvalidInput);
        assert!(last_error().contains(want), "{}", last_error());
    }
}

#[test]
fn nan_data_is_refused_naming_the_entry() {
    let bad = [2.0, f64::NAN, 1.0, 2.0];
    let m = perp_matrix_dense(2, 2, bad.as_ptr());
    assert_eq!(solve_lcp(c"lemke", &m, &Q, 2, None).status, PerpStatus::InvalidInput);
    assert_eq!(last_error(), "perp_solve_lcp: M.values (column-major)[1] = NaN is not finite");
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    assert_eq!(solve_lcp(c"lemke", &m, &[-5.0, f64::INFINITY], 2, None).status, PerpStatus::InvalidInput);
    assert_eq!(last_error(), "perp_solve_lcp: q[1] = inf is not finite");
    let (row_ptr, col_idx, values) = ([0usize, 1, 2], [0usize, 1], [1.0, f64::NAN]);
    let csr = perp_matrix_csr(2, 2, 2, row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
    assert_eq!(solve_lcp(c"lemke", &csr, &Q, 2, None).status, PerpStatus::InvalidInput);
    assert_eq!(last_error(), "perp_solve_lcp: M.values[1] = NaN is not finite");
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let warm = [0.0, f64::NAN];
    let a = Args { m: Some(&m), q: &Q, n: 2, warm: &warm, ..Args::default() };
    let s = Via::Name(null()).lcp(&a, &mut Out::new(2).without_report());
    assert_eq!(s, PerpStatus::InvalidInput);
    assert_eq!(last_error(), "perp_solve_lcp: warm[1] = NaN is not finite");
    let wm = perp_matrix_dense(3, 3, EYE3.as_ptr());
    let (q, mu) = ([-1.0, 0.0, 0.0], [f64::NAN]);
    let a = Args { m: Some(&wm), q: &q, n: 1, dim: 3, mu: &mu, ..Args::default() };
    let s = Via::Name(null()).friction(&a, &mut Out::new(3).without_report());
    assert_eq!(s, PerpStatus::InvalidInput);
    assert!(last_error().contains("mu[0] = NaN"), "{}", last_error());
}

#[test]
fn the_message_is_truncated_at_a_character_boundary() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let (row_ptr, col_idx, values) = ([0usize, 1, 3], [0usize, 1, 1], [2.0, 1.0, 2.0]);
    let csr = perp_matrix_csr(2, 2, 2, row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
    solve_lcp(c"lemke", &csr, &Q, 2, None);
    let full = last_error();
    let cut = full.find('…').unwrap();
    let mut buf = [1 as c_char; 64];
    // Room for the bytes before '…' and one byte of its three: the cut falls before it.
    let n = unsafe { perp_last_error_message(buf.as_mut_ptr(), cut + 2) };
    assert_eq!(n, full.len());
    assert_eq!(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap(), &full[..cut]);
    let _ = m;
}

#[test]
fn status_names_are_the_rust_library_names() {
    use perp_core::Status;
    for s in [
        Status::Solved,
        Status::MaxIterations,
        Status::TimeLimit,
        Status::Stalled,
        Status::RayTermination,
        Status::Infeasible,
        Status::Diverged,
        Status::NumericalFailure,
        Status::Interrupted,
    ] {
        let name = unsafe { CStr::from_ptr(perp_status_name(PerpStatus::from(s) as i32)) };
        assert_eq!(name.to_str().unwrap(), s.as_str());
    }
    assert_eq!(unsafe { CStr::from_ptr(perp_status_name(-1)) }, c"invalid_input");
    assert_eq!(unsafe { CStr::from_ptr(perp_status_name(99)) }, c"unknown");
}

#[test]
fn solver_names_come_from_the_catalogue() {
    let mut buf = [0 as c_char; 512];
    let n = unsafe { perp_solver_names(PerpFamily::Friction as i32, buf.as_mut_ptr(), buf.len()) };
    let names = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
    assert_eq!(n, names.len());
    assert_eq!(names, perp_catalogue::FRICTION_NAMES.join(","));
    assert!(names.split(',').any(|s| s == "nsgs"));
    assert_eq!(unsafe { perp_solver_names(42, buf.as_mut_ptr(), buf.len()) }, 0);
    // PERP_FAMILY_ANY: every solver once, those of each family among them.
    let n = unsafe { perp_solver_names(PerpFamily::Any as i32, null_mut(), 0) };
    let mut all = vec![0 as c_char; n + 1];
    unsafe { perp_solver_names(PerpFamily::Any as i32, all.as_mut_ptr(), all.len()) };
    let all = unsafe { CStr::from_ptr(all.as_ptr()) }.to_str().unwrap().to_string();
    let all: Vec<&str> = all.split(',').collect();
    for family in [Family::Lcp, Family::Friction, Family::Mcp] {
        for name in perp_catalogue::names(family) {
            assert_eq!(all.iter().filter(|&&a| a == *name).count(), 1, "{name} in {all:?}");
        }
    }
    assert_eq!(unsafe { CStr::from_ptr(perp_version()) }.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

fn new_report() -> PerpReport {
    PerpReport {
        status: PerpStatus::Other,
        error: 0.0,
        iterations: 0,
        seconds: 0.0,
        physical_error: 0.0,
        message: [0; PERP_MESSAGE_LEN],
    }
}

/// A random SPD-ish dense W (`size`×`size`, column-major) and q, μ for `nc` 3-D contacts.
fn fc_data(nc: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = 3 * nc;
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let j: Vec<f64> = (0..n * (n + 3)).map(|_| next()).collect();
    let mut w = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            w[b * n + a] = (0..n + 3).map(|k| j[a * (n + 3) + k] * j[b * (n + 3) + k]).sum::<f64>();
        }
        w[a * n + a] += 0.1;
    }
    let q: Vec<f64> = (0..n).map(|i| if i % 3 == 0 { next() - 0.5 } else { next() }).collect();
    let mu: Vec<f64> = (0..nc).map(|_| 0.3 + 0.2 * next().abs()).collect();
    (w, q, mu)
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A kept solver answers each call as the one-shot call does, bit for bit, while the values
/// change (same shape), when the shape changes (size, dense → CSR) and from a warm start.
#[test]
fn a_kept_solver_answers_as_the_one_shot_calls() {
    let s = PerpSettings { tol: 1e-10, ..perp_settings_default() };
    for name in [c"nsgs", c"prox", c"ac-newton", c"fb-newton"] {
        let h = unsafe { perp_solver_new(PerpFamily::Friction as i32, name.as_ptr(), &s) };
        assert!(!h.is_null(), "{}", last_error());
        let mut last_r = Vec::new();
        for (call, (nc, seed)) in [(2, 1), (2, 2), (2, 3), (3, 4), (3, 5), (3, 5)].into_iter().enumerate() {
            let (w, q, mu) = fc_data(nc, seed);
            let size = 3 * nc;
            // Call 4 gives W in CSR (every entry stored), call 5 the same CSR W again.
            let (row_ptr, col_idx): (Vec<usize>, Vec<usize>) =
                ((0..=size).map(|i| i * size).collect(), (0..size * size).map(|k| k % size).collect());
            let row_major: Vec<f64> = (0..size * size).map(|k| w[(k % size) * size + k / size]).collect();
            let m = if call >= 4 {
                perp_matrix_csr(
                    size,
                    size,
                    size * size,
                    row_ptr.as_ptr(),
                    col_idx.as_ptr(),
                    row_major.as_ptr(),
                )
            } else {
                perp_matrix_dense(size, size, w.as_ptr())
            };
            // The last call is warm-started from the previous answer.
            let warm = if call == 5 { &last_r[..] } else { &[] };
            let a = Args {
                m: Some(&m),
                q: &q,
                n: nc,
                dim: 3,
                mu: &mu,
                warm,
                settings: Some(&s),
                ..Args::default()
            };
            let (st1, st2, o1, o2) = kept_and_one_shot(h, name, size, |via, o| via.friction(&a, o));
            assert_eq!(st1, PerpStatus::Solved, "{name:?} call {call}: {}", last_error());
            assert_eq!(o1.bits(st1), o2.bits(st2), "{name:?} call {call}");
            last_r = o1.x;
        }
        unsafe { perp_solver_free(h) };
    }
    // LCP: lemke and pgs, M's values changing, then its size.
    for name in [c"lemke", c"pgs"] {
        let h = unsafe { perp_solver_new(PerpFamily::Lcp as i32, name.as_ptr(), null()) };
        assert!(!h.is_null(), "{}", last_error());
        for (k, n) in [2, 2, 2, 1].into_iter().enumerate() {
            let scale = 1.0 + k as f64;
            let m: Vec<f64> = M.iter().map(|v| v * scale).collect();
            let mat = if n == 2 {
                perp_matrix_dense(2, 2, m.as_ptr())
            } else {
                perp_matrix_dense(1, 1, m.as_ptr())
            };
            let q: Vec<f64> = Q.iter().map(|v| v / scale + k as f64).take(n).collect();
            let a = Args { m: Some(&mat), q: &q, n, ..Args::default() };
            let (st1, st2, o1, o2) = kept_and_one_shot(h, name, n, |via, o| via.lcp(&a, o));
            assert_eq!(st1, PerpStatus::Solved, "{name:?} call {k}: {}", last_error());
            assert_eq!(o1.bits(st1), o2.bits(st2), "{name:?} call {k}");
        }
        unsafe { perp_solver_free(h) };
    }
}

/// A CSR M of order n coupling i to i ± 1 (mod n), symmetric and diagonally dominant (row
/// pointers, columns, values), and q in [−1, 1) (SplitMix64 from `seed`).
fn cyclic_lcp(n: usize, seed: u64) -> (Vec<usize>, Vec<usize>, Vec<f64>, Vec<f64>) {
    let mut x = seed;
    let mut uniform = move |a: f64, b: f64| {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        a + (b - a) * (((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64)
    };
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        let j = (i + 1) % n;
        if j != i {
            let v = uniform(-0.5, 0.5);
            a[i * n + j] = v;
            a[j * n + i] = v;
        }
    }
    for i in 0..n {
        let off: f64 = (0..n).filter(|&j| j != i).map(|j| f64::abs(a[i * n + j])).sum();
        a[i * n + i] = off + uniform(0.5, 2.0);
    }
    let (mut row_ptr, mut col_idx, mut values) = (vec![0], Vec::new(), Vec::new());
    for i in 0..n {
        for j in 0..n {
            if a[i * n + j] != 0.0 {
                col_idx.push(j);
                values.push(a[i * n + j]);
            }
        }
        row_ptr.push(col_idx.len());
    }
    let q = (0..n).map(|_| uniform(-1.0, 1.0)).collect();
    (row_ptr, col_idx, values, q)
}

/// Issue 36: the kept LCP solver returned -3 (a caught panic) when a sparse problem shrank:
/// faer's sparse LU inside fb-newton was kept across sizes. Now each call of a sequence that
/// grows and shrinks answers as the one-shot call does, bit for bit.
#[test]
fn a_kept_lcp_solver_follows_a_sparse_problem_that_shrinks() {
    for name in [c"fb-newton", c"pgs", c"lemke"] {
        let h = unsafe { perp_solver_new(PerpFamily::Lcp as i32, name.as_ptr(), null()) };
        assert!(!h.is_null(), "{}", last_error());
        for (call, n) in [30, 10, 30, 12, 3].into_iter().enumerate() {
            let (row_ptr, col_idx, values, q) = cyclic_lcp(n, call as u64 + 1);
            let m = perp_matrix_csr(n, n, values.len(), row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
            let a = Args { m: Some(&m), q: &q, n, ..Args::default() };
            let (st1, st2, o1, o2) = kept_and_one_shot(h, name, n, |via, o| via.lcp(&a, o));
            assert_eq!(st1, PerpStatus::Solved, "{name:?} call {call} (n = {n}): {}", last_error());
            assert_eq!(o1.bits(st1), o2.bits(st2), "{name:?} call {call} (n = {n})");
        }
        unsafe { perp_solver_free(h) };
    }
}

/// Once a kept solver has solved a problem of a structure, later calls of that structure
/// allocate nothing (counted on this thread with a counting allocator).
#[test]
fn a_kept_solver_allocates_nothing_once_prepared() {
    for name in [c"nsgs", c"prox", c"ac-newton"] {
        let h = unsafe { perp_solver_new(PerpFamily::Friction as i32, name.as_ptr(), null()) };
        assert!(!h.is_null(), "{}", last_error());
        let mut o = Out::new(6);
        let mut allocs = Vec::new();
        for seed in 1..=4 {
            let (w, q, mu) = fc_data(2, seed);
            let m = perp_matrix_dense(6, 6, w.as_ptr());
            let a = Args { m: Some(&m), q: &q, n: 2, dim: 3, mu: &mu, ..Args::default() };
            let (count, st) = perp_core::alloc_count::allocations(|| Via::Kept(h).friction(&a, &mut o));
            assert_eq!(st, PerpStatus::Solved, "{name:?}: {}", last_error());
            allocs.push(count);
        }
        assert!(allocs[0] > 0, "{name:?}: the first call builds the problem: {allocs:?}");
        assert_eq!(&allocs[1..], &[0, 0, 0], "{name:?}: allocations per call");
        unsafe { perp_solver_free(h) };
    }
    let h = unsafe { perp_solver_new(PerpFamily::Lcp as i32, c"lemke".as_ptr(), null()) };
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let mut o = Out::new(2);
    let mut allocs = Vec::new();
    for k in 0..3 {
        let q = [Q[0] + k as f64, Q[1]];
        let a = Args { m: Some(&m), q: &q, n: 2, ..Args::default() };
        let (count, st) = perp_core::alloc_count::allocations(|| Via::Kept(h).lcp(&a, &mut o));
        assert_eq!(st, PerpStatus::Solved, "{}", last_error());
        allocs.push(count);
    }
    assert_eq!(&allocs[1..], &[0, 0], "lemke: allocations per call");
    unsafe { perp_solver_free(h) };
}

#[test]
fn a_kept_solver_refuses_bad_use_naming_it() {
    // Unknown family or name: NULL and a message.
    assert!(unsafe { perp_solver_new(7, null(), null()) }.is_null());
    assert!(last_error().contains("family"), "{}", last_error());
    assert!(unsafe { perp_solver_new(PerpFamily::Lcp as i32, c"nsgs".as_ptr(), null()) }.is_null());
    assert!(
        last_error().contains("nsgs is a frictional-contact solver; for an LCP use one of"),
        "{}",
        last_error()
    );
    // PERP_FAMILY_ANY: the family of an unambiguous name; an ambiguous, unknown or NULL name
    // is refused naming it.
    for (name, family) in [(c"lemke", "lcp"), (c"nsgs", "friction"), (c"bdiff-newton", "lcp")] {
        let h = unsafe { perp_solver_new(PerpFamily::Any as i32, name.as_ptr(), null()) };
        assert!(!h.is_null(), "{name:?}: {}", last_error());
        assert_eq!(unsafe { &*h }.solver.family().as_str(), family);
        unsafe { perp_solver_free(h) };
    }
    assert!(unsafe { perp_solver_new(PerpFamily::Any as i32, c"fb-newton".as_ptr(), null()) }.is_null());
    assert!(
        last_error().contains("solver = fb-newton") && last_error().contains("PERP_FAMILY_LCP"),
        "{}",
        last_error()
    );
    assert!(unsafe { perp_solver_new(PerpFamily::Any as i32, c"nope".as_ptr(), null()) }.is_null());
    assert!(last_error().contains("unknown solver 'nope'"), "{}", last_error());
    assert!(unsafe { perp_solver_new(PerpFamily::Any as i32, null(), null()) }.is_null());
    assert!(last_error().contains("PERP_FAMILY_ANY needs a solver name"), "{}", last_error());
    // The wrong family for the call, and a NULL handle.
    let h = unsafe { perp_solver_new(PerpFamily::Lcp as i32, null(), null()) };
    assert!(!h.is_null());
    let (w, q, mu) = fc_data(1, 1);
    let m = perp_matrix_dense(3, 3, w.as_ptr());
    let mut o = Out::new(3);
    let a = Args { m: Some(&m), q: &q, n: 1, dim: 3, mu: &mu, ..Args::default() };
    let st = Via::Kept(h).friction(&a, &mut o);
    assert_eq!((st, o.rep.status), (PerpStatus::InvalidInput, PerpStatus::InvalidInput));
    assert!(last_error().contains("lemke") && last_error().contains("Friction"), "{}", last_error());
    let st = Via::Kept(null_mut()).friction(&a, &mut o);
    assert_eq!(st, PerpStatus::NullPointer);
    assert!(last_error().contains("solver is a null"), "{}", last_error());
    // Bad values in a kept problem are refused, and the next good call is solved.
    let hf = unsafe { perp_solver_new(PerpFamily::Friction as i32, c"nsgs".as_ptr(), null()) };
    let mut call = |q: &[f64]| Via::Kept(hf).friction(&Args { q, ..a }, &mut o);
    assert_eq!(call(&q), PerpStatus::Solved, "{}", last_error());
    assert_eq!(call(&[q[0], f64::NAN, q[2]]), PerpStatus::InvalidInput);
    assert!(last_error().contains('q'), "{}", last_error());
    assert_eq!(call(&q), PerpStatus::Solved, "{}", last_error());
    unsafe {
        perp_solver_free(hf);
        perp_solver_free(h);
        perp_solver_free(null_mut());
    }
}

/// `perp_solve_lcp` with `n` for a 2×2 M (2-element q, z and w that must not be touched).
fn lcp_with_n(m: &PerpMatrix, n: usize) -> PerpStatus {
    let mut o = Out::new(2).without_report();
    let st = Via::Name(null()).lcp(&Args { m: Some(m), q: &Q, n, ..Args::default() }, &mut o);
    assert!(o.untouched(), "written after a refusal: {:?} {:?}", o.x, o.y);
    st
}

/// `perp_solve_friction` (`kept`: `perp_solver_friction` on `kept`) with `n_contacts` for a
/// 3×3 W (3-element q, r and u, one μ).
fn friction_with(kept: Option<*mut PerpSolver>, n_contacts: usize) -> PerpStatus {
    let wm = perp_matrix_dense(3, 3, EYE3.as_ptr());
    let (q, mu) = ([-1.0, 0.5, 0.0], [0.3]);
    let mut o = Out::new(3).without_report();
    let a = Args { m: Some(&wm), q: &q, n: n_contacts, dim: 3, mu: &mu, ..Args::default() };
    let st = kept.map_or(Via::Name(null()), Via::Kept).friction(&a, &mut o);
    if (st as i32) < 0 {
        assert!(o.untouched(), "written after a refusal: {:?} {:?}", o.x, o.y);
    }
    st
}

/// Issue 36: a 2×2 M with n = 1e8 read q past its end (a segfault), n = 2⁴⁰ aborted on the
/// copy's allocation; the frictional calls the same with a huge `n_contacts`. Every size is
/// now checked against the matrix's own before any array is read.
#[test]
fn huge_sizes_are_refused_before_any_array_is_read() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    for n in [100_000_000usize, 1 << 40, usize::MAX] {
        assert_eq!(lcp_with_n(&m, n), PerpStatus::InvalidInput);
        assert_eq!(
            last_error(),
            format!("perp_solve_lcp: invalid setting n = {n}: M is 2x2; n must be its order")
        );
    }
    for nc in [100_000_000usize, 1 << 40] {
        assert_eq!(friction_with(None, nc), PerpStatus::InvalidInput);
        let e = last_error();
        assert!(e.contains(&format!("dim * n_contacts = {}: W is 3x3", 3 * nc)), "{e}");
    }
    assert_eq!(friction_with(None, usize::MAX), PerpStatus::InvalidInput);
    assert!(last_error().contains(&format!("n_contacts = {}: dim * n_contacts overflows", usize::MAX)));
    // The kept solvers, before and after a first solve (the kept problem's path).
    let hl = unsafe { perp_solver_new(PerpFamily::Lcp as i32, null(), null()) };
    let hf = unsafe { perp_solver_new(PerpFamily::Friction as i32, c"nsgs".as_ptr(), null()) };
    let kept_lcp = |n: usize| {
        Via::Kept(hl)
            .lcp(&Args { m: Some(&m), q: &Q, n, ..Args::default() }, &mut Out::new(2).without_report())
    };
    for round in 0..2 {
        for n in [100_000_000usize, 1 << 40] {
            assert_eq!(kept_lcp(n), PerpStatus::InvalidInput, "round {round}");
            assert!(last_error().starts_with(&format!("perp_solver_lcp: invalid setting n = {n}: M is 2x2")));
            assert_eq!(friction_with(Some(hf), n), PerpStatus::InvalidInput, "round {round}");
            let e = last_error();
            assert!(
                e.starts_with(&format!("perp_solver_friction: invalid setting dim * n_contacts = {}", 3 * n))
            );
        }
        assert_eq!(friction_with(Some(hf), usize::MAX), PerpStatus::InvalidInput);
        assert_eq!(kept_lcp(2), PerpStatus::Solved, "{}", last_error());
        assert_eq!(friction_with(Some(hf), 1), PerpStatus::Solved, "{}", last_error());
    }
    unsafe {
        perp_solver_free(hl);
        perp_solver_free(hf);
    }
}

/// A matrix's own sizes: `nrows · ncols` that overflows, or that no memory holds, and more CSR
/// entries than the matrix has places, are refused before its arrays are read.
#[test]
fn matrix_sizes_beyond_memory_are_refused() {
    let big = 1usize << 33;
    let m = perp_matrix_dense(big, big, M.as_ptr());
    assert_eq!(lcp_with_n(&m, big), PerpStatus::InvalidInput);
    assert!(
        last_error().contains(&format!("M.nrows * M.ncols = {big} * {big}: overflows")),
        "{}",
        last_error()
    );
    let half = 1usize << 31;
    let m = perp_matrix_dense(half, half, M.as_ptr());
    assert_eq!(lcp_with_n(&m, half), PerpStatus::InvalidInput);
    assert!(
        last_error()
            .contains(&format!("length of M.values = {}: is more elements than memory holds", half * half)),
        "{}",
        last_error()
    );
    let (row_ptr, col_idx, values) = ([0usize, 1, 2], [0usize, 1], [2.0, 2.0]);
    let csr = perp_matrix_csr(2, 2, 5, row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
    assert_eq!(lcp_with_n(&csr, 2), PerpStatus::InvalidInput);
    assert!(last_error().contains("M.nnz = 5: is more entries than a 2x2 matrix has"), "{}", last_error());
    let csr = perp_matrix_csr(usize::MAX, usize::MAX, 0, row_ptr.as_ptr(), col_idx.as_ptr(), values.as_ptr());
    assert_eq!(lcp_with_n(&csr, usize::MAX), PerpStatus::InvalidInput);
    assert!(last_error().contains("M.nrows = "), "{}", last_error());
}

/// Issue 36: a parameter given twice was taken silently (the last one won); a huge
/// `n_params` was copied before anything was checked.
#[test]
fn duplicate_parameters_and_more_than_the_solver_has_are_refused() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let params = [c"omega=1.2".as_ptr(), c"max_sweeps=10".as_ptr(), c" omega = 1.3".as_ptr()];
    let s = PerpSettings { params: params.as_ptr(), n_params: 3, ..perp_settings_default() };
    assert_eq!(solve_lcp(c"psor", &m, &Q, 2, Some(&s)).status, PerpStatus::InvalidInput);
    assert_eq!(
        last_error(),
        "perp_solve_lcp: invalid setting settings.params[2] =  omega = 1.3: parameter omega is given twice \
         (settings.params[0] too)"
    );
    let h = unsafe { perp_solver_new(PerpFamily::Lcp as i32, c"psor".as_ptr(), &s) };
    assert!(h.is_null());
    assert!(last_error().contains("parameter omega is given twice"), "{}", last_error());
    // lemke has 2 parameters: 3 strings cannot all be distinct names of its own.
    let s = PerpSettings { params: params.as_ptr(), n_params: 100_000_000, ..perp_settings_default() };
    assert_eq!(solve_lcp(c"lemke", &m, &Q, 2, Some(&s)).status, PerpStatus::InvalidInput);
    assert_eq!(
        last_error(),
        "perp_solve_lcp: invalid setting settings.n_params = 100000000: lemke has 2 parameter(s), each to be \
         given at most once"
    );
}

/// Issue 36: `settings.time_limit = 1e300` panicked converting to a `Duration`; a limit
/// beyond what a `Duration` holds is no limit.
#[test]
fn a_time_limit_beyond_a_duration_is_no_limit() {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    for t in [1e300, 2e19, f64::MAX] {
        let s = PerpSettings { time_limit: t, ..perp_settings_default() };
        let r = solve_lcp(c"lemke", &m, &Q, 2, Some(&s));
        assert_eq!(r.status, PerpStatus::Solved, "{t}: {}", last_error());
        let h = unsafe { perp_solver_new(PerpFamily::Friction as i32, c"prox".as_ptr(), &s) };
        assert!(!h.is_null(), "{}", last_error());
        assert_eq!(friction_with(Some(h), 1), PerpStatus::Solved, "{t}: {}", last_error());
        unsafe { perp_solver_free(h) };
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// Any settings values: the call is solved or refused naming the field, never a panic.
    #[test]
    fn any_settings_are_solved_or_refused_by_name(
        tol in proptest::num::f64::ANY,
        time_limit in proptest::num::f64::ANY,
        max_iter in 0usize..1000,
        friction in proptest::prelude::any::<bool>(),
    ) {
        let s = PerpSettings { tol, time_limit, max_iter, ..perp_settings_default() };
        let status = if friction {
            let h = unsafe { perp_solver_new(PerpFamily::Friction as i32, c"nsgs".as_ptr(), &s) };
            let st = if h.is_null() { PerpStatus::InvalidInput } else { friction_with(Some(h), 1) };
            unsafe { perp_solver_free(h) };
            st
        } else {
            let m = perp_matrix_dense(2, 2, M.as_ptr());
            solve_lcp(c"pgs", &m, &Q, 2, Some(&s)).status
        };
        let e = last_error();
        proptest::prop_assert_ne!(status, PerpStatus::InternalError, "{}", e);
        if !(time_limit.is_finite() && time_limit >= 0.0) {
            proptest::prop_assert!(status == PerpStatus::InvalidInput && e.contains("settings.time_limit"), "{}", e);
        } else if !(tol.is_finite() && tol >= 0.0) {
            proptest::prop_assert!(status == PerpStatus::InvalidInput && e.contains("settings.tol"), "{}", e);
        } else {
            proptest::prop_assert!(status as i32 >= 0, "{:?}: {}", status, e);
        }
    }
}

// ----------------------------------------------- issue 34, item 5: box-LCP, MLCP, the report

/// The report's message as a Rust string.
fn report_message(r: &PerpReport) -> String {
    unsafe { CStr::from_ptr(r.message.as_ptr()) }.to_str().unwrap().to_string()
}

/// `perp_solve_box_lcp` on M, Q with `lower`, `upper`: (status, z, w, report).
fn box_lcp(
    solver: Option<&CStr>,
    lower: &[f64; 2],
    upper: &[f64; 2],
) -> (PerpStatus, Vec<f64>, Vec<f64>, PerpReport) {
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let mut o = Out::new(2);
    let s = PerpSettings { tol: 1e-10, ..perp_settings_default() };
    let a = Args { m: Some(&m), q: &Q, n: 2, lower, upper, settings: Some(&s), ..Args::default() };
    let status = Via::Name(solver.map_or(null(), CStr::as_ptr)).box_lcp(&a, &mut o);
    assert_eq!(o.rep.status, status);
    (status, o.x, o.y, o.rep)
}

#[test]
fn a_box_lcp_with_active_bounds_is_solved_by_every_solver_that_takes_bounds() {
    // z0 <= 1 binds: z0 = 1 (w0 = 2 + 2.5 - 5 = -0.5 <= 0), z1 = 2.5 (w1 = 0).
    for solver in [None, Some(c"pgs"), Some(c"psor"), Some(c"bdiff-newton"), Some(c"fb-newton")] {
        let (status, z, w, rep) = box_lcp(solver, &[0.0, 0.0], &[1.0, f64::INFINITY]);
        assert_eq!(status, PerpStatus::Solved, "{solver:?}: {}", last_error());
        assert!((z[0] - 1.0).abs() < 1e-8 && (z[1] - 2.5).abs() < 1e-8, "{solver:?}: {z:?}");
        assert!((w[0] + 0.5).abs() < 1e-8 && w[1].abs() < 1e-8, "{solver:?}: {w:?}");
        assert!(rep.error <= 1e-10, "{rep:?}");
    }
    // Lemke takes no bounds: refused, naming the solvers that do.
    let (status, .., rep) = box_lcp(Some(c"lemke"), &[0.0, 0.0], &[1.0, 10.0]);
    assert_eq!(status, PerpStatus::InvalidInput);
    assert!(report_message(&rep).contains("for a box-LCP use pgs"), "{}", report_message(&rep));
}

#[test]
fn box_lcp_bounds_are_checked_naming_the_index_and_values() {
    let (status, z, _, rep) = box_lcp(None, &[2.0, 0.0], &[1.0, 10.0]);
    assert_eq!(status, PerpStatus::InvalidInput);
    assert!(z[0].is_nan(), "nothing written on a refusal");
    assert_eq!(report_message(&rep), last_error());
    assert!(last_error().contains("bounds at index 0: lower 2 > upper 1"), "{}", last_error());
    let (status, ..) = box_lcp(None, &[0.0, f64::NAN], &[1.0, 10.0]);
    assert_eq!(status, PerpStatus::InvalidInput);
    assert!(last_error().contains("index 1") && last_error().contains("NaN"), "{}", last_error());
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let a = Args { m: Some(&m), q: &Q, n: 2, upper: &Q, ..Args::default() };
    let status = Via::Name(null()).box_lcp(&a, &mut Out::new(2).without_report());
    assert_eq!(status, PerpStatus::NullPointer);
    assert!(last_error().contains("lower is a null"), "{}", last_error());
}

/// `perp_solve_mlcp` on the dense column-major `m` (order 2) and `q` with `n_eq` equations.
fn mlcp(
    solver: Option<&CStr>,
    m: &[f64; 4],
    q: &[f64; 2],
    n_eq: usize,
) -> (PerpStatus, Vec<f64>, Vec<f64>, PerpReport) {
    let pm = perp_matrix_dense(2, 2, m.as_ptr());
    let mut o = Out::new(2);
    let s = PerpSettings { tol: 1e-12, ..perp_settings_default() };
    let a = Args { m: Some(&pm), q, n: 2, n_eq, settings: Some(&s), ..Args::default() };
    let status = Via::Name(solver.map_or(null(), CStr::as_ptr)).mlcp(&a, &mut o);
    assert_eq!(o.rep.status, status);
    (status, o.x, o.y, o.rep)
}

#[test]
fn a_2x2_mlcp_solved_by_hand() {
    // 2u + v - 4 = 0 (u free), w = -u + 2v - 1, 0 <= v ⊥ w >= 0: u = 7/5, v = 6/5, w = 0.
    let (m, q) = ([2.0, -1.0, 1.0, 2.0], [-4.0, -1.0]);
    for solver in [None, Some(c"fb-newton"), Some(c"bdiff-newton"), Some(c"schur-lemke")] {
        let (status, z, w, rep) = mlcp(solver, &m, &q, 1);
        assert_eq!(status, PerpStatus::Solved, "{solver:?}: {}", last_error());
        assert!((z[0] - 1.4).abs() < 1e-10 && (z[1] - 1.2).abs() < 1e-10, "{solver:?}: {z:?}");
        assert!(w.iter().all(|x| x.abs() < 1e-10), "{w:?}");
        assert!(rep.physical_error.is_finite() && rep.physical_error <= 1e-8, "{rep:?}");
    }
    // With D = +1 instead, v = 0 is the answer: u = 2, w = (0, 1).
    let (status, z, w, _) = mlcp(None, &[2.0, 1.0, 1.0, 2.0], &q, 1);
    assert_eq!(status, PerpStatus::Solved);
    assert!((z[0] - 2.0).abs() < 1e-10 && z[1].abs() < 1e-10 && (w[1] - 1.0).abs() < 1e-10, "{z:?} {w:?}");
}

#[test]
fn mlcp_refusals_name_the_argument_and_the_family() {
    let (m, q) = ([2.0, -1.0, 1.0, 2.0], [-4.0, -1.0]);
    let (status, z, _, rep) = mlcp(None, &m, &q, 3);
    assert_eq!(status, PerpStatus::InvalidInput);
    assert!(z[0].is_nan());
    assert!(
        report_message(&rep).contains("n_eq") && report_message(&rep).contains("at most n = 2"),
        "{}",
        report_message(&rep)
    );
    let (status, .., rep) = mlcp(Some(c"nsgs"), &m, &q, 1);
    assert_eq!(status, PerpStatus::InvalidInput);
    let msg = report_message(&rep);
    assert!(
        msg.starts_with("perp_solve_mlcp: nsgs is a frictional-contact solver;") && msg.contains("fb-newton"),
        "{msg}"
    );
    let (status, ..) = mlcp(None, &[2.0, f64::NAN, 1.0, 2.0], &q, 1);
    assert_eq!(status, PerpStatus::InvalidInput);
    assert!(last_error().contains("M.values"), "{}", last_error());
}

#[test]
fn the_report_carries_the_physical_error_and_the_solvers_note() {
    // An LCP solve has a physical error; a refused call none, and its message in the report.
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    let r = solve_lcp(c"lemke", &m, &Q, 2, None);
    assert!(r.report.physical_error.is_finite() && r.report.physical_error < 1e-8, "{:?}", r.report);
    let r = solve_lcp(c"nope", &m, &Q, 2, None);
    assert!(r.report.physical_error.is_nan());
    assert!(report_message(&r.report).starts_with("perp_solve_lcp: unknown solver 'nope'"));
    // A solver's note: pgs stopped by its iteration limit says so, or says nothing; either way
    // the message is a NUL-terminated string no longer than the buffer.
    let s = PerpSettings { max_iter: 1, tol: 1e-14, ..perp_settings_default() };
    let r = solve_lcp(c"pgs", &m, &Q, 2, Some(&s));
    assert_eq!(r.status, PerpStatus::MaxIterations);
    assert!(report_message(&r.report).len() < PERP_MESSAGE_LEN);
    // A long refusal is cut to the buffer at a character boundary.
    let long = format!("{}\u{e9}", "x".repeat(PERP_MESSAGE_LEN - 2));
    let mut buf = [1 as c_char; PERP_MESSAGE_LEN];
    set_text(&mut buf, &long);
    assert_eq!(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_bytes().len(), PERP_MESSAGE_LEN - 2);
}

#[test]
fn mcp_solver_names_come_from_the_catalogue() {
    let n = unsafe { perp_solver_names(PerpFamily::Mcp as i32, null_mut(), 0) };
    let mut buf = vec![0 as c_char; n + 1];
    unsafe { perp_solver_names(PerpFamily::Mcp as i32, buf.as_mut_ptr(), buf.len()) };
    let names = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string();
    assert_eq!(names, perp_catalogue::names(Family::Mcp).join(","));
}

/// What the test callback saw: (iteration, error) pairs, and after how many calls it stops
/// (0: never).
struct Seen {
    calls: Vec<(usize, f64)>,
    stop_after: usize,
}

unsafe extern "C" fn record(user: *mut std::ffi::c_void, iteration: usize, error: f64) -> std::ffi::c_int {
    let seen = unsafe { &mut *user.cast::<Seen>() };
    seen.calls.push((iteration, error));
    (seen.stop_after != 0 && seen.calls.len() >= seen.stop_after) as std::ffi::c_int
}

/// The history the Rust library records for the same solve (its measured iterations and
/// errors), through the catalogue directly.
fn rust_history(family: perp_catalogue::Family, name: &str, p: Problem, tol: f64) -> Vec<(usize, f64)> {
    let s = Settings { tol, record_history: true, ..Settings::default() };
    let a = perp_catalogue::build(family, name, &Params::new()).unwrap().solve(&p, None, &s).unwrap();
    a.report.history_iterations.iter().copied().zip(a.report.history.iter().copied()).collect()
}

/// The callback of the settings is called at every measured iteration, in increasing order,
/// with the errors the Rust report's history shows, by the one-shot and the kept calls;
/// stopping it early is `PERP_STATUS_INTERRUPTED` with a message; NULL changes nothing.
#[test]
fn the_settings_callback_sees_every_measured_iteration_and_can_stop_the_solve() {
    let (w, q, mu) = fc_data(3, 7);
    let size = 9;
    let wm = perp_matrix_dense(size, size, w.as_ptr());
    for name in [c"nsgs", c"prox", c"fb-newton", c"ac-newton"] {
        let rust = rust_history(
            perp_catalogue::Family::Friction,
            name.to_str().unwrap(),
            Problem::Friction(
                perp_cones::FrictionContactProblem::new(
                    3,
                    Matrix::from_col_major(size, size, &w).unwrap(),
                    q.clone(),
                    mu.clone(),
                )
                .unwrap(),
            ),
            1e-10,
        );
        assert!(rust.len() >= 2, "{name:?}: {rust:?}");
        let mut seen = Seen { calls: Vec::new(), stop_after: 0 };
        let s = PerpSettings {
            tol: 1e-10,
            callback: Some(record),
            user: (&mut seen as *mut Seen).cast(),
            ..perp_settings_default()
        };
        let a = Args { m: Some(&wm), q: &q, n: 3, dim: 3, mu: &mu, settings: Some(&s), ..Args::default() };
        let mut o = Out::new(size);
        let st = named(name).friction(&a, &mut o);
        assert_eq!(st, PerpStatus::Solved, "{name:?}: {}", report_message(&o.rep));
        assert!(seen.calls.windows(2).all(|p| p[0].0 < p[1].0), "{name:?}: {:?}", seen.calls);
        // The iteration that meets the tolerance ends the loop before the observer is asked
        // (perp_core::iteration::run): the history's last entry is the report's.
        assert_eq!(seen.calls, rust[..rust.len() - 1], "{name:?}");
        assert_eq!(rust.last().map(|&(k, _)| k), Some(o.rep.iterations), "{name:?}");
        // Without a callback: the same answer, bit for bit.
        let plain = PerpSettings { tol: 1e-10, ..perp_settings_default() };
        let mut o0 = Out::new(size);
        let st0 = named(name).friction(&Args { settings: Some(&plain), ..a }, &mut o0);
        assert_eq!((st0, o0.rep.iterations, bits(&o0.x)), (st, o.rep.iterations, bits(&o.x)), "{name:?}");

        // Stopped after the first call: interrupted at that iteration, best iterate written.
        let mut stop = Seen { calls: Vec::new(), stop_after: 1 };
        let s = PerpSettings { user: (&mut stop as *mut Seen).cast(), ..s };
        o.x.fill(f64::NAN);
        let st = named(name).friction(&Args { settings: Some(&s), ..a }, &mut o);
        let (r, rep) = (&o.x, &o.rep);
        assert_eq!(st, PerpStatus::Interrupted, "{name:?}: {}", report_message(rep));
        assert_eq!(stop.calls.len(), 1, "{name:?}");
        let k = stop.calls[0].0;
        assert!(
            report_message(rep)
                .starts_with(&format!("stopped by settings.callback (it returned 1 at iteration {k})")),
            "{name:?}: {}",
            report_message(rep)
        );
        assert!(r.iter().all(|x| x.is_finite()), "{name:?}: {r:?}");
        assert!(rep.iterations >= k, "{name:?}: {rep:?}");
    }

    // The LCP, MLCP and box-LCP calls and a kept solver call it the same way.
    let m = perp_matrix_dense(2, 2, M.as_ptr());
    for name in [c"pgs", c"psor"] {
        let lcp = perp_lcp::Lcp::new(Matrix::from_col_major(2, 2, &M).unwrap(), Q.to_vec()).unwrap();
        let rust =
            rust_history(perp_catalogue::Family::Lcp, name.to_str().unwrap(), Problem::Lcp(lcp), 1e-12);
        let mut seen = Seen { calls: Vec::new(), stop_after: 0 };
        let s = PerpSettings {
            tol: 1e-12,
            callback: Some(record),
            user: (&mut seen as *mut Seen).cast(),
            ..perp_settings_default()
        };
        let r = solve_lcp(name, &m, &Q, 2, Some(&s));
        assert_eq!(r.status, PerpStatus::Solved);
        assert!(rust.len() >= 2, "{name:?}: {rust:?}");
        assert_eq!(seen.calls, rust[..rust.len() - 1], "{name:?}");
        // A kept solver with these settings.
        let seen_before = seen.calls.len();
        let h = unsafe { perp_solver_new(PerpFamily::Lcp as i32, name.as_ptr(), &s) };
        let st = Via::Kept(h).lcp(&Args { m: Some(&m), q: &Q, n: 2, ..Args::default() }, &mut Out::new(2));
        unsafe { perp_solver_free(h) };
        assert_eq!(st, PerpStatus::Solved);
        assert_eq!(seen.calls[seen_before..], rust[..rust.len() - 1], "{name:?} kept");
    }
    let mut seen = Seen { calls: Vec::new(), stop_after: 1 };
    let s = PerpSettings {
        tol: 1e-14,
        callback: Some(record),
        user: (&mut seen as *mut Seen).cast(),
        ..perp_settings_default()
    };
    let mut o = Out::new(2);
    let a = Args { m: Some(&m), q: &Q, n: 2, lower: &[0.0, 0.0], upper: &[10.0, 10.0], ..Args::default() };
    let st = named(c"pgs").box_lcp(&Args { settings: Some(&s), ..a }, &mut o);
    assert_eq!((st, seen.calls.len()), (PerpStatus::Interrupted, 1), "{}", report_message(&o.rep));
    let mut seen = Seen { calls: Vec::new(), stop_after: 0 };
    let s = PerpSettings { user: (&mut seen as *mut Seen).cast(), tol: 1e-12, ..s };
    let m_values = [2.0, -1.0, 1.0, 2.0];
    let mm = perp_matrix_dense(2, 2, m_values.as_ptr());
    let a = Args { m: Some(&mm), q: &[-4.0, -1.0], n: 2, n_eq: 1, settings: Some(&s), ..Args::default() };
    let st = Via::Name(null()).mlcp(&a, &mut o);
    assert_eq!(st, PerpStatus::Solved);
    assert!(!seen.calls.is_empty() && seen.calls.windows(2).all(|p| p[0].0 < p[1].0), "{:?}", seen.calls);
}

/// Kept box-LCP and MLCP solvers answer as the one-shot calls, bit for bit, across different
/// problems (values, bounds and sizes changing; the same bounds again refill in place).
#[test]
fn kept_box_lcp_and_mlcp_solvers_answer_as_the_one_shot_calls() {
    let s = PerpSettings { tol: 1e-12, ..perp_settings_default() };
    // (M column-major, q, lower, upper) of orders 2, 2, 2 (same bounds), 3.
    let inf = f64::INFINITY;
    type BoxLcp = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);
    let problems: Vec<BoxLcp> = vec![
        (M.to_vec(), Q.to_vec(), vec![0.0, 0.0], vec![1.0, inf]),
        (vec![3.0, 1.0, 1.0, 2.0], vec![-2.0, 1.0], vec![-1.0, -1.0], vec![1.0, 1.0]),
        (vec![4.0, 1.0, 1.0, 3.0], vec![-9.0, 2.0], vec![-1.0, -1.0], vec![1.0, 1.0]),
        (
            vec![4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0],
            vec![-1.0, 5.0, -3.0],
            vec![0.0, -inf, 0.5],
            vec![0.2, inf, inf],
        ),
    ];
    for name in [c"pgs", c"psor", c"fb-newton"] {
        let h = unsafe { perp_solver_new(PerpFamily::Lcp as i32, name.as_ptr(), &s) };
        assert!(!h.is_null(), "{}", last_error());
        for (k, (m, q, lo, hi)) in problems.iter().enumerate() {
            let n = q.len();
            let mat = perp_matrix_dense(n, n, m.as_ptr());
            let a = Args { m: Some(&mat), q, n, lower: lo, upper: hi, settings: Some(&s), ..Args::default() };
            let (st1, st2, o1, o2) = kept_and_one_shot(h, name, n, |via, o| via.box_lcp(&a, o));
            assert_eq!(st1, PerpStatus::Solved, "{name:?} problem {k}: {}", report_message(&o1.rep));
            assert_eq!(o1.bits(st1), o2.bits(st2), "{name:?} problem {k}");
            // The answer is within its bounds.
            let z1 = &o1.x;
            for i in 0..n {
                assert!(z1[i] >= lo[i] && z1[i] <= hi[i], "{name:?} problem {k}: {z1:?}");
            }
        }
        // A plain LCP after box ones on the same handle does not keep their bounds.
        let mat = perp_matrix_dense(2, 2, M.as_ptr());
        let mut o = Out::new(2);
        let st = Via::Kept(h).lcp(&Args { m: Some(&mat), q: &Q, n: 2, ..Args::default() }, &mut o);
        let z = &o.x;
        assert_eq!(st, PerpStatus::Solved, "{name:?}");
        assert!((z[0] - 4.0 / 3.0).abs() < 1e-9 && (z[1] - 7.0 / 3.0).abs() < 1e-9, "{name:?}: {z:?}");
        unsafe { perp_solver_free(h) };
    }

    // MLCPs: (M column-major, q, n_eq).
    let mlcps: Vec<(Vec<f64>, Vec<f64>, usize)> = vec![
        (vec![2.0, -1.0, 1.0, 2.0], vec![-4.0, -1.0], 1),
        (vec![2.0, 1.0, 1.0, 2.0], vec![-4.0, -1.0], 1),
        (vec![4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0], vec![-1.0, 5.0, -3.0], 2),
    ];
    for name in [c"fb-newton", c"schur-lemke"] {
        let h = unsafe { perp_solver_new(PerpFamily::Mcp as i32, name.as_ptr(), &s) };
        assert!(!h.is_null(), "{}", last_error());
        for (k, (m, q, n_eq)) in mlcps.iter().enumerate() {
            let n = q.len();
            let mat = perp_matrix_dense(n, n, m.as_ptr());
            let a = Args { m: Some(&mat), q, n, n_eq: *n_eq, settings: Some(&s), ..Args::default() };
            let (st1, st2, o1, o2) = kept_and_one_shot(h, name, n, |via, o| via.mlcp(&a, o));
            assert_eq!(st1, PerpStatus::Solved, "{name:?} mlcp {k}: {}", report_message(&o1.rep));
            assert_eq!(o1.bits(st1), o2.bits(st2), "{name:?} mlcp {k}");
        }
        // The family is checked: an MCP handle refuses an LCP call, n_eq > n is refused.
        let mat = perp_matrix_dense(2, 2, M.as_ptr());
        let mut o = Out::new(2);
        let a = Args { m: Some(&mat), q: &Q, n: 2, ..Args::default() };
        let st = Via::Kept(h).lcp(&a, &mut o);
        assert_eq!(st, PerpStatus::InvalidInput);
        assert!(
            report_message(&o.rep).contains("create one of the Lcp family"),
            "{}",
            report_message(&o.rep)
        );
        let st = Via::Kept(h).mlcp(&Args { n_eq: 3, ..a }, &mut o);
        assert_eq!(st, PerpStatus::InvalidInput);
        assert!(report_message(&o.rep).contains("n_eq"), "{}", report_message(&o.rep));
        unsafe { perp_solver_free(h) };
    }
    // PERP_FAMILY_ANY with an MCP-only name makes an MCP solver.
    let h = unsafe { perp_solver_new(PerpFamily::Any as i32, c"schur-lemke".as_ptr(), null()) };
    assert!(!h.is_null(), "{}", last_error());
    unsafe { perp_solver_free(h) };
}

/// `perp_solve_friction_cone` on the identity W of `n_contacts` contacts of dimension `dim`.
fn solve_cone(
    solver: &CStr,
    cone: Option<&PerpCone>,
    dim: usize,
    q: &[f64],
    mu: &[f64],
) -> (PerpStatus, Vec<f64>, Vec<f64>, PerpReport) {
    let size = q.len();
    let w: Vec<f64> = (0..size * size).map(|k| if k % (size + 1) == 0 { 1.0 } else { 0.0 }).collect();
    let (status, r, u, rep) = solve_cone_on(solver, cone, dim, (&w, q, mu), 1e-12);
    assert_eq!(rep.status, status);
    (status, r, u, rep)
}

/// `perp_solve_friction_cone` on the dense `W` (row-major, of order `q.len()`), `q` and `mu`
/// at tolerance `tol`.
fn solve_cone_on(
    solver: &CStr,
    cone: Option<&PerpCone>,
    dim: usize,
    (w, q, mu): (&[f64], &[f64], &[f64]),
    tol: f64,
) -> (PerpStatus, Vec<f64>, Vec<f64>, PerpReport) {
    let size = q.len();
    let wm = perp_matrix_dense(size, size, w.as_ptr());
    let mut o = Out::new(size);
    let s = PerpSettings { tol, ..perp_settings_default() };
    let a = Args { m: Some(&wm), q, n: mu.len(), dim, mu, settings: Some(&s), ..Args::default() };
    let status = named(solver).friction_cone(cone, &a, &mut o);
    (status, o.x, o.y, o.rep)
}

/// Rolling contacts with W = I solved by hand: with q_N = −1 the contact presses (u_N = 0,
/// r_N = 1); a tangential q_T within μ r_N sticks (r_T = −q_T, u_T = 0); the rolling q_R = 2
/// slides (r_R = −μ_r r_N along q_R, u_R = q_R − μ_r r_N = 1.9): De Saxcé's complementarity
/// r·ũ = r_N u_N = 0 with ũ_N = u_N + μ‖u_T‖ + μ_r‖u_R‖ ≥ μ‖u_T‖ + μ_r‖u_R‖ (the dual cone).
#[test]
fn rolling_contacts_are_solved_by_hand_in_2d_and_3d() {
    let mu_r = [0.1, 0.1];
    let cone = perp_cone_rolling(mu_r.as_ptr());
    // 3-D (dim 5): two such contacts, N, T1, T2, R1, R2.
    let q5 = [-1.0, 0.3, -0.4, 0.0, 2.0, -1.0, 0.0, 0.2, 2.0, 0.0];
    let r5 = [1.0, -0.3, 0.4, 0.0, -0.1, 1.0, 0.0, -0.2, -0.1, 0.0];
    let u5 = [0.0, 0.0, 0.0, 0.0, 1.9, 0.0, 0.0, 0.0, 1.9, 0.0];
    // 2-D (dim 3): N, T, R.
    let q3 = [-1.0, 0.2, 2.0, -1.0, -0.2, -2.0];
    let r3 = [1.0, -0.2, -0.1, 1.0, 0.2, 0.1];
    let u3 = [0.0, 0.0, 1.9, 0.0, 0.0, -1.9];
    for name in [c"nsgs", c"prox", c"ac-newton"] {
        for (dim, q, r_want, u_want) in [(5, &q5[..], &r5[..], &u5[..]), (3, &q3[..], &r3[..], &u3[..])] {
            let (status, r, u, rep) = solve_cone(name, Some(&cone), dim, q, &[0.8, 0.8]);
            assert_eq!(status, PerpStatus::Solved, "{name:?} dim {dim}: {}", report_message(&rep));
            for i in 0..q.len() {
                assert!((r[i] - r_want[i]).abs() < 1e-9, "{name:?} dim {dim}: r = {r:?}");
                assert!((u[i] - u_want[i]).abs() < 1e-9, "{name:?} dim {dim}: u = {u:?}");
            }
            assert!(rep.error <= 1e-12, "{name:?} dim {dim}: {rep:?}");
        }
    }
    // A solver that needs ellipsoidal cones refuses, naming the contact and what to use.
    let (status, .., rep) = solve_cone(c"fb-newton", Some(&cone), 5, &q5, &[0.8, 0.8]);
    assert_eq!(status, PerpStatus::InvalidInput);
    assert!(report_message(&rep).contains("contact 0 is rolling"), "{}", report_message(&rep));
}

/// Every built-in law through the C call answers as the Rust problem built directly, bit for
/// bit; NULL and `perp_cone_coulomb()` are `perp_solve_friction`.
#[test]
fn every_built_in_cone_answers_as_the_rust_problem() {
    let (w3, q3, mu3) = fc_data(2, 11);
    let e: Vec<f64> = vec![1.0, 0.5, 0.8, 1.2];
    let rust = |dim: usize,
                w: &[f64],
                q: &[f64],
                mu: &[f64],
                specs: Option<Vec<perp_cones::ConeSpec>>,
                name: &str| {
        let size = q.len();
        let p = perp_cones::FrictionContactProblem::new(
            dim,
            Matrix::from_col_major(size, size, w).unwrap(),
            q.to_vec(),
            mu.to_vec(),
        )
        .unwrap();
        let p = match specs {
            Some(c) => p.with_cones(c).unwrap(),
            None => p,
        };
        let s = Settings { tol: 1e-10, ..Settings::default() };
        perp_catalogue::build(Family::Friction, name, &Params::new()).unwrap().solve(
            &Problem::Friction(p),
            None,
            &s,
        )
    };
    let c_call = |name: &CStr, cone: Option<&PerpCone>, dim: usize, w: &[f64], q: &[f64], mu: &[f64]| {
        solve_cone_on(name, cone, dim, (w, q, mu), 1e-10)
    };
    let coulomb = perp_cone_coulomb();
    let pyramid = perp_cone_pyramid(8);
    let elliptic = perp_cone_elliptic(e.as_ptr());
    for name in [c"nsgs", c"prox"] {
        let n = name.to_str().unwrap();
        let cases: Vec<(Option<&PerpCone>, Option<Vec<perp_cones::ConeSpec>>)> = vec![
            (None, None),
            (Some(&coulomb), None),
            (Some(&pyramid), Some(vec![perp_cones::ConeSpec::Pyramid { facets: 8 }; 2])),
            (
                Some(&elliptic),
                Some(vec![
                    perp_cones::ConeSpec::Elliptic { e: e[..2].to_vec() },
                    perp_cones::ConeSpec::Elliptic { e: e[2..].to_vec() },
                ]),
            ),
        ];
        for (k, (cone, specs)) in cases.into_iter().enumerate() {
            let want = rust(3, &w3, &q3, &mu3, specs, n).unwrap();
            let (st, r, u, rep) = c_call(name, cone, 3, &w3, &q3, &mu3);
            assert_eq!(st, PerpStatus::from(want.report.status), "{n} case {k}: {}", report_message(&rep));
            assert_eq!(st, PerpStatus::Solved, "{n} case {k}");
            assert_eq!((bits(&r), bits(&u)), (bits(&want.z), bits(&want.w)), "{n} case {k}");
        }
        // Torsion: the elliptic cone of dimension 4, three semi-axes per contact.
        let (w4, q4, mu4) = {
            let (w, q, mu) = fc_data(3, 12);
            // 9 unknowns as 2 contacts of dimension 4 and one left over is not a problem:
            // use the leading 8×8 block.
            let w8: Vec<f64> = (0..64).map(|k| w[(k / 8) * 9 + k % 8]).collect();
            (w8, q[..8].to_vec(), mu[..2].to_vec())
        };
        let e4 = [1.0, 1.0, 0.1, 0.8, 1.2, 0.05];
        let cone = perp_cone_elliptic(e4.as_ptr());
        let specs = vec![
            perp_cones::ConeSpec::Elliptic { e: e4[..3].to_vec() },
            perp_cones::ConeSpec::Elliptic { e: e4[3..].to_vec() },
        ];
        let want = rust(4, &w4, &q4, &mu4, Some(specs), n).unwrap();
        let (st, r, _, rep) = c_call(name, Some(&cone), 4, &w4, &q4, &mu4);
        assert_eq!(st, PerpStatus::from(want.report.status), "{n} torsion: {}", report_message(&rep));
        assert_eq!(bits(&r), bits(&want.z), "{n} torsion");
    }
}

#[test]
fn cones_that_do_not_fit_are_refused_naming_the_field() {
    let q5 = [-1.0, 0.0, 0.0, 0.0, 2.0];
    let neg = [-0.1];
    let cases: Vec<(PerpCone, usize, &[f64], &str)> = vec![
        (PerpCone { kind: 9, facets: 0, data: null() }, 5, &q5, "cone.kind = 9"),
        (perp_cone_rolling(neg.as_ptr()), 5, &q5, "mu_r[0] (cone.data) = -0.1"),
        (perp_cone_rolling(null()), 5, &q5, "cone.data (mu_r) is a null"),
        (perp_cone_rolling([0.1].as_ptr()), 2, &q5[..2], "contacts of the rolling cone have dimension 3"),
        (perp_cone_coulomb(), 5, &q5, "for torsion use PERP_CONE_ELLIPTIC"),
        (perp_cone_pyramid(2), 3, &q5[..3], "cone.facets = 2"),
        (perp_cone_elliptic([1.0, 0.0].as_ptr()), 3, &q5[..3], "cone.data[1] (semi-axis 1 of contact 0) = 0"),
    ];
    for (k, (cone, dim, q, want)) in cases.iter().enumerate() {
        let (status, r, _, rep) = solve_cone(c"nsgs", Some(cone), *dim, q, &[0.5]);
        assert!((status as i32) < 0, "case {k}: {status:?}");
        assert!(r[0].is_nan(), "case {k}: nothing written");
        let msg = report_message(&rep);
        assert!(msg.starts_with("perp_solve_friction_cone: ") && msg.contains(want), "case {k}: {msg}");
    }
    // The global call says that its form has no rolling cone.
    let m = [1.0; 1];
    let h = [1.0; 5];
    let (mm, hm) = (perp_matrix_dense(1, 1, m.as_ptr()), perp_matrix_dense(1, 5, h.as_ptr()));
    let (st, o, _) = solve_global(null(), 5, (Some(&mm), &hm), (&[0.0], &q5, &[0.5]), None);
    let rep = o.rep;
    assert_eq!(st, PerpStatus::InvalidInput);
    assert!(report_message(&rep).contains("no rolling or torsional cones"), "{}", report_message(&rep));
}

/// A kept solver with laws: rolling contacts whose W, q, μ and μ_r change (refilled in
/// place), then elliptic ones, then Coulomb through `perp_solver_friction` on the same
/// handle, each answer bit for bit the one-shot call's.
#[test]
fn a_kept_solver_follows_the_laws_as_the_one_shot_calls() {
    let s = PerpSettings { tol: 1e-10, ..perp_settings_default() };
    for name in [c"nsgs", c"prox"] {
        let h = unsafe { perp_solver_new(PerpFamily::Friction as i32, name.as_ptr(), &s) };
        assert!(!h.is_null(), "{}", last_error());
        // (dim, kind, data) per call; W, q, μ from fc_data(3, seed) cut to 2 contacts of dim.
        let calls: Vec<(usize, i32, Vec<f64>)> = vec![
            (5, PerpConeKind::Rolling as i32, vec![0.1, 0.05]),
            (5, PerpConeKind::Rolling as i32, vec![0.2, 0.0]),
            (3, PerpConeKind::Rolling as i32, vec![0.1, 0.3]),
            (3, PerpConeKind::Elliptic as i32, vec![1.0, 0.5, 0.7, 1.3]),
            (3, PerpConeKind::Elliptic as i32, vec![0.9, 0.6, 0.8, 1.1]),
            (3, -1, vec![]),
        ];
        for (k, (dim, kind, data)) in calls.iter().enumerate() {
            let (w9, q9, mu) = fc_data(4, 20 + k as u64);
            let size = 2 * dim;
            let w: Vec<f64> = (0..size * size).map(|i| w9[(i / size) * 12 + i % size]).collect();
            let (q, mu) = (&q9[..size], &mu[..2]);
            let wm = perp_matrix_dense(size, size, w.as_ptr());
            let cone = PerpCone { kind: *kind, facets: 0, data: data.as_ptr() };
            let a = Args { m: Some(&wm), q, n: 2, dim: *dim, mu, settings: Some(&s), ..Args::default() };
            let (st1, st2, o1, o2) = kept_and_one_shot(h, name, size, |via, o| {
                if *kind < 0 {
                    via.friction(&a, o)
                } else {
                    via.friction_cone(Some(&cone), &a, o)
                }
            });
            assert_eq!(st1, PerpStatus::Solved, "{name:?} call {k}: {}", report_message(&o1.rep));
            assert_eq!(o1.bits(st1), o2.bits(st2), "{name:?} call {k}");
        }
        // A bad μ_r on a kept rolling problem is refused and leaves it usable.
        let (w9, q9, mu) = fc_data(4, 40);
        let w: Vec<f64> = (0..100).map(|i| w9[(i / 10) * 12 + i % 10]).collect();
        let wm = perp_matrix_dense(10, 10, w.as_ptr());
        let good = [0.1, 0.1];
        let bad = [0.1, -1.0];
        let mut o = Out::new(10);
        let a = Args { m: Some(&wm), q: &q9[..10], n: 2, dim: 5, mu: &mu[..2], ..Args::default() };
        for (data, want) in
            [(&good, PerpStatus::Solved), (&bad, PerpStatus::InvalidInput), (&good, PerpStatus::Solved)]
        {
            let cone = perp_cone_rolling(data.as_ptr());
            let st = Via::Kept(h).friction_cone(Some(&cone), &a, &mut o);
            assert_eq!(st, want, "{name:?}: {}", report_message(&o.rep));
        }
        assert!(last_error().is_empty());
        unsafe { perp_solver_free(h) };
    }
}
