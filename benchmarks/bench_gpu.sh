#!/usr/bin/env bash
# The GPU benchmark the README reports: the GPU methods auto can pick (hash, wedge, bitwedge,
# auto; the lab methods run from benchmarks/gpu_methods.py), the best CPU method on the same
# machine (cpu/bitmap), and the CPU peers that are installed there, on graph500-style R-MAT
# and G(n, m) graphs up to 33.5 M edge lines, plus the real graphs in .gpudata/ when present
# (scripts/gpu_suite.sh --prepare copies them). 3 trials after one warm-up; every count
# verified (the oracle up to 300,000 edges, above it the agreement of cpu/merge and
# cpu/bitmap). Specs are generated on the GPU: the same graphs as on the CPU, seed for seed.
#
# On the GPU machine:   bash benchmarks/bench_gpu.sh "$OUT/gpu" [more tricount bench options]
# Writes PREFIX.{jsonl,md,png} (default benchmarks/results/gpu); without matplotlib there,
# re-plot here with: python -m tricount.bench.plot PREFIX.jsonl PREFIX.png
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-benchmarks/results/gpu}
shift || true
# The GPU machine runs from the source tree, with Numba from wheels/ (as scripts/gpu_suite.sh).
if ! python3 -c "import numba" 2>/dev/null && ls wheels/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-deps --no-index --target /tmp/site wheels/*.whl
fi
export PYTHONPATH=/tmp/site:$PWD/src${PYTHONPATH:+:$PYTHONPATH}
export NUMBA_CACHE_DIR=${NUMBA_CACHE_DIR:-/tmp/numba_cache}
real=()
for name in ca-AstroPh email-Enron soc-Epinions1 blogcatalog; do
  [ -f ".gpudata/$name.txt.gz" ] && real+=(".gpudata/$name.txt.gz")
done
exec python3 -m tricount bench \
  rmat:scale=16,ef=16,seed=1 rmat:scale=18,ef=16,seed=1 rmat:scale=20,ef=16,seed=1 \
  rmat:scale=21,ef=16,seed=1 er:n=2097152,m=33554432,seed=1 "${real[@]}" \
  --backend gpu,cpu --methods gpu/all,cpu/bitmap --peers graphblas,networkit,igraph \
  --generate-on gpu --trials 3 --out "$prefix" "$@"
