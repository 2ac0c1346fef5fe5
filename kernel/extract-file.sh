#!/bin/sh
# Print the contents of a file that a git-format patch creates.
#
#   kernel/extract-file.sh PATCH PATH
#
# Used to build programs straight from the patches (the seed's test-fsinfo.c,
# our selftests) so that what runs is exactly what the patch carries.
set -eu
[ $# = 2 ] || { echo "usage: $0 PATCH PATH" >&2; exit 2; }
awk -v want="b/$2" '
	/^diff --git / { infile = ($4 == want); inbody = 0; next }
	infile && /^@@ / { inbody = 1; found = 1; next }
	infile && inbody && /^\+/ { print substr($0, 2); next }
	infile && inbody && /^-- $/ { exit }
	END { if (!found) exit 1 }
' "$1" || { echo "$0: $1 does not create $2" >&2; exit 1; }
