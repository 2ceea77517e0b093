#!/usr/bin/env bash
# A hostile engine (issue 24): a proxy in front of the real engine that doctors what it sends back,
# as a compromised benchmark machine could (tests/integration/doctored_engine.py).
#  - The facts a short container reads on a remote machine gain a path that climbs out of /proc:
#    nothing is written outside noisefloor's private temporary tree; the run stops with one line.
#  - The proxy is plain TCP: noisefloor says what that means, every time.
#  - An answer that never ends (issue 42, item 2): one line past the cap, and the memory it took
#    bounded by the cap (it grew to 4 GB in 30 s before).
#  - An answer of the wrong types reads as absent (issue 42, item 6), never as "internal error".
#  - An engine that accepts a cpuset and applies none: the run stops with what was asked, what the
#    engine says and what the container saw (exit 1, the run recorded as failed, nothing left);
#    the same experiment through the same proxy, undoctored, runs and measures its sleep.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
SOCK="${DOCKER_HOST:-unix:///var/run/docker.sock}"; SOCK="${SOCK#unix://}"
if ! curl -sf --unix-socket "$SOCK" http://localhost/_ping >/dev/null; then
  [[ "${CI:-}" == true ]] && fail "no Docker engine answers at $SOCK (CI=true: this is a failure)"
  echo "hostile e2e skipped: no engine at $SOCK"; exit 77
fi
proxy=""
trap '[[ -n "$proxy" ]] && kill "$proxy" 2>/dev/null; cleanup_work' EXIT

target="$WORK/escaped-$$"
python3 "$REPO/tests/integration/doctored_engine.py" "$SOCK" port facts-escape "$target" 2>proxy.err &
proxy=$!
for _ in $(seq 100); do [[ -s port ]] && break; sleep 0.05; done
[[ -s port ]] || fail "the doctored engine did not start"
host="tcp://127.0.0.1:$(cat port)"

