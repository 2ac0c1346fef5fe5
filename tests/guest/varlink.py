#!/usr/bin/env python3
"""A tiny varlink client for the mountd tests.

    varlink.py [--socket PATH] [--fd FILE[:MODE]]... [--more] [--count N]
               [--attach PATH] [--hold SECS] METHOD [JSON]

Sends one call (NUL-framed JSON) with the given files' descriptors as
SCM_RIGHTS (in order: index 0, 1, ...; MODE r, w, rw, path or "ns" for
/proc/PID/ns/mnt-style files, default r; "pidfd=PID" sends a pidfd) and prints every reply as one JSON
line.  Exit status 0 for a reply, 1 for an error reply (printed too), 2 for
a protocol or usage problem.  --attach PATH move_mount()s the fd returned
in the reply's "fd" to PATH, to show that a detached mount fd the daemon
returns is usable by the caller.  --count N stops a "more" stream after N
replies.  --hold SECS keeps the fds of the replies open SECS seconds after
the last reply (a detached mount held as an fd), then exits.
"""

import argparse
import array
import ctypes
import json
import os
import socket
import sys
import time

SOCKET = "/run/mountd/io.mountd.Mount"


def open_fd(spec):
    if spec.startswith("pidfd="):
        return os.pidfd_open(int(spec[6:]))
    path, _, mode = spec.partition(":")
    flags = {
        "": os.O_RDONLY,
        "r": os.O_RDONLY,
        "w": os.O_WRONLY,
        "rw": os.O_RDWR,
        "path": os.O_PATH,
        "ns": os.O_RDONLY,
    }[mode]
    if mode == "path" or os.path.isdir(path):
        flags |= os.O_DIRECTORY if os.path.isdir(path) and mode != "path" else 0
    return os.open(path, flags | os.O_CLOEXEC)


def recv_message(sock, buf, fds):
    while b"\0" not in buf:
        data, ancdata, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(253 * 4))
        for level, typ, cdata in ancdata:
            if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                a = array.array("i")
                a.frombytes(cdata[: len(cdata) - (len(cdata) % a.itemsize)])
                fds.extend(a)
        if not data:
            raise EOFError("connection closed")
        buf += data
    msg, _, rest = buf.partition(b"\0")
    return json.loads(msg), rest


def move_mount(fd, path):
    libc = ctypes.CDLL(None, use_errno=True)
    MOVE_MOUNT_F_EMPTY_PATH = 0x00000004
    AT_FDCWD = -100
    r = libc.syscall(429, fd, b"", AT_FDCWD, path.encode(), MOVE_MOUNT_F_EMPTY_PATH)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", default=os.environ.get("MOUNTD_SOCKET", SOCKET))
    ap.add_argument("--fd", action="append", default=[])
    ap.add_argument("--more", action="store_true")
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--attach")
    ap.add_argument("--hold", type=float, default=0)
    ap.add_argument("--raw", help="send this exact text instead of building a call")
    ap.add_argument("method", nargs="?")
    ap.add_argument("parameters", nargs="?", default="{}")
    args = ap.parse_args()

    if args.raw is not None:
        payload = args.raw.encode()
    else:
        if not args.method:
            ap.error("METHOD is required")
        call = {"method": args.method, "parameters": json.loads(args.parameters)}
        if args.more:
            call["more"] = True
        payload = json.dumps(call).encode()
    fds = [open_fd(s) for s in args.fd]

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(args.socket)
    anc = []
    if fds:
        anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
    sock.sendmsg([payload + b"\0"], anc)
    for fd in fds:
        os.close(fd)

    buf = b""
    n = 0
    status = 0
    held = []
    while True:
        received = []
        try:
            msg, buf = recv_message(sock, buf, received)
        except EOFError as e:
            print(f"varlink.py: {e}", file=sys.stderr)
            return 2
        print(json.dumps(msg), flush=True)
        n += 1
        if "error" in msg:
            status = 1
            break
        params = msg.get("parameters", {})
        if args.attach and "fd" in params:
            move_mount(received[params["fd"]], args.attach)
        if args.hold:
            held.extend(received)
        else:
            for fd in received:
                os.close(fd)
        if not msg.get("continues") or (args.count and n >= args.count):
            break
    sock.close()
    if held:
        time.sleep(args.hold)
    return status


if __name__ == "__main__":
    sys.exit(main())
