#!/usr/bin/env bash
# Compile every CUDA kernel file standalone with nvcc (compile only), for sm_80 and sm_90,
# with the default tunables and with the extremes Python may pass (one-warp blocks, 64-bit
# vertex ids with 1,024-thread blocks (resident blocks capped as the plan caps them), 32-bit
# edge positions with capped registers): the package's kernels
# (src/tricount/gpu/kernels) and the benchmarks' lab kernels (benchmarks/baselines/kernels,
# which include the package's headers). Then check that the kernels the sources declare
# extern "C" are exactly the loaders' ENTRY_POINTS (tricount.gpu._module, baselines).
# No GPU is needed. Usage: scripts/compile_kernels.sh   (NVCC=... to override)
set -euo pipefail
cd "$(dirname "$0")/.."
KERNELS=src/tricount/gpu/kernels
BASELINES=benchmarks/baselines/kernels
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || { echo "compile_kernels: $NVCC not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
variants=("" "-DTC_BLOCK_SIZE=32" "-DTC_VERTEX_T=long\ long -DTC_BLOCK_SIZE=1024 -DTC_MIN_BLOCKS=2"
          "-DTC_EDGE_T=unsigned\ int -DTC_MIN_BLOCKS=6")
n=0
for arch in sm_80 sm_90; do
  for file in "$KERNELS"/*.cu "$BASELINES"/*.cu; do
    for flags in "${variants[@]}"; do
      eval "set -- $flags"
      if ! "$NVCC" -arch="$arch" -std=c++17 -Werror all-warnings -I "$KERNELS" -c "$file" \
          -o "$tmp/k.o" "$@"; then
        echo "compile_kernels: FAILED $file -arch=$arch $flags" >&2
        exit 1
      fi
      n=$((n + 1))
    done
  done
done
echo "compile_kernels: $n compilations passed (sm_80, sm_90)"
PYTHONPATH=src:benchmarks${PYTHONPATH:+:$PYTHONPATH} python3 - "$KERNELS" "$BASELINES" <<'PY'
import re
import sys
from pathlib import Path

import baselines
from tricount.gpu._module import ENTRY_POINTS

pattern = re.compile(r'extern "C" __global__ void(?:\s+__launch_bounds__\([^)]*\))?\s+(\w+)\s*\(')
bad_sets = 0
for folder, listed in ((sys.argv[1], ENTRY_POINTS), (sys.argv[2], baselines.ENTRY_POINTS)):
    found = set()
    for path in sorted(Path(folder).glob("*.cu")):
        for name in pattern.findall(path.read_text()):
            found.add((path.stem, name))
    bad = [n for _, n in found | set(listed) if not n.startswith("tc_")]
    if found != set(listed) or bad or len(set(listed)) != len(listed):
        print(f"compile_kernels: {folder}: entry points and sources disagree:", file=sys.stderr)
        print("  in sources only:", sorted(found - set(listed)), file=sys.stderr)
        print("  in ENTRY_POINTS only:", sorted(set(listed) - found), file=sys.stderr)
        print("  without the tc_ prefix:", bad, file=sys.stderr)
        bad_sets += 1
    else:
        print(f"compile_kernels: {len(found)} entry points of {folder} match")
sys.exit(1 if bad_sets else 0)
PY
