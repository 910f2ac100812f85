//! A counting global allocator, for the tests that check a prepared path allocates nothing
//! (feature `alloc-count`, enabled by the crates' dev-dependencies). A test binary installs it
//! with
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: perp_core::alloc_count::Counting = perp_core::alloc_count::Counting;
//! ```
//!
//! and measures a closure with [`allocations`]. Allocations are counted per thread, so tests
//! running concurrently do not disturb each other's counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Forwards to the system allocator, counting allocations and reallocations of this thread.
pub struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: a thread being torn down has no counter left, and is not counted.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// The allocations made on this thread so far (with [`Counting`] installed).
pub fn count() -> usize {
    ALLOCS.with(Cell::get)
}

/// Runs `f` and returns the allocations it made on this thread, with its result.
pub fn allocations<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = count();
    let r = f();
    (count() - before, r)
}
