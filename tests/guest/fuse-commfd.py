#!/usr/bin/env python3
"""libfuse's side of fusermount3's _FUSE_COMMFD protocol, for the tests.

    fuse-commfd.py [--die] [--hold SECS] MOUNTPOINT [OPTIONS]

Runs `fusermount3 -o OPTIONS -- MOUNTPOINT` as libfuse does (a socketpair,
the child's end named in _FUSE_COMMFD) and receives the /dev/fuse fd it
sends.  Prints "fd" when one came, then holds it SECS seconds (default 0)
and exits with fusermount3's status.  There is no FUSE server: the mount
answers ENOTCONN once the fd is closed.  --die closes this side before
fusermount3 can send (a caller that dies first): fusermount3 must then
leave nothing mounted.  With auto_unmount among OPTIONS fusermount3 stays
to watch: this side closes the fd and the socket and exits at once, as a
FUSE server that dies, and fusermount3 is to unmount.
"""
import argparse
import array
import os
import socket
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--die", action="store_true")
ap.add_argument("--hold", type=float, default=0)
ap.add_argument("mountpoint")
ap.add_argument("options", nargs="?", default="")
a = ap.parse_args()

ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
env = dict(os.environ, _FUSE_COMMFD=str(theirs.fileno()))
argv = ["fusermount3", "-o", a.options, "--", a.mountpoint]
p = subprocess.Popen(argv, env=env, pass_fds=[theirs.fileno()])
theirs.close()
if a.die:
    ours.close()
    sys.exit(p.wait())
fds = array.array("i")
msg, anc, _, _ = ours.recvmsg(1, socket.CMSG_LEN(fds.itemsize))
for level, kind, data in anc:
    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
        fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
if fds and "auto_unmount" in a.options.split(","):
    # fusermount3 stays to watch: gone are the fd and then this side, as
    # when a FUSE server dies.
    print("fd", flush=True)
    for fd in fds:
        os.close(fd)
    ours.close()
    sys.exit(0)
rc = p.wait()
if fds:
    print("fd", flush=True)
    time.sleep(a.hold)
sys.exit(rc)
