//! Fuzzes the Siconos `.dat` reader behind `perp_formats::parse_lcp(&text, Path::new("fuzz.dat"))`: any input must give `Ok` or a clean `Err`,
//! never a panic, an abort or an allocation the file cannot back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = perp_formats::parse_lcp(&text, Path::new("fuzz.dat"));
});
