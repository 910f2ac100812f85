//! Threads: the rayon pools shared by the solvers and the deterministic chunking helpers.
//!
//! **Determinism.** Every parallel loop here splits its index range into chunks of a fixed
//! size chosen by the caller (never by the thread count), and every reduction sums the
//! chunks' partial results in chunk order on the calling thread. The arithmetic is therefore
//! a function of the problem alone: one thread, two threads or the serial path below
//! [`MIN_PARALLEL`] give the same bits. A reduction over a range no longer than one chunk is
//! the plain sequential sum.
//!
//! **Cost.** [`Par::new`] with `threads ≤ 1` holds no pool and every helper runs inline;
//! with more threads the pool of that size is built once per process and shared (a lock and
//! an `Arc` clone per [`Par::new`]). Work shorter than [`MIN_PARALLEL`] indices runs inline,
//! without entering the pool.

use crate::Error;
use rayon::prelude::*;
use rayon::ThreadPool;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

/// Below this many indices a helper runs inline on the calling thread (same arithmetic).
pub const MIN_PARALLEL: usize = 2048;

/// The chunk of the solvers' reductions (dot products, norms): a vector of at most this many
/// entries is summed exactly as a sequential loop sums it.
pub const REDUCE_CHUNK: usize = 4096;

/// The chunk, in rows, of the row-parallel products (a multiple of 4: the contact products
/// sum rows four at a time).
pub const ROW_CHUNK: usize = 1536;

/// The pools built so far, by thread count (kept for the life of the process).
type Pools = Mutex<Vec<(usize, Arc<ThreadPool>)>>;
static POOLS: OnceLock<Pools> = OnceLock::new();

/// The shared pool of `threads` workers (built on first use).
fn pool(threads: usize) -> Result<Arc<ThreadPool>, Error> {
    let pools = POOLS.get_or_init(|| Mutex::new(Vec::new()));
    let mut pools = pools.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("perp-{threads}-{i}"))
        .build()
        .map_err(|e| Error::setting("threads", threads, &e.to_string()))?;
    let p = Arc::new(p);
    pools.push((threads, p.clone()));
    Ok(p)
}

/// The number of cores (`std::thread::available_parallelism`, 1 when unknown): the CLI's
/// default thread count.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Where the parallel parts of a solve run: inline (one thread) or in the shared pool of
/// [`Par::threads`] workers. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Par {
    pool: Option<Arc<ThreadPool>>,
}

impl Par {
    /// Inline execution, no pool.
    pub fn serial() -> Par {
        Par { pool: None }
    }

    /// `threads` workers (`Settings::threads`); 0 is an error, 1 runs inline.
    pub fn new(threads: usize) -> Result<Par, Error> {
        match threads {
            0 => Err(Error::setting("threads", 0, "must be at least 1")),
            1 => Ok(Par::serial()),
            n => Ok(Par { pool: Some(pool(n)?) }),
        }
    }

    /// The number of workers (1 for inline).
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// The pool, when the work (`len` indices) is long enough to pay for it.
    fn pool_for(&self, len: usize) -> Option<&ThreadPool> {
        self.pool.as_deref().filter(|_| len >= MIN_PARALLEL)
    }

    /// Runs `f` inside the pool (inline when there is none), so that rayon calls made by `f`
    /// use this pool's workers.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// `a()` and `b()`, on two workers when there is a pool (inline one after the other
    /// otherwise): the results in that order.
    ///
    /// ```
    /// use perp_core::parallel::Par;
    /// let (x, y) = (vec![1.0, 2.0], vec![3.0, 4.0]);
    /// let sums = |p: &Par| p.join(|| x.iter().sum::<f64>(), || y.iter().sum::<f64>());
    /// assert_eq!(sums(&Par::serial()), (3.0, 7.0));
    /// assert_eq!(sums(&Par::new(2).unwrap()), (3.0, 7.0));
    /// ```
    pub fn join<A: Send, B: Send>(
        &self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        match &self.pool {
            Some(p) => p.install(|| rayon::join(a, b)),
            None => (a(), b()),
        }
    }

