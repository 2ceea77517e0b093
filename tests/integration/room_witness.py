"""Is a run's CONTENDED label borne out by the room, as read by someone other than noisefloor?

usage: room_witness.py TIMELINE RUN_DIR CV_JSON [CONDITION=CPUS ...]

TIMELINE is what cpu_timeline (lib.sh) read from /proc/stat every 10 ms while the run ran; RUN_DIR
the run's results (samples.jsonl: each invocation's end, wall time and CPU time); CV_JSON what
`noisefloor cv --format json RUN_DIR` printed (its labels and the other work it counted beside each
condition, run_queue.beside_s). CONDITION=CPUS names the CPUs a condition ran on ("starved=0",
"both=0,1"); a condition not named ran on them all.

For each condition labelled starved, the other work on its CPUs while its invocations ran, as this
script reads it: over each invocation, the CPUs' busy time between the first read after it began and
the last before it ended, less the benchmark's own CPU time in that span (its cpu-sec/op, pro rata);
summed. The spans miss a little of each invocation (up to 10 ms at each end), and never take in the
time between invocations (a container's start is the engine's work, not the room's). What noisefloor
counted is scaled to the share of the invocations' wall time the spans cover; what is read must be
at least half of it, less what the reads can miss: two ticks of 1/100 s per CPU (each span's
reads are a tick off at most, and those errors mostly cancel across spans) and 2% of the
benchmark's own CPU time (tick-counted busy time against the process's own clock). Read this way
in a quiet room, other work came to 0 to 0.028 s beside 0.6 s of nf-burn on a CPU, while a busy
loop taking turns on it came to 0.65 to 1.04 times what noisefloor counted. A starved label in a quiet room fails here.

Prints a line per starved condition; exits 1 when one is not borne out, 0 otherwise.
"""
import datetime
import json
import sys

TICK = 0.01
CLOCKS_DISAGREE = 0.02


def utc_seconds(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def metric(sample, unit):
    return next((m["value"] for m in sample["metrics"] if m["unit"] == unit), None)


def spans(timeline, cpus, samples):
    """Over each invocation: (seconds covered, busy seconds of cpus, own CPU seconds)."""
    for s in samples:
        end = utc_seconds(s["utc"]) - 0.001  # utc is kept to the millisecond, taken just after it
        wall = (metric(s, "sec/op") or 0) * s.get("iterations", 1)
        reads = [r for r in timeline if end - wall + 0.001 <= r["t"] <= end]
        if wall <= 0 or len(reads) < 2:
            continue
        a, b = reads[0], reads[-1]
        own = (metric(s, "cpu-sec/op") or 0) * s.get("iterations", 1) * (b["t"] - a["t"]) / wall
        yield b["t"] - a["t"], sum(b["busy"][c] - a["busy"][c] for c in cpus), own


def main(argv):
    timeline = [json.loads(line) for line in open(argv[1])]
    samples = [json.loads(line) for line in open(f"{argv[2]}/samples.jsonl")]
    cv = json.load(open(argv[3]))
    named = {k: [int(c) for c in v.split(",")] for k, v in (a.split("=", 1) for a in argv[4:])}
    every = list(range(len(timeline[0]["busy"])))
    accounting = {a["condition"]: a["run_queue"] for a in cv["accounting"]}
    ok = True
    for condition, label in cv["table"]["labels"].items():
        if not label["reason"].startswith("starved: "):
            continue
        cpus = named.get(condition, every)
        read = list(spans(timeline, cpus, [s for s in samples if s["condition"] == condition]))
        if not read:
            raise SystemExit(f"{condition}: no invocation long enough to read /proc/stat over twice")
        covered = sum(r[0] for r in read)
        own = sum(r[2] for r in read)
        seen = max(0.0, sum(r[1] for r in read) - own)
        q = accounting[condition]
        counted = q["beside_s"] * min(1.0, covered / q["wall_s"])
        need = 0.5 * counted - (2 * TICK * len(cpus) + CLOCKS_DISAGREE * own)
        borne = seen >= need
        print(f"{condition}: noisefloor counted {counted:.3f} s of other work on CPU {','.join(map(str, cpus))} "
              f"over {covered:.3f} s of its invocations; /proc/stat, read beside them: {seen:.3f} s "
              f"({'borne out' if borne else 'NOT borne out'}: at least {need:.3f} s needed)")
        ok = ok and borne
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
