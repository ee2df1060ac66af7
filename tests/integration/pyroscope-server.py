#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A stand-in for Pyroscope's ingest endpoint, for test-continuous.

Checks each request exactly as Pyroscope's HTTP API documents POST /ingest
(query parameters name, from, until, format, sampleRate, spyName; the body
a multipart/form-data whose part "profile" holds the gzipped pprof, as
Pyroscope's agents send it) and stores the profile it carried.  Anything else
is answered 400 and written to DIR/violations.

  pyroscope-server.py DIR PORTFILE [--fail-first N] [--hang-first N] [--refuse-all]

--fail-first N: the first N valid requests get 503; --hang-first N: the first
N requests are never answered (the connection stays open); --refuse-all:
every valid request gets 400 (a server that will never take the profile).
Writes the port it listens on (127.0.0.1) into PORTFILE.
"""
import email.parser
import email.policy
import http.server
import os
import sys
import threading
import time
import urllib.parse

EXPECTED = {"name", "from", "until", "format", "sampleRate", "spyName"}


class State:
    def __init__(self, directory, fail_first, hang_first, refuse_all):
        self.directory = directory
        self.fail_first = fail_first
        self.hang_first = hang_first
        self.refuse_all = refuse_all
        self.lock = threading.Lock()
        self.requests = 0
        self.valid = 0
        self.stored = 0


def violation(state, text):
    with state.lock, open(os.path.join(state.directory, "violations"), "a") as f:
        f.write(text + "\n")


def check(handler):
    """The profile bytes and query, or raises ValueError saying what is wrong."""
    url = urllib.parse.urlsplit(handler.path)
    if url.path != "/ingest":
        raise ValueError(f"path {url.path!r}, want /ingest")
    query = urllib.parse.parse_qs(url.query, keep_blank_values=True, strict_parsing=True)
    if set(query) != EXPECTED or any(len(v) != 1 for v in query.values()):
        raise ValueError(f"query parameters {sorted(query)}, want {sorted(EXPECTED)} once each")
    q = {k: v[0] for k, v in query.items()}
    if q["format"] != "pprof" or q["spyName"] != "sysprof":
        raise ValueError(f"format={q['format']} spyName={q['spyName']}")
    begin, until, rate = int(q["from"]), int(q["until"]), int(q["sampleRate"])
    if not (1_000_000_000 < begin < until <= time.time() + 5) or rate <= 0:
        raise ValueError(f"from={begin} until={until} sampleRate={rate}")
    ctype = handler.headers.get("Content-Type", "")
    if not ctype.startswith("multipart/form-data; boundary="):
        raise ValueError(f"Content-Type {ctype!r}")
    length = int(handler.headers.get("Content-Length", "-1"))
    if length <= 0:
        raise ValueError("no Content-Length")
    body = handler.rfile.read(length)
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
    if not message.is_multipart():
        raise ValueError("body is not multipart")
    parts = list(message.iter_parts())
    if len(parts) != 1:
        raise ValueError(f"{len(parts)} parts, want 1")
    part = parts[0]
    disposition = part.get("Content-Disposition", "")
    if part.get_param("name", header="content-disposition") != "profile" or \
            part.get_param("filename", header="content-disposition") != "profile.pprof":
        raise ValueError(f"part {disposition!r}, want form-data; name=profile; filename=profile.pprof")
    data = part.get_payload(decode=True)
    if not data.startswith(b"\x1f\x8b"):
        raise ValueError("the profile is not gzipped")
    return data, q


def make_handler(state):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            sys.stderr.write("pyroscope-server: " + (fmt % args) + "\n")

        def answer(self, code, text):
            data = text.encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            violation(state, f"GET {self.path}")
            self.answer(405, "POST only")

        def do_POST(self):
            with state.lock:
                state.requests += 1
                hang = state.requests <= state.hang_first
            if hang:
                time.sleep(3600)
                return
            try:
                data, q = check(self)
            except (ValueError, KeyError) as e:
                violation(state, f"POST {self.path}: {e}")
                self.answer(400, str(e))
                return
            with state.lock:
                state.valid += 1
                fail = state.valid <= state.fail_first
            if state.refuse_all:
                self.answer(400, "refused")
                return
            if fail:
                self.answer(503, "try later")
                return
            with state.lock:
                state.stored += 1
                name = os.path.join(state.directory, f"profile-{state.stored:04d}")
            with open(name + ".pb.gz", "wb") as f:
                f.write(data)
            with open(name + ".query", "w") as f:
                for k in sorted(q):
                    f.write(f"{k}={q[k]}\n")
            self.answer(200, "")

    return Handler


def main():
    directory, portfile = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    fail_first = int(args[args.index("--fail-first") + 1]) if "--fail-first" in args else 0
    hang_first = int(args[args.index("--hang-first") + 1]) if "--hang-first" in args else 0
    state = State(directory, fail_first, hang_first, "--refuse-all" in args)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    server.daemon_threads = True
    with open(portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
