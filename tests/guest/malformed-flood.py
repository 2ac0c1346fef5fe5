#!/usr/bin/env python3
"""N connections to mountd, one after another, each sending one malformed
message and waiting until mountd closes it.

    malformed-flood.py N [SOCKET]

Each makes mountd write one warning about a peer (daemon/request-peerlog.c).
"""

import socket
import sys


def main():
    n = int(sys.argv[1])
    path = sys.argv[2] if len(sys.argv) > 2 else "/run/mountd/io.mountd.Mount"
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(path)
        s.sendall(b"{not json\0")
        s.recv(1)
        s.close()


if __name__ == "__main__":
    main()
