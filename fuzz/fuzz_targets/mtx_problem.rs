//! Fuzzes the MatrixMarket readers (`perp_formats::mtx`): the input is split at NUL bytes into
//! the matrix file and its companions (q, mu, free; a missing part is an absent file); the
//! problem reader and the stand-alone matrix and vector readers must give `Ok` or a clean
//! `Err`, never a panic, an abort or an allocation the texts cannot back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perp_formats::mtx::{parse_matrix, parse_problem, parse_vector, MtxTexts};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let parts: Vec<String> =
        data.splitn(4, |&b| b == 0).map(|p| String::from_utf8_lossy(p).into_owned()).collect();
    let part = |k: usize| parts.get(k).map(String::as_str);
    let matrix = part(0).unwrap_or("");
    let texts = MtxTexts { matrix, q: part(1), mu: part(2), free: part(3) };
    let _ = parse_problem(texts, Path::new("fuzz.mtx"));
    let _ = parse_matrix(matrix, Path::new("fuzz.mtx"), None);
    let _ = parse_vector(matrix, Path::new("fuzz.mtx"), "q", None);
});
