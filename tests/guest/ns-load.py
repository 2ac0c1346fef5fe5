#!/usr/bin/env python3
"""One user with many mount namespaces of its own, asking mountd about each.

    ns-load.py SOCKET N READY-FILE

Makes N user+mount namespaces (`unshare -Urm sleep infinity`), then on one
connection pipelines an Info of every namespace, each call carrying its
namespace's fd (answered in turn while mountd makes and retires a worker
per namespace), and on a second opens a Watch stream and pipelines the same
N calls behind it (they wait, queued, for the stream to end).  Prints, for
the first connection, "answered OK LIMIT" and one "error NAME" line per
other error; for the second, "queued K" (the calls the socket took before
mountd stopped reading).  Then writes READY-FILE and holds
everything open until its standard input closes, so that the test can
serve others meanwhile.
"""

import array
import json
import os
import socket
import subprocess
import sys
import threading
import time

sock_path, n, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def frame(method, params, more=False):
    call = {"method": "io.mountd.Mount." + method, "parameters": params}
    if more:
        call["more"] = True
    return json.dumps(call).encode() + b"\0"


def send(s, data, fd=None):
    anc = []
    if fd is not None:
        anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))]
    return s.sendmsg([data], anc)


def replies(s):
    buf = b""
    while True:
        while b"\0" not in buf:
            data = s.recv(65536)
            if not data:
                return
            buf += data
        msg, _, buf = buf.partition(b"\0")
        yield json.loads(msg)


start = time.monotonic()


def progress(what):
    print(f"# {what} after {time.monotonic() - start:.0f}s", file=sys.stderr, flush=True)


procs = [subprocess.Popen(["unshare", "-Urm", "sleep", "infinity"]) for _ in range(n)]
own = os.readlink("/proc/self/ns/mnt")
deadline = time.monotonic() + 120
fds = []
for p in procs:
    while os.readlink(f"/proc/{p.pid}/ns/mnt") == own and time.monotonic() < deadline:
        time.sleep(0.01)
    fds.append(os.open(f"/proc/{p.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC))
progress(f"{n} namespaces made")
info = frame("Info", {"namespace": {"mntnsFd": 0}, "path": "/", "attribute": "statfs"})

# First the calls straight, answered in turn, on one connection.
b = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
b.connect(sock_path)
b.settimeout(300)


def sender():
    for fd in fds:
        send(b, info, fd)


t = threading.Thread(target=sender)
t.start()
ok = limit = 0
errors = []
got = 0
for r in replies(b):
    got += 1
    e = r.get("error")
    if e is None:
        ok += 1
    elif e == "io.mountd.Mount.LimitExceeded":
        limit += 1
    else:
        errors.append(e)
    if got % 100 == 0:
        progress(f"{got} answered")
    if got == n:
        break
t.join()

# Then a stream, and the calls behind it on the same connection: they
# wait, queued, and mountd stops reading the user's connections past its
# per-user queue (the user's own calls wait; nobody else's).
a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
a.connect(sock_path)
send(a, frame("Watch", {}, more=True))
a.setblocking(False)
queued = 0
for fd in fds:
    try:
        send(a, info, fd)
        queued += 1
    except BlockingIOError:
        break
print(f"answered {ok} {limit}")
for e in errors:
    print(f"error {e}")
print(f"queued {queued}")
sys.stdout.flush()
open(ready, "w").close()
sys.stdin.read()
for p in procs:
    p.kill()
for p in procs:
    p.wait()
