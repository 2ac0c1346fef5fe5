#!/bin/sh
# Print a file as a series of git-format patches leaves it, starting from
# nothing: the patches must create it.
#
#   kernel/extract-file.sh PATH PATCH...
#
# Only PATH's hunks are applied, in the order given, in a scratch directory.
# Used to build programs straight from the patches (the seed's test-fsinfo.c,
# our selftests) so that what runs is exactly what the patches carry.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 PATH PATCH..." >&2; exit 2; }
path=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in "$@"; do
	p=$(realpath "$p")
	grep -q "^+++ b/$path\$" "$p" || continue
	(cd "$tmp" && git apply --include="$path" "$p") ||
		{ echo "$0: $p does not apply to $path" >&2; exit 1; }
done
[ -f "$tmp/$path" ] || { echo "$0: no patch creates $path" >&2; exit 1; }
cat "$tmp/$path"
