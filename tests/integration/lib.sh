# Shared helpers for the end-to-end tests: each test gets its own temporary directory, the real
# noisefloor binary ($NF), the demo benchmark built once into $WORK, and checks that fail loudly.
set -euo pipefail
NF="$(realpath "${NF:?set NF to the noisefloor binary}")"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="$(mktemp -d /tmp/nf-e2e.XXXXXX)"
export GOCACHE="${GOCACHE:-/tmp/noisefloor-gocache}"
export HOME="${HOME:-/root}"
cleanup_work() { [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"; }
trap cleanup_work EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
check() { local what="$1"; shift; "$@" || fail "$what"; }
contains() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 does not contain: $2"; }; }

# write_experiment FILE NAME SAMPLES BENCHTIME CONDITIONS_YAML [EXTRA_BENCHMARK_YAML]
# noise_profile: 0s unless EXTRA sets one: the room's noise profile (1 s before a run's first
# condition by default) is not what the tests that write their experiments so check. It is checked
# where it is measured (e2e_counters, e2e_docker's trust.yaml), shown (e2e_newcomer, e2e_readme,
# e2e_matrix) and interrupted (soak), which keep the default.
write_experiment() {
  cat >"$1" <<YAML
name: $2
benchmark:
  workdir: $REPO/experiments/makebuffer
  build: [go, test, -c, -o, $WORK/makebuffer.test, .]
  command: [$WORK/makebuffer.test, "-test.run=^\$", "-test.bench=^BenchmarkMakeBuffer_Correct\$", -test.benchmem, -test.benchtime=$4]
  env: {CGO_ENABLED: "0"}
  samples: $3
  timeout: 2m
${6:-}
conditions:
$5
$([[ "${6:-}" == *noise_profile:* ]] || echo "noise_profile: 0s")
YAML
}

# expect_exit CODE NAME -- COMMAND...: runs COMMAND, stdout in NAME.out and stderr in NAME.err, and
# checks its exit code.
expect_exit() {
  local want="$1" name="$2"
  shift 3
  set +e
  "$@" >"$name.out" 2>"$name.err"
  local got=$?
  set -e
  [[ $got -eq $want ]] || { cat "$name.out" "$name.err" >&2; fail "$name: exit $got, expected $want"; }
}
# same_text FILE TEXT: FILE holds exactly TEXT (one line, or several).
same_text() {
  [[ "$(cat "$1")" == "$2" ]] || { printf -- '--- %s:\n%s\n--- expected:\n%s\n' "$1" "$(cat "$1")" "$2" >&2; fail "$1"; }
}

# Spinners of one noisefloor process: `noisefloor __spin <its pid>`.
spinners_of() { pgrep -f -- "__spin $1\$" || true; }

# Waits (bounded) until FILE has at least N lines.
wait_lines() {
  local file="$1" n="$2" tries=0
  while (( $(wc -l <"$file" 2>/dev/null || echo 0) < n )); do
    (( tries++ < 600 )) || fail "timed out waiting for $n lines in $file"
    sleep 0.1
  done
}

# cpu_share CPU: the share of CPU CPU that a busy process gets now (nf-burn's 0.2 s of CPU time
# over its wall time): 1 in a quiet room, about 1/(k+1) beside k other busy tasks there. Tests that
# judge a share by a fair split scale it by this, measured next to what they check. Needs $BURN.
# outside_cpu FILE COMMAND...: runs COMMAND (its exit code is this one's) and writes to FILE how
# busy the rest of the machine was meanwhile: the CPU seconds /proc/stat counts as busy on all CPUs,
# less the CPU time of COMMAND and every descendant it waited for, over COMMAND's wall seconds
# (0.0: nothing else ran; 1.0: one CPU's worth of other work). A measure of the room taken during a
# run, independent of what noisefloor says of it.
outside_cpu() {
  python3 - "$@" <<'PY'
import os, subprocess, sys, time
out, argv = sys.argv[1], sys.argv[2:]
def busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
b0, t0 = busy(), time.monotonic()
p = subprocess.Popen(argv)
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t0
other = max(0.0, busy() - b0 - (ru.ru_utime + ru.ru_stime))
open(out, "w").write(f"{other / max(wall, 1e-3):.3f}\n")
sys.exit(os.waitstatus_to_exitcode(status))
PY
}

# cpu_timeline FILE COMMAND...: runs COMMAND (its exit code is this one's) and writes to FILE what
# /proc/stat says of each CPU every 10 ms meanwhile, a JSON line per read: {"t": wall-clock seconds,
# "busy": [busy seconds of CPU 0, 1, ...]} (all but idle and iowait). A record of the room taken
# during a run, independent of noisefloor; room_witness.py reads it against the run's labels.
cpu_timeline() {
  python3 - "$@" <<'PY'
import json, os, subprocess, sys, time
out, argv = sys.argv[1], sys.argv[2:]
tick = os.sysconf("SC_CLK_TCK")
def read(f):
    f.seek(0)
    busy = []
    for line in f.read().splitlines()[1:]:
        if not (line.startswith("cpu") and line[3].isdigit()):
            break
        v = [int(x) for x in line.split()[1:]]
        busy.append((sum(v[:8]) - v[3] - v[4]) / tick)
    return {"t": time.time(), "busy": busy}
with open("/proc/stat") as stat, open(out, "w") as log:
    p = subprocess.Popen(argv)
    log.write(json.dumps(read(stat)) + "\n")
    while p.poll() is None:
        time.sleep(0.01)
        log.write(json.dumps(read(stat)) + "\n")
    log.write(json.dumps(read(stat)) + "\n")
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
PY
}

cpu_share() {
  python3 - "$1" "${BURN:?set BURN to the nf-burn test program}" <<'PY'
import subprocess, sys, time
start = time.monotonic()
subprocess.run(["taskset", "-c", sys.argv[1], sys.argv[2], "0.2"], check=True)
print(f"{min(1.0, 0.2 / (time.monotonic() - start)):.3f}")
PY
}

# gate_status NAME: the exit status the gate's own gate.json calls for (4: a regression confirmed);
# a known slowdown measured in a contended room may stay inconclusive (exit 0): known_ratio.called
# then checks that the row says so and that its interval covers the truth.
gate_status() { python3 -c 'import json, sys; print(4 if json.load(open(sys.argv[1]))["regression"] else 0)' "$WORK/results/$1/latest/gate.json"; }

# no_alarm STATUS GATE_JSON: a gate on a change known to be none ended well: exit 0, or 4 with every
# regression within the floors the gate measured (known_ratio.false_alarms_within_floors).
no_alarm() {
  [ "$1" = 0 ] && return 0
  [ "$1" = 4 ] && python3 "$REPO/tests/integration/known_ratio.py" "$2"
}
