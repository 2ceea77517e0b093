#!/usr/bin/env python3
"""Runs and archives for the store's tests (e2e_store), made from a real result directory.

  store_runs.py make SRC DST RUN_ID [--cpu MODEL] [--factor F] [--experiment NAME] [--condition OLD=NEW]
                     [--started UTC]
      copies the result SRC to DST as run RUN_ID: every kept value times F, the CPU model name
      replaced (another machine), the experiment or a condition renamed. summary.json is left for
      `noisefloor report DST --format json` to write (the test does), as noisefloor would.
  store_runs.py pack DIR OUT [--member NAME=PATH] [--link NAME=TARGET] [--name-as OLD=NEW]
      DIR's files as a gzip'd POSIX tar (what `noisefloor publish` sends), with hostile twists.
  store_runs.py variants DIR OUT N [MACHINES]
      N archives of DIR in OUT, each another run (run.json's run_id and summary.json's id rewritten),
      from MACHINES machines in turn (the CPU model named "CPU k"; default 1: DIR's own).
  store_runs.py bomb OUT MIB        a gzip'd tar holding one file of MIB MiB of zeros.
  store_runs.py load URL KEY DIR PUBLISHERS RUNS [ONCE]
      PUBLISHERS threads each publish RUNS archives from DIR, each archive twice in all (ONCE=1:
      each once, the first PUBLISHERS*RUNS archives):
      prints {"created": n, "duplicate": n, "errors": [...], "latencies_ms": [...]} as JSON.
"""
import gzip
import http.client
import io
import json
import os
import shutil
import sys
import tarfile
import threading
import time
import urllib.parse


def make(src, dst, run_id, cpu=None, factor=1.0, experiment=None, renames=(), started=None):
    shutil.copytree(src, dst)
    for stale in ("summary.json", "report.html", "table.md", "cv-summary.txt"):
        if os.path.exists(os.path.join(dst, stale)):
            os.remove(os.path.join(dst, stale))
    renames = dict(renames)
    run = json.load(open(os.path.join(dst, "run.json")))
    run["run_id"] = run_id
    if experiment is not None:
        run["experiment"] = experiment
    if started is not None:
        run["started_utc"] = started
    run["conditions"] = [renames.get(c, c) for c in run.get("conditions", [])]
    for c in run.get("condition_records", []):
        c["condition"] = renames.get(c["condition"], c["condition"])
    json.dump(run, open(os.path.join(dst, "run.json"), "w"), indent=2)
    fp = json.load(open(os.path.join(dst, "fingerprint.json")))
    if cpu is not None:
        fp["host"]["cpu"]["model_name"]["value"] = cpu
    if started is not None:
        fp["run"]["started_utc"] = started
    json.dump(fp, open(os.path.join(dst, "fingerprint.json"), "w"), indent=2)
    out = []
    for line in open(os.path.join(dst, "samples.jsonl")):
        s = json.loads(line)
        s["condition"] = renames.get(s["condition"], s["condition"])
        s["metrics"][0]["value"] = round(s["metrics"][0]["value"] * factor, 6)
        out.append(json.dumps(s))
    open(os.path.join(dst, "samples.jsonl"), "w").write("\n".join(out) + "\n")
    for old, new in renames.items():
        if os.path.exists(os.path.join(dst, old + ".txt")):
            os.rename(os.path.join(dst, old + ".txt"), os.path.join(dst, new + ".txt"))


def gz(tar_bytes):
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as g:
        g.write(tar_bytes)
    return buffer.getvalue()


def pack(directory, members=(), links=(), rename=()):
    rename = dict(rename)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        entries = [(rename.get(n, n), os.path.join(directory, n)) for n in sorted(os.listdir(directory))]
        entries += [tuple(m.split("=", 1)) for m in members]
        for name, path in entries:
            data = open(path, "rb").read()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
        for link in links:
            name, target = link.split("=", 1)
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return gz(raw.getvalue())


