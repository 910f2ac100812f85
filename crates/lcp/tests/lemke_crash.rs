//! Lemke's crash (block principal pivoting before the cold start) against the textbook all-w
//! start on every generated LCP family at sizes where the crash runs: the same status, an
//! answer that an independent check accepts, and for P-matrices (unique solution) the same z.

use perp_core::{Settings, Status};
use perp_lcp::samples;
use perp_lcp::{lemke::Lemke, Lcp, LcpSolver};

/// Independent check of an answer: z ≥ 0, w = Mz + q ≥ 0, zᵢwᵢ = 0, each within `tol`
/// relative to the size of q and M z.
fn check(p: &Lcp, z: &[f64], tol: f64) {
    let w = p.w(z);
    let scale = 1.0 + p.q().iter().fold(0.0f64, |a, x| a.max(x.abs()));
    for (i, (zi, wi)) in z.iter().zip(&w).enumerate() {
        assert!(*zi >= -tol * scale && *wi >= -tol * scale, "index {i}: z {zi}, w {wi}");
        assert!(zi.min(*wi).abs() <= tol * scale, "index {i}: z {zi}, w {wi}");
    }
}

fn both(p: &Lcp, unique: bool, label: &str) {
    let s = Settings { tol: 1e-10, ..Settings::default() };
    let with = Lemke::new().solve(p, None, &s).unwrap();
    let without = Lemke { crash: 0, ..Lemke::new() }.solve(p, None, &s).unwrap();
    eprintln!(
        "{label}: crash {:?} {} pivots {} LUs ({:?}) / all-w {:?} {} pivots",
        with.report.status,
        with.report.pivots,
        with.report.factorizations,
        with.report.message,
        without.report.status,
        without.report.pivots
    );
    // The crash may only do better: Fathi's family takes Lemke from the all-w start past its
    // pivot limit.
    if without.report.status == Status::Solved || !unique {
        assert_eq!(with.report.status, without.report.status, "{label}: {:?}", with.report);
    }
    if with.report.status == Status::Solved {
        check(p, &with.z, 1e-9);
        if unique && without.report.status == Status::Solved {
            let d = with.z.iter().zip(&without.z).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            let scale = without.z.iter().fold(1.0f64, |a, x| a.max(x.abs()));
            assert!(d <= 1e-9 * scale, "{label}: the two answers differ by {d}");
        }
    }
}

#[test]
fn the_crash_answers_as_the_all_w_start_does_on_every_generated_family() {
    for n in [64, 100, 300] {
        for seed in 0..3 {
            both(&samples::spd(n, seed), true, &format!("spd {n} seed {seed}"));
            both(&samples::p_matrix(n, seed), true, &format!("p-matrix {n} seed {seed}"));
            both(&samples::degenerate(n, seed), false, &format!("degenerate {n} seed {seed}"));
            both(&samples::psd(n, n / 2, seed), false, &format!("psd rank n/2 {n} seed {seed}"));
        }
    }
    for contacts in [30, 100] {
        for seed in 0..3 {
            both(&samples::contact(contacts, seed), false, &format!("contact {contacts} seed {seed}"));
            both(
                &samples::contact_dense(contacts, seed),
                false,
                &format!("contact-dense {contacts} seed {seed}"),
            );
        }
    }
    both(&samples::fathi(64), true, "fathi 64");
}
