#!/usr/bin/env bash
# tests/install/install_example.sh BUILD SOURCE WORK: installs BUILD into WORK/prefix, builds
# examples/custom_endpoint against the installed CMake package (find_package(pcie_arbsim)),
# runs it on its config, and checks that the user's accelerator moved every block both ways
# (16 blocks of 1 MiB: 16777216 B read and written).
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -S "$src/examples/custom_endpoint" -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
cmake --build "$work/example" -j 2 >"$work/build.log"
"$work/example/custom_endpoint" "$src/examples/custom_endpoint/accelerator.yaml" | tee "$work/out.txt"
grep -q "acc0 (accelerator): 16777216 B read, 16777216 B written" "$work/out.txt"
grep -q "; ok$" "$work/out.txt"
