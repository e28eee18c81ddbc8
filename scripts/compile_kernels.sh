#!/usr/bin/env bash
# Compile every CUDA kernel file standalone with nvcc (compile only), for
# sm_80 and sm_90, with the default tunables and with the extremes Python may
# pass (one-warp blocks, 64-bit vertex ids, 32-bit edge positions with capped
# registers); then check that the kernels the
# sources declare extern "C" are exactly tricount.gpu._module.ENTRY_POINTS
# No GPU is needed. Usage: scripts/compile_kernels.sh   (NVCC=... to override)
set -euo pipefail
cd "$(dirname "$0")/.."
KERNELS=src/tricount/gpu/kernels
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || { echo "compile_kernels: $NVCC not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
variants=("" "-DTC_BLOCK_SIZE=32" "-DTC_VERTEX_T=long\ long -DTC_BLOCK_SIZE=1024"
          "-DTC_EDGE_T=unsigned\ int -DTC_MIN_BLOCKS=6")
n=0
for arch in sm_80 sm_90; do
  for file in "$KERNELS"/*.cu; do
    for flags in "${variants[@]}"; do
      eval "set -- $flags"
      if ! "$NVCC" -arch="$arch" -std=c++17 -Werror all-warnings -c "$file" -o "$tmp/k.o" "$@"; then
        echo "compile_kernels: FAILED $file -arch=$arch $flags" >&2
        exit 1
      fi
      n=$((n + 1))
    done
  done
done
echo "compile_kernels: $n compilations passed (sm_80, sm_90)"
PYTHONPATH=src${PYTHONPATH:+:$PYTHONPATH} python3 - "$KERNELS" <<'PY'
import re
import sys
from pathlib import Path

from tricount.gpu._module import ENTRY_POINTS

pattern = re.compile(r'extern "C" __global__ void(?:\s+__launch_bounds__\([^)]*\))?\s+(\w+)\s*\(')
found = set()
for path in sorted(Path(sys.argv[1]).glob("*.cu")):
    for name in pattern.findall(path.read_text()):
        found.add((path.stem, name))
listed = set(ENTRY_POINTS)
bad = [n for _, n in found | listed if not n.startswith("tc_")]
if found != listed or bad or len(listed) != len(ENTRY_POINTS):
    print("compile_kernels: ENTRY_POINTS and sources disagree:", file=sys.stderr)
    print("  in sources only:", sorted(found - listed), file=sys.stderr)
    print("  in ENTRY_POINTS only:", sorted(listed - found), file=sys.stderr)
    print("  without the tc_ prefix:", bad, file=sys.stderr)
    sys.exit(1)
print(f"compile_kernels: {len(found)} entry points match ENTRY_POINTS")
PY
