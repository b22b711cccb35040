#!/usr/bin/env bash
# tests/install/add_subdirectory.sh SOURCE WORK: configures tests/install/subdirectory, which
# pulls this tree in with add_subdirectory(), builds its small program against
# pcie_arbsim::arbsim_core (Debug, to compile fast) and checks what it prints.
set -euo pipefail
src=$1 work=$2
rm -rf "$work"
cmake -S "$src/tests/install/subdirectory" -B "$work" -DPCIE_ARBSIM_SRC="$src" -DCMAKE_BUILD_TYPE=Debug \
  -DARBSIM_COSIM=OFF >"$work.configure.log"
cmake --build "$work" --target rates -j 2 >"$work.build.log"
"$work/rates" | tee "$work.out"
grep -q "Gen3 x16 TLP bandwidth 14.2[01] GB/s; 3 arbiter types" "$work.out"
