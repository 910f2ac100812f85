//! Inputs that crashed a reader under `cargo fuzz` (fuzz/), kept as tests: each must now give a
//! clean `Err` naming the file, without panicking or allocating what the file cannot back.

use std::path::Path;

/// lcp_dat: an empty sparse-block M of 4·10¹² rows asked for a 40 TB row pointer.
#[test]
fn lcp_sbm_with_a_huge_empty_matrix() {
    let data: &[u8] = b"4\x0a1\x0a400000000000\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0a\x0a4\x0a-0000000000000000\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0a\x0a0            \xff\xfd0\xa0z";
    let text = String::from_utf8_lossy(data);
    let e = perp_formats::parse_lcp(&text, Path::new("crash.dat")).unwrap_err();
    assert!(e.to_string().contains("crash.dat") && e.to_string().contains("size0"), "{e}");
}

/// lcp_dat (slow unit, 23 s under the fuzzer): a dense 0 × 37 095 516 matrix.
#[test]
fn lcp_dense_with_a_huge_empty_dimension() {
    let data: &[u8] = b"000000 000000 00000000000000000000000 00000003709551615 00000000000000 00000003709551615 0000000000000000 000000020089\xca375\x0a\x00";
    let text = String::from_utf8_lossy(data);
    // Refused from the sizes alone, before anything is built.
    let e = perp_formats::parse_lcp(&text, Path::new("slow.dat")).unwrap_err();
    assert!(e.to_string().contains("exceeds the") && e.to_string().contains("slow.dat"), "{e}");
}
