//! Elliptic cones (placeholder, being written).
use crate::cone::Cone;
use perp_core::Error;

/// Elliptic cone `Σ (r_k/e_k)² ≤ μ² r_N²`.
#[derive(Clone, Debug)]
pub struct Elliptic {
    e: Vec<f64>,
}

impl Elliptic {
    /// New elliptic cone.
    pub fn new(e: &[f64]) -> Result<Elliptic, Error> {
        Ok(Elliptic { e: e.to_vec() })
    }
}

impl Cone for Elliptic {
    fn name(&self) -> String {
        "elliptic".into()
    }
    fn dim(&self) -> usize {
        self.e.len() + 1
    }
    fn project(&self, _mu: f64, _x: &[f64], _out: &mut [f64]) {
        unimplemented!()
    }
    fn project_section(&self, _: f64, _: f64, _: &[f64], _: &mut [f64], _: Option<&mut [f64]>, _: Option<&mut [f64]>) {
        unimplemented!()
    }
    fn support(&self, _mu: f64, _v: &[f64], _t: &mut [f64]) -> f64 {
        unimplemented!()
    }
}

/// Mixed elliptic + torsion box.
#[derive(Clone, Debug)]
pub struct EllipticMixed;
