//! Fuzzes the FCLIB HDF5 reader (`perp_formats::fclib::parse_fclib`): any bytes must give `Ok` or
//! a clean `Err`. The reader catches panics inside the HDF5 crate and returns `Err`; libFuzzer's
//! panic hook would abort before that catch, so the hook is replaced by a silent one. A panic
//! that escapes the reader still reaches `fuzz_target!`, which reports it as a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::Once;

static QUIET: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let _ = perp_formats::fclib::parse_fclib(data.to_vec(), Path::new("fuzz.hdf5"));
});
