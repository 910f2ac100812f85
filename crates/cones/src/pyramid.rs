//! Pyramids (placeholder).
use crate::cone::Cone;
use perp_core::Error;

/// Elliptic cone `Σ (r_k/e_k)² ≤ μ² r_N²`.
#[derive(Clone, Debug)]
pub struct Pyramid {
    e: Vec<f64>,
}

impl Pyramid {
    /// New elliptic cone.
    pub fn new(dim: usize, facets: usize) -> Result<Pyramid, Error> {
        Ok(Pyramid { e: vec![facets as f64; dim - 1] })
    }
}

impl Cone for Pyramid {
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

