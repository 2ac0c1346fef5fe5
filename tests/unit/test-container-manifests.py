#!/usr/bin/python3
# The privileges mountd's container is given, in the three places that
# state them — container/config.json (crun), the Kubernetes DaemonSet and
# mountd.service's CapabilityBoundingSet= — checked against each other,
# against the Kubernetes API types (python3-kubernetes: a field the API does
# not have, or has elsewhere, is lost on the way through them), and against
# docs/CONTAINER.md, which must name each of them.  No cluster is needed.
import json
import re
import sys

import yaml
from kubernetes.client import ApiClient

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
n = failed = 0


def ok(cond, name, detail=""):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + f" {n} - {name}")
    if not cond and detail:
        for line in str(detail).splitlines():
            print("# " + line)


def read(path):
    with open(f"{ROOT}/{path}") as f:
        return f.read()


config = json.loads(read("container/config.json"))
docs = read("docs/CONTAINER.md")
unit_caps = set(re.search(r"^CapabilityBoundingSet=(.*)$", read("units/mountd.service"), re.M)
                .group(1).split())
docs_ds = list(yaml.safe_load_all(read("deploy/kubernetes/mountd-daemonset.yaml")))

# ---- config.json
caps = config["process"]["capabilities"]
ok(set(caps["bounding"]) == unit_caps, "config.json: bounding set = mountd.service's",
   f"{sorted(caps['bounding'])} vs {sorted(unit_caps)}")
ok(caps["bounding"] == caps["effective"] == caps["permitted"],
   "  effective and permitted are the bounding set")
ok(not caps.get("inheritable") and not caps.get("ambient"), "  nothing inheritable or ambient")
ok(config["process"].get("noNewPrivileges") is True, "  no new privileges")
ok(config["process"]["user"] == {"uid": 0, "gid": 0}, "  runs as root (mounting needs it)")
ok(config["root"].get("readonly") is True, "  read-only root")
ns = sorted(x["type"] for x in config["linux"]["namespaces"])
ok(ns == ["cgroup", "ipc", "mount", "uts"],
   "  own mount, ipc, uts, cgroup namespaces; the host's pid, network, user", ns)
ok(not any("path" in x for x in config["linux"]["namespaces"]),
   "  joins no other process's namespace")
ok("seccomp" not in config["linux"], "  no seccomp filter (fsinfo)")
dev = config["linux"]["resources"]["devices"]
ok(dev[0] == {"allow": False, "access": "rwm"}, "  devices: all denied first")
ok({(d.get("type"), d.get("major"), d.get("minor")) for d in dev[1:]} ==
   {("b", None, None), ("c", 10, 237), ("c", 10, 236), ("c", 1, 3), ("c", 1, 5), ("c", 1, 8),
    ("c", 1, 9)},
   "  then block devices, loop-control, mapper/control, null, zero, random, urandom only", dev)
binds = {m["source"]: m for m in config["mounts"] if m["type"] == "bind"}
ok(all({"nosuid", "noexec"} <= set(m["options"]) and
       ("nodev" in m["options"] or m["destination"] == "/dev") for m in config["mounts"]),
   "  every mount nosuid,noexec, and all but /dev nodev")
writable = sorted(s for s, m in binds.items() if "ro" not in m["options"])
ok(writable == ["/run/mountd"], "  the one writable host path is the socket's directory",
   writable)
ok(all(m["source"] == m["destination"] for m in binds.values()),
   "  host paths appear at their own paths")

# ---- the DaemonSet, through the API types
ok(len(docs_ds) == 1 and docs_ds[0]["kind"] == "DaemonSet" and
   docs_ds[0]["apiVersion"] == "apps/v1", "DaemonSet: one apps/v1 DaemonSet")
ds = docs_ds[0]


class Response:
    data = json.dumps(ds)


