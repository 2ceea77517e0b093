#!/usr/bin/env bash
# The store (README: Crowd replays) end to end, on SQLite and on a real PostgreSQL this test starts
# (scripts/postgres.sh: a cluster in $WORK, a unix socket only): keys, publish, the API, the page in
# headless Chromium, every hostile upload the issue names, a server killed mid-upload, and 64
# concurrent publishers. Runs are made from the committed `small` result (tests/data/results/small)
# by tests/integration/store_runs.py, and their summary.json by `noisefloor report --format json`,
# as noisefloor writes it. Known truths: the page's CV of one machine is what `noisefloor cv` says
# of its run; a planted +10% step in a machine's series is drawn where it was planted.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [[ -z "$CHROMIUM" && "${CI:-}" == true ]]; then fail "chromium is not installed (scripts/bootstrap.sh installs it)"; fi
RUNS="$REPO/tests/integration/store_runs.py"
SRC="$REPO/tests/data/results/small"
[[ -x "$(dirname "$NF")/noisefloor-server" ]] || fail "noisefloor-server is not built beside $NF"

make_run() {  # DIR RUN_ID [store_runs.py make options]
  python3 "$RUNS" make "$SRC" "$1" "$2" "${@:3}"
  "$NF" report "$1" --format json >"$1/summary.json"
}

server_pid=""
PG=""  # the PostgreSQL cluster's directory: outside $WORK, which its owner (postgres) cannot enter
start_server() {  # DB [serve options]
  : >server.log
  "$NF" serve --db "$1" --listen 127.0.0.1:0 "${@:2}" 2>server.log &
  server_pid=$!
  for _ in $(seq 200); do grep -q 'http://127.0.0.1:' server.log && break; sleep 0.05; done
  URL=$(grep -o 'http://127.0.0.1:[0-9]*' server.log | head -1)
  [[ -n "$URL" ]] || { cat server.log >&2; fail "serve did not say where it listens"; }
}
stop_server() {
  kill -INT "$server_pid"
  set +e
  wait "$server_pid"
  local rc=$?
  set -e
  server_pid=""
  [[ $rc -eq 130 ]] || { cat server.log >&2; fail "serve ended $rc after SIGINT, expected 130"; }
}
cleanup_store() {
  if [[ -n "$server_pid" ]]; then kill -9 "$server_pid" 2>/dev/null || true; fi
  if [[ -n "$PG" ]]; then bash "$REPO/scripts/postgres.sh" stop "$PG" >/dev/null 2>&1; rm -rf "$PG"; fi
  cleanup_work
}
trap cleanup_store EXIT

# POST an archive file with a key: prints the HTTP status, the answer in post.json.
post() { curl -s -o post.json -w '%{http_code}' -H "Authorization: Bearer $2" -H 'Content-Type: application/gzip' --data-binary "@$1" "$URL/api/v1/runs"; }
run_count() { curl -sf "$URL/api/v1/runs?limit=10000" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))'; }
expect_refused() {  # WHAT STATUS ARCHIVE KEY MESSAGE
  local before status
  before=$(run_count)
  status=$(post "$3" "$4")
  [[ "$status" == "$2" ]] || { cat post.json >&2; fail "$1: HTTP $status, expected $2"; }
  contains post.json "$5"
  [[ $(run_count) -eq $before ]] || fail "$1: something was stored"
}

# --- the runs: machine 1 (the fixture's CPU) and machine 2 (another CPU), a series with a step ---
make_run m1 r-m1
make_run m2 r-m2 --cpu "AMD EPYC 7763 64-Core Processor" --factor 1.02
"$NF" report m1 >/dev/null  # report.html, served under /raw/ only
python3 - m1/samples.jsonl <<'PY' >expected_cv.txt
import json, statistics, sys
# The known truth of the page's mark for machine 1: the CV of its one run, idle / Correct, ns/op.
v = [json.loads(l) for l in open(sys.argv[1])]
v = [s["metrics"][0]["value"] for s in v if s["condition"] == "idle" and s["name"] == "BenchmarkMakeBuffer_Correct-2" and not s["warmup"]]
print(f"{100 * statistics.stdev(v) / statistics.mean(v):.2f}%")
PY
for i in $(seq 1 24); do
  factor=1.0
  ((i >= 13)) && factor=1.1
  make_run "s$i" "$(printf 'r-step-%02d' "$i")" --cpu "Step CPU" --factor "$factor" \
    --started "$(printf '2026-12-%02dT10:00:00.000Z' "$i")"
