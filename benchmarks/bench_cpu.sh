#!/usr/bin/env bash
# The CPU benchmarks the README reports: every CPU method and every installed peer, 3 trials
# after one warm-up, every count verified.
#   1. generated graphs (no downloads): R-MAT scales 14-18, G(n, m), Barabasi-Albert and
#      Watts-Strogatz with about 4 M edges -> PREFIX.{jsonl,md,png};
#   2. real graphs from $TRICOUNT_DATA (default ../shared/data/graphs), when present
#      -> PREFIX_real.{jsonl,md,png}.
# Usage, on a quiet machine:   bash benchmarks/bench_cpu.sh [PREFIX]
# (PREFIX defaults to benchmarks/results/cpu). Takes about 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-benchmarks/results/cpu}
python3 -m tricount bench \
  rmat:scale=14,ef=16,seed=1 rmat:scale=16,ef=16,seed=1 rmat:scale=18,ef=16,seed=1 \
  er:n=262144,m=4194304,seed=1 ba:n=262144,m=16,seed=1 ws:n=262144,k=32,p=0.1,seed=1 \
  --backend cpu --methods all --peers all --trials 3 --out "$prefix"
data=${TRICOUNT_DATA:-../shared/data/graphs}
if [ -f "$data/graphs.json" ]; then
  python3 -m tricount bench \
    "$data/ca-AstroPh.txt.gz" "$data/email-Enron.txt.gz" "$data/soc-Epinions1.txt.gz" \
    "$data/blogcatalog.txt.gz" \
    --backend cpu --methods all --peers all --trials 3 --out "${prefix}_real"
else
  echo "bench_cpu: $data/graphs.json not found; skipping the real graphs" >&2
fi
