#!/usr/bin/env bash
# Builds libperp (debug), compiles examples/solve.c against it with cc, statically and as a
# shared library (found through its SONAME), runs both and checks their output; compiles the
# header as C89 (examples/c89.c, -std=c89 -pedantic, flags from the generated pkg-config file;
# it watches and stops a solve with the settings' callback) and as C++, and runs that example
# too, and README.md's short examples/quick.c; checks that README.md's C example is
# examples/quick.c and docs/c.md's is examples/solve.c. Run from anywhere:
# bash crates/capi/run-example.sh
set -euo pipefail
cd "$(dirname "$0")"
cargo build -q -p perp-capi
target=$(cargo metadata -q --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
lib="$target/debug"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

first_c() { awk '/^```c$/{f=1;next} /^```/{if(f)exit} f' "$1"; }
if [ "$(first_c ../../README.md)" != "$(cat examples/quick.c)" ]; then
    echo "run-example.sh: README.md's C example differs from crates/capi/examples/quick.c" >&2
    exit 1
fi
if [ "$(first_c ../../docs/c.md)" != "$(cat examples/solve.c)" ]; then
    echo "run-example.sh: docs/c.md's C example differs from crates/capi/examples/solve.c" >&2
    exit 1
fi

# The shared library is loaded by its SONAME (build.rs), as an installed one would be.
soname=$(readelf -d "$lib/libperp.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
case "$soname" in
    libperp.so.[0-9]*) ;;
    *) echo "run-example.sh: libperp.so has no SONAME libperp.so.N (got '$soname')" >&2; exit 1 ;;
esac
mkdir "$tmp/lib"
cp "$lib/libperp.so" "$tmp/lib/$soname"
ln -s "$soname" "$tmp/lib/libperp.so"

cflags=(-std=c99 -Wall -Wextra -Werror -pedantic -Iinclude)
cc "${cflags[@]}" examples/solve.c "$lib/libperp.a" -lpthread -ldl -lm -o "$tmp/solve-static"
cc "${cflags[@]}" examples/solve.c -L"$tmp/lib" -lperp -Wl,-rpath,"$tmp/lib" -o "$tmp/solve-shared"
# Checks that the program $1 printed $2 with, line by line, each line of $3 starting the
# printed one (the lists of names go on), and as many lines.
starts_each_line() {
    local exe=$1 out=$2 expected=$3 want got
    while IFS= read -r want && IFS= read -r got <&3; do
        if [ "${got:0:${#want}}" != "$want" ]; then
            echo "run-example.sh: $exe printed '$got'; expected a line starting with '$want'" >&2
            exit 1
        fi
    done <<<"$expected" 3<<<"$out"
    if [ "$(wc -l <<<"$out")" -ne "$(wc -l <<<"$expected")" ]; then
        echo "run-example.sh: $exe printed $(wc -l <<<"$out") lines, expected $(wc -l <<<"$expected")" >&2
        exit 1
    fi
}

expected='lcp: solved, z = 1.333333 2.333333
box-lcp: solved, z = 1.000000 2.500000, w0 = -0.500000
mlcp: solved, u = 1.400000, v = 1.200000, physical error below 1e-6: yes
friction: solved, r = 1.000000 -0.300000 0.000000
rolling: solved, r_N = 1.000000, r_T1 = -0.300000, r_R2 = -0.100000, u_R2 = 1.900000
global: solved, r_N = 2.000000, r_T = -1.000000, v_x = 2.500000
kept solver: solved, r_N = 3.000000, r_T = -0.500000
refused: perp_solve_mlcp: lemke is an LCP solver; for an MCP/NCP/MLCP use one of fb-newton
refused: perp_solve_lcp: unknown solver '"'"'no-such-solver'"'"'; valid names: '
for exe in solve-static solve-shared; do
    out=$("$tmp/$exe")
    echo "$out"
    starts_each_line "$exe" "$out" "$expected"
done

# The README's short example.
cc "${cflags[@]}" examples/quick.c "$lib/libperp.a" -lpthread -ldl -lm -o "$tmp/quick"
out=$("$tmp/quick")
echo "$out"
if [ "$out" != $'lcp: solved, z = 1.333333 2.333333\nfriction: solved, r = 1.000000 -0.300000 0.000000' ]; then
    echo "run-example.sh: examples/quick.c printed '$out'" >&2
    exit 1
fi

# C89 with the generated pkg-config file of the build tree, and the header as C++.
export PKG_CONFIG_PATH="$lib${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
read -r -a pc <<<"$(pkg-config --cflags --libs perp-uninstalled)"
cc -std=c89 -pedantic -Wall -Wextra -Werror examples/c89.c "${pc[@]/-L*/-L$tmp/lib}" -Wl,-rpath,"$tmp/lib" -lm \
    -o "$tmp/c89"
out=$("$tmp/c89")
echo "$out"
expected89='c89 box-lcp: solved, z = 1.000000 2.500000, w = -0.500000 0.000000
c89 mlcp: solved, u = 1.333333, v = 2.333333, physical error small
c89 refused (invalid_input): perp_solve_box_lcp: bounds at index 0: lower 2 > upper 1
c89 callback: solved after
c89 callback: called often at increasing iterations: yes
c89 callback stop: interrupted: stopped by settings.callback (it returned 1 at iteration '
starts_each_line examples/c89.c "$out" "$expected89"
printf '#include "perp.h"\nint main() { PerpReport r = PerpReport(); return r.message[0]; }\n' >"$tmp/h.cpp"
c++ -std=c++11 -Wall -Wextra -Werror -pedantic -Iinclude -fsyntax-only "$tmp/h.cpp"
echo "run-example.sh: examples/solve.c ran against libperp.a and libperp.so ($soname);" \
    "examples/c89.c compiled as C89 with pkg-config's flags and ran; the header compiles as C++"
