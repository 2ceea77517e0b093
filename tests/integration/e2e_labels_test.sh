#!/usr/bin/env bash
# A room's label decides what may be compared (README: reading the table): a condition measured
# clean and the same condition beside a spinner are refused together, with each side's label and
# the reading it rests on, and compared with --allow-different-labels, which the table says. The
# clean side needs a quiet room, which the test reads beside each try (it measures the room:
# tests/integration/tests.cmake; e2e_newcomer keeps the rest of a new user's commands).
source "$(dirname "$0")/lib.sh"
WORK="$(realpath "$WORK")"
cd "$WORK"

# Labels that differ (a condition that ran beside a spinner against the same condition idle): one
# refusal, exit 2, nothing on stdout; --allow-different-labels compares them, said in the table.
lab() {  # lab FILE [CONDITION_YAML]: a sleep of 10 ms, 3 samples, one condition `c`
  cat >"$1" <<YAML
name: lab
benchmark:
  command: [/bin/sleep, "0.01"]
  format: command
  samples: 3
settle: 0s
conditions:
  - name: c
${2:-}
YAML
}
lab lab1.yaml
lab lab2.yaml "    spinners: 1"
# The idle side must be measured clean: on a shared machine other work can starve even a sleep
# (its wake-ups wait), and then it is rightly CONTENDED; a quiet moment is waited for (3 tries).
# Each try's room is read beside it (outside_cpu, lib.sh): a quiet room's runs read 0.011 to 0.037
# of a CPU of other work on this project's machine.
room=()
for try in 1 2 3; do
  expect_exit 0 lab1 -- outside_cpu lab1.room "$NF" run -q lab1.yaml --results "$WORK/labs"
  room+=("$(cat lab1.room)")
  lab_one=$(readlink -f "$WORK/labs/lab/latest")
  "$NF" cv --format json "$lab_one" >lab1.json
  python3 -c 'import json, sys; sys.exit(json.load(open("lab1.json"))["table"]["labels"]["c"]["label"] != "MEASURED-clean")' && break
  if [[ $try == 3 ]]; then
    # No quiet moment: was it the room? Other work beside at least one of the runs, read beside it.
    awk -v r="${room[*]}" 'BEGIN { n = split(r, v, " "); for (i = 1; i <= n; i++) if (v[i] >= 0.05) exit 0; exit 1 }' ||
      fail "the idle side was CONTENDED in 3 runs, yet other work beside them used ${room[*]} of a CPU ($(python3 -c 'import json; print(json.load(open("lab1.json"))["table"]["labels"]["c"]["reason"])'))"
    echo "the room is busy (other work used ${room[*]} of a CPU beside the 3 runs): the idle side is rightly" \
      "CONTENDED, and the refusal of different labels, which needs a MEASURED-clean side, is left out"
    echo "e2e labels: ok (busy room)"
    exit 0
  fi
  sleep 2
done
sleep 1
expect_exit 0 lab2 -- "$NF" run -q lab2.yaml --results "$WORK/labs"
lab_two=$(readlink -f "$WORK/labs/lab/latest")
expect_exit 2 labels -- "$NF" compare "$lab_one" "$lab_two"
[[ ! -s labels.out ]] || fail "a refused comparison printed a table"
# Each label with the reading it rests on (the run-queue figure varies from run to run).
# How much it waited, and whether for its own threads (on a busy machine), vary from run to run.
sed -i -E -e 's/waited for a CPU [0-9.]+% of/waited for a CPU X% of/' \
  -e 's/ runnable, for each other: [^)]* beside it\)/ runnable)/' labels.err
same_text labels.err "NOT COMPARABLE: the sides were measured in rooms of different cleanliness:
  old 'c' is MEASURED-clean (its threads waited for a CPU X% of the time they were runnable), new 'c' is CONTENDED (1 spinner)
noisefloor: compare: numbers measured under different labels are not comparable; pass --allow-different-labels to compare them anyway"
expect_exit 0 labels-allowed -- "$NF" compare --allow-different-labels "$lab_one" "$lab_two"
# (the reason is wrapped at 80 columns, where depends on how long the reading is)
tr -s ' \n' '  ' <labels-allowed.out >labels-allowed.flat
contains labels-allowed.flat "compared because of --allow-different-labels)"
echo "e2e labels: ok"