    /// `f(first, piece)` on consecutive pieces of `out` of `chunk` elements (the last may be
    /// shorter); `first` is the piece's offset in `out`. Pieces are disjoint, so the result
    /// does not depend on the thread count.
    pub fn for_each_chunk<T: Send>(
        &self,
        out: &mut [T],
        chunk: usize,
        f: impl Fn(usize, &mut [T]) + Sync + Send,
    ) {
        self.for_each_chunk_above(out, chunk, MIN_PARALLEL, f)
    }

    /// [`Par::for_each_chunk`] with the caller's threshold: inline when `out.len() <
    /// min_len` (for pieces of work heavier than a few flops per element).
    pub fn for_each_chunk_above<T: Send>(
        &self,
        out: &mut [T],
        chunk: usize,
        min_len: usize,
        f: impl Fn(usize, &mut [T]) + Sync + Send,
    ) {
        let chunk = chunk.max(1);
        match self.pool.as_deref().filter(|_| out.len() >= min_len) {
            Some(p) => {
                p.install(|| out.par_chunks_mut(chunk).enumerate().for_each(|(k, piece)| f(k * chunk, piece)))
            }
            None => {
                for (k, piece) in out.chunks_mut(chunk).enumerate() {
                    f(k * chunk, piece)
                }
            }
        }
    }

    /// `f(range)` on the consecutive ranges of `0..n` of `chunk` indices, the `K` partial
    /// results summed componentwise in range order: `f(r₀) + f(r₁) + …` (for `n ≤ chunk`,
    /// `f(0..n)` itself).
    pub fn sum_chunks<const K: usize>(
        &self,
        n: usize,
        chunk: usize,
        f: impl Fn(Range<usize>) -> [f64; K] + Sync + Send,
    ) -> [f64; K] {
        let chunk = chunk.max(1);
        let chunks = n.div_ceil(chunk);
        let range = |k: usize| k * chunk..((k + 1) * chunk).min(n);
        let add = |mut total: [f64; K], part: [f64; K]| {
            for (t, p) in total.iter_mut().zip(part) {
                *t += p;
            }
            total
        };
        if chunks <= 1 {
            return f(0..n);
        }
        match self.pool_for(n) {
            Some(p) => {
                let parts: Vec<[f64; K]> =
                    p.install(|| (0..chunks).into_par_iter().map(|k| f(range(k))).collect());
                let mut it = parts.into_iter();
                let first = it.next().unwrap_or([0.0; K]);
                it.fold(first, add)
            }
            None => (1..chunks).fold(f(range(0)), |total, k| add(total, f(range(k)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn chunks_and_sums_are_the_same_bits_for_any_thread_count() {
        let n = 10 * MIN_PARALLEL + 17;
        let x: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1013) as f64 / 97.0 - 5.0).collect();
        let mut reference: Option<(Vec<u64>, [u64; 2])> = None;
        for threads in [1, 2, 3] {
            let par = Par::new(threads).unwrap();
            assert_eq!(par.threads(), threads);
            let mut out = vec![0.0; n];
            par.for_each_chunk(&mut out, 1000, |first, piece| {
                for (k, o) in piece.iter_mut().enumerate() {
                    *o = x[first + k].sin() * 3.0;
                }
            });
            let s =
                par.sum_chunks(n, 1000, |r| [x[r.clone()].iter().sum(), x[r].iter().map(|v| v * v).sum()]);
            let got = (bits(&out), [s[0].to_bits(), s[1].to_bits()]);
            match &reference {
                None => reference = Some(got),
                Some(r) => assert_eq!(&got, r, "threads = {threads}"),
            }
        }
        // One chunk is the plain sequential sum.
        let small = &x[..900];
        let s = Par::new(2).unwrap().sum_chunks(small.len(), 1000, |r| [small[r].iter().sum::<f64>()]);
        assert_eq!(s[0].to_bits(), small.iter().sum::<f64>().to_bits());
    }

    #[test]
    fn zero_threads_is_an_error_naming_the_setting() {
        let e = Par::new(0).unwrap_err();
        assert!(e.to_string().contains("threads"), "{e}");
    }
}