set +e
env -u DOCKER_TLS -u DOCKER_TLS_VERIFY -u DOCKER_CERT_PATH "$NF" doctor --host "$host" >doctor.out 2>doctor.err
code=$?
set -e
cat proxy.err
grep -q "doctored_engine: appended" proxy.err || fail "the proxy doctored nothing (no facts container's logs went through it)"
[[ ! -e "$target" ]] || fail "a doctored facts line wrote $target outside noisefloor's temporary tree"
[[ $code -eq 1 ]] || { cat doctor.err >&2; fail "doctor --host of a doctored engine: exit $code, expected 1"; }
contains doctor.err "the fingerprint probe's output is malformed at byte "
contains doctor.err "a path with an empty, '.' or '..' component: \"/proc/../../..$target\""
# Plain TCP is said, with what it means.
contains doctor.err "warning: $host: plain TCP, no TLS: anyone who can reach that port runs containers as root on that machine"
# Nothing of the facts container is left on the engine.
left=$(curl -s --unix-socket "$SOCK" -G http://localhost/containers/json --data-urlencode all=1 \
  --data-urlencode 'filters={"label":["noisefloor.role=facts"]}' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[[ $left -eq 0 ]] || fail "$left facts container(s) left on the engine"
kill "$proxy" 2>/dev/null; wait "$proxy" 2>/dev/null || true

rm -f port
python3 "$REPO/tests/integration/doctored_engine.py" "$SOCK" port endless /version 2>proxy2.err &
proxy=$!
for _ in $(seq 100); do [[ -s port ]] && break; sleep 0.05; done
[[ -s port ]] || fail "the endless engine did not start"
set +e
DOCKER_HOST="tcp://127.0.0.1:$(cat port)" /usr/bin/time -f "%M" -o rss.txt timeout 120 "$NF" fingerprint >fp.out 2>fp.err
code=$?
set -e
grep -q "doctored_engine: endless answer" proxy2.err || fail "the endless engine answered nothing"
# The fingerprint records the engine as absent, with why, and goes on.
[[ $code -eq 0 ]] || { cat fp.err >&2; fail "fingerprint against an endless answer: exit $code, expected 0"; }
contains fp.out "no engine: docker: GET /v1.41/version: the answer passed 32 MiB, the most an engine's answer may be: is tcp://127.0.0.1:$(cat port) a Docker engine?"
# The answer is held up to its cap (32 MiB, doubled while it grows), never more.
rss=$(tail -1 rss.txt)
(( rss < 160 * 1024 )) || fail "fingerprint against an endless answer peaked at ${rss} KB"
kill "$proxy" 2>/dev/null; wait "$proxy" 2>/dev/null || true

# Plain TCP named by DOCKER_HOST (issue 42, item 7): said by doctor and fingerprint as by --host,
# and recorded with the engine's facts.
rm -f port
python3 "$REPO/tests/integration/doctored_engine.py" "$SOCK" port forward 2>proxy3.err &
proxy=$!
for _ in $(seq 100); do [[ -s port ]] && break; sleep 0.05; done
[[ -s port ]] || fail "the forwarding engine did not start"
host="tcp://127.0.0.1:$(cat port)"
warning="warning: $host: plain TCP, no TLS: anyone who can reach that port runs containers as root on that machine"
for command in "doctor --noise-profile 0s" fingerprint; do
  # shellcheck disable=SC2086
  DOCKER_HOST="$host" "$NF" $command >cmd.out 2>cmd.err || true
  contains cmd.err "$warning"
done
# Recorded in the engine's facts, the record a run's fingerprint.json holds.
DOCKER_HOST="$host" "$NF" fingerprint --json >fp.json 2>/dev/null || true
python3 - fp.json "$host" <<'PY' || fail "the transport's warning is not in the engine's facts"
import json, sys
engine = json.load(open(sys.argv[1]))["engine"]
assert engine["transport_warning"].startswith(sys.argv[2] + ": plain TCP, no TLS"), engine.get("transport_warning")
PY
# The same engine named by a context, as the docker CLI picks one (DOCKER_CONTEXT, then `docker
# context use`): that engine, and the warning (the adversarial re-test of issue 42 found both
# ignored: the local socket was used without a word).
export DOCKER_CONFIG="$WORK/docker-config"
docker context create tcpbox --docker "host=$host" >/dev/null
for how in DOCKER_CONTEXT=tcpbox use; do
  if [[ $how == use ]]; then docker context use tcpbox >/dev/null 2>&1; how=""; fi
  env -u DOCKER_HOST $how "$NF" fingerprint --json >ctx.json 2>ctx.err || true
  contains ctx.err "$warning"
  python3 - ctx.json "$host" <<'PY' || fail "the context's engine (${how:-docker context use})"
import json, sys
engine = json.load(open(sys.argv[1]))["engine"]
assert engine["endpoint"] == sys.argv[2], engine.get("endpoint")
PY
done
unset DOCKER_CONFIG
kill "$proxy" 2>/dev/null; wait "$proxy" 2>/dev/null || true

# An inspect answer of the wrong types (issue 42, item 6): OOMKilled "yes", Tty "true", a Pid of
# 1e30. Read as absent, the doctor's facts container runs as through an honest engine; before, the
# command ended with "internal error: [json.exception.type_error.302] ...".
rm -f port
python3 "$REPO/tests/integration/doctored_engine.py" "$SOCK" port lying-inspect 2>proxy4.err &
proxy=$!
for _ in $(seq 100); do [[ -s port ]] && break; sleep 0.05; done
[[ -s port ]] || fail "the lying engine did not start"
code=0
"$NF" doctor --host "tcp://127.0.0.1:$(cat port)" --noise-profile 0s >lie.out 2>lie.err || code=$?
grep -q "doctored_engine: lied in" proxy4.err || fail "the lying engine doctored no inspect answer"
if grep -q "internal error" lie.err || (( code > 1 )); then cat lie.err >&2; fail "doctor through a lying inspect: exit $code"; fi
contains lie.out "engine:  Docker"
contains lie.out "lease:"
kill "$proxy" 2>/dev/null; wait "$proxy" 2>/dev/null || true

cat >pinned.yaml <<YAML
name: pinned
benchmark: {command: [/bin/sleep, "0.2"], format: command, samples: 2}
conditions: [{name: pinned, container: {image: auto, cpuset: "1"}}]
noise_profile: 0s
YAML
for mode in forward drop-cpuset; do
  rm -f port
  python3 "$REPO/tests/integration/doctored_engine.py" "$SOCK" port "$mode" 2>"proxy-$mode.err" &
  proxy=$!
  for _ in $(seq 100); do [[ -s port ]] && break; sleep 0.05; done
  [[ -s port ]] || fail "the $mode engine did not start"
  set +e
  DOCKER_HOST="tcp://127.0.0.1:$(cat port)" timeout 300 "$NF" run pinned.yaml --results "$WORK/pinned-$mode" \
    >"$mode.out" 2>"$mode.err"
  code=$?
  set -e
  kill "$proxy" 2>/dev/null; wait "$proxy" 2>/dev/null || true
  dirs=("$WORK/pinned-$mode"/pinned/2*/)
  [[ ${#dirs[@]} -eq 1 && -d ${dirs[0]} ]] || { cat "$mode.err" >&2; fail "the $mode run (exit $code) left no one run directory"; }
  run=${dirs[0]}
  left=$(curl -s --unix-socket "$SOCK" -G http://localhost/containers/json --data-urlencode all=1 \
    --data-urlencode 'filters={"label":["noisefloor.run"]}')
  [[ "$left" == "[]" ]] || fail "containers left after the $mode run: $left"
  if [[ $mode == forward ]]; then
    [[ $code -eq 0 ]] || { cat "$mode.err" >&2; fail "a pinned run through the undoctored proxy: exit $code"; }
    python3 - "$run/summary.json" <<'PY' || fail "the pinned run through the proxy did not measure its sleep"
import json, sys
values = [v for r in json.load(open(sys.argv[1]))["table"]["rows"] for v in r["values"]]
print(f"sleep 0.2 pinned, through the undoctored proxy: {values}")
# No sample is shorter than the sleep, nor holds the container's lifecycle (seconds here).
assert len(values) == 2 and 0.2 <= min(values) < 1.0, values
PY
    continue
  fi
  grep -q "doctored_engine: dropped the cpuset" "proxy-$mode.err" || fail "the proxy dropped no cpuset"
  [[ $code -eq 1 ]] || { cat "$mode.err" >&2; fail "a run whose cpuset the engine dropped: exit $code, want 1"; }
  # Without a cpuset of its own, a container has its parent's: every online CPU here.
  contains "$mode.err" "condition 'pinned': the container's limits did not take effect: cpuset: asked for \"1\", the engine reports no cpuset, and inside the container cpuset.cpus is \"$(cat /sys/devices/system/cpu/online)\""
  python3 - "$run/run.json" <<'PY' || fail "run.json of the run whose cpuset was dropped"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["status"] == "failed" and "did not take effect" in run["error"], (run["status"], run.get("error"))
PY
done
proxy=""
echo "e2e hostile: ok"