def variants(directory, out, n, machines=1):
    run = json.load(open(os.path.join(directory, "run.json")))
    fingerprint = json.load(open(os.path.join(directory, "fingerprint.json")))
    summary = open(os.path.join(directory, "summary.json")).read()
    old = f'"id": "{run["run_id"]}"'
    assert summary.count(old) == 1, "summary.json names the run id once"
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        variant = os.path.join(out, "dir")
        shutil.rmtree(variant, ignore_errors=True)
        shutil.copytree(directory, variant)
        rid = f"r-load-{i:05d}"
        run["run_id"] = rid
        json.dump(run, open(os.path.join(variant, "run.json"), "w"), indent=2)
        open(os.path.join(variant, "summary.json"), "w").write(summary.replace(old, f'"id": "{rid}"'))
        if machines > 1:
            fingerprint["host"]["cpu"]["model_name"]["value"] = f"CPU {i % machines}"
            json.dump(fingerprint, open(os.path.join(variant, "fingerprint.json"), "w"), indent=2)
        open(os.path.join(out, f"{rid}.tgz"), "wb").write(pack(variant))
    shutil.rmtree(os.path.join(out, "dir"))


def bomb(mib):
    raw = io.BytesIO()
    buffer = io.BytesIO()
    header = tarfile.TarInfo("samples.jsonl")
    header.size = mib << 20
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as g:
        g.write(header.tobuf(format=tarfile.USTAR_FORMAT))
        zeros = bytes(1 << 20)
        for _ in range(mib):
            g.write(zeros)
    del raw
    return buffer.getvalue()


def publish_once(url, key, body):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    conn.request("POST", "/api/v1/runs", body, {"Authorization": "Bearer " + key, "Content-Type": "application/gzip"})
    response = conn.getresponse()
    answer = response.read()
    conn.close()
    return response.status, answer


def load(url, key, directory, publishers, runs, once=False):
    archives = sorted(os.listdir(directory))
    bodies = [open(os.path.join(directory, a), "rb").read() for a in archives]
    if not bodies:
        sys.exit(f"store_runs.py load: no archives in {directory}")
    result = {"created": 0, "duplicate": 0, "errors": [], "latencies_ms": []}
    lock = threading.Lock()

    def publisher(p):
        for r in range(runs):
            # Publisher p sends archive (p*runs + r) // 2: each archive twice, by one or two publishers.
            body = bodies[(p * runs + r) % len(bodies)] if once else bodies[(p * runs + r) // 2 % len(bodies)]
            start = time.monotonic()
            try:
                status, answer = publish_once(url, key, body)
            except OSError as err:
                status, answer = 0, str(err).encode()
            ms = (time.monotonic() - start) * 1000
            with lock:
                result["latencies_ms"].append(ms)
                if status == 201:
                    result["created"] += 1
                elif status == 200:
                    result["duplicate"] += 1
                else:
                    result["errors"].append(f"{status}: {answer[:200]!r}")

    threads = [threading.Thread(target=publisher, args=(p,)) for p in range(publishers)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result["seconds"] = time.monotonic() - start
    print(json.dumps(result))


def options(args, flag):
    return [args[i + 1] for i, a in enumerate(args) if a == flag]


def main(argv):
    command, args = argv[1], argv[2:]
    if command == "make":
        cpu = (options(args, "--cpu") or [None])[0]
        factor = float((options(args, "--factor") or ["1"])[0])
        experiment = (options(args, "--experiment") or [None])[0]
        renames = [r.split("=", 1) for r in options(args, "--condition")]
        started = (options(args, "--started") or [None])[0]
        make(args[0], args[1], args[2], cpu, factor, experiment, renames, started)
    elif command == "pack":
        renames = [r.split("=", 1) for r in options(args, "--name-as")]
        open(args[1], "wb").write(pack(args[0], options(args, "--member"), options(args, "--link"), renames))
    elif command == "variants":
        variants(args[0], args[1], int(args[2]), int(args[3]) if len(args) > 3 else 1)
    elif command == "bomb":
        open(args[0], "wb").write(bomb(int(args[1])))
    elif command == "load":
        load(args[0], args[1], args[2], int(args[3]), int(args[4]), len(args) > 5 and args[5] == "1")
    else:
        sys.exit(f"store_runs.py: unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
