//! Fuzzes the JSON problem reader (`perp_formats::json::parse_problem`): any input must give
//! `Ok` or a clean `Err`, never a panic, an abort or an allocation the text cannot back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = perp_formats::json::parse_problem(&text, Path::new("fuzz.json"));
});
