#!/usr/bin/env bash
# Compile scripts/sicbench_more.c (Siconos' rolling and global frictional solvers, timed) against
# a Siconos numerics build made by ../shared/peers/siconos/build.sh, exactly as build.sh compiles
# its sicbench driver. Usage: scripts/build_sicbench_more.sh [WORK_DIR]   (default
# /tmp/siconos-peer, build.sh's WORK_DIR). Prints the path of the binary, WORK_DIR/sicbench_more.
set -euo pipefail
work=${1:-/tmp/siconos-peer}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$work/src/build/numerics/libsiconos_numerics.so" ] || {
  echo "no Siconos build in $work (run ../shared/peers/siconos/build.sh first)" >&2; exit 1; }
cd "$work/src"
INC=$(find numerics/src externals -type d | grep -v test | sed 's/^/-I/' | tr '\n' ' ')
gcc -O2 -o "$work/sicbench_more" "$here/sicbench_more.c" $INC -I/usr/include/suitesparse -Ibuild -Ibuild/numerics -Ibuild/externals \
  -Lbuild/numerics -Lbuild/externals -lsiconos_numerics -lsiconos_externals -llapacke -lopenblas -lm \
  -Wl,-rpath,"$work/src/build/numerics:$work/src/build/externals"
echo "$work/sicbench_more"
