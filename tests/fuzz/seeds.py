#!/usr/bin/env python3
"""seeds.py OUT_DIR: the fuzz targets' seed inputs, made from the project's own test data.

Written to OUT_DIR/<target>/ (tests/fuzz/README.md): real experiment files, captured go test and
Google Benchmark output, captured probe output, the committed result directories packed the way
the results target reads them, and log streams framed the way the engine frames them."""
import pathlib
import struct
import sys

repo = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1])
data = repo / "tests" / "data"


def put(target, name, content):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(content)


def copy(target, paths):
    for p in sorted(paths):
        put(target, f"{p.parent.name}-{p.name}", p.read_bytes())


copy("experiment", list((repo / "experiments").glob("*.yaml")) + list(data.glob("**/experiment.yaml"))
     + list((data / "bad-experiments").glob("*.yaml")))
copy("gotest", list((data / "gotest").glob("*.txt")) + list((data / "compare").glob("*.txt"))
     + [data / "golden" / "export.gotest"])
copy("gbench", (data / "gbench").glob("*.json"))
copy("probe", (data / "probe").glob("*.txt"))
# claims: published tables; and claims on the first line (the rest a table, or nothing).
copy("claims", list((data / "published").glob("*")) + list((repo / "experiments" / "published").glob("*"))
     + [data / "results" / "docker-0.1" / "cv-summary.txt", data / "results" / "docker-0.1" / "summary.json"])
for i, claim in enumerate(["cv(noisy) > 2 * cv(idle)", "median(noisy) / median(idle) within 2 ± 25%",
                           "cv(one) < 5%", "ratio(fast) <= 0.9", "-(mean(idle) - 3) * 2 >= 10% + n(noisy)",
                           "cv(noisy, BenchmarkX-2) >= rcv(idle) +- 5%", "min(idle) < max(idle) / 0"]):
    put("claims", f"claim-{i}", claim.encode())

# results: samples.jsonl NUL run.json NUL fingerprint.json NUL summary.json NUL <condition>.txt
for d in sorted((data / "results").iterdir()):
    parts = [d / "samples.jsonl", d / "run.json", d / "fingerprint.json", d / "summary.json"]
    raw = sorted(p for p in d.glob("*.txt") if p.name != "cv-summary.txt")
    packed = b"\0".join(p.read_bytes() for p in parts + raw[:1])
    put("results", d.name, packed)
    put("results", d.name + "-samples-only", (d / "samples.jsonl").read_bytes())


# demux: [tty flag, piece size] then frames [stream, 0, 0, 0, size big-endian] + payload.
def frame(stream, payload):
    return struct.pack(">BxxxI", stream, len(payload)) + payload


text = (data / "gotest" / "makebuffer_go_test.txt").read_bytes()
lines = text.splitlines(keepends=True)
put("demux", "stdout-stderr", b"\0\7" + b"".join(frame(1 + i % 2, line) for i, line in enumerate(lines)))
put("demux", "daemon-error", b"\0\3" + frame(1, b"ok\n") + frame(3, b"error from daemon in stream: x\n"))
put("demux", "tty", b"\1\5" + text)
put("demux", "cut", b"\0\1" + frame(2, b"hello\n")[:-2])
