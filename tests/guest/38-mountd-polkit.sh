#!/bin/bash
# polkit decides where the policy file does not (daemon/authorize-polkit.c): a rule
# in /etc/polkit-1/rules.d grants the user one of mountd's actions; a deny
# rule in the policy file still wins; without a grant the request is
# refused naming the action.  Judged by what gets mounted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mountd-lib.sh"

user_container
mkdir -p /tmp/pk && chmod 0777 /tmp/pk
ctr_create() { # path
	vcall Create "{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":$container},\"path\":\"$1\",\"create\":\"directory\"}}" 2>&1
	true
}
mounted() { nsenter -t $container -m mountpoint -q "$1"; }

export MOUNTD_POLICY=$work/policy
: >"$MOUNTD_POLICY"
check "polkitd is there to ask" systemctl start polkit.service
check "mountd starts with an empty policy" start_mountd
chmod 0666 $SOCK

check_output "without a grant, polkit refuses and the reason names the action" \
	'io.mountd.mount-own-container not authorized' ctr_create /tmp/pk/a
check_fails "  nothing mounted" mounted /tmp/pk/a
check_output "D-Bus with the header's interactive flag: refused (no agent to ask)" \
	'Access denied' bash -c "as_user busctl --system --allow-interactive-authorization=yes call \
		io.mountd1 /io/mountd1 io.mountd1.Manager Create 'sa(ssv)a{sv}' tmpfs 0 1 placement a{sv} 3 \
		namespace a{sv} 1 pid u $container path s /tmp/pk/i create s directory 2>&1; true"
check_output "  by polkit, as the journal says" 'polkit: io.mountd.mount-own-container not authorized' \
	bash -c "records MOUNTD_CALLER_COMM=busctl MOUNTD_METHOD=Create | fields MOUNTD_POLICY"
check_output "  and a method without that option takes the flag too" '^a' \
	as_user busctl --system --allow-interactive-authorization=yes call io.mountd1 /io/mountd1 \
	io.mountd1.Manager List 'a{sv}' 0

mkdir -p /etc/polkit-1/rules.d
cat >/etc/polkit-1/rules.d/50-mountd-test.rules <<RULES
polkit.addRule(function(action, subject) {
	if (action.id == "io.mountd.mount-own-container" && subject.user == "mountdtest")
		return polkit.Result.YES;
});
RULES
sleep 2 # polkitd reloads its rules on a change
check_output "a polkit rule grants the user its own containers" '"mountId"' ctr_create /tmp/pk/b
check "  mounted there" mounted /tmp/pk/b
check_output "  and the journal says polkit allowed it" '^polkit: io.mountd.mount-own-container$' \
	bash -c "records MOUNTD_METHOD=Create MOUNTD_RESULT=ok | fields MOUNTD_POLICY"
check_output "  but not the host's namespace (another action)" \
	'io.mountd.mount-other-namespace not authorized' \
	bash -c "vcall Create '{\"fsType\":\"tmpfs\",\"placement\":{\"namespace\":{\"pid\":1},\"path\":\"/tmp/pk/host\"}}' 2>&1; true"
check_fails "  nothing mounted on the host" mountpoint -q /tmp/pk/host
stop_mountd

echo 'deny user=1000 method=Create' >"$MOUNTD_POLICY"
check "mountd starts with a deny rule" start_mountd
chmod 0666 $SOCK
check_output "a deny rule of the policy file is final: polkit is not asked" \
	'policy line 1' ctr_create /tmp/pk/c
check_fails "  nothing mounted" mounted /tmp/pk/c
stop_mountd

rm -f /etc/polkit-1/rules.d/50-mountd-test.rules
nsenter -t $container -m umount /tmp/pk/b 2>/dev/null
kill $container 2>/dev/null
rm -rf /tmp/pk "$work"
done_testing
