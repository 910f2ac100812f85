//! How libperp is linked and found (issue 34, item 5), as cargo-c builds a Rust C library:
//!
//! * the shared library's SONAME is `libperp.so.<major>` (`libperp.so.0.<minor>` before 1.0,
//!   cargo-c's rule: a 0.x minor release may break the ABI), so that programs linked against
//!   one release refuse an incompatible one;
//! * a pkg-config file `perp.pc` (prefix `PERP_PREFIX`, default `/usr/local`, for
//!   `install.sh`) and `perp-uninstalled.pc` (the build tree: this profile's folder and
//!   `include/`) are written to `OUT_DIR` and beside the built libraries
//!   (`target/<profile>/`), where `PKG_CONFIG_PATH` can point.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PERP_PREFIX");
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    let mut parts = version.split('.');
    let (major, minor) = (parts.next().unwrap_or("0"), parts.next().unwrap_or("0"));
    let abi = if major == "0" { format!("0.{minor}") } else { major.to_string() };
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if ["linux", "android", "freebsd", "netbsd", "openbsd", "dragonfly"].contains(&os.as_str()) {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libperp.so.{abi}");
    }

    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let prefix = std::env::var("PERP_PREFIX").unwrap_or_else(|_| "/usr/local".into());
    let installed = pc(&version, &prefix, "${prefix}/lib", "${prefix}/include");
    // OUT_DIR is <target>/[<triple>/]<profile>/build/perp-capi-<hash>/out.
    let profile_dir = out.ancestors().nth(3).map(Path::to_path_buf);
    let libdir = profile_dir.clone().unwrap_or_else(|| out.clone());
    let uninstalled = pc(
        &version,
        &libdir.display().to_string(),
        "${prefix}",
        &manifest.join("include").display().to_string(),
    );
    for dir in [Some(out), profile_dir].into_iter().flatten() {
        // Best effort beside the libraries: the build does not fail over a read-only folder.
        let _ = std::fs::write(dir.join("perp.pc"), &installed);
        let _ = std::fs::write(dir.join("perp-uninstalled.pc"), &uninstalled);
    }
}

/// A pkg-config file for libperp; the static library's system dependencies in
/// `Libs.private` (`pkg-config --static --libs perp`).
fn pc(version: &str, prefix: &str, libdir: &str, includedir: &str) -> String {
    format!(
        "prefix={prefix}\nlibdir={libdir}\nincludedir={includedir}\n\n\
         Name: perp\n\
         Description: Complementarity solvers for contact mechanics (LCP, box-LCP, MLCP, frictional contact)\n\
         Version: {version}\n\
         Libs: -L${{libdir}} -lperp\n\
         Libs.private: -lpthread -ldl -lm\n\
         Cflags: -I${{includedir}}\n"
    )
}
