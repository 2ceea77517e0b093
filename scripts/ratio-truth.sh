#!/usr/bin/env bash
# The ratio workload's true ratio, independent of any clock: the instructions its timed region
# executes, counted by valgrind (callgrind) for -loops=1 and -loops=3. The timed region is what
# experiments/ratio/main.go measures between its two threadCPU() calls: the xorshift chain plus
# the timing calls themselves (the Go runtime's asynchronous preemptions, which callgrind charges
# to the loop they interrupt, are not the workload and are left out).
#   scripts/ratio-truth.sh [WORK]      (xorshift steps per loop; default 50000000, what
#                                       experiments/ratio.yaml runs)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${1:-50000000}"
out="$(mktemp -d /tmp/nf-ratio-truth.XXXXXX)"
trap 'rm -rf "$out"' EXIT
(cd experiments/ratio && CGO_ENABLED=0 go build -o "$out/ratio" .)
for loops in 1 3; do
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.$loops" "$out/ratio" -loops="$loops" -work="$WORK" \
    -test.count=1 >/dev/null 2>"$out/valgrind.$loops" || { cat "$out/valgrind.$loops" >&2; exit 1; }
  callgrind_annotate --auto=yes --show-percs=no "$out/cg.$loops" >"$out/annotated.$loops" 2>/dev/null
done
python3 - "$out" "$WORK" <<'PY'
import re, sys
out, work = sys.argv[1], int(sys.argv[2])

def count(text):
    return int(text.replace(",", "")) if re.fullmatch(r"[\d,]+", text) else 0

def region(loops):
    lines = open(f"{out}/annotated.{loops}").read().split("\n")
    start = next(i for i, l in enumerate(lines) if re.search(r"Auto-annotated source: .*ratio/main\.go", l))
    src = [l for l in lines[start:]]
    total = chain = 0
    state = None
    for l in src:
        m = re.match(r"\s*([\d,]+|\.)\s{2}(.*)$", l)
        if not m:
            continue
        n, code = count(m.group(1)), m.group(2)
        if code.startswith("func chain("):
            state = "chain"
        elif state == "chain" and code.startswith("}"):
            state = None
        elif "startCPU := threadCPU()" in code:
            state = "timed"
        if state == "chain" and not code.startswith("=>"):
            chain += n  # the loop's own instructions; calls from it are preemptions
        elif state == "timed":
            total += n  # the timed lines and the timing calls they make (=> lines)
            if "cpu := threadCPU() - startCPU" in code:
                state = "after"
        elif state == "after":
            if code.startswith("=>"):
                total += n
            else:
                state = None
    return chain + total, chain

once, once_chain = region(1)
thrice, thrice_chain = region(3)
print(f"timed region, {work} xorshift steps per loop (callgrind instruction counts):")
print(f"  -loops=1: {once:,} instructions ({once_chain:,} in the chain)")
print(f"  -loops=3: {thrice:,} instructions ({thrice_chain:,} in the chain)")
print(f"  chain ratio {thrice_chain / once_chain:.6f}, timed-region ratio {thrice / once:.6f}")
PY
