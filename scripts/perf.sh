#!/usr/bin/env bash
# make perf: noisefloor's performance as one table, every figure a ratio or a fraction measured in
# this session, alternately with the peer or the reference run (PERF_PAIRS times, default 3),
# reported as the median with min–max. Never part of `make test`: no timing is ever asserted.
#
#   scripts/perf.sh [P1 P2 ... P15]       (default: all; PERF_PAIRS=3; PERF_GATES=24 for P9, P10;
#                                         PERF_P13_TRIALS=20; PERF_P14_TRIALS=10)
#
# Writes results/perf/<UTC time>/perf.md and perf.json and prints the markdown. Needs a built
# noisefloor (make build), the Docker engine (started when none answers) and hyperfine (installed
# from Debian when missing, as root). Takes about twenty minutes on 2 CPUs (P9-P11 about nine).
#
#   P1 orchestration     make bench-docker's experiment (short samples) vs the shell way
#                        (scripts/orchestration-bench.sh): wall-time ratio, at the shell's protocol
#                        (no settle) and with noisefloor's default 1 s settle (reported)
#   P2 self-disturbance  noisefloor's own CPU (all threads) per second of invocations, on the host
#                        and in a container: the fraction of one CPU (run.json harness_cpu_s)
#   P3 launcher          /bin/true as a `command` benchmark, the median sample against hyperfine
#                        -N's median on the same no-op, 50 runs each, alternately
#   P4 paired accuracy   the ratio workload (true ratio 3, instruction count) paired, clean and
#                        under `spinners: all`: |contended/clean - 1| of the CPU-time ratio
#                        (the wall-time one is reported beside)
#   P5 A/A precision     the A/A half-width of the ratio workload on the idle host in one run
#                        of at most 2 minutes: 120 repeats of CPU time (relative half-width of
#                        the A/A 95% CI, and the run's wall time)
#   P6 adaptive stopping samples to a 1% CI with `samples: auto` over a fixed 20 on a stable
#                        command; an unstable one must end "not converged" at its cap
#   P7 analysis scale    cv and compare beside the real benchstat (built offline) on go test files
#                        of 10^2..10^5 rows x 20 samples and 1 x 10^6 (scripts/scale-curve.py):
#                        time and peak-RSS ratios, and each tool's growth exponent
#   P8 auto image        the first and the cached preparation of the image: auto image (the
#                        run's note) against `docker build` of the same files from a Dockerfile
#   P9 gate false alarms PERF_GATES gates (`run --base A --head C`, C a reworded comment) on
#                        scripts/gate-repo.sh's repository at the gate's defaults: the fraction
#                        with a confirmed regression (exit 4) and the per-row rate of block-1
#                        "slower" over all gating rows, each with its Clopper-Pearson 95% interval;
#                        the wall time per gate
#   P10 gate power       PERF_GATES gates --head E (BenchmarkSlowed x 1.05): the fraction where
#                        Slowed is a confirmed regression, where block 1 calls it slower, and
#                        BenchmarkSteady's (unchanged) false "slower"s
#   P11 gate wall time   one cold-cache gate --head B (Slowed x 1.5: builds and confirmation
#                        included) against the shell loop (two git worktrees, two go test -c,
#                        old.test/new.test alternately 10 times each, benchstat): wall-time ratio,
#                        and the gate's invocations against the loop's 20
#   P13 gate vs loop     the gate against the seed's loop (old and new alternated 10 times in bash,
#                        each process's CPU time, the real benchstat), interleaved, PERF_P13_TRIALS
#                        trials per change (none, +5%, +10%, +50% of a C program's work), in a still
#                        room and a drifting one (scripts/gate-vs-loop.py): how often each calls the
#                        head slower, with Clopper-Pearson intervals, and the wall-time ratio
#   P14 simulated gate   the gate on `metric: simulated-instructions` against the gate on `metric:
#                        wall` (samples: auto), on the same C program's 1% change and a comment,
#                        beside one busy loop per CPU the whole time (scripts/simulated-gate.py),
#                        PERF_P14_TRIALS trials: how often each calls the head worse, with
#                        Clopper-Pearson intervals, the gates' wall times and their ratio
#   P12 counter cost     the probe starting the no-op with its counters (perf_event_open, opened
#                        before the clone, read after the reap) against --no-counters, hyperfine -N
#                        500 runs each, alternately: the added wall time per invocation in µs
#   P15 the store        10^4 runs of 300 machines published to `noisefloor serve` on SQLite, then on
#                        a PostgreSQL cluster it starts: publishes/s, p50 and p99 latency at 1, 8 and
#                        64 publishers (100, 900 and 9000 runs), and the experiment's page's time at
#                        10^2, 10^3 and 10^4 stored runs (5 loads each)
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"
NF="$REPO/build/noisefloor"
PAIRS="${PERF_PAIRS:-3}"
[[ -x "$NF" ]] || { echo "perf.sh: no $NF: run make build first" >&2; exit 2; }
if ! command -v hyperfine >/dev/null; then
  if [[ $(id -u) == 0 ]]; then apt-get install -y --no-install-recommends hyperfine >/dev/null
  else echo "perf.sh: hyperfine is missing: apt-get install hyperfine" >&2; exit 2; fi
