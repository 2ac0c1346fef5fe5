#!/usr/bin/env python3
"""A FUSE server that holds every lookup: the tests' stuck filesystem.

    fuse-hold.py MOUNTPOINT

Mounts a FUSE filesystem at MOUNTPOINT itself (mount(2) with fd=: run it
where it may mount, e.g. as root of a user's own user and mount namespace),
prints "mounted PID" (its own), and serves it: INIT and GETATTR are answered, every
LOOKUP is read and never answered.  A task that looks a name up in it then
waits in D state, SIGKILL or not (the kernel waits for an answer to a
request the server has read), for as long as this process lives; when it
exits the connection is aborted and those tasks end.  It prints "held N"
each time a lookup is held.
"""
import ctypes
import errno
import os
import struct
import sys

FUSE_LOOKUP, FUSE_FORGET, FUSE_GETATTR, FUSE_INIT = 1, 2, 3, 26
FUSE_INTERRUPT, FUSE_BATCH_FORGET = 36, 42
MS_NOSUID, MS_NODEV = 0x2, 0x4

mountpoint = sys.argv[1]
fd = os.open("/dev/fuse", os.O_RDWR)
libc = ctypes.CDLL(None, use_errno=True)
opts = f"fd={fd},rootmode=40000,user_id=0,group_id=0".encode()
if libc.mount(b"hold", mountpoint.encode(), b"fuse.hold", MS_NOSUID | MS_NODEV, opts) != 0:
    print("mount:", os.strerror(ctypes.get_errno()), flush=True)
    sys.exit(1)
print("mounted", os.getpid(), flush=True)


def reply(unique, body=b"", error=0):
    os.write(fd, struct.pack("<IiQ", 16 + len(body), error, unique) + body)


held = 0
while True:
    try:
        buf = os.read(fd, 1 << 20)
    except OSError as e:
        # ENOENT: a request interrupted before it was read; EINTR: a signal.
        if e.errno in (errno.ENOENT, errno.EINTR, errno.EAGAIN):
            continue
        sys.exit(0)  # ENODEV: unmounted or aborted
    _, opcode, unique, nodeid = struct.unpack_from("<IIQQ", buf)
    if opcode == FUSE_INIT:
        # fuse_init_out of 7.31: major, minor, max_readahead, flags,
        # max_background, congestion_threshold, max_write, time_gran,
        # max_pages, map_alignment, flags2, max_stack_depth, unused[6].
        reply(unique, struct.pack("<IIIIHHIIHHII6I", 7, 31, 0, 0, 0, 0, 4096, 1, 0, 0, 0, 0,
                                  *[0] * 6))
    elif opcode == FUSE_GETATTR:
        # fuse_attr_out: attr_valid, attr_valid_nsec, dummy, then fuse_attr:
        # ino, size, blocks, atime, mtime, ctime, their nsecs, mode, nlink,
        # uid, gid, rdev, blksize, flags.
        attr = struct.pack("<QQQQQQIIIIIIIIII", nodeid, 0, 0, 0, 0, 0, 0, 0, 0,
                           0o40755, 2, 0, 0, 0, 4096, 0)
        reply(unique, struct.pack("<QII", 1, 0, 0) + attr)
    elif opcode == FUSE_LOOKUP:
        held += 1
        print("held", held, flush=True)
    elif opcode in (FUSE_FORGET, FUSE_BATCH_FORGET, FUSE_INTERRUPT):
        pass  # no answer expected; an interrupt is not heeded
    else:
        reply(unique, error=-errno.ENOSYS)
