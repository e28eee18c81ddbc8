#!/usr/bin/env bash
# The whole GPU test suite plus the GPU benchmark, in one call on a GPU machine.
#
# Here, once before the call (copies the real graphs into the git-ignored
# .gpudata/, because ../shared is not sent to the GPU machine; with --baseline REV
# also exports commit REV into the git-ignored .baseline/, for the compare mode):
#     scripts/gpu_suite.sh --prepare [--baseline REV]
# On the GPU machine (the device tool's run, carry [".gpudata", ".whl"], and
# ".baseline" for compare):
#     bash scripts/gpu_suite.sh [all|tests|slow|bench|compare] [extra benchmark arguments]
# compare runs benchmarks/gpu_methods.py from .baseline/ and from this tree with the
# same arguments, one after the other on the same device, and writes
# gpu_compare.md (benchmarks/gpu_compare.py) beside both runs' JSON lines.
# Logs go to $OUT (env.txt, tests.log, slow.log, bench.log, gpu_methods.md,
# gpu_methods.jsonl, gpu_compare.md: the device tool brings back at most 8 files); a
# short summary ends stdout.
# .whl/ (or $WHEELS) holds the wheels that machine lacks (numba for its NumPy, dask, ...); they are
# installed into /tmp/site (nothing else is installed).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prepare" ]; then
  src=${TRICOUNT_DATA_SOURCE:-../shared/data/graphs}
  mkdir -p .gpudata
  cp "$src"/graphs.json "$src"/*.txt.gz .gpudata/
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gpudata/' "$exclude" 2>/dev/null || echo '/.gpudata/' >> "$exclude"
  echo "gpu_suite: copied $(ls .gpudata/*.gz | wc -l) graphs into .gpudata/ ($(du -sh .gpudata | cut -f1))"
  if [ "${2:-}" = "--baseline" ]; then
    rev=${3:?"--baseline needs a revision"}
    rm -rf .baseline && mkdir -p .baseline
    git archive "$rev" | tar -x -C .baseline
    grep -qx '/.baseline/' "$exclude" 2>/dev/null || echo '/.baseline/' >> "$exclude"
    echo "gpu_suite: exported $rev ($(git rev-parse --short "$rev")) into .baseline/"
  fi
  exit 0
fi

MODE=${1:-all}
shift || true
OUT=${OUT:-/tmp/gpu_suite_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export TRICOUNT_DATA=$PWD/.gpudata
WHEELS=${WHEELS:-.whl}
if ls "$WHEELS"/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-deps --no-index --target /tmp/site "$WHEELS"/*.whl 2>&1 | tail -2
fi
export PYTHONPATH=/tmp/site:$PWD/src
export NUMBA_CACHE_DIR=/tmp/numba_cache

{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv
  python3 -c "import sys, numpy, numba, cupy; print(sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__, 'cupy', cupy.__version__, 'cuda runtime', cupy.cuda.runtime.runtimeGetVersion())"
} 2>&1 | tee "$OUT/env.txt"

tests_rc=skipped
slow_rc=skipped
bench_rc=skipped
compare_rc=skipped
if [ "$MODE" = all ] || [ "$MODE" = tests ]; then
  # One pytest per file, each test capped (a hung kernel kills only its file;
  # the thread method dumps the stacks), every test named in the log. The files run in
  # one lane per GPU (CUDA_VISIBLE_DEVICES), side by side; the files that use several
  # GPUs (MULTI_GPU_FILES) run after them with every GPU visible.
  start=$(date +%s)
  tests_rc=0
  : > "$OUT/tests.log"
  multi_files=${MULTI_GPU_FILES:-"tests/partition/test_partition_gpu.py"}
  default_files="tests/gpu/test_kernels.py tests/gpu/test_engine.py tests/gpu/test_graphs.py"
  for extra in tests/gpu/test_*.py tests/analytics/test_analytics_gpu.py \
      tests/partition/test_partition_api.py; do
    case " $default_files " in *" $extra "*) ;; *) default_files="$default_files $extra" ;; esac
  done
  n_gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU")
  lanes=${TEST_LANES:-$(( n_gpus > 0 ? n_gpus : 1 ))}
  run_files() {  # lane, files...: each file's pytest, its exit code in the lane's rc file
    local lane=$1; shift
    for file in "$@"; do
      echo "gpu_suite: ---- $(basename "$file" .py) (lane $lane) ----"
      timeout "${TEST_FILE_TIMEOUT:-300}" python3 -m pytest "$file" -p no:cacheprovider -v -rfE \
          --timeout="${TEST_TIMEOUT:-120}" --timeout-method=thread --durations=15 2>&1
      rc=$?
      echo "gpu_suite: $file exit $rc"
      echo "$file $rc" >> "$OUT/.rc.$lane"
    done
  }
  i=0
  declare -a lane_files
  for file in ${TEST_FILES:-$default_files}; do
    lane_files[$(( i % lanes ))]+=" $file"
    i=$(( i + 1 ))
  done
  rm -f "$OUT"/.rc.*
  for lane in $(seq 0 $(( lanes - 1 ))); do
    # shellcheck disable=SC2086
    CUDA_VISIBLE_DEVICES=$lane run_files "$lane" ${lane_files[$lane]:-} > "$OUT/.lane$lane.log" &
  done
  wait
  # shellcheck disable=SC2086
  [ -n "${TEST_FILES:-}" ] || run_files all $multi_files > "$OUT/.laneall.log"
  cat "$OUT"/.lane*.log >> "$OUT/tests.log"
  grep -h "exit" "$OUT"/.lane*.log | grep "^gpu_suite:"
  tests_rc=$(awk '$2 != 0 {bad = $2} END {print bad + 0}' "$OUT"/.rc.*)
  rm -f "$OUT"/.rc.* "$OUT"/.lane*.log
  echo "gpu_suite: tests took $(( $(date +%s) - start )) s, exit $tests_rc" | tee -a "$OUT/tests.log"
fi
if [ "$MODE" = all ] || [ "$MODE" = slow ]; then
  # The slow sweeps the default suite deselects (pyproject.toml), CPU and GPU alike, one
  # pytest-xdist worker per core (the merge count past 2**32 takes minutes on two).
  start=$(date +%s)
  timeout "${SLOW_TIMEOUT:-1200}" python3 -m pytest tests -m slow -n "${SLOW_WORKERS:-auto}" \
      -p no:cacheprovider -rfE --durations=15 > "$OUT/slow.log" 2>&1
  slow_rc=$?
  tail -3 "$OUT/slow.log"
  echo "gpu_suite: slow sweeps took $(( $(date +%s) - start )) s, exit $slow_rc" | tee -a "$OUT/slow.log"
fi
if [ "$MODE" = all ] || [ "$MODE" = bench ]; then
  start=$(date +%s)
  python3 benchmarks/gpu_methods.py --out "$OUT" "$@" 2>&1 | tee "$OUT/bench.log"
  bench_rc=${PIPESTATUS[0]}
  echo "gpu_suite: benchmark took $(( $(date +%s) - start )) s, exit $bench_rc" | tee -a "$OUT/bench.log"
fi

if [ "$MODE" = compare ]; then
  if [ ! -d .baseline/src ]; then
    echo "gpu_suite: no .baseline/ (scripts/gpu_suite.sh --prepare --baseline REV)" >&2
    exit 2
  fi
  start=$(date +%s)
  OUT=$(cd "$OUT" && pwd)  # the baseline runs from .baseline/
  mkdir -p "$OUT/before" "$OUT/after"
  (cd .baseline && PYTHONPATH=/tmp/site:$PWD/src python3 benchmarks/gpu_methods.py --out "$OUT/before" "$@") \
    > "$OUT/bench_before.log" 2>&1
  before_rc=$?
  python3 benchmarks/gpu_methods.py --out "$OUT/after" "$@" > "$OUT/bench.log" 2>&1
  after_rc=$?
  python3 benchmarks/gpu_compare.py "$OUT/before/gpu_methods.jsonl" "$OUT/after/gpu_methods.jsonl" \
    "$OUT/gpu_compare.md"
  compare_rc=$?
  [ "$before_rc" = 0 ] && [ "$after_rc" = 0 ] || compare_rc=1
  cp "$OUT/after/gpu_methods.md" "$OUT/gpu_methods.md" 2>/dev/null
  mv "$OUT/before/gpu_methods.jsonl" "$OUT/gpu_methods_before.jsonl" 2>/dev/null
  mv "$OUT/after/gpu_methods.jsonl" "$OUT/gpu_methods_after.jsonl" 2>/dev/null
  rm -rf "$OUT/before" "$OUT/after"
  echo "gpu_suite: compare took $(( $(date +%s) - start )) s, exit $compare_rc (before $before_rc, after $after_rc)"
fi

echo
echo "==================== gpu_suite summary ===================="
head -3 "$OUT/env.txt" | tail -2
if [ -f "$OUT/tests.log" ]; then
  grep -E "^(FAILED|ERROR)|Timeout|^E  " "$OUT/tests.log" | cut -c1-300 | head -60
  grep -E "^=+ .*(passed|failed|error)" "$OUT/tests.log"
fi
if [ -f "$OUT/gpu_methods.md" ]; then
  grep -E "^\| (rmat|soc-Epinions1|email-Enron|blogcatalog)" "$OUT/gpu_methods.md" \
    | cut -d'|' -f2,5,7,8,10,11,13,14 | head -60
fi
echo "tests exit: $tests_rc, slow exit: $slow_rc, benchmark exit: $bench_rc, compare exit: $compare_rc"
[ "$tests_rc" = 0 ] || [ "$tests_rc" = skipped ] || exit 1
[ "$slow_rc" = 0 ] || [ "$slow_rc" = skipped ] || exit 1
[ "$bench_rc" = 0 ] || [ "$bench_rc" = skipped ] || exit 1
[ "$compare_rc" = 0 ] || [ "$compare_rc" = skipped ] || exit 1
