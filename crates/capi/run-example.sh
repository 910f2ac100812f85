#!/usr/bin/env bash
# Builds libperp (debug), compiles examples/solve.c against it with cc, statically and as a
# shared library, runs both and checks their output; also checks that README.md's C example
# is examples/solve.c. Run from anywhere: bash crates/capi/run-example.sh
set -euo pipefail
cd "$(dirname "$0")"
cargo build -q -p perp-capi
target=$(cargo metadata -q --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
lib="$target/debug"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

readme_c=$(awk '/^```c$/{f=1;next} /^```/{if(f)exit} f' ../../README.md)
if [ "$readme_c" != "$(cat examples/solve.c)" ]; then
    echo "run-example.sh: README.md's C example differs from crates/capi/examples/solve.c" >&2
    exit 1
fi

cflags=(-std=c99 -Wall -Wextra -Werror -pedantic -Iinclude)
cc "${cflags[@]}" examples/solve.c "$lib/libperp.a" -lpthread -ldl -lm -o "$tmp/solve-static"
cc "${cflags[@]}" examples/solve.c -L"$lib" -lperp -Wl,-rpath,"$lib" -o "$tmp/solve-shared"
expected='lcp: solved, z = 1.333333 2.333333
friction: solved, r = 1.000000 -0.300000 0.000000
kept solver: solved, r_N = 3.000000, r_T = -0.500000
refused: perp_solve_lcp: unknown solver '"'"'no-such-solver'"'"'; valid names: '
for exe in solve-static solve-shared; do
    out=$("$tmp/$exe")
    echo "$out"
    if [ "${out:0:${#expected}}" != "$expected" ]; then
        echo "run-example.sh: $exe printed something else; expected it to start with:" >&2
        echo "$expected" >&2
        exit 1
    fi
done
echo "run-example.sh: examples/solve.c ran against libperp.a and libperp.so"
