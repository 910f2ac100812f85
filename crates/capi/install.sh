#!/usr/bin/env bash
# Installs libperp the way cargo-c's `cargo cinstall` lays out a Rust C library (issue 34,
# item 5): the release build; the shared library under its full version, stripped, with the
# SONAME link (libperp.so.0.1, build.rs) and the development link libperp.so; the static
# library with its debug information stripped; the header; pkg-config's perp.pc with this
# prefix. Then `pkg-config --cflags --libs perp` (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig) gives
# a program's flags, and `pkg-config --static --libs perp` the static library's.
#
#     bash crates/capi/install.sh PREFIX        # DESTDIR=... for a staged install
set -euo pipefail
prefix=${1:?usage: bash crates/capi/install.sh PREFIX}
case "$prefix" in /*) ;; *) echo "install.sh: PREFIX must be an absolute path, got '$prefix'" >&2; exit 2 ;; esac
cd "$(dirname "$0")"
PERP_PREFIX="$prefix" cargo build --release -p perp-capi
target=$(cargo metadata -q --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
rel="$target/release"
version=$(sed -n 's/^Version: //p' "$rel/perp.pc")
soname=$(readelf -d "$rel/libperp.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
dest="${DESTDIR:-}$prefix"
install -d "$dest/lib/pkgconfig" "$dest/include"
install -m 755 "$rel/libperp.so" "$dest/lib/libperp.so.$version"
strip --strip-unneeded "$dest/lib/libperp.so.$version"
ln -sf "libperp.so.$version" "$dest/lib/$soname"
ln -sf "$soname" "$dest/lib/libperp.so"
install -m 644 "$rel/libperp.a" "$dest/lib/libperp.a"
strip --strip-debug "$dest/lib/libperp.a"
install -m 644 include/perp.h "$dest/include/perp.h"
install -m 644 "$rel/perp.pc" "$dest/lib/pkgconfig/perp.pc"
ls -l "$dest/lib" "$dest/lib/pkgconfig" "$dest/include"
