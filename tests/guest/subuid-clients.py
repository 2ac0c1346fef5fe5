#!/usr/bin/env python3
"""Processes as a user's subuids, as a rootless container runs them.

    subuid-clients.py hold N
    subuid-clients.py run N -- CMD [ARG...]

Run by root: makes a user namespace as uid 1000 (USER), maps 65536 uids
from 100000 (SUBUIDS) into it the way newuidmap would from /etc/subuid,
then starts N processes in it, the i-th as uid i there (SUBUIDS + i to
everyone else).

hold: each connects to mountd, calls org.varlink.service.GetInfo and
reports; all keep their connections.  Prints "answered=A closed=C" once
all have reported, then holds them until stdin closes.
run: each runs CMD in turn (stdin, stdout, stderr inherited).
"""

import os
import socket
import sys

USER = 1000
SUBUIDS = 100000
COUNT = 65536
SOCK = "/run/mountd/io.mountd.Mount"


def as_subuid(i):
    os.setgroups([])
    os.setresgid(i, i, i)
    os.setresuid(i, i, i)


def hold_one(report, hold):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    try:
        s.connect(SOCK)
        s.sendall(b'{"method":"org.varlink.service.GetInfo"}\0')
        answered = b"\0" in s.recv(65536)
    except OSError:
        answered = False
    os.write(report, b"a" if answered else b"c")
    os.read(hold, 1)  # until the parent is done: EOF
    os._exit(0)


def inside(mode, n, cmd):
    r, w = os.pipe()
    hold_r, hold_w = os.pipe()
    children = []
    for i in range(1, n + 1):
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.close(hold_w)
            as_subuid(i)
            if mode == "hold":
                hold_one(w, hold_r)
            os.execvp(cmd[0], cmd)
        children.append(pid)
        if mode == "run":
            os.waitpid(pid, 0)
    os.close(w)
    os.close(hold_r)
    if mode == "hold":
        got = b""
        while len(got) < n:
            chunk = os.read(r, n)
            if not chunk:
                break
            got += chunk
        print(f"answered={got.count(b'a')} closed={got.count(b'c')}", flush=True)
        sys.stdin.read()  # hold until our stdin closes
    os.close(hold_w)
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    cmd = sys.argv[4:] if mode == "run" else []
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setgroups([])
        os.setresgid(USER, USER, USER)
        os.setresuid(USER, USER, USER)
        os.unshare(os.CLONE_NEWUSER)
        os.write(ready_w, b"r")
        os.read(go_r, 1)
        inside(mode, n, cmd)
        os._exit(0)
    os.read(ready_r, 1)
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{pid}/{name}", "w") as f:
            f.write(f"0 {SUBUIDS} {COUNT}\n")
    os.write(go_w, b"g")
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
