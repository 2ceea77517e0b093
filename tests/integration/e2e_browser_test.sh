#!/usr/bin/env bash
# The report page in a real browser. `noisefloor report` renders the committed small result
# (tests/data/results/small: 3 conditions x 2 benchmarks x 9 samples); headless Chromium, offline,
# takes a screenshot and dumps the DOM. The page must hold the condition table, one strip plot and
# one run-order plot per benchmark with one mark per sample, and fetch nothing.
#
# "Fetch nothing" is enforced, not just grepped: the page carries the CSP
# `default-src 'none'; style-src 'unsafe-inline'; img-src data:`, so any load (script, image, font,
# stylesheet, frame) is blocked and Chromium logs "violates the following Content Security Policy
# directive" on stderr (--enable-logging=stderr). A negative control page with one remote <img>
# proves that message appears, so its absence on the real page means something.
# The history page (`noisefloor history --html`) is checked the same way: its trend plots, and
# nothing fetched.
# Skips (77) when Chromium is missing, except in CI (CI=true), where it must be installed.
source "$(dirname "$0")/lib.sh"
cd "$WORK"

CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [[ -z "$CHROMIUM" ]]; then
  [[ "${CI:-}" == "true" ]] && fail "chromium is not installed (scripts/bootstrap.sh installs it)"
  echo "SKIP: chromium not installed"
  exit 77
fi