done
# 1600 runs for the concurrent publishers (each another run id of one run).
make_run load r-load
python3 "$RUNS" variants load load-archives 1600
make_run markup r-markup --experiment "x'); DROP TABLE runs;--" --condition 'idle=<b>idle'

# --- the hostile archives ---
mkdir hostile && cd hostile
make_run ../tampered r-tampered
sed -i '0,/"mean": [0-9.]*/s//"mean": 1.5/' ../tampered/summary.json
python3 "$RUNS" pack ../tampered tampered.tgz
make_run ../nan r-nan
sed -i '0,/"value":[ ]*[0-9.]*/s//"value": NaN/' ../nan/samples.jsonl
python3 "$RUNS" pack ../nan nan.tgz
make_run ../inf r-inf
sed -i '0,/"value":[ ]*[0-9.]*/s//"value": 1e999/' ../inf/samples.jsonl
python3 "$RUNS" pack ../inf inf.tgz
make_run ../long r-long
python3 - ../long/samples.jsonl <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
lines[0]["name"] = lines[0]["benchmark"] = "Benchmark" + "x" * (1 << 20)
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
PY
python3 "$RUNS" pack ../long long.tgz
python3 "$RUNS" pack ../m1 dotdot.tgz --member "../escape=$SRC/run.json"
python3 "$RUNS" pack ../m1 link.tgz --link "passwd=/etc/passwd"
python3 "$RUNS" bomb bomb.tgz 300
make_run ../wild r-wild
python3 - ../wild/samples.jsonl <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
k = 0
for l in lines:  # idle's values swing about a mean of almost 0: a finite CV of ~1e308 %
    if l["condition"] == "idle" and l["name"] == "BenchmarkMakeBuffer_Correct-2" and not l["warmup"]:
        l["metrics"][0]["value"] = [1e6, -1e6][k % 2] if k < 6 else [2.64e-300, 0][k % 2]
        k += 1
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
PY
"$NF" report ../wild --format json >../wild/summary.json
python3 "$RUNS" pack ../wild wild.tgz
make_run ../slash r-slash --experiment "a/b"
python3 "$RUNS" pack ../slash slash.tgz
head -c $((33 << 20)) /dev/urandom >huge.tgz
cd "$WORK"

# --- on each database ---
dbs=("sqlite:$WORK/store.db")
if [[ -x /usr/lib/postgresql/15/bin/initdb ]]; then
  PG=$(mktemp -d /tmp/nf-pg.XXXXXX)
  dbs+=("$(bash "$REPO/scripts/postgres.sh" start "$PG")")
elif [[ "${CI:-}" == true ]]; then
  fail "PostgreSQL 15 is not installed (scripts/bootstrap.sh test installs it)"
else
  echo "note: PostgreSQL 15 is not installed: the store is tested on SQLite only"
fi

