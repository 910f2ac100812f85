//! A frictional problem in global form written as a Siconos `.dat` (`format_siconos` on
//! `Problem::GlobalFriction`: d, nc, M, H, f, b, μ) reads back as the same global problem, dense
//! and sparse, with n_dof both different from and equal to d·nc (the reader tells W from M by
//! what follows).

use perp_cones::GlobalFrictionContactProblem;
use perp_core::Matrix;
use perp_formats::convert::format_siconos;
use perp_formats::{parse_friction_contact, FrictionFile, Problem};
use std::path::Path;

fn same(a: &Matrix, b: &Matrix) -> bool {
    a.nrows() == b.nrows()
        && a.ncols() == b.ncols()
        && (0..a.nrows()).all(|i| (0..a.ncols()).all(|j| a.get(i, j).to_bits() == b.get(i, j).to_bits()))
}

#[test]
fn a_global_problem_written_as_dat_reads_back_whole() {
    let m3 = [2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 4.0];
    let h3 = [1.0, 0.0, 0.25, 0.0, 1.0, -0.5, 1.0, 1.0, 0.0];
    for sparse in [false, true] {
        for (n, m, h) in [(3, &m3[..], &h3[..]), (3, &m3[..], &h3[..6])] {
            let cols = h.len() / n;
            let (dim, nc) = if cols == 3 { (3, 1) } else { (2, 1) };
            let mut mm = Matrix::from_row_major(n, n, m).unwrap();
            let mut hm = Matrix::from_row_major(n, cols, h).unwrap();
            if sparse {
                mm = Matrix::Sparse(mm.to_csr());
                hm = Matrix::Sparse(hm.to_csr());
            }
            let f: Vec<f64> = (0..n).map(|i| 0.1 * i as f64 - 1.0 / 3.0).collect();
            let b: Vec<f64> = (0..dim * nc).map(|i| 1e-3 * (i as f64 + 0.5)).collect();
            let g = GlobalFrictionContactProblem::new(dim, mm, hm, f, b, vec![0.3]).unwrap();
            let text = format_siconos(&Problem::GlobalFriction(g.clone())).unwrap();
            let back = match parse_friction_contact(&text, Path::new("g.dat")).unwrap() {
                FrictionFile::Global(b) => b,
                FrictionFile::Local(_) => {
                    panic!("read back as local (n = {n}, d·nc = {}):\n{text}", dim * nc)
                }
            };
            assert_eq!(back.dim, g.dim);
            assert!(same(&back.m, &g.m) && same(&back.h, &g.h), "{text}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!((bits(&back.f), bits(&back.b), bits(&back.mu)), (bits(&g.f), bits(&g.b), bits(&g.mu)));
        }
    }
}
