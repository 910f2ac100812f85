//! The examples run as tests, so that what the README shows keeps working.

#[path = "../examples/fit_friction.rs"]
mod fit_friction;

#[test]
fn fit_friction_recovers_mu_from_above_and_below() {
    // From 0.5 (the example's own run: the guessed sphere starts rolling within the record).
    fit_friction::main().unwrap();
    // From 0.05 (the guessed sphere slides throughout).
    let recorded = fit_friction::recorded(0.2).unwrap();
    let (mu, loss) = fit_friction::fit(&recorded, 0.05).unwrap();
    assert!((mu - 0.2).abs() < 1e-8 && loss < 1e-16, "mu {mu}, loss {loss}");
}
