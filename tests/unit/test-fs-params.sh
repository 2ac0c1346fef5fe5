#!/bin/bash
# daemon/ops-fs-params.c against the kernel the guest runs: for each filesystem
# whose parameters the kernel describes with an fs_parameter_spec, every
# key it has is in mountd's table and every key of the table is one it has;
# keys the kernel itself types as a block device, an fd or a path are not
# taken for values.  A new kernel's new parameter fails here before a
# non-root caller can set it unclassified.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=$("$top/scripts/kernel-build" --series-tree 2>/dev/null | tail -1)
prog=$top/build/tests/unit/test-fs-params
if [ ! -f "$tree/fs/fs_parser.c" ]; then
	echo "not ok 1 - no kernel tree (scripts/kernel-build --series-tree: '$tree')"
	echo "1..1"
	exit 1
fi
python3 - "$tree" 3< <("$prog" --dump) <<'PY'
import os, re, sys
tree = sys.argv[1]
table = {}
for line in os.fdopen(3):
    words = line.split()
    table.setdefault(words[0], {})
    if len(words) == 3:
        table[words[0]][words[1]] = words[2]
# fstype: the spec that parses its fsconfig() keys
specs = {
    "tmpfs": ("mm/shmem.c", "shmem_fs_parameters"),
    "ramfs": ("fs/ramfs/inode.c", "ramfs_fs_parameters"),
    "overlay": ("fs/overlayfs/params.c", "ovl_parameter_spec"),
    "ext4": ("fs/ext4/super.c", "ext4_param_specs"),
    "squashfs": ("fs/squashfs/super.c", "squashfs_fs_parameters"),
    "erofs": ("fs/erofs/super.c", "erofs_fs_parameters"),
    "fuse": ("fs/fuse/inode.c", "fuse_fs_parameters"),
    "proc": ("fs/proc/root.c", "proc_fs_parameters"),
    "cgroup2": ("kernel/cgroup/cgroup.c", "cgroup2_fs_parameters"),
    "cgroup": ("kernel/cgroup/cgroup-v1.c", "cgroup1_fs_parameters"),
    "cpuset": ("kernel/cgroup/cgroup.c", "cpuset_fs_parameters"),
    "autofs": ("fs/autofs/inode.c", "autofs_param_specs"),
    "bpf": ("kernel/bpf/inode.c", "bpf_fs_parameters"),
    "tracefs": ("fs/tracefs/inode.c", "tracefs_param_specs"),
    "debugfs": ("fs/debugfs/inode.c", "debugfs_param_specs"),
}
# Keys mountd takes elsewhere: the source has its own field.
elsewhere = {"source"}
n = bad = 0
def check(cond, text):
    global n, bad
    n += 1
    bad += not cond
    print(("ok" if cond else "not ok") + " %d - %s" % (n, text))
for fstype, (path, name) in sorted(specs.items()):
    src = open("%s/%s" % (tree, path)).read()
    m = re.search(r"fs_parameter_spec\s+%s\[\]\s*=\s*\{(.*?)\n\};" % name, src, re.S)
    check(m is not None, "%s: %s in %s" % (fstype, name, path))
    if not m:
        continue
    kernel = {}
    for macro, key in re.findall(r"(fsparam_\w+|__fsparam)\s*\([^\"]*\"([^\"]+)\"", m.group(1)):
        kernel.setdefault(key, set()).add(macro)
    ours = table.get(fstype, {})
    missing = sorted(set(kernel) - set(ours) - elsewhere)
    check(not missing, "%s: every kernel key is classified%s" % (fstype, ": missing " + " ".join(missing) if missing else ""))
    extra = sorted(set(ours) - set(kernel))
    check(not extra, "%s: every key of the table is the kernel's%s" % (fstype, ": not in the kernel: " + " ".join(extra) if extra else ""))
    wrong = sorted(k for k, ms in kernel.items() if k in ours and ours[k] == "value"
                   and ms & {"fsparam_bdev", "fsparam_fd", "fsparam_path", "fsparam_file_or_string"})
    check(not wrong, "%s: no device, fd or path taken for a value%s" % (fstype, ": " + " ".join(wrong) if wrong else ""))
print("1..%d" % n)
sys.exit(1 if bad else 0)
PY
