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


# engine: answers split at NUL bytes, read as /version, /info and each other kind (captured from
# Docker 20.10 and Podman 4.3 here: tests/data/fingerprint/engine), then shapes a lying engine gives.
engine = data / "fingerprint" / "engine"
for kind, version, info in [("docker-20.10", "version-20.10.json", "info-20.10.json"),
                            ("podman-rootful", "podman-4.3-rootful-version.json", "podman-4.3-rootful-info.json"),
                            ("podman-rootless", "podman-4.3-rootless-version.json", "podman-4.3-rootless-info.json")]:
    others = sorted(engine.glob("docker-20.10-*.json")) + sorted(engine.glob("*libpod-info.json"))
    for other in others:
        put("engine", f"{kind}-{other.stem}",
            b"\0".join((engine / name).read_bytes() for name in [version, info, other.name]))
put("engine", "wrong-types", b'{"ApiVersion": 1.41, "MinAPIVersion": ["1.12"]}\0{"NCPU": "2", "MemTotal": -1}\0'
    b'{"Id": 5, "State": {"OOMKilled": "yes", "Pid": 1e30, "StartedAt": 7}, "Config": [], '
    b'"HostConfig": {"NanoCpus": 9223372036854775807, "CpusetCpus": "\\u001b[2J"}}\0'
    b'[{"Id": "abc", "Names": [7], "Labels": {"noisefloor.run": 1}}, 3]\0'
    b'{"StatusCode": 18446744073709551615, "Error": {"Message": 5}}\0'
    b'{"cpu_stats": {"cpu_usage": {"total_usage": "1"}}, "read": 0}\0'
    b'{"stream": "Loaded image: x:1\\n"}\n{"Action": "oom", "Actor": {"ID": 1}, "id": "0123456789ab"}\n')
put("engine", "heads", b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
    b"Content-Length: 99999999999999999999999\r\n\r\n\0HTTP/1.1 500\r\n\r\n{\"message\": \"\\u0007\"}")

# errata: a syntax byte (markdown 0, HTML 1, YAML 2, JSON 3, CSV 4, source 5, text 6), then a file
# quoting the target's fixed figures (1.6712 → 3.1706×, 34.97 → 41.23 ns/op, CV 18.9% → 4.2%).
errata_texts = {
    "markdown": (0, "The pinned run is 1.67× the idle one (34.97 ns/op, CV 18.9 %, ± 1.5%).\n"
                    "| idle | 34.97ns | +67% | 167% |\nv1.67.0 on 2026-01-67, id x1.67\n"),
    "html": (1, "<p>idle: <b>1.67x</b> slower, 34.97 ns/op</p><!-- 18.9% -->\n"),
    "yaml": (2, "claim: noisy is 1.67× idle\nmedian: 34.97 ns/op\ncv: 18.9%\n"),
    "json": (3, '{"ratio": "1.67×", "median": "34.97 ns/op", "cv": 18.9}\n'),
    "csv": (4, "condition,median,cv\nidle,34.97 ns/op,18.9%\n"),
    "source": (5, "// the ratio was 1.67x (BenchmarkGet, idle)\nconst x = 1.67 // 34.97 ns/op\n"),
    "text": (6, "34.97\n1.671\n18.90%\n"),
}
for name, (syntax, body) in errata_texts.items():
    put("errata", name, bytes([syntax]) + body.encode())
for p in sorted(repo.glob("*.md")) + sorted((repo / "docs").glob("*.md")):
    put("errata", "markdown-" + p.name, b"\0" + p.read_bytes())


# tree: records split at NUL: a kind ('f' file, 'd' directory, 'l' link, 'p' FIFO), a path under
# the results root up to a newline, then the content or the link's target (tests/fuzz/tree.cpp).
def record(kind, path, content=b""):
    return kind + path.encode() + b"\n" + content


for d in sorted((data / "results").iterdir()):
    honest = [record(b"f", f"{d.name}/20260101T000000Z/{p.name}", p.read_bytes())
              for p in sorted(d.iterdir()) if p.is_file()]
    honest.append(record(b"l", f"{d.name}/latest", b"20260101T000000Z"))
    put("tree", d.name, b"\0".join(honest))
    hostile = honest + [
        record(b"p", f"{d.name}/20260102T000000Z/run.json"),
        record(b"l", f"{d.name}/20260103T000000Z/run.json", b"/dev/zero"),
        record(b"l", f"{d.name}/20260104T000000Z/samples.jsonl", b"/dev/zero"),
        record(b"p", f"{d.name}/20260105T000000Z/experiment.yaml"),
        record(b"f", f"{d.name}/20260105T000000Z/samples.jsonl", b""),
        record(b"l", "other/20260101T000000Z", b"../../../../../../etc"),
        record(b"p", "notes.md"),
    ]
    put("tree", d.name + "-hostile", b"\0".join(hostile))

# archive: the committed results packed as `noisefloor publish` packs them (a gzip'd POSIX tar),
# and one with a link, one with a path.
import gzip, io, tarfile


def tgz(entries):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, content, link in entries:
            info = tarfile.TarInfo(name)
            if link:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    return gzip.compress(raw.getvalue(), mtime=0)


for run in sorted((data / "results").iterdir()):
    files = [(p.name, p.read_bytes(), None) for p in sorted(run.iterdir()) if p.is_file()]
    put("archive", run.name, tgz(files))
put("archive", "link", tgz([("run.json", b"{}", None), ("passwd", b"", "/etc/passwd")]))
put("archive", "path", tgz([("../run.json", b"{}", None)]))
