#!/usr/bin/env bash
# make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="experiment gotest gbench demux probe results claims engine errata tree"]
#
# Builds the libFuzzer targets with clang under ASan and UBSan (build-fuzz/, tests/fuzz/README.md)
# and runs each for FUZZ_SECONDS, starting from the seeds (tests/fuzz/seeds.py, made from
# tests/data), the kept corpus (tests/fuzz/corpus/<target>/) and what earlier runs found
# (build-fuzz/corpus/<target>/, grown by every run). One line per target: executions, corpus size,
# findings. A finding ends the script with exit 1, its input in build-fuzz/findings/<target>/:
# fix the code, then keep the input in tests/fuzz/corpus/<target>/ so that every build replays it.
set -euo pipefail
seconds="${1:-60}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$repo/build-fuzz}"
read -r -a targets <<<"${FUZZ_TARGETS:-experiment gotest gbench demux probe results claims engine errata tree}"

bash "$repo/scripts/bootstrap.sh" fuzz
# A build of its own (the core and the fuzz targets only), unless FUZZ_BUILD_DIR names a sanitized
# clang build (make test SANITIZE=1), which has them too.
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CXX=clang++ cmake -S "$repo" -B "$build" -DNF_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
grep -q '^CMAKE_CXX_COMPILER:.*clang' "$build/CMakeCache.txt" ||
  { echo "fuzz.sh: $build is not a clang build: libFuzzer needs one (make fuzz, or a SANITIZE=1 build)" >&2; exit 2; }
cmake --build "$build" --target fuzzers -j "$(nproc 2>/dev/null || echo 2)"
rm -rf "$build/seeds"
python3 "$repo/tests/fuzz/seeds.py" "$build/seeds"

findings=0
for t in "${targets[@]}"; do
  work="$build/corpus/$t" found="$build/findings/$t"
  mkdir -p "$work" "$found" "$repo/tests/fuzz/corpus/$t"
  log="$build/fuzz-$t.log"
  touch "$log.start"  # what this run finds is newer (earlier findings stay where they are, uncounted)
  dict=()
  [[ -f "$repo/tests/fuzz/$t.dict" ]] && dict=(-dict="$repo/tests/fuzz/$t.dict")
  echo "fuzz: $t for ${seconds} s ..." >&2
  set +e
  "$build/nf-fuzz-$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "${dict[@]}" -artifact_prefix="$found/" "$work" "$repo/tests/fuzz/corpus/$t" "$build/seeds/$t" >"$log" 2>&1
  status=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  size=$(find "$work" "$repo/tests/fuzz/corpus/$t" "$build/seeds/$t" -type f | wc -l)
  # crash-, timeout-, oom- and leak- inputs are findings; libFuzzer's slow-unit- inputs (over 10 s
  # once, on a crowded machine) are not, and are only counted.
  crashes=$(find "$found" -type f -newer "$log.start" \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  slow=$(find "$found" -type f -newer "$log.start" -name 'slow-unit-*' | wc -l)
  printf 'fuzz: %-10s %10s runs in %s s, corpus %s inputs, findings %s%s%s\n' "$t" "${runs:-?}" "$seconds" "$size" \
    "$crashes" "$( ((slow > 0)) && echo " ($slow slow unit(s) kept in $found)")" \
    "$( ((status != 0)) && echo " (exit $status: see $log)")"
  if ((status != 0 || crashes > 0)); then
    findings=1
    grep -m5 -E "ERROR|runtime error|terminate|Assertion|deadly" "$log" >&2 || tail -20 "$log" >&2
  fi
done
exit "$findings"
