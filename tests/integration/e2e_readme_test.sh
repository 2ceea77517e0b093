#!/usr/bin/env bash
# The README cannot drift, nor the user guide: every command line README.md, CONTRIBUTING.md and
# docs/*.md show (tests/integration/readme_commands.py extracts them from the files themselves) is
# run here and must exit as the page says, in a copy of
# the repository's experiments with short settings (4 samples of 20000 iterations instead of 20
# of one second). A command with placeholders (EXPERIMENT, [--opt]) must name a command and
# options that exist. A command line this test does not know fails it: add it below when the
# README gains one.
source "$(dirname "$0")/lib.sh"
WORK="$(realpath "$WORK")"
BUILD="$(dirname "$NF")"

# A copy of the repository's experiments, short; results go to $WORK/results as in a checkout.
cp -r "$REPO/experiments" "$WORK/experiments"
mkdir -p "$WORK/build/bench"
for f in "$WORK"/experiments/laptop.yaml "$WORK"/experiments/laptop-trust.yaml; do
  sed -i -e 's/^  samples: 20$/  samples: 4/' -e 's/-test.benchtime=1s/-test.benchtime=20000x/' "$f"
  grep -q '^  samples: 4$' "$f" && grep -q 'benchtime=20000x' "$f" || fail "$f: could not be shortened"
done
for f in "$WORK"/experiments/ratio.yaml "$WORK"/experiments/ratio-blocks.yaml; do
  sed -i 's/^  samples: 10$/  samples: 4/' "$f"
  grep -q '^  samples: 4$' "$f" || fail "$f: could not be shortened"
done
# and short waits: 0.1 s to settle a block and 0.2 s of noise profile, not 1 s each (their
# defaults are e2e_counters' to check)
for f in "$WORK"/experiments/{laptop,laptop-trust,ratio,ratio-blocks}.yaml; do
  ! grep -qE '^(settle|noise_profile):' "$f" || fail "$f: sets its own settle or noise profile"
  printf 'settle: 0.1s\nnoise_profile: 0.2s\n' >>"$f"
done
cd "$WORK"

# The Makefile's targets are the commands the README says they are.
grep -qx $'\t$(NOISEFLOOR) run experiments/laptop-trust.yaml' "$REPO/Makefile" || fail "make bench-docker changed"
grep -qx $'\t$(NOISEFLOOR) run experiments/laptop.yaml' "$REPO/Makefile" || fail "make bench changed"

# exits LINE CODES... -- COMMAND...: COMMAND (the README's LINE, or its short variant) must exit
# with one of CODES.
ran=0
exits() {
  local line="$1" codes=()
  shift
  while [[ "$1" != "--" ]]; do codes+=("$1"); shift; done
  shift
  set +e
  "$@" >last.out 2>last.err
  local got=$?
  set -e
  local c
  for c in "${codes[@]}"; do [[ $got -eq $c ]] && { ran=$((ran + 1)); return 0; }; done
  cat last.out last.err >&2
  fail "README: \`$line\` exited $got, the README says ${codes[*]}"
}
# The README's line run as written, through bash (redirections included), with $NF for noisefloor.
as_written() { bash -c "noisefloor() { \"$NF\" \"\$@\"; }; $1"; }

skipped=()
skip() { skipped+=("$1 ($2)"); }

