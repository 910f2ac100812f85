//! The committed header `include/perp.h` is what cbindgen generates from the source today.

use std::path::Path;

#[test]
fn committed_header_is_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = dir.join("include/perp.h");
    if std::env::var_os("PERP_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("include/perp.h is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "crates/capi/include/perp.h is not what cbindgen generates from src/lib.rs; regenerate it with\n    \
         PERP_UPDATE_HEADER=1 cargo test -p perp-capi header\nand commit it"
    );
}
