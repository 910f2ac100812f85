//! The committed header `include/perp.h` is what cbindgen generates from the source today,
//! made C89-clean ([`c89`]): `run-example.sh` compiles it with `-std=c89 -pedantic`.

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
    let generated = c89(&String::from_utf8(generated).expect("the header is UTF-8"));
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

/// cbindgen's output with what C89 refuses under `-pedantic` rewritten (its comments are
/// already `/* */`, `documentation_style = "c"`): the comma after an enum's last value, and
/// the `// __cplusplus` and `// extern "C"` comments of `cpp_compat`.
fn c89(header: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in header.lines() {
        if line.trim_start().starts_with('}') {
            // The last value of an enum (or field of a struct: a struct has none) before `}`.
            if let Some(prev) = out.iter_mut().rev().find(|l| !l.trim().is_empty()) {
                if prev.trim_end().ends_with(',') && !prev.trim_start().starts_with("/*") {
                    let t = prev.trim_end().len() - 1;
                    prev.truncate(t);
                }
            }
        }
        let line = match line.split_once("//") {
            Some((code, comment)) if code.trim_start().starts_with(['#', '}']) => {
                format!("{}/* {} */", code, comment.trim())
            }
            _ => line.to_string(),
        };
        out.push(line);
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}