# usage LINE: the command and every --option it shows exist.
usage() {
  local line="$1"
  case "$line" in
    noisefloor\ *)
      local cmd
      cmd="$(awk '{print $2}' <<<"$line")"
      [[ "$cmd" =~ ^[a-z]+$ ]] || fail "README: \`$line\`: no command named"
      "$NF" "$cmd" --help >help.txt 2>&1 || fail "README: \`$line\`: no command $cmd"
      for opt in $(grep -oE -- '--[a-z][a-z-]*' <<<"$line"); do
        grep -qE -- "(^|[ ,])$opt( |,|$)" help.txt || fail "README: \`$line\`: noisefloor $cmd has no option $opt"
      done ;;
    make\ *)
      local target var
      target="$(awk '{for (i = 2; i <= NF; i++) if ($i !~ /=/) { print $i; exit }}' <<<"$line")"
      if [[ -n "$target" ]]; then  # `make VAR=value` alone builds the default target
        grep -qE "^$target:" "$REPO/Makefile" || fail "README: \`$line\`: no make target $target"
      fi
      for var in $(grep -oE '[A-Z_]+=' <<<"$line"); do
        grep -q "^${var%=} ?=" "$REPO/Makefile" || fail "README: \`$line\`: the Makefile does not set ${var%=}"
      done ;;
    scripts/*)
      local script="${line%% *}"
      [[ -f "$REPO/$script" ]] || fail "README: \`$line\`: no $script"
      if [[ $script == *.py ]]; then
        python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$REPO/$script" ||
          fail "README: \`$line\`: $script does not parse"
      else
        bash -n "$REPO/$script" || fail "README: \`$line\`: $script does not parse"
      fi ;;
    benchstat\ *) skip "$line" "benchstat is not packaged in Debian: e2e_newcomer checks the raw files' Go benchmark format" ;;
    *) fail "README: \`$line\`: a usage line of an unknown kind" ;;
  esac
  ran=$((ran + 1))
}

lines=0
while IFS=$'\t' read -r kind line; do
  lines=$((lines + 1))
  if [[ $kind == usage ]]; then usage "$line"; continue; fi
  case "$line" in
    "make bench-docker")
      exits "$line" 0 -- "$NF" run -q experiments/laptop-trust.yaml ;;
    "make bench")
      exits "$line" 0 -- "$NF" run -q experiments/laptop.yaml ;;
    "make cv")
      exits "$line" 0 -- "$NF" cv results/laptop-trust/latest
      exits "$line" 0 -- "$NF" cv --format summary results/laptop-trust/latest ;;
    "make install")
      exits "$line" 0 -- cmake --install "$BUILD" --prefix "$WORK/prefix"
      exits "$line (the installed binary)" 0 -- "$WORK/prefix/bin/noisefloor" --version
      # `man noisefloor` after `make install`: the page is installed where man finds it by prefix.
      exits "$line (man noisefloor)" 0 -- env MANWIDTH=80 PAGER=cat man -M "$WORK/prefix/share/man" noisefloor
      grep -q -- "--threshold" last.out || fail "man noisefloor: the page holds no --threshold" ;;
    "make noisefloor")  # the binary alone: its recipe must name only the noisefloor target
      exits "$line" 0 -- make -C "$REPO" -n noisefloor
      grep -qE -- '--target noisefloor( |$)' last.out || fail "make noisefloor builds more than the binary"
      [[ -x $NF ]] || fail "make noisefloor: no binary at $NF" ;;
    "make" | "make test" | "make unit" | "make fuzz")
      skip "$line" "the build and the test suites: CI runs them around this test" ;;
    scripts/*.py)  # a measurement or test driver named in a sentence: it must at least compile
      exits "$line (compiles)" 0 -- python3 -m py_compile "$REPO/${line%% *}" ;;
    "make engines")  # the tests' two engines: `make test` started them before this test ran
      skip "$line" "make test starts both engines before the tests" ;;
    "make format")
      # It rewrites the sources; the `format` test checks that it would change nothing.
      skip "$line" "the format test runs its check" ;;
    "scripts/gate-repo.sh")  # named in a sentence: the repository make perf's gates run on
      exits "$line" 0 -- bash "$REPO/scripts/gate-repo.sh" "$WORK/gate-repo"
      grep -qE 'A=[0-9a-f]{40}' last.out || fail "README: \`$line\`: no commit ids printed" ;;
    "make perf")
      bash -n "$REPO/scripts/perf.sh" || fail "scripts/perf.sh does not parse"
      skip "$line" "about twenty minutes of measurements: its script is only parsed here" ;;
    "noisefloor validate experiments/laptop-trust.yaml")
      exits "$line" 0 -- as_written "$line" ;;
    "noisefloor run experiments/laptop-trust.yaml")
      exits "$line" 0 -- as_written "$line -q" ;;
    "noisefloor cv results/laptop-trust" | "noisefloor report results/laptop-trust")
      exits "$line" 0 -- as_written "$line" ;;
    "noisefloor run experiments/laptop-trust.yaml --check")
      # exit 3 when a claim is NOT REPRODUCED: 4 short samples may not reproduce them all
      exits "$line" 0 3 -- as_written "$line -q" ;;
    "noisefloor check results/laptop-trust")
      exits "$line" 0 3 -- as_written "$line" ;;
    "noisefloor check idle.txt noisy.txt "*)
      (cd results/laptop-trust/latest && exits "$line" 0 3 -- as_written "$line") ;;
    "noisefloor report results/laptop-trust --format gotest > all.txt")
      exits "$line" 0 -- as_written "$line"
      grep -q '^BenchmarkMakeBuffer_Correct' all.txt || fail "all.txt holds no result line" ;;
    "noisefloor history results/small"*)
      # results/small is the README's example experiment: here, the demo's, run twice by now
      exits "$line" 0 -- as_written "${line//results\/small/results/laptop-trust}" ;;
    "noisefloor run experiments/laptop-trust.yaml --host default "*)
      # quiet-box and ci-runner are the README's example machines: the local engine stands in
      exits "$line" 0 -- "$NF" run -q experiments/laptop-trust.yaml --host default ;;
    "noisefloor runn" | "noisefloor run --result x")
      exits "$line" 2 -- as_written "$line"
      grep -q 'did you mean' last.err || fail "\`$line\`: no suggestion" ;;
    "noisefloor report --redact")
      # The kernel command line is on the page, and not on the redacted one; env values likewise.
      exits "$line" 0 -- "$NF" report results/laptop-trust --redact --html redacted.html
      exits "$line (unredacted)" 0 -- "$NF" report results/laptop-trust --html plain.html
      cmdline=$(tr -d '\n' </proc/cmdline)
      if [[ ${#cmdline} -gt 8 ]]; then
        grep -qF -- "$cmdline" plain.html || fail "report: the kernel command line is not on the page"
        ! grep -qF -- "$cmdline" redacted.html || fail "report --redact: the kernel command line is on the page"
      fi
      grep -q 'CGO_ENABLED' redacted.html || fail "report --redact: the variables' names should stay"
      grep -q '(left out: report --redact)' redacted.html || fail "report --redact: nothing says what was left out" ;;
    "noisefloor run experiments/ratio-blocks.yaml")
      exits "$line" 0 -- "$NF" run -q experiments/ratio-blocks.yaml ;;
    "noisefloor run experiments/ratio.yaml --supersedes results/ratio-blocks")
      exits "$line" 0 -- as_written "$line -q"
      "$NF" cv results/ratio-blocks 2>/dev/null | head -1 | grep -q SUPERSEDED || fail "README: \`$line\`: cv of the old run does not say it was superseded" ;;
    "noisefloor errata --old results/ratio-blocks --new results/ratio"*)
      if [[ ! -d .git ]]; then  # a project that quoted the old figure in a tracked status file
        git init -q . && git config user.email readme@example.com && git config user.name readme
        mkdir -p empty
        "$NF" errata --old results/ratio-blocks --new results/ratio --in empty --format json >figures.json
        python3 - figures.json >STATUS.md <<'PY'
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["figures"] if x["statistic"] == "ratio thrice/once"][0]
print(f"The thrice loop costs {f['old']['value']:.4f}× once under load.")
PY
        git add STATUS.md && git commit -qm status
      fi
      exits "$line" 0 -- as_written "$line"
      case "$line" in
        *--apply*) grep -q '~~' STATUS.md || fail "README: \`$line\`: STATUS.md was not corrected" ;;
        *--format\ markdown) grep -q '^## Erratum: ratio-blocks superseded by ratio' last.out || fail "README: \`$line\`: no erratum" ;;
        *) grep -q '^STATUS.md:1:23  .*  certain' last.out || fail "README: \`$line\`: the quotation was not found" ;;
      esac ;;
    "noisefloor doctor")
      exits "$line" 0 1 -- "$NF" doctor ;;  # 1: not ready (a shared machine may be)
    "noisefloor gc")
      exits "$line" 0 -- "$NF" gc ;;
    "noisefloor history" | "noisefloor compare" | "noisefloor report" | "noisefloor cv")
      exits "$line --help" 0 -- "$NF" "${line#noisefloor }" --help ;;  # named in a sentence
    "scripts/bootstrap.sh" | "scripts/bootstrap.sh test fuzz")
      # make test ran `bootstrap.sh test`: all present, so it must exit 0 quietly. The fuzz word's
      # clang is for make fuzz, which make test does not need: only its word is checked here.
      words=${line#scripts/bootstrap.sh}
      exits "$line" 0 -- bash "$REPO/scripts/bootstrap.sh" ${words/fuzz/}
      grep -q '^    fuzz)' "$REPO/scripts/bootstrap.sh" || fail "bootstrap.sh knows no word fuzz"
      [[ ! -s last.err ]] || fail "\`$line\`: it installed something make test had not: $(head -1 last.err)" ;;
    "scripts/dockerd.sh")
      exits "$line" 0 -- bash "$REPO/scripts/dockerd.sh" ;;
    "scripts/podman.sh" | "noisefloor run experiments/laptop-trust.yaml --host podman" | "noisefloor gc --host podman")
      [[ $line == scripts/* ]] && { bash -n "$REPO/$line" || fail "$line does not parse"; }
      [[ $line == noisefloor* ]] && usage "$line"
      skip "$line" "e2e_podman starts Podman's service and runs the demo's conditions and gc there, through a context named podman" ;;
    "noisefloor run bench/gate.yaml --base "*)  # a project's gate: e2e_gate runs it on a repository it makes
      usage "$line"
      skip "$line" "e2e_gate runs the gate on a git repository of its own" ;;
    "noisefloor serve"* | "noisefloor keys "* | "noisefloor publish"* | "scripts/postgres.sh"*)
      [[ $line == scripts/* ]] && { bash -n "$REPO/${line%% *}" || fail "${line%% *} does not parse"; }
      [[ $line == noisefloor* ]] && usage "$line"
      skip "$line" "e2e_store runs serve, keys and publish on SQLite and on PostgreSQL" ;;
    benchstat\ *)
      skip "$line" "benchstat is not packaged in Debian: e2e_newcomer checks the raw files' Go benchmark format" ;;
    *)
      fail "README.md, CONTRIBUTING.md or docs/ show \`$line\`, which e2e_readme does not run: add it to tests/integration/e2e_readme_test.sh" ;;
  esac
done < <(python3 "$REPO/tests/integration/readme_commands.py" "$REPO/README.md" "$REPO/CONTRIBUTING.md" "$REPO"/docs/*.md)

(( lines >= 40 )) || fail "only $lines command lines extracted from the README"
echo "e2e readme: $ran command lines checked; not run here: ${#skipped[@]}"
printf '  %s\n' "${skipped[@]}"
echo "e2e readme: ok"
