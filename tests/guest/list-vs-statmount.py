#!/usr/bin/env python3
"""Compare a List reply (the last JSON line of REPLY) with statmount() of
each mount it names, in the caller's mount namespace (run it there): the
unique IDs and their parents, the old IDs, the device, the attributes and
the propagation.  List takes them from mountinfo and listmount(), not from
statmount(); the kernel's own answer is what they must be.  Prints the
first differences and exits 1 if there are any.

    list-vs-statmount.py REPLY
"""
import ctypes
import json
import struct
import sys

NR_STATMOUNT = 457  # x86_64
STATMOUNT_SB_BASIC, STATMOUNT_MNT_BASIC = 0x1, 0x2
ATTRS = [("readOnly", 0x1), ("noSuid", 0x2), ("noDev", 0x4), ("noExec", 0x8),
         ("noDiratime", 0x80), ("noSymfollow", 0x200000)]
ATIME = {0x0: "relatime", 0x10: "noatime", 0x20: "strictatime"}

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def statmount(mnt_id):
    req = struct.pack("=IIQQ", 24, 0, mnt_id, STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC)
    buf = ctypes.create_string_buffer(4096)
    if libc.syscall(NR_STATMOUNT, req, buf, ctypes.c_size_t(len(buf)), 0) != 0:
        return None
    (major, minor) = struct.unpack_from("=II", buf.raw, 16)
    (mid, parent, old, old_parent, attr, prop, peer, master) = struct.unpack_from(
        "=QQIIQQQQ", buf.raw, 40)
    return {
        "id": mid, "parentId": parent, "oldId": old, "oldParentId": old_parent,
        "device": f"{major}:{minor}",
        "attributes": dict([(k, bool(attr & b)) for k, b in ATTRS] +
                           [("atime", ATIME[attr & 0x70])]),
        "propagation": "shared" if prop & (1 << 20) else "slave" if prop & (1 << 19)
        else "unbindable" if prop & (1 << 17) else "private",
        "peerGroup": peer, "master": master,
    }


def main():
    lines = [l for l in open(sys.argv[1]) if l.strip()]
    mounts = [m for l in lines for m in json.loads(l)["parameters"]["mounts"]]
    bad = []
    for m in mounts:
        want = statmount(m["id"])
        if want is None:
            bad.append(f"mount {m['id']} ({m['mountPoint']}): statmount failed")
            continue
        for k, v in want.items():
            if m.get(k) != v:
                bad.append(f"mount {m['id']} ({m['mountPoint']}): {k} {m.get(k)!r} != {v!r}")
    for b in bad[:10]:
        print(b)
    print(f"{len(mounts)} mounts listed, {len(bad)} difference(s) from statmount()")
    sys.exit(1 if bad else 0)


main()