fi
WANT=("$@")
[[ ${#WANT[@]} -gt 0 ]] || WANT=(P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11 P12 P13 P14 P15)
wanted() { local w; for w in "${WANT[@]}"; do [[ $w == "$1" ]] && return 0; done; return 1; }
if wanted P1 || wanted P2 || wanted P8; then bash scripts/dockerd.sh >/dev/null; fi

WORK="$(mktemp -d /tmp/nf-perf.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
OUT="$REPO/results/perf/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
FIG="$WORK/figures.jsonl"
: >"$FIG"
export GOCACHE="${GOCACHE:-/tmp/noisefloor-gocache}"
say() { printf '[perf %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# emit ID WHAT HOW KIND OP TARGET VALUE... : one row (KIND: ratio, fraction, s, MB, us; OP: <= or >=;
# TARGET a number, or "-" for a figure reported without one).
emit() {
  python3 - "$@" >>"$FIG" <<'PY'
import json, sys
id_, what, how, kind, op, target, *values = sys.argv[1:]
print(json.dumps({"id": id_, "what": what, "how": how, "kind": kind, "op": op,
                  "target": None if target == "-" else float(target), "values": [float(v) for v in values]}))
PY
}
# emit_ci ID WHAT HOW KIND OP TARGET VALUE LO HI: one row whose figure is one estimate (a count
# over trials) with its 95% interval, shown in place of the min–max.
emit_ci() {
  python3 - "$@" >>"$FIG" <<'PY'
import json, sys
id_, what, how, kind, op, target, value, lo, hi = sys.argv[1:]
print(json.dumps({"id": id_, "what": what, "how": how, "kind": kind, "op": op,
                  "target": None if target == "-" else float(target), "values": [float(value)],
                  "ci": [float(lo), float(hi)]}))
PY
}
# note ID TEXT: a line under the table.
note() { python3 -c 'import json,sys; print(json.dumps({"id": sys.argv[1], "note": sys.argv[2]}))' "$1" "$2" >>"$FIG"; }
# jq-free JSON reads: json_get FILE PYTHON-EXPRESSION-ON-d
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# timed LOG COMMAND...: the command's wall time in seconds on stdout; its output goes to /dev/null
# and its stderr to LOG (shown when it fails).
timed() {
  local log=$1 s e
  shift
  s=$(date +%s.%N)
  "$@" >/dev/null 2>"$log" || { cat "$log" >&2; return 1; }
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN {printf "%.6f", e - s}'
}

# The demo's benchmark, built once.
MB_TEST="$WORK/makebuffer.test"
(cd experiments/makebuffer && CGO_ENABLED=0 go test -c -o "$MB_TEST" .) >/dev/null

p1() {
  local settle log ratios
  for settle in 0s 1s; do
    say "P1 orchestration: scripts/orchestration-bench.sh $PAIRS 5 100ms $settle"
    log="$WORK/p1.$settle.txt"
    bash scripts/orchestration-bench.sh "$PAIRS" 5 100ms "$settle" >"$log" 2>&1 || { cat "$log" >&2; return 1; }
    mapfile -t ratios < <(sed -n 's/^pair [0-9]*: .* ratio \([0-9.]*\)$/\1/p' "$log")
    while IFS= read -r line; do note P1 "settle $settle, $line"; done < <(grep '^pair ' "$log")
    if [[ $settle == 0s ]]; then
      emit P1 "orchestration" "the demo's 3 conditions (5 samples of 100 ms) vs bash spinners + docker run, wall; settle 0 s (the shell's protocol)" \
        ratio "<=" 1.00 "${ratios[@]}"
    else
      emit P1 "orchestration, default settle" "the same with noisefloor's default 1 s settle before each condition, reported" \
        ratio "<=" - "${ratios[@]}"
    fi
  done
}

p2() {
  say "P2 self-disturbance: host and container, $PAIRS runs"
  cat >"$WORK/p2.yaml" <<YAML
name: perf-self
benchmark:
  command: [$MB_TEST, "-test.run=^\$", "-test.bench=^BenchmarkMakeBuffer_Correct\$", -test.benchmem, -test.benchtime=1s]
  format: gotest
  samples: 10
settle: 0s
conditions:
  - name: host
  - name: container
    container: {image: auto, cpuset: "0", cpus: 1, memory: 512m}
YAML
  local host=() container=() i
  for i in $(seq "$PAIRS"); do
    "$NF" run -q "$WORK/p2.yaml" --results "$WORK/p2" >/dev/null 2>"$WORK/p2.err" || { cat "$WORK/p2.err" >&2; return 1; }
    local s="$WORK/p2/perf-self/latest/summary.json"
    host+=("$(json_get "$s" '[a["harness"]["share"] for a in d["accounting"] if a["condition"] == "host"][0]')")
    container+=("$(json_get "$s" '[a["harness"]["share"] for a in d["accounting"] if a["condition"] == "container"][0]')")
  done
  emit P2 "self-disturbance, host" "own CPU (CLOCK_PROCESS_CPUTIME_ID) / invocation wall, 10 samples of 1 s" \
    fraction "<=" 0.0005 "${host[@]}"
  emit P2 "self-disturbance, container" "the same with the benchmark in an image: auto container" \
    fraction "<=" 0.0005 "${container[@]}"
}

p3() {
  say "P3 launcher overhead: /bin/true, 50 samples, against hyperfine -N, $PAIRS pairs"
  cat >"$WORK/p3.yaml" <<'YAML'
name: perf-noop
benchmark: {command: [/bin/true], format: command, samples: 50}
settle: 0s
conditions:
  - name: idle
YAML
  local ratios=() nf hf i
  for i in $(seq "$PAIRS"); do
    run_nf() {
      "$NF" run -q "$WORK/p3.yaml" --results "$WORK/p3" >/dev/null
      nf=$(json_get "$WORK/p3/perf-noop/latest/summary.json" 'd["table"]["rows"][0]["summary"]["median"]')
    }
    run_hf() {
      hyperfine -N --runs 50 --export-json "$WORK/p3.hf.json" /bin/true >/dev/null 2>&1
      hf=$(json_get "$WORK/p3.hf.json" 'd["results"][0]["median"]')
    }
    if ((i % 2)); then run_nf; run_hf; else run_hf; run_nf; fi
    ratios+=("$(awk -v a="$nf" -v b="$hf" 'BEGIN {printf "%.6f", a / b}')")
    note P3 "pair $i: noisefloor $(awk -v a="$nf" 'BEGIN {printf "%.3f", a * 1000}') ms, hyperfine $(awk -v a="$hf" 'BEGIN {printf "%.3f", a * 1000}') ms (medians of 50)"
  done
  emit P3 "launcher overhead" "/bin/true: median sample of noisefloor / median of hyperfine -N, 50 runs each" \
    ratio "<=" 1.10 "${ratios[@]}"
}

p4() {
  say "P4 paired accuracy: experiments/ratio.yaml, $PAIRS runs"
  local cpu=() wall=() i
  for i in $(seq "$PAIRS"); do
    "$NF" run -q experiments/ratio.yaml --results "$WORK/p4" >/dev/null 2>"$WORK/p4.err" || { cat "$WORK/p4.err" >&2; return 1; }
    local dir="$WORK/p4/ratio/latest"
    cpu+=("$(python3 - "$dir" cpu-ns/op <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1] + "/summary.json"))
gm = {r["condition"]: r["gm"] for r in d["paired"] if r["variant"] == "thrice"}
print(abs(gm["contended"] / gm["clean"] - 1))
PY
)")
    wall+=("$(python3 - "$dir" <<'PY'
import json, math, sys, statistics
# The wall time (ns/op) is recorded beside the CPU time: the same geometric mean of per-repeat ratios.
rows = [json.loads(l) for l in open(sys.argv[1] + "/samples.jsonl")]
def gm(cond):
    base, var = {}, {}
    for r in rows:
        if r["condition"] != cond or r["warmup"] or r.get("pair") != "thrice":
            continue
        v = next(m["value"] for m in r["metrics"] if m["unit"] == "ns/op")
        (base if r["variant"] == "once" else var)[r["repeat"]] = v
    logs = [math.log(var[k] / base[k]) for k in base if k in var]
    return math.exp(sum(logs) / len(logs))
print(abs(gm("contended") / gm("clean") - 1))
PY
)")
  done
  emit P4 "paired accuracy, CPU time" "ratio workload (true 3): |geometric-mean ratio under spinners / clean - 1|" \
    fraction "<=" 0.01 "${cpu[@]}"
  emit P4 "paired accuracy, wall time" "the same for the wall time (ns/op), reported" fraction "<=" - "${wall[@]}"
}

p5() {
  say "P5 A/A precision: the ratio workload, clean, 120 repeats, $PAIRS runs"
  sed -e 's/^name: ratio$/name: perf-aa/' -e 's/^  samples: 10$/  samples: 120/' -e '/^  - name: contended$/,/^    spinners: all$/d' \
    experiments/ratio.yaml >"$WORK/p5.yaml"
  sed -i "s#workdir: ratio#workdir: $REPO/experiments/ratio#; s#\.\./\.\./build/bench/ratio#$REPO/build/bench/ratio#g" "$WORK/p5.yaml"
  local half=() took=() i t
  for i in $(seq "$PAIRS"); do
    t=$(timed "$WORK/p5.err" "$NF" run -q "$WORK/p5.yaml" --results "$WORK/p5")
    took+=("$t")
    half+=("$(json_get "$WORK/p5/perf-aa/latest/summary.json" 'd["aa"][0]["halfwidth"]')")
  done
  emit P5 "A/A precision" "relative half-width of the A/A 95% CI, ratio workload (cpu-ns/op), 120 repeats on the idle host" \
    fraction "<=" 0.005 "${half[@]}"
  emit P5 "A/A run time" "the whole run (build, settle, 120 repeats of 4 runs), against the 2-minute budget" \
    s "<=" 120 "${took[@]}"
}

p6() {
  say "P6 adaptive stopping: samples: auto vs 20, stable and unstable, $PAIRS pairs"
  local burn="$REPO/build/nf-burn"
  [[ -x $burn ]] || { echo "perf.sh: $burn missing (make build builds it)" >&2; return 1; }
  cat >"$WORK/p6-auto.yaml" <<YAML
name: perf-auto
benchmark: {command: [$burn, "0.02"], format: command, metric: cpu, samples: auto, precision: 1%, max_samples: 60}
settle: 0s
conditions:
  - name: stable
YAML
  sed -e 's/name: perf-auto/name: perf-fixed/' -e 's/samples: auto, precision: 1%, max_samples: 60/samples: 20/' \
    "$WORK/p6-auto.yaml" >"$WORK/p6-fixed.yaml"
  cat >"$WORK/p6-unstable.yaml" <<'YAML'
name: perf-unstable
benchmark: {command: [bash, -c, "sleep 0.0$((RANDOM % 9 + 1))"], format: command, samples: auto, precision: 1%, max_samples: 30}
settle: 0s
conditions:
  - name: unstable
YAML
  local fraction=() wall=() capped=() i ta tf
  for i in $(seq "$PAIRS"); do
    run_auto() { ta=$(timed "$WORK/p6.err" "$NF" run -q "$WORK/p6-auto.yaml" --results "$WORK/p6"); }
    run_fixed() { tf=$(timed "$WORK/p6.err" "$NF" run -q "$WORK/p6-fixed.yaml" --results "$WORK/p6"); }
    if ((i % 2)); then run_auto; run_fixed; else run_fixed; run_auto; fi
    local s="$WORK/p6/perf-auto/latest/summary.json"
    local n converged
    n=$(json_get "$s" 'd["adaptive"]["stable"]["samples"]')
    converged=$(json_get "$s" 'd["adaptive"]["stable"]["converged"]')
    [[ $converged == True ]] || note P6 "pair $i: the stable condition did not converge ($n samples)"
    fraction+=("$(awk -v n="$n" 'BEGIN {printf "%.4f", n / 20}')")
    wall+=("$(awk -v a="$ta" -v b="$tf" 'BEGIN {printf "%.4f", a / b}')")
    "$NF" run -q "$WORK/p6-unstable.yaml" --results "$WORK/p6" >/dev/null
    local u="$WORK/p6/perf-unstable/latest/summary.json"
    capped+=("$(json_get "$u" '0.0 if d["adaptive"]["unstable"]["converged"] else d["adaptive"]["unstable"]["samples"] / 30')")
    note P6 "pair $i: stable $n samples ($(json_get "$s" 'round(100 * d["adaptive"]["stable"]["halfwidth"], 3)')% half-width); unstable $(json_get "$u" '"converged" if d["adaptive"]["unstable"]["converged"] else "NOT converged"') at $(json_get "$u" 'd["adaptive"]["unstable"]["samples"]') of 30"
  done
  emit P6 "adaptive stopping, samples" "stable (nf-burn 20 ms, CPU time): samples to a 1% CI / a fixed 20" \
    fraction "<=" 0.60 "${fraction[@]}"
  emit P6 "adaptive stopping, wall" "the same, run wall time auto / fixed 20, reported" ratio "<=" - "${wall[@]}"
  emit P6 "adaptive stopping, unstable" "random 10–90 ms sleeps: samples at the end / the cap of 30 (1 = stopped at the cap, NOT converged)" \
    fraction ">=" 1.0 "${capped[@]}"
}

p7() {
  say "P7 analysis scale: cv and compare beside the real benchstat, 10^2..10^5 rows x 20, 1 x 10^6"
  local bs="$WORK/benchstat"
  if ! bash "$REPO/../shared/oracles/benchstat/build.sh" "$bs" >/dev/null 2>"$WORK/p7.benchstat.err"; then
    note P7 "benchstat could not be built offline ($(tail -1 "$WORK/p7.benchstat.err")): P7 not measured"
    return
  fi
  python3 "$REPO/scripts/scale-curve.py" "$NF" "$bs" "$WORK/p7.json" --max-rows "${PERF_P7_MAX_ROWS:-100000}" >&2
  local cmd rows
  for cmd in cv compare; do
    for rows in 100 1000 10000 100000; do
      mapfile -t v < <(json_get "$WORK/p7.json" "'\n'.join(str(x) for f in d['figures'] if f['command'] == '$cmd' and f['rows'] == $rows and f['samples'] == 20 for x in (f['noisefloor_s'] / f['benchstat_s'], f['noisefloor_mb'] / f['benchstat_mb']))")
      [[ ${#v[@]} -eq 2 ]] || continue
      emit P7 "$cmd, 10^$((${#rows} - 1)) rows x 20 / benchstat, time" "wall-time ratio, medians (wait4), alternated in one run" ratio "<=" 1.0 "${v[0]}"
      emit P7 "$cmd, 10^$((${#rows} - 1)) rows x 20 / benchstat, memory" "peak RSS ratio (wait4 ru_maxrss)" ratio "<=" 1.5 "${v[1]}"
    done
  done
  local line
  line=$(json_get "$WORK/p7.json" "'; '.join(f'{k}: {v:.2f}' for k, v in d['growth'].items())")
  note P7 "growth exponents (time ~ rows^k, 10^3 rows and up; 1 is linear): $line"
  line=$(json_get "$WORK/p7.json" "'; '.join(f\"{f['command']} 1 x 10^6: {f['noisefloor_s']:.2f} s / {f['benchstat_s']:.2f} s, {f['noisefloor_mb']:.0f} / {f['benchstat_mb']:.0f} MB\" for f in d['figures'] if f['rows'] == 1)")
  note P7 "one benchmark x 10^6 samples (noisefloor / benchstat): $line"
}

p8() {
  say "P8 auto image: noisefloor's preparation vs docker build, $PAIRS pairs"
  mkdir -p "$WORK/p8/ctx"
  cat >"$WORK/p8.yaml" <<YAML
name: perf-image
benchmark:
  command: [$WORK/p8/makebuffer.test, "-test.run=^\$", "-test.bench=^BenchmarkMakeBuffer_Correct\$", -test.benchtime=1x]
  format: gotest
  samples: 2
settle: 0s
conditions:
  - name: boxed
    container: {image: auto, cpuset: "0", memory: 256m}
YAML
  local first=() cached=() dcached=() i
  for i in $(seq "$PAIRS"); do
    # A binary no engine has seen: the image is new each pair (the first preparation).
    cp "$MB_TEST" "$WORK/p8/makebuffer.test"
    printf 'perf pair %s %s' "$i" "$(date +%s%N)" >>"$WORK/p8/makebuffer.test"
    cp "$WORK/p8/makebuffer.test" "$WORK/p8/ctx/makebuffer.test"
    cp "$REPO/build/nf-probe" "$WORK/p8/ctx/probe"
    cp "$REPO/build/nf-noop" "$WORK/p8/ctx/noop"
    cat >"$WORK/p8/ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY makebuffer.test /bench/makebuffer.test
COPY probe /noisefloor/probe
COPY noop /noisefloor/noop
ENTRYPOINT ["/noisefloor/probe"]
DOCKERFILE
    local tag="perf-docker-build:$i-$$"
    prep() {  # the seconds in the run's "image: ... (...; 0.42 s)" note
      "$NF" run "$WORK/p8.yaml" --results "$WORK/p8/results" >/dev/null 2>"$WORK/p8.err" || { cat "$WORK/p8.err" >&2; return 1; }
      sed -n 's/.*image: noisefloor-auto:[0-9a-f]* (.*; \([0-9.]*\) s).*/\1/p' "$WORK/p8.err" | head -1
    }
    build() { timed "$WORK/p8.build.err" docker build -q --no-cache -t "$tag" "$WORK/p8/ctx"; }
    local nf_first nf_cached d_first d_cached
    if ((i % 2)); then nf_first=$(prep); d_first=$(build); else d_first=$(build); nf_first=$(prep); fi
    nf_cached=$(prep)
    d_cached=$(timed "$WORK/p8.build.err" docker build -q -t "$tag" "$WORK/p8/ctx")
    docker rmi -f "$tag" >/dev/null 2>&1 || true
    first+=("$(awk -v a="$nf_first" -v b="$d_first" 'BEGIN {printf "%.4f", a / b}')")
    cached+=("$(awk -v a="$nf_cached" -v b="$d_first" 'BEGIN {printf "%.4f", a / b}')")
    dcached+=("$(awk -v a="$nf_cached" -v b="$d_cached" 'BEGIN {printf "%.4f", a / b}')")
    note P8 "pair $i: noisefloor first ${nf_first} s, cached ${nf_cached} s; docker build --no-cache ${d_first} s, cached ${d_cached} s"
  done
  emit P8 "auto image, first" "noisefloor's first preparation / docker build --no-cache of the same files" ratio "<=" 1.0 "${first[@]}"
  emit P8 "auto image, cached" "noisefloor's cached preparation / docker build --no-cache" ratio "<=" 0.1 "${cached[@]}"
  emit P8 "auto image, cached vs cached" "noisefloor's cached preparation / docker build with its layer cache, reported" \
    ratio "<=" - "${dcached[@]}"
}

# P9-P11: the A/B gate on scripts/gate-repo.sh's repository (commits A, C, E, B), made once. The
# gates' builds share one cache (P11 makes its own, cold, each time); GOCACHE is shared and warm.
GATES="${PERF_GATES:-24}"
GATE_REPO="$WORK/gate-repo"
if wanted P9 || wanted P10 || wanted P11; then eval "$(bash scripts/gate-repo.sh "$GATE_REPO")"; fi
# gate_figures MODE DIR: P9 or P10's figures from DIR/index.tsv (gate, exit status, wall seconds)
# and DIR/<gate>.json, as one JSON object on stdout.
gate_figures() {
  python3 - "$@" <<'PY'
import json, math, os, statistics, sys
mode, d = sys.argv[1], sys.argv[2]

def binom_cdf(k, n, p):  # P(X <= k)
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))

def cp(k, n, alpha=0.05):  # Clopper-Pearson: the binomial tails inverted by bisection
    def solve(f):  # f increasing in p from negative to positive
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            (lo, hi) = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2
    lower = 0.0 if k == 0 else solve(lambda p: (1 - binom_cdf(k - 1, n, p)) - alpha / 2)
    upper = 1.0 if k == n else solve(lambda p: alpha / 2 - binom_cdf(k, n, p))
    return lower, upper

def count(k, n):
    lo, hi = cp(k, n)
    return {"k": k, "n": n, "p": k / n if n else float("nan"), "lo": lo, "hi": hi}

gates, walls, failed = [], [], []
for line in open(f"{d}/index.tsv"):
    i, status, wall = line.split()
    walls.append(float(wall))
    if status in ("0", "4"):
        g = json.load(open(f"{d}/{i}.json"))
        g["_status"], g["_i"] = int(status), int(i)
        gates.append(g)
    else:
        failed.append(i)
n = len(gates)
out = {"gates": n, "failed": failed, "walls": walls,
       "bound": statistics.median(g["false_alarm_bound"] for g in gates) if gates else 0.0}
bench = lambda r: r["benchmark"].split("-")[0]
rows = [(g, r) for g in gates for r in g["rows"] if r["gating"]]
pct = lambda x: f"{100 * (x - 1):+.1f}%"
def tally(name):
    t = {}
    for g, r in rows:
        if bench(r) == name:
            t[r["verdict"]] = t.get(r["verdict"], 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(t.items(), key=lambda kv: -kv[1]))
ns = [r["first"]["n"] for g, r in rows]
notes = []
# The room each gate measured in: its label and the 1-minute load average when it started.
labels, loads = {}, []
for g in gates:
    label = g["room"].split(" · ")[0]
    labels[label] = labels.get(label, 0) + 1
    for c in json.load(open(f"{d}/{g['_i']}.run.json"))["condition_records"]:
        load = (c.get("load_before") or {}).get("value") or {}
        if "one" in load:
            loads.append(load["one"])
if gates:
    notes.append("room: " + ", ".join(f"{v} {k}" for k, v in sorted(labels.items(), key=lambda kv: -kv[1]))
                 + (f"; load average (1 min) at a gate's start: median {statistics.median(loads):.2f} "
                    f"({min(loads):.2f}–{max(loads):.2f}) on {os.cpu_count()} CPUs" if loads else ""))
if ns:
    notes.append(f"block 1 quads per row: median {statistics.median(ns):g} ({min(ns)}–{max(ns)}), "
                 f"cap {gates[0]['settings']['max_repeats']}; floor failed in "
                 f"{sum(1 for g, r in rows if r['first']['floor_failed'])} of {len(rows)} rows")
for name in ("BenchmarkSlowed", "BenchmarkSteady"):
    rs = [r for g, r in rows if bench(r) == name]
    if rs:
        ratios = sorted(r["first"]["ratio"] for r in rs)
        mdes = [r["first"]["mde_slower"] for r in rs if r["first"]["mde_slower"] is not None]
        notes.append(f"{name} block 1: {tally(name)}; ratio median {pct(statistics.median(ratios))} "
                     f"({pct(ratios[0])}–{pct(ratios[-1])})"
                     + (f", MDE median +{100 * statistics.median(mdes):.1f}%" if mdes else ""))
if mode == "P9":
    out["confirmed"] = count(sum(1 for g in gates if g["_status"] == 4), n)
    out["row_slower"] = count(sum(1 for g, r in rows if r["first"]["verdict"] == "slower"), len(rows))
    for g, r in rows:
        if r["first"]["verdict"] == "slower":
            s = r["second"]
            notes.append(f"gate {g['_i']}: {bench(r)} block 1 slower {pct(r['first']['ratio'])} "
                         f"[{pct(r['first']['ci'][0])}, {pct(r['first']['ci'][1])}], n {r['first']['n']}; "
                         + (f"block 2 {s['verdict']} {pct(s['ratio'])}, n {s['n']}" if s else "no block 2"))
else:
    slowed = [(g, r) for g, r in rows if bench(r) == "BenchmarkSlowed"]
    steady = [(g, r) for g, r in rows if bench(r) == "BenchmarkSteady"]
    out["confirmed"] = count(sum(1 for g, r in slowed if r["regression"]), n)
    out["first_slower"] = count(sum(1 for g, r in slowed if r["first"]["verdict"] == "slower"), n)
    out["steady_slower"] = count(sum(1 for g, r in steady if r["first"]["verdict"] == "slower"), n)
    out["steady_confirmed"] = sum(1 for g, r in steady if r["regression"])
    for g, r in slowed:
        if not r["regression"]:
            f, s = r["first"], r["second"]
            notes.append(f"gate {g['_i']}: Slowed not confirmed: block 1 {f['verdict']} {pct(f['ratio'])} "
                         f"[{pct(f['ci'][0])}, {pct(f['ci'][1])}], n {f['n']}, A/A {f['aa']['outcome']}, "
                         f"B/B {f['bb']['outcome']}; "
                         + (f"block 2 {s['verdict']} {pct(s['ratio'])} [{pct(s['ci'][0])}, {pct(s['ci'][1])}], "
                            f"n {s['n']}" if s else "no block 2"))
head = f"{n + len(failed)} gates ({len(failed)} failed): "
if mode == "P9":
    head += (f"{out['confirmed']['k']} with a confirmed regression; {out['row_slower']['k']} of "
             f"{out['row_slower']['n']} gating rows slower in block 1")
else:
    head += (f"Slowed confirmed in {out['confirmed']['k']}, block-1 slower in {out['first_slower']['k']}; "
             f"Steady block-1 slower in {out['steady_slower']['k']}, confirmed in {out['steady_confirmed']}")
out["notes"] = [head] + notes
print(json.dumps(out))
PY
}

# gates NAME HEAD: PERF_GATES gates --base A --head HEAD; per gate its exit status and wall time in
# $WORK/NAME/index.tsv and its gate.json as $WORK/NAME/<gate>.json.
gates() {
  local name=$1 head=$2 dir="$WORK/$1" i s e st
  mkdir -p "$dir"
  : >"$dir/index.tsv"
  for i in $(seq "$GATES"); do
    st=0
    s=$(date +%s.%N)
    (cd "$GATE_REPO" && XDG_CACHE_HOME="$WORK/gate-cache" "$NF" run -q gate.yaml --base "$A" --head "$head" \
      --results "$dir/results") >/dev/null 2>"$dir/$i.err" || st=$?
    e=$(date +%s.%N)
    if [[ $st == 0 || $st == 4 ]]; then
      cp "$dir/results/gate/latest/gate.json" "$dir/$i.json"
      cp "$dir/results/gate/latest/run.json" "$dir/$i.run.json"
    else
      note "$name" "gate $i: exit $st: $(grep -v '^ *$' "$dir/$i.err" | tail -1)"
    fi
    printf '%s\t%s\t%s\n' "$i" "$st" "$(awk -v s="$s" -v e="$e" 'BEGIN {printf "%.3f", e - s}')" >>"$dir/index.tsv"
  done
}

p9() {
  say "P9 gate false alarms: $GATES gates --base A --head C (a reworded comment)"
  gates P9 "$C"
  gate_figures P9 "$WORK/P9" >"$WORK/p9.json"
  local f="$WORK/p9.json" n
  n=$(json_get "$f" 'd["gates"]')
  [[ $n -gt 0 ]] || return 1
  emit_ci P9 "gate false alarms, confirmed" \
    "$n gates on a comment-only change (gate-repo.sh C vs A), the gate's defaults: gates with a confirmed regression (exit 4) / gates; target: the gate's own bound for 2 gating rows" \
    fraction "<=" "$(json_get "$f" 'd["bound"]')" \
    $(json_get "$f" '" ".join(str(d["confirmed"][k]) for k in ("p", "lo", "hi"))')
  emit_ci P9 "gate false 'slower', block 1" \
    "the same gates: gating rows (Slowed, Steady) whose block 1 said slower / all gating rows; α/2 over all its looks (§3.13)" \
    fraction "<=" 0.025 $(json_get "$f" '" ".join(str(d["row_slower"][k]) for k in ("p", "lo", "hi"))')
  mapfile -t walls < <(json_get "$f" '"\n".join(str(w) for w in d["walls"])')
  emit P9 "gate wall time, C vs A" "seconds per gate (cached builds; the first gate builds both sides), reported" \
    s "<=" - "${walls[@]}"
  while IFS= read -r line; do note P9 "$line"; done < <(json_get "$f" '"\n".join(d["notes"])')
}

p10() {
  say "P10 gate power: $GATES gates --base A --head E (BenchmarkSlowed x 1.05)"
  gates P10 "$E"
  gate_figures P10 "$WORK/P10" >"$WORK/p10.json"
  local f="$WORK/p10.json" n
  n=$(json_get "$f" 'd["gates"]')
  [[ $n -gt 0 ]] || return 1
  emit_ci P10 "gate power, 5%, confirmed" \
    "$n gates on BenchmarkSlowed x 1.05 (gate-repo.sh E vs A), the gate's defaults: gates where Slowed is a confirmed regression / gates" \
    fraction ">=" 0.80 $(json_get "$f" '" ".join(str(d["confirmed"][k]) for k in ("p", "lo", "hi"))')
  emit_ci P10 "gate power, 5%, block 1" "the same gates: Slowed called slower by block 1 / gates, reported" \
    fraction ">=" - $(json_get "$f" '" ".join(str(d["first_slower"][k]) for k in ("p", "lo", "hi"))')
  emit_ci P10 "gate false 'slower', unchanged row" \
    "the same gates: BenchmarkSteady (unchanged) called slower by block 1 / gates; α/2 over all its looks" \
    fraction "<=" 0.025 $(json_get "$f" '" ".join(str(d["steady_slower"][k]) for k in ("p", "lo", "hi"))')
  mapfile -t walls < <(json_get "$f" '"\n".join(str(w) for w in d["walls"])')
  emit P10 "gate wall time, E vs A" "seconds per gate (cached builds; confirmation included), reported" \
    s "<=" - "${walls[@]}"
  while IFS= read -r line; do note P10 "$line"; done < <(json_get "$f" '"\n".join(d["notes"])')
}

p11() {
  say "P11 gate wall time: cold-cache gate B vs A against the shell loop, $PAIRS pairs"
  local bs="$WORK/benchstat" flags=("-test.run=^\$" -test.bench=. -test.benchtime=10x -test.count=1)
  # The real benchstat, built offline from the shared oracle's sources (about 20 s, untimed).
  bash "$REPO/../shared/oracles/benchstat/build.sh" "$bs" >/dev/null 2>"$WORK/p11.benchstat.err" || bs=""
  [[ -n $bs ]] || note P11 "benchstat could not be built offline ($(tail -1 "$WORK/p11.benchstat.err")): the loop is timed without it"
  # The shell way: two checkouts, two test binaries, 10 alternations, benchstat.
  loop_once() {
    local d=$1 k
    mkdir -p "$d"
    git -C "$GATE_REPO" worktree add -q --detach "$d/old" "$A"
    git -C "$GATE_REPO" worktree add -q --detach "$d/new" "$B"
    (cd "$d/old" && CGO_ENABLED=0 go test -c -o "$d/old.test" .)
    (cd "$d/new" && CGO_ENABLED=0 go test -c -o "$d/new.test" .)
    for k in $(seq 10); do
      (cd "$d/old" && "$d/old.test" "${flags[@]}") >>"$d/old.txt"
      (cd "$d/new" && "$d/new.test" "${flags[@]}") >>"$d/new.txt"
    done
    if [[ -n $bs ]]; then "$bs" "$d/old.txt" "$d/new.txt" >"$d/benchstat.txt"; fi
  }
  # One untimed loop first: the Go build cache then holds A's and B's packages for both sides.
  loop_once "$WORK/p11/loop.warm" 2>"$WORK/p11.warm.err" || { cat "$WORK/p11.warm.err" >&2; return 1; }
  local ratios=() invocations=() i tg tl st
  for i in $(seq "$PAIRS"); do
    run_gate() {
      local s e
      st=0
      s=$(date +%s.%N)
      (cd "$GATE_REPO" && XDG_CACHE_HOME="$WORK/p11/cache.$i" "$NF" run -q gate.yaml --base "$A" --head "$B" \
        --results "$WORK/p11/results") >/dev/null 2>"$WORK/p11.gate.err" || st=$?
      e=$(date +%s.%N)
      tg=$(awk -v s="$s" -v e="$e" 'BEGIN {printf "%.6f", e - s}')
      [[ $st == 4 ]] || { cat "$WORK/p11.gate.err" >&2; note P11 "pair $i: the gate exited $st, not 4"; }
    }
    run_loop() { tl=$(timed "$WORK/p11.loop.err" loop_once "$WORK/p11/loop.$i"); }
    if ((i % 2)); then run_gate; run_loop; else run_loop; run_gate; fi
    [[ $st == 0 || $st == 4 ]] || return 1
    local run="$WORK/p11/results/gate/latest" count quads
    count=$(json_get "$run/run.json" 'sum(len(c["runs"]) for c in d["condition_records"])')
    quads=$(python3 - "$run/samples.jsonl" <<'PY'
import json, sys
inv = {}
for line in open(sys.argv[1]):
    s = json.loads(line)
    inv.setdefault(s["block"], set()).add((s["repeat"], s["variant"]))
print(", ".join(f"block {b} {len(v) // 4} quads" for b, v in sorted(inv.items())))
PY
)
    ratios+=("$(awk -v a="$tg" -v b="$tl" 'BEGIN {printf "%.4f", a / b}')")
    invocations+=("$(awk -v n="$count" 'BEGIN {printf "%.4f", n / 20}')")
    note P11 "pair $i: gate $(printf '%.2f' "$tg") s, exit $st ($count invocations: $quads); loop $(printf '%.2f' "$tl") s (20 invocations${bs:+ and benchstat})"
  done
  emit P11 "gate wall time, cold cache" \
    "gate B vs A (fresh build cache: checkouts, builds, block 1, confirmation, default 1 s settle) / the shell loop (2 worktrees, 2 go test -c, 10+10 runs, benchstat)" \
    ratio "<=" 1.5 "${ratios[@]}"
  emit P11 "gate invocations" "the gate's benchmark invocations / the loop's 20 (block 2 runs only the flagged benchmark), reported" \
    ratio "<=" - "${invocations[@]}"
}

p12() {
  say "P12 counter cost: nf-probe -- nf-noop with and without counters, hyperfine -N, $PAIRS pairs"
  local probe="$REPO/build/nf-probe" noop="$REPO/build/nf-noop" costs=() with without i
  run_with() {
    hyperfine -N --warmup 20 --runs 500 --export-json "$WORK/p12.with.json" "$probe --tag p12 -- $noop" >/dev/null 2>&1
    with=$(json_get "$WORK/p12.with.json" 'd["results"][0]["median"]')
  }
  run_without() {
    hyperfine -N --warmup 20 --runs 500 --export-json "$WORK/p12.without.json" \
      "$probe --no-counters --tag p12 -- $noop" >/dev/null 2>&1
    without=$(json_get "$WORK/p12.without.json" 'd["results"][0]["median"]')
  }
  for i in $(seq "$PAIRS"); do
    if ((i % 2)); then run_with; run_without; else run_without; run_with; fi
    costs+=("$(awk -v a="$with" -v b="$without" 'BEGIN {printf "%.9f", a - b}')")
    note P12 "pair $i: with counters $(awk -v a="$with" 'BEGIN {printf "%.1f", a * 1e6}') µs, without $(awk -v a="$without" 'BEGIN {printf "%.1f", a * 1e6}') µs (medians of 500 probe runs of the no-op)"
  done
  emit P12 "counter cost per invocation" "median wall of the probe starting the no-op, with counters less without" \
    us "<=" 0.000020 "${costs[@]}"
  # Inside the sample: the probe's own wall_ns of the no-op (execve to the exit's wake-up), which is
  # what a `command` sample is; the counters' opening and reading fall outside it.
  local inside=() a b
  probe_wall() {  # probe_wall [--no-counters]: median wall_ns of 300 runs, in seconds
    for _ in $(seq 300); do "$probe" "$@" --tag p12 -- "$noop" 2>&1 | sed -n 's/.*wall_ns=//p'; done |
      sort -n | awk '{v[NR] = $1} END {printf "%.9f", v[int((NR + 1) / 2)] / 1e9}'
  }
  for i in $(seq "$PAIRS"); do
    if ((i % 2)); then a=$(probe_wall); b=$(probe_wall --no-counters); else b=$(probe_wall --no-counters); a=$(probe_wall); fi
    inside+=("$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.9f", a - b}')")
    note P12 "pair $i: the no-op's sample with counters $(awk -v a="$a" 'BEGIN {printf "%.1f", a * 1e6}') µs, without $(awk -v a="$b" 'BEGIN {printf "%.1f", a * 1e6}') µs (medians of 300)"
  done
  emit P12 "counter cost inside a sample" "median of the probe's wall_ns of the no-op (execve to exit), with counters less without" \
    us "<=" 0.000020 "${inside[@]}"
}

p13() {
  local trials="${PERF_P13_TRIALS:-20}"
  say "P13 the gate against the seed's loop: $trials trials per change and room"
  python3 scripts/gate-vs-loop.py --trials "$trials" --nf "$NF" --out "$WORK/p13" >"$WORK/p13.log" 2>&1 ||
    { tail -5 "$WORK/p13.log" >&2; return 1; }
  local f="$WORK/p13/p13.json" cell
  while IFS=$'\t' read -r cell gate loop wall; do
    emit_ci P13 "gate: slower, $cell" "gates calling the head slower (exit 4) / trials; at least the loop's (next row) for a change, at most 5% for none" \
      fraction "$( [[ $cell == *none* ]] && echo '<=' || echo '>=')" "$( [[ $cell == *none* ]] && echo 0.05 || echo "${loop%% *}")" $gate
    emit_ci P13 "loop: slower, $cell" "the seed's loop + benchstat calling it slower / trials, reported" fraction "<=" - $loop
    emit P13 "gate/loop wall, $cell" "each trial's gate wall time over the loop's (builds cached), at most 1.5" ratio "<=" 1.5 $wall
  done < <(python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
walls = {}
for t in d["trials"]:
    walls.setdefault((t["room"], t["change"]), []).append(t["gate_wall"] / t["loop_wall"])
for s in d["summary"]:
    n = s["n"]
    frac = lambda k, lo, hi: f"{k / n} {lo} {hi}"
    cell = f"{s['room']} room, {'no change' if s['change'] == 'none' else '+' + s['change'] + '%'}"
    print("\t".join([cell, frac(*s["gate_slower"]), frac(*s["loop_slower"]),
                     " ".join(str(w) for w in walls[(s["room"], s["change"])])]))
PY
)
  note P13 "$(grep -c ' trial ' "$WORK/p13.log") trials; the loop's CPU times from bash's time (1 ms); the table: scripts/gate-vs-loop.py's output in $OUT/p13.md"
  sed -n '/^| room /,$p' "$WORK/p13.log" >"$OUT/p13.md"
}

p14() {
  local trials="${PERF_P14_TRIALS:-10}"
  say "P14 the simulated gate against the wall-clock gate, beside a busy loop per CPU: $trials trials"
  python3 scripts/simulated-gate.py --trials "$trials" --nf "$NF" --out "$WORK/p14" >"$WORK/p14.log" 2>&1 ||
    { tail -5 "$WORK/p14.log" >&2; return 1; }
  local f="$WORK/p14/p14.json" change metric frac walls
  while IFS=$'\t' read -r change metric frac walls; do
    local op target
    if [[ $metric == sim && $change == "+1%" ]]; then op=">="; target=1.0
    elif [[ $metric == sim ]]; then op="<="; target=0.0
    else op="<="; target=-; fi
    emit_ci P14 "gate $metric: worse, $change" \
      "gates calling the head worse (exit 4) / trials, beside a busy loop per CPU; simulated: all for +1%, none for a comment" \
      fraction "$op" "$target" $frac
    emit P14 "gate $metric wall, $change" "seconds per gate (builds cached after the first), reported" s "<=" - $walls
  done < <(json_get "$f" '"\n".join("\t".join([s["change"], s["metric"], " ".join(str(x / (s["n"] or 1) if i == 0 else x) for i, x in enumerate(s["worse"])), " ".join(str(w) for w in s["walls"])]) for s in d["summary"])')
  mapfile -t ratios < <(json_get "$f" '"\n".join(str(a["wall"] / b["wall"]) for a in d["gates"] for b in d["gates"] if a["metric"] == "sim" and b["metric"] == "wall" and a["trial"] == b["trial"] and a["change"] == b["change"])')
  emit P14 "simulated/wall gate wall time" "each trial's simulated gate over its wall-clock gate on the same change, reported" ratio "<=" - "${ratios[@]}"
  while IFS= read -r line; do note P14 "$line"; done < <(json_get "$f" '"\n".join(s["metric"] + " gate on " + s["change"] + ": " + ", ".join(str(k) + " " + w for w, k in sorted(s["verdicts"].items())) + "; estimates " + ", ".join(sorted(set(s["estimates"]))[:3]) + (", …" if len(set(s["estimates"])) > 3 else "") for s in d["summary"])')
}

p15() {
  say "P15 the store: publishes at 1, 8 and 64 publishers, the page at 10^2, 10^3 and 10^4 runs, SQLite and PostgreSQL"
  local runs="$REPO/tests/integration/store_runs.py" src="$WORK/p15-run" all="$WORK/p15-archives" db pg="" url key
  python3 "$runs" make "$REPO/tests/data/results/small" "$src" r-p15
  "$NF" report "$src" --format json >"$src/summary.json"
  # 10^4 runs of 300 machines, split into the three batches that bring the store to 10^2, 10^3, 10^4.
  python3 "$runs" variants "$src" "$all" 10000 300
  mkdir -p "$all/b1" "$all/b2" "$all/b3"
  local archives=("$all"/*.tgz)
  mv -t "$all/b1" "${archives[@]:0:100}"
  mv -t "$all/b2" "${archives[@]:100:900}"
  mv -t "$all/b3" "${archives[@]:1000}"
  local dbs=("sqlite:$WORK/p15.db")
  if [[ -x /usr/lib/postgresql/15/bin/initdb ]]; then
    pg=$(mktemp -d /tmp/nf-p15-pg.XXXXXX)
    dbs+=("$(bash scripts/postgres.sh start "$pg")")
  else
    note P15 "PostgreSQL 15 is not installed: SQLite only"
  fi
  for db in "${dbs[@]}"; do
    local name=sqlite
    [[ $db == postgresql* ]] && name=postgresql
    key=$("$NF" keys create --db "$db" 2>/dev/null)
    "$NF" serve --db "$db" --listen 127.0.0.1:0 --rate-limit 0 2>"$WORK/p15-serve.log" &
    local server=$!
    for _ in $(seq 100); do grep -q 'http://127.0.0.1:' "$WORK/p15-serve.log" && break; sleep 0.1; done
    url=$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/p15-serve.log" | head -1)
    local batch publishers per stored
    for batch in "b1 1 100 100" "b2 8 900 1000" "b3 64 9000 10000"; do
      read -r batch publishers per stored <<<"$batch"
      python3 "$runs" load "$url" "$key" "$all/$batch" "$publishers" $((per / publishers)) 1 >"$WORK/p15-load.json"
      local rate p50 p99 errors
      rate=$(json_get "$WORK/p15-load.json" 'len(d["latencies_ms"]) / d["seconds"]')
      p50=$(json_get "$WORK/p15-load.json" 'sorted(d["latencies_ms"])[len(d["latencies_ms"]) // 2] / 1000')
      p99=$(json_get "$WORK/p15-load.json" 'sorted(d["latencies_ms"])[int(len(d["latencies_ms"]) * 0.99)] / 1000')
      errors=$(json_get "$WORK/p15-load.json" 'len(d["errors"])')
      note P15 "$name, $publishers publisher(s): $(printf '%.0f' "$rate") publishes/s over $((per / publishers * publishers)) runs, $errors errors"
      if [[ $publishers == 64 ]]; then
        # The slowest 1% of each third of the publishes (in the order they finished): the median
        # of three, with the least and the most, as the room moved during the batch.
        local thirds
        thirds=$(json_get "$WORK/p15-load.json" '" ".join(str(sorted(t)[int(len(t) * 0.99)] / 1000) for l in [d["latencies_ms"]] for t in (l[k * len(l) // 3:(k + 1) * len(l) // 3] for k in range(3)))')
        # shellcheck disable=SC2086 # three figures
        emit P15 "publish p99, 64 publishers, $name" "the slowest 1% of each third of $((per / publishers * 64)) publishes (a Python client on the same 2 CPUs)" s "<=" 0.2 $thirds
      else
        emit P15 "publish p99, $publishers publisher(s), $name" "reported" s "<=" - "$p99"
      fi
      emit P15 "publish p50, $publishers publisher(s), $name" "reported" s "<=" - "$p50"
      local page=() i
      for i in 1 2 3 4 5; do page+=("$(curl -s -o /dev/null -w '%{time_total}' "$url/e/small")"); done
      if [[ $stored == 10000 ]]; then
        emit P15 "page at 10^4 runs, $name" "the experiment's page (300 machines), time to the last byte, 5 loads" s "<=" 0.5 "${page[@]}"
      else
        emit P15 "page at $stored runs, $name" "the experiment's page, time to the last byte, 5 loads" s "<=" - "${page[@]}"
      fi
    done
    kill -INT "$server"
    wait "$server" || true
  done
  if [[ -n $pg ]]; then bash scripts/postgres.sh stop "$pg" >/dev/null; rm -rf "$pg"; fi
}

for p in P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11 P12 P13 P14 P15; do
  wanted "$p" || continue
  fn=${p,,}
  if ! ("$fn"); then note "$p" "FAILED: see the messages above"; fi
done

python3 - "$FIG" "$OUT" "$PAIRS" <<'PY'
import json, os, statistics, subprocess, sys
fig, out, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows, notes = [], []
for line in open(fig):
    r = json.loads(line)
    (notes if "note" in r else rows).append(r)
def fmt(kind, v):
    if kind == "fraction":
        return f"{100 * v:.3f}%"
    if kind == "ratio":
        return f"{v:.3f}×"
    if kind == "MB":
        return f"{v:.0f} MB"
    if kind == "us":
        return f"{v * 1e6:.1f} µs"
    return f"{v:.2f} s"
doc = {"pairs": pairs, "rows": [], "notes": notes}
md = ["| # | what | how | median (min–max) | target | met |", "|---|---|---|---|---|---|"]
for r in rows:
    v = r["values"]
    med = statistics.median(v) if v else float("nan")
    target = r["target"]
    met = None if target is None or not v else (med <= target if r["op"] == "<=" else med >= target)
    doc["rows"].append({**r, "median": med, "min": min(v) if v else None, "max": max(v) if v else None, "met": met})
    tgt = "reported" if target is None else f"{r['op']} {fmt(r['kind'], target)}"
    cell = f"{fmt(r['kind'], med)} ({fmt(r['kind'], min(v))}–{fmt(r['kind'], max(v))})" if v else "—"
    if v and "ci" in r:
        cell = f"{fmt(r['kind'], med)} (95% CI {fmt(r['kind'], r['ci'][0])}–{fmt(r['kind'], r['ci'][1])})"
    md.append(f"| {r['id']} | {r['what']} | {r['how']} | {cell} | {tgt} | "
              f"{'—' if met is None else ('yes' if met else '**no**')} |")
head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
text = (f"# make perf ({pairs} alternating pairs or runs per figure; noisefloor {head}, {os.cpu_count()} CPUs)\n\n"
        + "\n".join(md) + "\n\n" + "\n".join(f"- {n['id']}: {n['note']}" for n in notes) + "\n")
open(f"{out}/perf.md", "w").write(text)
json.dump(doc, open(f"{out}/perf.json", "w"), indent=2)
print(text)
print(f"written: {out}/perf.md, {out}/perf.json")
PY