for db in "${dbs[@]}"; do
  echo "== $db"
  key=$("$NF" keys create --db "$db" --scope publish 2>/dev/null)
  talk=$("$NF" keys create --db "$db" --scope publish:experiment=other 2>/dev/null)
  gone=$("$NF" keys create --db "$db" --scope publish --expires 1 2>/dev/null)
  old=$("$NF" keys create --db "$db" --scope publish --expires 1 2>/dev/null)
  "$NF" keys revoke --db "$db" "${gone:3:8}" 2>revoke.err
  contains revoke.err "revoked"
  "$NF" keys list --db "$db" >keys.txt
  [[ $(wc -l <keys.txt) -eq 4 ]] || fail "keys list: expected 4 keys"
  grep -q "${gone:3:8}.*revoked" keys.txt || fail "keys list does not say the key is revoked"
  ! grep -q "${key:12}" keys.txt || fail "keys list shows a key's secret"
  # A key past its date: the store's own column moved back (there is no waiting a day).
  if [[ "$db" == sqlite:* ]]; then
    python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE api_keys SET expires_utc=? WHERE id=?", ("2020-01-01T00:00:00.000Z", sys.argv[2])); c.commit()' "${db#sqlite:}" "${old:3:8}"
  else
    (cd / && runuser -u postgres -- /usr/lib/postgresql/15/bin/psql -h "$PG" -U postgres -d noisefloor -qc \
      "UPDATE api_keys SET expires_utc='2020-01-01T00:00:00.000Z' WHERE id='${old:3:8}'")
  fi

  # the limit has its own check at the end; a silent client is let go after 2 s, not the default 10
  start_server "$db" --rate-limit 0 --idle-timeout 2s
  contains server.log "a silent client is let go after 2 s)"
  # Publish, twice: one run.
  NOISEFLOOR_KEY="$key" "$NF" publish m1 --to "$URL" >pub1.txt
  contains pub1.txt "published"
  id=$(grep -o ' as [0-9a-f]*' pub1.txt | cut -c5-)
  NOISEFLOOR_KEY="$key" "$NF" publish m1 --to "$URL" >pub2.txt
  contains pub2.txt "already published small run r-m1 as $id: $URL/e/small"
  echo "$key" >key.txt
  "$NF" publish m2 --to "$URL" --key-file key.txt >/dev/null
  [[ $(run_count) -eq 2 ]] || fail "two runs expected after publishing m1 twice and m2"
  full=$(curl -sf "$URL/api/v1/runs?experiment=small" | python3 -c 'import json,sys; print(" ".join(r["id"] for r in json.load(sys.stdin)["runs"]))')
  for rid in $full; do
    curl -sf "$URL/api/v1/runs/$rid/samples.jsonl" >export.jsonl
    cmp -s export.jsonl m1/samples.jsonl || cmp -s export.jsonl m2/samples.jsonl || fail "samples.jsonl export differs"
  done
  m1_id=$(for rid in $full; do curl -sf "$URL/api/v1/runs/$rid/samples.jsonl" | cmp -s - m1/samples.jsonl && echo "$rid"; done)
  curl -s -D raw.headers -o raw.html "$URL/raw/$m1_id/report.html"
  grep -qi '^content-security-policy: sandbox' raw.headers || fail "report.html is served without a sandbox"
  cmp -s raw.html m1/report.html || fail "the raw report differs from the run's"

  # Refused, and nothing stored.
  expect_refused "no key" 401 m1/run.json "" "no key"
  expect_refused "wrong key" 401 hostile/tampered.tgz "nf_00000000_$(printf '0%.0s' $(seq 64))" "unknown key"
  expect_refused "revoked key" 403 hostile/tampered.tgz "$gone" "revoked"
  expect_refused "expired key" 403 hostile/tampered.tgz "$old" "expired"
  python3 "$RUNS" pack m1 m1.tgz
  expect_refused "a key for another experiment" 403 m1.tgz "$talk" "may publish other only"
  expect_refused "tampered summary" 422 hostile/tampered.tgz "$key" "summary.json is not what its samples give"
  expect_refused "NaN" 422 hostile/nan.tgz "$key" "does not load"
  expect_refused "infinity" 422 hostile/inf.tgz "$key" "not"
  expect_refused "a megabyte name" 422 hostile/long.tgz "$key" "longer than 200 bytes"
  expect_refused "a path with .." 422 hostile/dotdot.tgz "$key" "'..'"
  expect_refused "a link" 422 hostile/link.tgz "$key" "symbolic link"
  expect_refused "a compression bomb" 413 hostile/bomb.tgz "$key" "expands past"
  expect_refused "over the size cap" 413 hostile/huge.tgz "$key" "the most this server takes"
  # What the HTTP library would do on its own, refused before any body is read: ranges (it builds
  # every range of an answer in memory), chunked and compressed bodies (it would read and inflate
  # them without a limit), a body where no request takes one.
  [[ $(curl -s -o post.json -w '%{http_code}' -H 'Range: bytes=0-1,0-1' "$URL/api/v1/runs/$m1_id/samples.jsonl") == 416 ]] ||
    fail "a Range request was not refused"
  [[ $(curl -s -o post.json -w '%{http_code}' -H "Authorization: Bearer $key" -H 'Content-Type: application/gzip' \
    -H 'Transfer-Encoding: chunked' --data-binary @m1.tgz "$URL/api/v1/runs") == 411 ]] || fail "a chunked upload was not refused"
  [[ $(curl -s -o post.json -w '%{http_code}' -H "Authorization: Bearer $key" -H 'Content-Type: application/gzip' \
    -H 'Content-Encoding: gzip' --data-binary @m1.tgz "$URL/api/v1/runs") == 415 ]] || fail "a compressed body was not refused"
  [[ $(curl -s -o post.json -w '%{http_code}' --data-binary @m1.tgz "$URL/nothing") == 405 ]] || fail "a body to nowhere was read"
  expect_refused "a CV past any measurement" 422 hostile/wild.tgz "$key" "is no measurement"
  expect_refused "an experiment named with a /" 422 hostile/slash.tgz "$key" "holds '/'"
  # A report written after publishing does not make the run another one.
  cp -r m2 m2-again && "$NF" report m2-again >/dev/null && rm -f m2-again/report.html.tmp*
  NOISEFLOOR_KEY="$key" "$NF" publish m2-again --to "$URL" >again.txt
  contains again.txt "already published small run r-m2"
  # Markup and SQL metacharacters are names like any other: stored, escaped on the page.
  NOISEFLOOR_KEY="$key" "$NF" publish markup --to "$URL" >/dev/null
  curl -sf "$URL/e/$(python3 -c 'import urllib.parse,sys; print(urllib.parse.quote(sys.argv[1], safe=""))' "x'); DROP TABLE runs;--")" >markup.html
  contains markup.html '&lt;b&gt;idle'
  ! grep -q '<b>idle' markup.html || fail "markup in a condition name reached the page"
  [[ $(run_count) -eq 3 ]] || fail "the runs table went missing"

  # A slow client holds one connection, not the server: others are answered, and it is let go.
  python3 - "${URL#http://}" <<'PY' &
import socket, sys, time
host, port = sys.argv[1].split(":")
start = time.monotonic()  # before the server can see it: a client held up here only reads longer
s = socket.create_connection((host, int(port)))
s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # its headers never end
s.settimeout(60)
try:
    while s.recv(4096):
        pass
except socket.timeout:
    sys.exit("the server kept a silent client for a minute")
waited = time.monotonic() - start
print(f"slow client let go after {waited:.1f} s (--idle-timeout 2s)")
assert waited >= 1.9, f"let go after {waited:.1f} s: before its --idle-timeout of 2 s"
PY
  slow=$!
  curl -sf -o /dev/null "$URL/" || fail "the page did not answer beside a slow client"
  wait "$slow" || fail "the slow client was not let go"

  # The series with a step: published one by one; the page draws the step where it was planted.
  for i in $(seq 1 24); do NOISEFLOOR_KEY="$key" "$NF" publish "s$i" --to "$URL" >/dev/null; done
  curl -sf "$URL/e/small" >page.html
  contains page.html "3 machines"  # the fixture's CPU, the other CPU, the step's
  # Known truth: machine 1's mark is the CV of its one run, as computed from its samples here.
  m1_machine=$(curl -sf "$URL/api/v1/runs?experiment=small&limit=100" | python3 -c 'import json,sys; print([r["machine"] for r in json.load(sys.stdin)["runs"] if r["run_id"] == "r-m1"][0])')
  contains page.html "<title>$m1_machine: CV $(cat expected_cv.txt)</title>"
  # Known truth: the +10% planted at run 13 of the step machine, in each of its 6 series, and no
  # other change point anywhere.
  [[ $(grep -o 'new level from run 13: ' page.html | wc -l) -eq 6 ]] || fail "expected the step at run 13 in 6 series"
  [[ $(grep -o 'class="change-point"' page.html | wc -l) -eq 6 ]] || fail "a change point where none was planted"

  # The page in a real browser: it loads, the distribution and the change points are drawn, and
  # nothing is refused or logged as an error (the page's Content-Security-Policy allows no script).
  if [[ -n "$CHROMIUM" ]]; then
    profile=$(mktemp -d "$WORK/profile.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
      --disable-component-update --disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0 \
      --dump-dom "$URL/e/small" >dom.html 2>dom.log || { tail -20 dom.log >&2; fail "chromium --dump-dom failed"; }
    [[ $(grep -o 'class="machine-mark"' dom.html | wc -l) -eq 18 ]] || fail "expected 18 machine marks (6 series x 3 machines)"
    [[ $(grep -o 'class="change-point"' dom.html | wc -l) -eq 6 ]] || fail "the browser drew no change points"
    ! grep -iE 'CONSOLE|Refused|Uncaught' dom.log || fail "the page logged errors in the browser"
  fi

  # 64 concurrent publishers x 50 publishes, each of the 1600 runs sent twice: exact counts.
  before=$(run_count)
  stop_server
  start_server "$db" --rate-limit 0
  python3 "$RUNS" load "$URL" "$key" load-archives 64 50 >load.json
  python3 - load.json <<'PY' || fail "the concurrent publishers"
import json, sys
d = json.load(open(sys.argv[1]))
ms = sorted(d["latencies_ms"])
print(f"64 publishers x 50: {d['created']} stored, {d['duplicate']} duplicates, {len(d['errors'])} errors, "
      f"{len(ms) / d['seconds']:.0f}/s, p50 {ms[len(ms) // 2]:.0f} ms, p99 {ms[int(len(ms) * 0.99)]:.0f} ms")
assert not d["errors"], d["errors"][:3]
assert d["created"] == 1600 and d["duplicate"] == 1600, (d["created"], d["duplicate"])
PY
  [[ $(run_count) -eq $((before + 1600)) ]] || fail "the concurrent publishers: $(run_count) runs stored, expected $((before + 1600))"

  # Killed mid-upload: the client (a slow upload cut off), then the server (killed while one is on
  # its way): no half run, and the next publish succeeds.
  before=$(run_count)
  # A run of its own (the padding, a report beside it, is no part of its id), 7 MiB to send.
  [[ -d killed ]] || make_run killed r-killed
  head -c $((7 << 20)) /dev/urandom >pad7 && python3 "$RUNS" pack killed slow.tgz --member "padding.txt=$WORK/pad7"
  curl -s -o /dev/null -H "Authorization: Bearer $key" -H 'Content-Type: application/gzip' --limit-rate 1M \
    --data-binary @slow.tgz "$URL/api/v1/runs" &
  client=$!
  sleep 1
  kill -9 "$client" 2>/dev/null || true
  wait "$client" 2>/dev/null || true
  curl -s -o /dev/null -H "Authorization: Bearer $key" -H 'Content-Type: application/gzip' --limit-rate 1M \
    --data-binary @slow.tgz "$URL/api/v1/runs" &
  client=$!
  sleep 1
  kill -9 "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  wait "$client" 2>/dev/null || true
  start_server "$db" --rate-limit 0
  [[ $(run_count) -eq $before ]] || fail "a killed upload left a run"
  status=$(post slow.tgz "$key")
  [[ "$status" == 201 ]] || { cat post.json >&2; fail "the publish after a kill: HTTP $status"; }
  [[ $(run_count) -eq $((before + 1)) ]] || fail "the publish after a kill was not stored once"
  stop_server
done

# A private store, and the per-address rate limit (SQLite): reads need a key; the third publish in
# a minute from one address, at --rate-limit 2, waits.
db="sqlite:$WORK/store.db"
key=$("$NF" keys create --db "$db" 2>/dev/null)
start_server "$db" --rate-limit 2 --private
# A second server on the same address is refused, not let in to share its connections.
set +e
timeout 20 "$NF" serve --db "$db" --listen "${URL#http://}" 2>second.err
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "a second serve on ${URL#http://}: exit $rc, expected 1"
contains second.err "cannot listen on"
# A silent client's time that is no duration, none at all, or more than a request's whole 60 s:
# refused before anything listens.
for bad in 0s 61s soon; do
  rc=0; "$NF" serve --db "$db" --listen 127.0.0.1:0 --idle-timeout "$bad" 2>idle.err || rc=$?
  [[ $rc -eq 2 ]] || fail "serve --idle-timeout $bad: exit $rc, expected 2"
  contains idle.err "serve --idle-timeout $bad: expected a duration from 100ms to 60s"
done
[[ $(curl -s -o /dev/null -w '%{http_code}' "$URL/e/small") == 401 ]] || fail "--private: a page was read without a key"
[[ $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "$URL/e/small") == 200 ]] ||
  fail "--private: a key did not read the page"
[[ $(post m1.tgz "$key") == 200 ]] || fail "the first publish of a stored run"
[[ $(post m1.tgz "$key") == 200 ]] || fail "the second publish of a stored run"
status=$(curl -s -D limited.headers -o post.json -w '%{http_code}' -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/gzip' --data-binary @m1.tgz "$URL/api/v1/runs")
[[ $status == 429 ]] || fail "the third publish in a minute at --rate-limit 2: HTTP $status, expected 429"
contains post.json "too many publishes"
grep -qi '^retry-after: [1-9]' limited.headers || fail "429 without Retry-After"
stop_server
