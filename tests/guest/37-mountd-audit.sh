#!/bin/bash
# Every request leaves one structured journal record (daemon/request-audit.c),
# whichever front end it came by and however it ended; refusals carry a
# MESSAGE_ID of their own and the policy's reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"


export MOUNTD_POLICY=$work/policy
echo 'allow user=1000 method=Info namespace=own' >"$MOUNTD_POLICY"
mkdir -p /root/audit && chmod 0700 /root /root/audit
check "mountd starts" start_mountd
chmod 0666 $SOCK

vcall List '{}' >/dev/null 2>&1                                        # 1 ok
vcall Info '{"path":"/"}' >/dev/null 2>&1                              # 2 ok
vcall Info '{"path":"/root/audit/x"}' >/dev/null 2>&1                  # 3 EACCES
vcall Create '{"fsType":"tmpfs","placement":{"path":"/tmp/audit"}}' >/dev/null 2>&1 # 4 refused
varlinkctl call $SOCK io.mountd.Mount.Info '{"path":"/"}' >/dev/null 2>&1 # 5 root
as_user busctl --system call io.mountd1 /io/mountd1 io.mountd1.Manager List 'a{sv}' 0 \
	>/dev/null 2>&1                                                    # 6 D-Bus

check_output "one record per request, both front ends: 6" '^6$' bash -c "records | wc -l"
check_output "the user's records name the user and the program" '^varlinkctl$' \
	bash -c "records MOUNTD_CALLER_UID=$USER_ID MOUNTD_METHOD=Info | fields MOUNTD_CALLER_COMM | sort -u"
check_output "a refusal has its own MESSAGE_ID, the method and the policy's reason" \
	'^Create no rule allows it' bash -c "journalctl --sync; journalctl -q -o json _PID=$mountd MESSAGE_ID=$REFUSED_ID |
		fields MOUNTD_METHOD MOUNTD_POLICY MOUNTD_PATH"
check_output "a failed step records errno and step" '^EACCES resolve' \
	bash -c "records MOUNTD_PATH=/root/audit/x | fields MOUNTD_ERRNO MOUNTD_STEP"
check_output "an allowed request records what allowed it" '^policy line 1$' \
	bash -c "records MOUNTD_CALLER_UID=$USER_ID MOUNTD_METHOD=Info MOUNTD_RESULT=ok | fields MOUNTD_POLICY"
check_output "root's request is recorded too" '^ok$' \
	bash -c "records MOUNTD_CALLER_UID=0 | fields MOUNTD_RESULT"
check_output "fields with no value are left out of a record (root's Info: no error, no policy)" \
	'^absent$' bash -c "records MOUNTD_CALLER_UID=0 | python3 -c 'import json,sys
r = json.loads(sys.stdin.readline())
gone = [\"MOUNTD_ERRNO\", \"MOUNTD_STEP\", \"MOUNTD_POLICY\", \"MOUNTD_FSTYPE\", \"MOUNTD_SOURCE\", \"MOUNTD_KERNEL_MESSAGES\"]
print(\"absent\" if not any(k in r for k in gone) and r.get(\"MOUNTD_PATH\") == \"/\" else r)'"
check_output "the D-Bus call is recorded with the user" '^List$' \
	bash -c "records MOUNTD_CALLER_UID=$USER_ID MOUNTD_CALLER_COMM=busctl | fields MOUNTD_METHOD"

# What a person reads (journalctl -o cat): what, where, who, how it ended.
msg() { journalctl --sync; journalctl -q -o cat _PID=$mountd "$@"; }
check_output "a refusal reads: method, type, mount point, caller, error, reason" \
	'^Create tmpfs on /tmp/audit by uid 1000 \(varlinkctl\): io\.mountd\.Mount\.PermissionDenied: no rule allows it' \
	msg MOUNTD_PATH=/tmp/audit
check_output "a failed step reads: the path, the step and the errno" \
	'^Info /root/audit/x by uid 1000 \(varlinkctl\): io\.mountd\.Mount\.[A-Za-z]+ at resolve[^ ]*: EACCES' \
	msg MOUNTD_PATH=/root/audit/x
ns=$(new_mntns)
varlinkctl call $SOCK io.mountd.Mount.Create \
	"{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$ns},\"path\":\"/mnt/audit\",\"create\":\"directory\"}}" >/dev/null
check_output "a Create into another namespace reads: type, path, namespace, done" \
	"^Create tmpfs on /mnt/audit in namespace \\{\"pid\":$ns\\} by uid 0 \\([a-z]+\\): done\$" \
	msg MOUNTD_PATH=/mnt/audit
kill $ns

stop_mountd
rm -rf /root/audit "$work"
done_testing