# Headless, no network, no sandbox (tests run as root), a fresh profile per call.
chromium_run() {
  local profile
  profile="$(mktemp -d "$WORK/profile.XXXXXX")"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

cp -r "$REPO/tests/data/results/small" "$WORK/small"
src="$WORK/small"

# The default output: <result dir>/report.html, its path on stdout.
"$NF" report "$src" >out.txt 2>err.txt || { cat err.txt >&2; fail "report failed"; }
page="$src/report.html"
[[ "$(cat out.txt)" == "$page" ]] || fail "report printed '$(cat out.txt)', expected '$page'"
check "report.html written" test -s "$page"
(($(wc -c <"$page") < 300000)) || fail "report.html is $(wc -c <"$page") bytes (budget 300 KB)"
"$NF" report --html "$WORK/named.html" "$src" >named.out
check "--html writes the named file" test -s "$WORK/named.html"
check "--html alone prints nothing" test ! -s named.out
cmp "$page" "$WORK/named.html" || fail "--html and the default page differ"

# The exports through the binary match the golden files of the unit tests.
for f in markdown csv json gotest summary; do
  "$NF" report --format "$f" "$src" >"export.$f"
  cmp "export.$f" "$REPO/tests/data/golden/export.$f" || fail "--format $f differs from tests/data/golden/export.$f"
done
set +e
"$NF" report --format html "$src" >/dev/null 2>bad-format.txt
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "--format html: exit $rc, expected 2"
contains bad-format.txt '--format: expected markdown, csv, json, gotest, summary, svg or png, got "html"'

# Screenshot (look at it when the layout changes) and DOM.
chromium_run --screenshot="$WORK/report.png" --window-size=1280,2400 "file://$page" >shot.out 2>shot.log ||
  { tail -20 shot.log >&2; fail "chromium --screenshot failed"; }
[[ "$(head -c 8 "$WORK/report.png" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] || fail "no PNG screenshot"
(($(wc -c <"$WORK/report.png") > 20000)) || fail "the screenshot is almost empty ($(wc -c <"$WORK/report.png") bytes)"
chromium_run --dump-dom "file://$page" >dom.html 2>dom.log || { tail -20 dom.log >&2; fail "chromium --dump-dom failed"; }
check "the DOM was dumped" grep -q '</html>' dom.html

# The condition table: one row per (condition, benchmark) of the samples ...
pairs=$(sed -E 's/.*"benchmark":"([^"]*)".*"condition":"([^"]*)".*/\2 \1/' "$src/samples.jsonl" | sort -u | wc -l)
[[ $pairs -eq 6 ]] || fail "expected 6 condition/benchmark pairs in the fixture, got $pairs"
# ... and metric: every metric of a line is a row (ns/op, B/op, allocs/op).
metric_rows=$(python3 -c '
import json, sys
print(len({(s["condition"], s["name"], m["unit"]) for s in map(json.loads, open(sys.argv[1])) for m in s["metrics"]}))' "$src/samples.jsonl")
[[ $metric_rows -eq 18 ]] || fail "expected 18 condition/benchmark/metric rows in the fixture, got $metric_rows"
rows=$(grep -o '<tr data-condition=' dom.html | wc -l)
[[ $rows -eq $metric_rows ]] || fail "condition table has $rows rows, expected $metric_rows"
contains dom.html '<table class="conditions">'
contains dom.html 'do not trust</td>'

# One plot of each kind per benchmark, one mark per sample (warm-up included).
marks() {  # marks KIND BENCHMARK: data-sample elements in that plot
  grep -oE '<svg [^>]*>|data-sample="|</svg>' dom.html | awk -v kind="$1" -v bench="$2" '
    /^<svg / { inside = index($0, "data-plot=\"" kind "\"") && index($0, "data-benchmark=\"" bench "\""); if (inside) plots++; next }
    /^<\/svg>/ { inside = 0; next }
    inside { n++ }
    END { print plots + 0, n + 0 }'
}
# idle and noisy ran the -2 names, pinned (one CPU) the unsuffixed ones: the same two benchmarks,
# each one section whose plots hold all three conditions, the counts in its title.
benchmarks=$(sed -E 's/.*"benchmark":"([^"]*)".*/\1/' "$src/samples.jsonl" | sort -u)
[[ $(echo "$benchmarks" | wc -l) -eq 2 ]] || fail "expected 2 benchmarks in the fixture"
for b in $benchmarks; do
  want=$(grep -c "\"benchmark\":\"$b\"" "$src/samples.jsonl")
  for kind in strip run-order; do
    read -r plots got < <(marks "$kind" "$b (GOMAXPROCS: idle 2, noisy 2, pinned 1)")
    [[ $plots -eq 1 ]] || fail "$kind plot of $b: found $plots plots, expected 1"
    [[ $got -eq $want ]] || fail "$kind plot of $b: $got marks, expected one per sample ($want)"
  done
done
# The overview: a line per benchmark, a cell per condition, each cell a link to its plots.
python3 - dom.html <<'PY' || fail "the overview grid"
import re, sys
dom = open(sys.argv[1]).read()
start = dom.index('<table class="overview">')
grid = dom[start:dom.index("</table>", start)]
rows = re.findall(r"<tr><th scope=\"row\" class=\"bench\">([^<]*)</th>(.*?)</tr>", grid)
assert [r[0] for r in rows] == ["MakeBuffer_Correct", "MakeBuffer_DCE"], rows
for i, (_, cells) in enumerate(rows):
    links = re.findall(r'<td class="band band-[a-z-]+"><a href="#b(\d+)">', cells)
    assert links == [str(i)] * 3, (i, links)
assert grid.count('class="label label-CONTENDED"') == 3, "a label per condition"
assert dom.index('<section id="overview">') < dom.index('<section id="conditions">')
PY
(($(grep -o 'role="img"' dom.html | wc -l) >= 4)) || fail "plots lack role=img"
contains dom.html '<desc id="p0s-d">'

# Nothing fetched: no remote src/href, no CSP violation, no network error.
if grep -qiE '(src|href)="(https?:)?//' dom.html; then fail "the page references a remote resource"; fi
if grep -E 'Content Security Policy|net::ERR_' shot.log dom.log; then fail "the page tried to fetch something"; fi
# Negative control: the same page with one remote image must be blocked and logged.
sed 's|</body>|<img src="https://example.invalid/x.png" alt=""></body>|' "$page" >control.html
chromium_run --dump-dom "file://$WORK/control.html" >control.dom 2>control.log || fail "chromium failed on the control page"
grep -q 'violates the following Content Security Policy directive' control.log ||
  fail "control page: no CSP violation logged, so the fetch check above proves nothing"

# A run that states claims and replays a published table: the verdicts and the table beside come
# first on the page, above the conditions.
cp -r "$REPO/tests/data/results/small" "$WORK/claims"
python3 - "$WORK/claims" "$REPO/experiments/published/gophercon-uk-2026-cv-summary.txt" <<'PY'
import json, re, sys
d, ref = sys.argv[1], sys.argv[2]
run = json.load(open(d + "/run.json"))
run["claims"], run["claims_seed"] = ["cv(noisy) > 2 * cv(idle)", "n(idle) >= 8"], 1
rows = []
for cond in ("idle", "noisy", "pinned"):
    block = open(ref).read().split(f"## {cond}\n")[1]
    name, n, mean, sd, cv = block.splitlines()[1].split()
    rows.append({"condition": cond, "benchmark": name, "n": int(n), "mean": float(mean), "stddev": float(sd),
                 "cv_pct": float(cv), "median": None, "min": None, "max": None})
run["reference"] = {"source": "the talk", "file": "cv-summary.txt", "format": "cv-summary", "unit": "ns/op",
                    "header": [], "rows": rows}
json.dump(run, open(d + "/run.json", "w"))
PY
"$NF" report --html "$WORK/claims.html" "$WORK/claims" >/dev/null 2>claims.err || { cat claims.err >&2; fail "report of a result with claims"; }
chromium_run --dump-dom "file://$WORK/claims.html" >claims.dom 2>claims.log || fail "chromium failed on the claims page"
python3 - claims.dom <<'PY' || fail "the claims section in the browser"
import re, sys
dom = open(sys.argv[1]).read()
assert dom.index('<section id="claims">') < dom.index('<table class="conditions">'), "claims not above the conditions"
verdicts = re.findall(r'<td class="verdict">([A-Z ]+)</td>', dom)
assert len(verdicts) == 2 and verdicts[1] == "REPRODUCED", verdicts
assert len(re.findall(r'<table class="reference">', dom)) == 1
assert dom.count("<tr><td>") >= 3, "a row per published condition"
assert '<a href="#claims">Claims</a>' in dom
PY
if grep -E 'Content Security Policy|net::ERR_' claims.log; then fail "the claims page tried to fetch something"; fi

# The history page (noisefloor history --html): two runs of the small result, the second on
# another CPU (a second segment). One trend plot per condition x benchmark row, a segment
# boundary in each, and nothing fetched.
mkdir -p "$WORK/hist/small"
for run in a b; do cp -r "$REPO/tests/data/results/small" "$WORK/hist/small/$run"; done
python3 - "$WORK/hist/small/b" <<'PY'
import json, sys
d = sys.argv[1]
run = json.load(open(d + "/run.json"))
run["run_id"], run["started_utc"] = "b", "2026-12-01T00:00:00Z"
json.dump(run, open(d + "/run.json", "w"))
fp = json.load(open(d + "/fingerprint.json"))
fp["host"]["cpu"]["model_name"]["value"] = "Intel Xeon"
json.dump(fp, open(d + "/fingerprint.json", "w"))
PY
"$NF" history --html "$WORK/history.html" "$WORK/hist/small" >hist.out 2>hist.err || { cat hist.err >&2; fail "history --html failed"; }
check "history.html written" test -s "$WORK/history.html"
chromium_run --dump-dom "file://$WORK/history.html" >hist.dom 2>hist.log || { tail -20 hist.log >&2; fail "chromium --dump-dom failed on history.html"; }
check "the history DOM was dumped" grep -q '</html>' hist.dom
plots=$(grep -o '<svg [^>]*data-plot="history"' hist.dom | wc -l)
[[ $plots -eq $pairs ]] || fail "history page: $plots trend plots, expected one per condition/benchmark row ($pairs)"
[[ $(grep -o 'data-segment-boundary="2"' hist.dom | wc -l) -eq $pairs ]] || fail "history page: a plot lacks the segment boundary"
[[ $(grep -o '<tr data-run=' hist.dom | wc -l) -eq 2 ]] || fail "history page: expected 2 runs in the table"
if grep -qiE '(src|href)="(https?:)?//' hist.dom; then fail "the history page references a remote resource"; fi
if grep -E 'Content Security Policy|net::ERR_' hist.log; then fail "the history page tried to fetch something"; fi

echo "e2e browser: ok (screenshot: $WORK/report.png, removed on exit)"