api = ApiClient()
try:
    obj = api.deserialize(Response, "V1DaemonSet")
    back = api.sanitize_for_serialization(obj)
    err = None
except (ValueError, TypeError) as e:
    back, err = None, e
ok(err is None, "  the API types take it (required fields, types)", err)
ok(back == ds, "  and give it back unchanged: no field unknown or misplaced",
   "\n".join(sorted(set(json.dumps(back, sort_keys=True, indent=0).splitlines()) ^
                    set(json.dumps(ds, sort_keys=True, indent=0).splitlines()))))
spec = ds["spec"]["template"]["spec"]
ok(ds["spec"]["selector"]["matchLabels"].items() <=
   ds["spec"]["template"]["metadata"]["labels"].items(), "  its selector matches its pods")
ok(spec.get("hostPID") is True and spec.get("hostNetwork") is True and not spec.get("hostIPC"),
   "  host pid and network namespaces, not ipc (as config.json)")
(c,) = spec["containers"]
sc = c["securityContext"]
ok(sc.get("privileged") is True and sc.get("runAsUser") == 0,
   "  privileged, root (block devices; mountd drops to its seven itself)")
ok(sc.get("readOnlyRootFilesystem") is True, "  read-only root")
ok(sc.get("seccompProfile") == {"type": "Unconfined"}, "  seccomp Unconfined (fsinfo)")
vols = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"]}
mounts = {vols[m["name"]]: m for m in c["volumeMounts"]}
ok(all(p == m["mountPath"] for p, m in mounts.items()), "  host paths at their own paths")
ok("/run/mountd" in mounts and not mounts["/run/mountd"].get("readOnly"),
   "  the socket directory /run/mountd, writable, for the kubelet's side")
ok(sorted(p for p, m in mounts.items() if not m.get("readOnly")) == ["/run/mountd"],
   "  every other host path read-only")
cover = {s: [p for p in mounts if s == p or s.startswith(p + "/")] for s in binds}
ok(all(cover.values()), "  every host path of config.json is in a volume", cover)
ok(all(any(s == p or s.startswith(p + "/") for s in binds) for p in mounts),
   "  and no other", sorted(mounts))
sock = re.search(r"^ListenStream=(.*)/[^/]*$", read("units/mountd.socket"), re.M).group(1)
ok(sock == "/run/mountd" and "/run/mountd" in binds, "  the socket's directory is mountd.socket's")

# ---- mountd-container.socket is mountd.socket, for the container
def section(text, name):
    m = re.search(rf"^\[{name}\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    return m.group(1).strip() if m else None


ours = read("container/mountd-container.socket")
ok(section(ours, "Socket") is not None and
   section(ours, "Socket") == section(read("units/mountd.socket"), "Socket"),
   "mountd-container.socket: its [Socket] section is mountd.socket's")
ok(re.search(r"^Conflicts=.*\bmountd\.socket\b", ours, re.M) is not None,
   "  and it conflicts with mountd.socket")

# ---- the docs name every grant
for cap in sorted(unit_caps):
    ok(f"| {cap}" in docs or f"{cap}, {cap.replace('UID', 'GID')}" in docs or
       re.search(rf"\| [A-Z_, ]*{cap}\b[A-Z_, ]*\|", docs) is not None,
       f"docs/CONTAINER.md explains {cap}")
for t in ["pid", "network", "user", "mount", "ipc", "uts", "cgroup"]:
    ok(re.search(rf"^\| [a-z, ]*\b{t}\b", docs, re.M) is not None,
       f"docs/CONTAINER.md explains the {t} namespace")
for m in config["mounts"]:
    ok(f"`{m['destination']}`" in docs, f"docs/CONTAINER.md explains {m['destination']}")
for p in ["hostPID", "hostNetwork", "privileged"]:
    ok(p in docs, f"docs/CONTAINER.md explains the DaemonSet's {p}")

print(f"1..{n}")
sys.exit(1 if failed else 0)
