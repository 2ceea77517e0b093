#!/usr/bin/env python3
"""A hostile Docker engine for tests: a TCP proxy in front of the real engine's unix socket that
forwards every request and doctors one thing, as a compromised benchmark machine could.

usage: doctored_engine.py SOCKET PORT_FILE MODE [ARG]
  MODE facts-escape TARGET: every container's log stream gains one more stdout frame, a
       `file` line of nf-probe --facts framing whose path climbs out of /proc to TARGET.
  MODE forward: nothing doctored (a plain TCP engine).
  MODE endless PATH: a request whose path contains PATH (e.g. /version) is answered 200 with a
       JSON body that never ends, until the client hangs up.
  MODE lying-inspect: a container's GET /containers/ID/json answer says State.OOMKilled "yes",
       State.Pid 1e30, State.StartedAt 7 and Config.Tty "true" (types the API does not give them).
  MODE drop-cpuset: a POST /containers/create loses HostConfig.CpusetCpus on its way, as an engine
       that accepts a limit and applies none (rootless Podman without the cpuset controller).

A request that asks for an upgrade (an attach: "Upgrade: tcp") is passed on, and from then on
the bytes go through unread both ways (the engine's 101 answer and the raw stream after it).

It listens on 127.0.0.1 (an ephemeral port, written to PORT_FILE once it listens), serves until
killed, and prints one line per doctored answer on stderr."""
import http.client
import json
import re
import http.server
import socket
import struct
import sys
import threading


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=300)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(300)
        self.sock.connect(self.path)


SOCKET, PORT_FILE, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
ARG = sys.argv[4] if len(sys.argv) > 4 else ""
HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade"}


def frame(stream, data):
    return struct.pack(">BxxxI", stream, len(data)) + data


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def endless(self):
        print(f"doctored_engine: endless answer to {self.path}", file=sys.stderr, flush=True)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        chunk = b'{"Version": "' + b"x" * 65536
        try:
            while True:
                self.wfile.write(chunk)
        except OSError:
            pass

    def upgrade(self, body):
        """The request with its body as read, then the bytes both ways (the engine's 101 answer and
        the raw stream after it) until either side closes; each wait bounded by 300 s."""
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("content-length", "transfer-encoding")}
        if body is not None or "Content-Length" in self.headers:
            headers["Content-Length"] = str(len(body or b""))
        head = f"{self.command} {self.path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.close_connection = True
        try:
            engine = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            engine.settimeout(300)
            engine.connect(SOCKET)
        except OSError as e:
            engine.close()
            return self.send_error(502, f"doctored_engine: cannot reach the engine: {e}")
        with engine:
            engine.sendall(head.encode() + b"\r\n" + (body or b""))
            self.connection.settimeout(300)

            def pump(read, sink):
                try:
                    while data := read(65536):
                        sink.sendall(data)
                except OSError:
                    pass
                try:
                    sink.shutdown(socket.SHUT_WR)
                except OSError:
                    pass

            # The client's side through rfile: bytes it sent after the headers may be buffered there.
            back = threading.Thread(target=pump, args=(engine.recv, self.connection), daemon=True)
            back.start()
            pump(self.rfile.read1, engine)
            back.join(300)

    def forward(self):
        if MODE == "endless" and ARG in self.path:
            return self.endless()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        if self.headers.get("Upgrade"):
            return self.upgrade(body)
        if MODE == "drop-cpuset" and self.command == "POST" and self.path.split("?")[0].endswith("/containers/create"):
            create = json.loads(body)
            if create.get("HostConfig", {}).pop("CpusetCpus", ""):
                body = json.dumps(create).encode()
                print(f"doctored_engine: dropped the cpuset of {self.path}", file=sys.stderr, flush=True)
        upstream = UnixConnection(SOCKET)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        if body is not None:
            headers["Content-Length"] = str(len(body))
        upstream.request(self.command, self.path, body=body, headers=headers)
        response = upstream.getresponse()
        data = response.read()
        if MODE == "facts-escape" and self.command == "GET" and "/logs" in self.path and response.status == 200:
            line = f"file /proc/../../..{ARG} 3\nabc\n".encode()
            data += frame(1, line)
            print(f"doctored_engine: appended {line!r} to {self.path}", file=sys.stderr, flush=True)
        if MODE == "lying-inspect" and self.command == "GET" and re.search(r"/containers/[^/]+/json$", self.path.split("?")[0]) \
                and response.status == 200:
            inspect = json.loads(data)
            inspect.setdefault("State", {}).update({"OOMKilled": "yes", "Pid": 1e30, "StartedAt": 7})
            inspect.setdefault("Config", {})["Tty"] = "true"
            data = json.dumps(inspect).encode()
            print(f"doctored_engine: lied in {self.path}", file=sys.stderr, flush=True)
        self.send_response(response.status)
        for k, v in response.getheaders():
            if k.lower() not in HOP:
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

    do_GET = do_POST = do_DELETE = do_PUT = do_HEAD = forward


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
with open(PORT_FILE, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
