#!/bin/bash
# Every command and option of mountctl's tables (as "mountctl __complete"
# lists them for the bash completion) is in the help people read: each
# command in "mountctl --help" with a description, each option in
# "mountctl COMMAND --help" with one, and all of them in mountctl(1): a
# command's own options in its entry under COMMANDS, the common ones under
# OPTIONS.  An option added to the table without words for it fails here.
set -uo pipefail
cd "$(dirname "$0")/../.."
M=${MOUNTCTL:-build/mountctl}
MAN=docs/man/mountctl.1.scd
export LC_ALL=C

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	[ $# -gt 0 ] && printf '# %s\n' "$@"
}
# ok/not ok by the exit status of the rest of the line.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# The text of a section of the man page ("# NAME" to the next "# ").
man_section() {
	awk -v s="# $1" '$0 == s { on = 1; next } /^# / { on = 0 } on' "$MAN"
}

# A command's entry under COMMANDS: from its first synopsis line (a line
# starting with *COMMAND*) up to the next command's.
man_entry() {
	man_section COMMANDS | awk -v cmd="$1" -v all="$commands" '
		BEGIN { split(all, l, "\n"); for (i in l) known["*" l[i] "*"] = 1 }
		{ w = $1; sub(/,$/, "", w) }
		w in known { on = $0 ~ ("^(\\*[a-z]+\\*, )?\\*" cmd "\\*") }
		on'
}

commands=$("$M" __complete commands)
check "mountctl __complete lists commands" test -n "$commands"
overview=$("$M" --help)
check "mountctl --help exits 0" test $? = 0
# Options before the command: mountctl's common ones and --version.
top=$("$M" __complete options)
common=$(grep -v -e '--version$' <<<"$top")

# "  NAME[, ALIAS] [ARGS]    summary": the description starts at column
# 31 (HELP_COLUMN in mountctl-commands.c), on the next line when the left part is
# too long.
described() {
	local text=$1 re=$2
	awk -v re="$re" '
		found { ok = substr($0, 1, 30) ~ /^ *$/ && substr($0, 31, 1) ~ /[^ ]/; exit }
		$0 ~ re {
			found = 1
			if (substr($0, 29, 2) == "  " && substr($0, 31) ~ /^[^ ]/) { ok = 1; exit }
		}
		END { exit !ok }' <<<"$text"
}

option_re() {
	local short=$1 long=$2
	if [ "$short" = - ]; then
		echo "^      $long([ \\[]|\$)"
	else
		echo "^  $short, $long([ \\[]|\$)"
	fi
}

while read -r cmd; do
	check "mountctl --help describes $cmd" \
		described "$overview" "^  ([a-z]+, )?$cmd(,| |\$)"
	help=$("$M" "$cmd" --help)
	check "mountctl $cmd --help exits 0" test $? = 0
	check "  mountctl help $cmd says the same" test "$help" = "$("$M" help "$cmd")"
	check "  it fits 80 columns" test -z "$(awk 'length > 80' <<<"$help")"
	entry=$(man_entry "$cmd")
	check "  mountctl(1) has an entry for it" test -n "$entry"
	while read -r short long arg; do
		check "  $cmd --help describes $long" described "$help" "$(option_re "$short" "$long")"
		grep -qxF -- "$short $long${arg:+ $arg}" <<<"$common" && continue
		check "  mountctl(1) names $long under $cmd" grep -qF -- "*$long*" <<<"$entry"
		[ "$short" = - ] ||
			check "  mountctl(1) names $short under $cmd" grep -qF -- "*$short*" <<<"$entry"
	done < <("$M" __complete options "$cmd")
done <<<"$commands"

options=$(man_section OPTIONS)
while read -r short long arg; do
	check "mountctl --help describes $long" described "$overview" "$(option_re "$short" "$long")"
	check "mountctl(1) names $long under OPTIONS" grep -qF -- "*$long*" <<<"$options"
	[ "$short" = - ] || check "mountctl(1) names $short under OPTIONS" grep -qF -- "*$short*" <<<"$options"
done <<<"$top"
check "mountctl --help fits 80 columns" test -z "$(awk 'length > 80' <<<"$overview")"

# The -o words the completion offers are words mountctl itself knows: set
# takes them (it refuses what would go to the filesystem).
words=$("$M" __complete words)
check "mountctl __complete words lists -o words" grep -qx nosuid <<<"$words"
set_takes() { "$M" __format options set "$1" >/dev/null 2>&1; }
set_refuses() { ! set_takes "$1"; }
for w in $words; do
	check "  set -o $w is known" set_takes "$w"
done
check "  (and set -o size=1M is not, so that this means something)" set_refuses size=1M

# An unknown command or option says whose it is, and where to look.
out=$("$M" mount --no-such-option none /mnt 2>&1)
rc=$?
check "an unknown option is a usage error" test $rc = 2
check "  named as mountctl mount's" grep -qF "mountctl: mount: unrecognized option '--no-such-option'" <<<"$out"
check "  pointing at mountctl mount --help" grep -qF 'mountctl mount --help' <<<"$out"
check "mountctl --version names it" grep -qE '^mountctl [0-9]' <(("$M" --version))

echo "1..$n"
[ "$failed" = 0 ]
