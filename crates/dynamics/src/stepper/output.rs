//! Running to an end time, and what a run records: the trajectory's columns and rows.

use super::*;

impl Simulator<'_> {
    /// Runs until `t_end`, recording every `every`-th step (and the first and last) into a
    /// [`Trajectory`] with columns `t, q…, u…, impulses…, iterations, factorizations`; `names` label `q` and
    /// `u` (default `q0…`, `u0…`).
    pub fn run(
        &mut self,
        t_end: f64,
        every: usize,
        names: Option<(&[String], &[String])>,
    ) -> Result<Trajectory, Error> {
        let mut traj = Trajectory::new(self.columns(names));
        self.run_with(t_end, every, &mut |row| {
            traj.push(row.to_vec());
            Ok(())
        })?;
        Ok(traj)
    }

    /// [`Simulator::run`] without holding the trajectory: each recorded row (the columns of
    /// [`Simulator::columns`]) goes to `sink` as it is made (e.g. straight to a CSV file), and
    /// `progress(k, steps)` is called after every step. Returns the number of steps taken.
    /// A `sink` error stops the run and is returned.
    pub fn run_with(
        &mut self,
        t_end: f64,
        every: usize,
        sink: &mut dyn FnMut(&[f64]) -> Result<(), Error>,
    ) -> Result<usize, Error> {
        self.run_observed(t_end, every, sink, &mut |_, _| Ok(()))
    }

    /// [`Simulator::run_with`] with a `progress(k, steps)` callback after every step. An error
    /// from `progress` stops the run (after step `k`, its row recorded if due) and is returned:
    /// a caller's interruption (Python's Ctrl-C check).
    pub fn run_observed(
        &mut self,
        t_end: f64,
        every: usize,
        sink: &mut dyn FnMut(&[f64]) -> Result<(), Error>,
        progress: &mut dyn FnMut(usize, usize) -> Result<(), Error>,
    ) -> Result<usize, Error> {
        let (mut row, mut rep) = (Vec::new(), StepReport::default());
        self.row_into((0, 0), &mut row);
        sink(&row)?;
        let every = every.max(1);
        // Count steps rather than compare accumulated times: 0.5 / 1e-4 is 5000 steps, not 5001.
        let steps = ((t_end - self.t) / self.dt - 1e-9).ceil().max(0.0) as usize;
        for k in 1..=steps {
            self.step_into(&mut rep)?;
            if k % every == 0 || k == steps {
                self.row_into((rep.iterations, rep.factorizations), &mut row);
                let start = 1 + self.q.len() + self.u.len();
                row[start..start + rep.impulses.len()].copy_from_slice(&rep.impulses);
                sink(&row)?;
            }
            progress(k, steps)?;
        }
        Ok(steps)
    }

    /// What this simulator solves its steps with, in one line: the formulation
    /// ([`Formulation::describe`]), the solver and the fallback chain as built (the chosen
    /// solver is left out of its own chain), e.g. `cone (exact friction cones), solver nsgs,
    /// fallback prox, ac-newton` or `…, fallback none`. `perp simulate` prints it.
    pub fn method(&self) -> String {
        let chain: Vec<&str> = self.fallbacks.iter().map(Solver::name).collect();
        format!(
            "{}, solver {}, fallback {}",
            self.opts.formulation.describe(),
            match &self.opts.formulation {
                Formulation::Compliant(_) => "sap",
                Formulation::Convex => "global-ipm (convex model)",
                _ => self.solver.name(),
            },
            if chain.is_empty() { "none".to_string() } else { chain.join(", ") }
        )
    }

    /// The recorded columns: `t`, `q…`, `u…` (labelled by `names`, default `q0…`, `u0…`), the
    /// impulses of each candidate contact (`P{i}_n`, `P{i}_t`, …, [`impulse_labels`]),
    /// `iterations` and `factorizations` (the step's solver iterations and matrix
    /// factorizations).
    pub fn columns(&self, names: Option<(&[String], &[String])>) -> Vec<String> {
        let mut c = vec!["t".to_string()];
        match names {
            Some((qn, un)) => {
                c.extend(qn.iter().cloned());
                c.extend(un.iter().cloned());
            }
            None => {
                c.extend((0..self.q.len()).map(|i| format!("q{i}")));
                c.extend((0..self.u.len()).map(|i| format!("u{i}")));
            }
        }
        for (i, contact) in self.candidates.iter().enumerate() {
            for l in impulse_labels(contact) {
                c.push(format!("P{i}_{l}"));
            }
        }
        c.push("iterations".into());
        c.push("factorizations".into());
        c
    }

    /// A trajectory row with zero impulses and the step's (iterations, factorizations),
    /// written into `r` (its storage reused).
    pub(super) fn row_into(&self, (iterations, factorizations): (usize, usize), r: &mut Vec<f64>) {
        r.clear();
        r.push(self.t);
        r.extend_from_slice(&self.q);
        r.extend_from_slice(&self.u);
        r.extend(std::iter::repeat_n(0.0, self.dims.iter().sum()));
        r.push(iterations as f64);
        r.push(factorizations as f64);
    }
}

/// The labels of a contact's impulse columns, one per local row in its order (N, T…, R, ρ…,
/// [`Contact::rows`]): `n`; `t` and, spatial, `o` for the tangents; `r` for the twist
/// (torsion); `roll_t` and, spatial, `roll_o` for the rolling rows (the rolling moment about
/// each tangent's axis, paired with the tangents in order).
pub(crate) fn impulse_labels(c: &Contact) -> impl Iterator<Item = &'static str> {
    const TANGENTS: [&str; 2] = ["t", "o"];
    const ROLLING: [&str; 2] = ["roll_t", "roll_o"];
    std::iter::once("n")
        .chain(TANGENTS.into_iter().take(c.tangents.len()))
        .chain(c.twist.as_ref().map(|_| "r"))
        .chain(ROLLING.into_iter().take(c.rolling.len()))
}
