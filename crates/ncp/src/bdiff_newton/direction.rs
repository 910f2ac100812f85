//! The B-derivative Newton direction (Harker & Pang 1990): the Jacobian, the linear system on
//! the sets with the free rows, and the small LCP on the tied rows solved by Lemke.

use super::*;

impl Method<'_, '_, '_> {
    /// ∇F at z into `ws.jac` (the sparse form scattered, i.e. densified).
    pub(super) fn jacobian(&mut self) -> Result<(), String> {
        let ws = &mut *self.ws;
        if ws.jac_current {
            return Ok(());
        }
        let n = ws.z.len();
        match self.p.f.sparse_jacobian(&ws.z) {
            Some(c) => {
                if c.rows() != n || c.cols() != n {
                    return Err(format!("sparse Jacobian is {}x{}, expected {n}x{n}", c.rows(), c.cols()));
                }
                ws.jac.fill(0.0);
                for (v, (i, j)) in c.iter() {
                    ws.jac[(i, j)] += *v;
                }
            }
            None => self.p.f.jacobian(&ws.z, ws.jac.as_mut()),
        }
        for j in 0..n {
            for i in 0..n {
                if !ws.jac[(i, j)].is_finite() {
                    return Err(format!("Jacobian entry ({i}, {j}) = {} at iterate", ws.jac[(i, j)]));
                }
            }
        }
        ws.jac_current = true;
        Ok(())
    }

    /// The bound bᵢ a row in α/γ (or tied) refers to.
    pub(super) fn bound(&self, i: usize) -> f64 {
        match self.ws.sets[i] {
            IndexSet::Upper | IndexSet::TiedUpper => self.p.upper[i],
            _ => self.p.lower[i],
        }
    }

    /// Solves the B-derivative equation for the sets in `ws.sets` into `ws.d`; tied rows are
    /// resolved (written back into `ws.sets` as Lower/Upper/Free).
    pub(super) fn direction(&mut self) -> Direction {
        self.partition_sets();
        let nt = self.ws.t_idx.len();
        if nt == 0 {
            return self.solve_free(0);
        }
        // Unknown d_β = u − V d_δ with u, V from one multi-column solve.
        if let Direction::Singular = self.solve_free(nt) {
            return Direction::Singular;
        }
        let tied = self.tied_lcp();
        let x = if tied.q.iter().all(|&v| v >= 0.0) {
            Some(vec![0.0; nt])
        } else {
            self.lemke(tied.m.clone(), tied.q.clone())
        };
        match x {
            Some(x) => {
                self.resolve_tied(&tied, &x);
                Direction::Newton
            }
            None => {
                // Rule (3): keep every tied row at its bound and solve again.
                let ws = &mut *self.ws;
                for r in 0..nt {
                    let i = ws.t_idx[r];
                    ws.sets[i] = resolve_to_bound(ws.sets[i]);
                }
                self.direction()
            }
        }
    }

    /// Sorts the rows by their sets into α∪γ (at a bound), β (free) and δ (tied) and sets
    /// the direction of α∪γ: `d_i = −(z_i − b_i)`.
    fn partition_sets(&mut self) {
        let n = self.ws.z.len();
        self.ws.a_idx.clear();
        self.ws.b_idx.clear();
        self.ws.t_idx.clear();
        for i in 0..n {
            match self.ws.sets[i] {
                IndexSet::Lower | IndexSet::Upper => self.ws.a_idx.push(i),
                IndexSet::Free => self.ws.b_idx.push(i),
                IndexSet::TiedLower | IndexSet::TiedUpper => self.ws.t_idx.push(i),
            }
        }
        for k in 0..self.ws.a_idx.len() {
            let i = self.ws.a_idx[k];
            self.ws.d[i] = -(self.ws.z[i] - self.bound(i));
        }
    }

    /// The LCP on the tied rows δ, once the free rows are solved for (`ws.rhs`: u, then V).
    fn tied_lcp(&self) -> TiedLcp {
        let ws = &*self.ws;
        let nt = ws.t_idx.len();
        // S = J_δδ − J_δβ V, c = F_δ + J_δ,α∪γ d_α∪γ + J_δβ u, e = z_δ − b_δ.
        let mut s_mat = Mat::<f64>::zeros(nt, nt);
        let mut qv = vec![0.0; nt];
        let mut e = vec![0.0; nt];
        let mut sign = vec![1.0; nt];
        for r in 0..nt {
            let i = ws.t_idx[r];
            let (b, sg) = match ws.sets[i] {
                IndexSet::TiedUpper => (self.p.upper[i], -1.0),
                _ => (self.p.lower[i], 1.0),
            };
            sign[r] = sg;
            e[r] = ws.z[i] - b;
            let mut c = ws.f[i];
            for &j in &ws.a_idx {
                c += ws.jac[(i, j)] * ws.d[j];
            }
            for (k, &j) in ws.b_idx.iter().enumerate() {
                c += ws.jac[(i, j)] * ws.rhs[(k, 0)];
            }
            for cc in 0..nt {
                let mut v = ws.jac[(i, ws.t_idx[cc])];
                for (k, &j) in ws.b_idx.iter().enumerate() {
                    v -= ws.jac[(i, j)] * ws.rhs[(k, 1 + cc)];
                }
                s_mat[(r, cc)] = v;
            }
            qv[r] = c;
        }
        // q = D(c − S e), M = D S D.
        for r in 0..nt {
            let mut v = qv[r];
            for cc in 0..nt {
                v -= s_mat[(r, cc)] * e[cc];
            }
            qv[r] = sign[r] * v;
        }
        for r in 0..nt {
            for cc in 0..nt {
                s_mat[(r, cc)] *= sign[r] * sign[cc];
            }
        }
        TiedLcp { m: s_mat, q: qv, e, sign }
    }

    /// With the tied LCP's answer `x`: the direction of the tied rows, `d_δ = D x − e`, their
    /// sets (y = q + M x decides how each resolves), and the free rows' `d_β = u − V d_δ`.
    fn resolve_tied(&mut self, tied: &TiedLcp, x: &[f64]) {
        let ws = &mut *self.ws;
        let (nt, nb) = (ws.t_idx.len(), ws.b_idx.len());
        for r in 0..nt {
            let i = ws.t_idx[r];
            ws.d[i] = tied.sign[r] * x[r] - tied.e[r];
            let mut y = tied.q[r];
            for (cc, &xc) in x.iter().enumerate() {
                y += tied.m[(r, cc)] * xc;
            }
            ws.sets[i] = if x[r] > y { IndexSet::Free } else { resolve_to_bound(ws.sets[i]) };
        }
        for k in 0..nb {
            let mut v = ws.rhs[(k, 0)];
            for cc in 0..nt {
                v -= ws.rhs[(k, 1 + cc)] * ws.d[ws.t_idx[cc]];
            }
            ws.d[ws.b_idx[k]] = v;
        }
    }

    /// Lemke on the δ-LCP; `None` unless solved.
    pub(super) fn lemke(&mut self, m: Mat<f64>, q: Vec<f64>) -> Option<Vec<f64>> {
        let lcp = Lcp::new(Matrix::Dense(m), q).ok()?;
        let s = Settings { tol: 1e-12, ..Settings::default() };
        let sol = Lemke { keep_ready: false, ..Lemke::new() }.solve(&lcp, None, &s).ok()?;
        self.pivots += sol.report.pivots.max(sol.report.iterations);
        (sol.report.status == Status::Solved).then_some(sol.z)
    }

    /// Factors ∇F_ββ and solves for `[u, V]` into `ws.rhs` (columns: `r_β`, then ∇F_β,t for
    /// the `extra` tied columns); with `extra == 0` also writes d_β.
    pub(super) fn solve_free(&mut self, extra: usize) -> Direction {
        let ws = &mut *self.ws;
        let nb = ws.b_idx.len();
        if nb == 0 {
            ws.rhs.resize_with(0, 1 + extra, |_, _| 0.0);
            return Direction::Newton;
        }
        ws.jbb.resize(nb, 1 + extra);
        ws.rhs.resize_with(nb, 1 + extra, |_, _| 0.0);
        let mut jbb = ws.jbb.matrix_mut();
        for (r, &i) in ws.b_idx.iter().enumerate() {
            for (c, &j) in ws.b_idx.iter().enumerate() {
                jbb[(r, c)] = ws.jac[(i, j)];
            }
            let mut v = -ws.f[i];
            for &j in &ws.a_idx {
                v -= ws.jac[(i, j)] * ws.d[j];
            }
            ws.rhs[(r, 0)] = v;
            for c in 0..extra {
                ws.rhs[(r, 1 + c)] = ws.jac[(i, ws.t_idx[c])];
            }
        }
        self.factorizations += 1;
        match ws.jbb.factor() {
            Ok(p) if !p.singular(f64::EPSILON * nb as f64) => {}
            _ => return Direction::Singular,
        }
        ws.jbb.solve_mat_in_place(ws.rhs.as_mut());
        for c in 0..1 + extra {
            for r in 0..nb {
                if !ws.rhs[(r, c)].is_finite() {
                    return Direction::Singular;
                }
            }
        }
        if extra == 0 {
            for (k, &i) in ws.b_idx.iter().enumerate() {
                ws.d[i] = ws.rhs[(k, 0)];
            }
        }
        Direction::Newton
    }
}

/// The LCP on the tied rows δ (Harker & Pang 1990), in the variables `x = D(d_δ + e)`:
/// `M = D S D`, `q = D(c − S e)` with `S = J_δδ − J_δβ V`, `c = F_δ + J_δ,α∪γ d_α∪γ + J_δβ u`,
/// `e = z_δ − b_δ` and `D = diag(sign)` (−1 on the rows tied at their upper bound).
struct TiedLcp {
    m: Mat<f64>,
    q: Vec<f64>,
    e: Vec<f64>,
    sign: Vec<f64>,
}
