#!/bin/bash
# The help a new admin finds in `make run`'s shell, used as one would:
# mountctl --help / COMMAND --help / help COMMAND / --version, an unknown
# option, `man mountctl`, Tab completion through bash-completion and the
# installed completion file, the D-Bus API's page io.mountd1(5) against
# what the bus introspects, and varlinkctl info.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/units-lib.sh"

fresh_units
export LC_ALL=C.UTF-8

# ---- mountctl's own help ----------------------------------------------------------
check_output "mountctl --help shows mount with SOURCE TARGET and what it does" \
	'^  mount SOURCE TARGET +create a filesystem' mountctl --help
check_output "  and bind" '^  bind SOURCE TARGET +bind SOURCE' mountctl --help
check_output "  and umount with its alias" '^  umount, unmount PATH +unmount' mountctl --help
check_output "  and the options of every command" '^  -p, --pid PID +act in the mount namespace' \
	mountctl --help
check_output "mountctl mount --help lists -t" '^  -t, --types TYPE +filesystem type' \
	mountctl mount --help
check_output "  and --partition-type" '^      --partition-type UUID +mount the image' \
	mountctl mount --help
check_output "  and the image form" '^       mountctl mount \[OPTIONS\] --image IMAGE TARGET$' \
	mountctl mount --help
check "mountctl help bind says what mountctl bind --help does" \
	cmp <(mountctl help bind) <(mountctl bind --help)
check_output "mountctl --version" '^mountctl [0-9]+\.[0-9]+' mountctl --version
out=$(mountctl mount --frob none /mnt 2>&1)
check "an unknown option is a usage error (exit 2)" test $? = 2
check_output "  reported as mountctl mount's, pointing at its help" \
	"^mountctl: mount: unrecognized option '--frob'\$" echo "$out"
check_fails "  not in mount(8)'s name" grep -q '^mount:' <<<"$out"

# ---- man pages --------------------------------------------------------------------
# Hyphenation off and a wide line, so that no option is split.
man_page() { MANWIDTH=160 MANROFFOPT=-rHY=0 man "$@" 2>&1; }
check_output "man mountctl renders" '^mountctl\(1\) +General Commands Manual' man_page mountctl
check_output "  with the help command" '^ +help \[COMMAND\]' man_page mountctl
check_output "  and --partition-type" 'partition-type UUID' man_page mountctl

# ---- Tab completion -----------------------------------------------------------------
# What Tab offers after the words given (the last one is being completed),
# in a login shell as `make run` opens: /etc/profile.d loads bash-completion,
# which loads our file on the first Tab after "mountctl".
complete_words() {
	bash -lic '
		declare -F _comp_load >/dev/null && _comp_load mountctl || _completion_loader mountctl
		f=$(complete -p mountctl | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		[ -n "$f" ] || { echo "no completion for mountctl"; exit 1; }
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		"$f" mountctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' complete "$@" 2>/dev/null
}
check "bash-completion is installed" test -f /usr/share/bash-completion/bash_completion
check "our completion is where it looks" test -f /usr/share/bash-completion/completions/mountctl
check_output "mountctl <Tab> offers the commands" '^unmount$' complete_words mountctl ''
check_output "mountctl mo<Tab> offers mount and move" '^mount move$' \
	bash -c "$(declare -f complete_words); complete_words mountctl mo | sort | paste -sd' '"
check_output "mountctl mount --par<Tab> offers --partition and --partition-type" \
	'^--partition --partition-type$' \
	bash -c "$(declare -f complete_words); complete_words mountctl mount --par | sort | paste -sd' '"
check_output "mountctl list --<Tab> offers list's own options and the common ones" '^--table$' \
	complete_words mountctl list --
check_output "  --json among them" '^--json$' complete_words mountctl list --
check_output "mountctl mount -t tm<Tab> offers tmpfs" '^tmpfs$' complete_words mountctl mount -t tm
check_output "mountctl set -o ro,nod<Tab> continues the list" '^ro,nodev$' \
	complete_words mountctl set -o ro,nod
check_output "mountctl --pid 1 u<Tab> finds the command after --pid's value" '^umount$' \
	complete_words mountctl --pid 1 u
check_output "mountctl help u<Tab> offers commands" '^umount$' complete_words mountctl help u
check_output "mountctl info / st<Tab> offers attributes" '^statfs$' complete_words mountctl info / st

# ---- the D-Bus API's page -------------------------------------------------------------
check_output "man io.mountd1 renders" '^io\.mountd1\(5\) ' man_page io.mountd1
busctl --system --xml-interface introspect io.mountd1 /io/mountd1 >"$work/intro.xml"
methods=$(python3 -c '
import sys, xml.etree.ElementTree as ET
for i in ET.parse(sys.argv[1]).getroot().findall("interface"):
    if i.get("name") == "io.mountd1.Manager":
        for m in i.findall("method"):
            print(m.get("name"))' "$work/intro.xml")
check "the bus introspects io.mountd1.Manager's methods" test -n "$methods"
for m in $methods; do
	check_output "  io.mountd1(5) documents $m" "^ +$m\\(" man_page io.mountd1
done

# Pasted as printed (ASCII: no typographic quotes or hyphens).
LC_ALL=C MANWIDTH=200 man io.mountd1 2>/dev/null |
	awk '/^EXAMPLES/ { e = 1; next } /^[A-Z]/ { e = 0 } e' >"$work/bus-examples.sh"
check_output "io.mountd1(5) has busctl examples" 'busctl call io.mountd1 .* Create ' cat "$work/bus-examples.sh"
check "  they work as printed" bash -e "$work/bus-examples.sh"
check_fails "  and leave nothing mounted" findmnt /mnt/demo

# ---- varlinkctl info ---------------------------------------------------------------
check_output "varlinkctl info names the vendor" '^ +Vendor: mountd project$' \
	varlinkctl info /run/mountd/io.mountd.Mount
check_output "  and points at the documentation" '^ +URL: man:mountd\(8\)$' \
	varlinkctl info /run/mountd/io.mountd.Mount
check_output "  and lists the interface" 'io\.mountd\.Mount' varlinkctl info /run/mountd/io.mountd.Mount

rm -rf "$work"
done_testing
