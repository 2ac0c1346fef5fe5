#!/usr/bin/env python3
"""Compare a List reply (the last JSON line of REPLY) with MOUNTINFO mount by
mount: the same mounts, and for each the same old IDs, parent, device, root,
mount point, type, source, super options and propagation.  Prints the first
differences and exits 1 if there are any.

    list-vs-mountinfo.py REPLY MOUNTINFO [DEVROOT]

DEVROOT: the device node mountd gives for mountinfo's "/dev/root".
"""
import json
import re
import sys


def unoctal(s):
    return re.sub(r"\\([0-3][0-7][0-7])", lambda m: chr(int(m.group(1), 8)), s)


def mountinfo(path, devroot):
    mounts = {}
    for line in open(path):
        f = line.rstrip("\n").split(" ")
        sep = f.index("-", 6)
        opt = dict(o.split(":", 1) for o in f[6:sep] if ":" in o)
        source = unoctal(f[sep + 2])
        if source == "/dev/root" and devroot:
            source = devroot
        mounts[int(f[0])] = {
            "oldParentId": int(f[1]),
            "device": f[2],
            "root": unoctal(f[3]),
            "mountPoint": unoctal(f[4]),
            "fsType": unoctal(f[sep + 1]),
            "source": source,
            "options": f[sep + 3],
            "peerGroup": int(opt.get("shared", 0)),
            "master": int(opt.get("master", 0)),
            "propagation": "shared" if "shared" in opt else "slave" if "master" in opt
            else "unbindable" if "unbindable" in f[6:sep] else "private",
        }
    return mounts


def main():
    reply, info = sys.argv[1], sys.argv[2]
    devroot = sys.argv[3] if len(sys.argv) > 3 else None
    lines = [l for l in open(reply) if l.strip()]
    # A List called with "more" answers in parts: their mounts in order.
    got = {m["oldId"]: m for l in lines for m in json.loads(l)["parameters"]["mounts"]}
    want = mountinfo(info, devroot)
    bad = []
    if set(got) != set(want):
        bad.append(f"mounts: {len(got)} listed, {len(want)} in mountinfo; "
                   f"only listed {sorted(set(got) - set(want))[:5]}, "
                   f"only in mountinfo {sorted(set(want) - set(got))[:5]}")
    for i in sorted(set(got) & set(want)):
        for k, v in want[i].items():
            if got[i].get(k) != v:
                bad.append(f"mount {i} ({want[i]['mountPoint']}): {k} {got[i].get(k)!r} != {v!r}")
    for b in bad[:10]:
        print(b)
    print(f"{len(want)} mounts in mountinfo, {len(got)} listed, {len(bad)} difference(s)")
    sys.exit(1 if bad else 0)


main()
