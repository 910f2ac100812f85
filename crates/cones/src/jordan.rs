//! Jordan algebra of the Lorentz cone (placeholder, being written).
use crate::cone::{Cone, SocMap};

/// FB on (a∘r, b∘ũ).
pub fn fb_mapped<C: Cone + ?Sized>(
    _cone: &C,
    _mu: f64,
    _map: &SocMap,
    _r: &[f64],
    _u: &[f64],
    _phi: &mut [f64],
    _jac: Option<(&mut [f64], &mut [f64])>,
) {
    unimplemented!()
}
