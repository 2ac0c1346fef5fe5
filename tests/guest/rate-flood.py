#!/usr/bin/env python3
"""Many varlink calls at once, as fast as they are answered.

    rate-flood.py [--socket PATH] [--connections N] [--calls M] METHOD [JSON]

N connections (threads), each making M calls of io.mountd.Mount.METHOD one
after another.  Prints one line:

    ok=A limit=B other=C seconds=S

ok: replies; limit: LimitExceeded errors; other: any other error (the
first is printed on stderr).  Exit status 0 unless a connection failed.
"""

import argparse
import json
import socket
import sys
import threading
import time

ERROR_LIMIT = "io.mountd.Mount.LimitExceeded"


def connection(path, message, calls, counts, lock):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    buf = b""
    local = {"ok": 0, "limit": 0, "other": 0}
    first = None
    for _ in range(calls):
        s.sendall(message)
        while b"\0" not in buf:
            data = s.recv(65536)
            if not data:
                raise ConnectionError("mountd closed the connection")
            buf += data
        reply, _, buf = buf.partition(b"\0")
        error = json.loads(reply).get("error")
        if error is None:
            local["ok"] += 1
        elif error == ERROR_LIMIT:
            local["limit"] += 1
        else:
            local["other"] += 1
            first = first or reply.decode()
    s.close()
    with lock:
        for k, v in local.items():
            counts[k] += v
        if first and not counts["first"]:
            counts["first"] = first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", default="/run/mountd/io.mountd.Mount")
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("method")
    ap.add_argument("params", nargs="?", default="{}")
    a = ap.parse_args()
    message = (
        json.dumps({"method": "io.mountd.Mount." + a.method, "parameters": json.loads(a.params)})
        .encode()
        + b"\0"
    )
    counts = {"ok": 0, "limit": 0, "other": 0, "first": None}
    failed = []
    lock = threading.Lock()

    def run():
        try:
            connection(a.socket, message, a.calls, counts, lock)
        except OSError as e:
            failed.append(str(e))

    threads = [threading.Thread(target=run) for _ in range(a.connections)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(
        "ok=%d limit=%d other=%d seconds=%.1f"
        % (counts["ok"], counts["limit"], counts["other"], time.monotonic() - t0)
    )
    if counts["first"]:
        print("first other error: " + counts["first"], file=sys.stderr)
    for f in failed:
        print("connection failed: " + f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
