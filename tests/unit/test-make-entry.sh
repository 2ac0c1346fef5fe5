#!/bin/bash
# `make check` on a machine where linux-source-6.12 is not installed yet: the
# entry point installs it (scripts/deps) and then re-enters make.  Nothing the
# outer make computed before the install may reach the inner one, and the
# kernel key must refuse to exist rather than silently name another kernel
# while its inputs are missing.
#
# The tree is copied into a scratch directory whose scripts/deps only
# "installs" the package (a stamp that a dpkg-query stand-in reads, and the
# tarball), and whose inner make is a stand-in that reports what it was given.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# As a fresh shell would start it: not inside another make's environment
# (check-host hands the tests the uapi directory userspace compiles against).
unset MOUNTD_UAPI MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

tree=$tmp/tree
mkdir -p "$tree" "$tmp/bin" "$tmp/cache"
(cd "$top" && git ls-files -co --exclude-standard -z |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$tree" -xf -) ||
	{ echo "not ok 1 - copying the tree"; echo "1..1"; exit 1; }

export KSRC_TARBALL=$tmp/linux-source-6.12.tar.xz
export MOUNTD_CACHE=$tmp/cache
export STAMP=$tmp/installed
real_dpkg_query=$(command -v dpkg-query)

# dpkg-query that knows linux-source-6.12 only once the stamp exists.
cat >"$tmp/bin/dpkg-query" <<EOF
#!/bin/bash
fmt= pkgs=()
while [ \$# -gt 0 ]; do
	case "\$1" in
	-W|--show) ;;
	-f) fmt=\$2; shift ;;
	-f*|--showformat=*) fmt=\${1#*=}; fmt=\${fmt#-f} ;;
	*) pkgs+=("\$1") ;;
	esac
	shift
done
[ "\${pkgs[*]}" = linux-source-6.12 ] || exec "$real_dpkg_query" "\$@"
if [ ! -e "\$STAMP" ]; then
	echo "dpkg-query: no packages found matching linux-source-6.12" >&2
	exit 1
fi
fmt=\${fmt//'\${Version}'/6.12.99-1}
fmt=\${fmt//'\${db:Status-Status}'/installed}
fmt=\${fmt//'\${Status}'/install ok installed}
printf '%s' "\$fmt"
EOF
# The install step: the package appears.
cat >"$tree/scripts/deps" <<'EOF'
#!/bin/bash
touch "$STAMP" "$KSRC_TARBALL"
EOF
# The inner make: record its environment and what its own parse makes of
# the uapi directory, beside what the kernel key is now.
cat >"$tmp/bin/inner-make" <<EOF
#!/bin/bash
env >"$tmp/inner.env"
unset MAKEFLAGS MFLAGS MAKELEVEL
make -s --no-print-directory --eval '__mountd_dump: ; @echo \$(KDIR)' __mountd_dump >"$tmp/inner.kparsed" 2>"$tmp/inner.err"
scripts/kernel-build --dir >"$tmp/inner.kdir" 2>>"$tmp/inner.err"
EOF
chmod +x "$tmp/bin/"* "$tree/scripts/deps"
export PATH=$tmp/bin:$PATH

# 1. Before the install there is no kernel key, and it says why.
out=$(cd "$tree" && scripts/kernel-build --dir 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q 'not installed' <<<"$out"; then
	ok "kernel-build --dir without linux-source fails and says so"
else
	nok "kernel-build --dir without linux-source: rc=$rc, printed: $out"
fi

# 2. Nor does make build a kernel for inputs it does not have.
out=$(cd "$tree" && make --no-print-directory kernel 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q 'not installed' <<<"$out" && [ ! -d "$tmp/cache/kernel" ]; then
	ok "make kernel without linux-source fails and says so"
else
	nok "make kernel without linux-source: rc=$rc, printed: $(tail -3 <<<"$out")"
fi

# 3. The entry point: the inner make sees the kernel of the installed inputs.
out=$(cd "$tree" && make check MAKE="$tmp/bin/inner-make" 2>&1)
rc=$?
kdir=$(cat "$tmp/inner.kdir" 2>/dev/null)
parsed=$(cat "$tmp/inner.kparsed" 2>/dev/null)
if [ $rc = 0 ] && [ -n "$kdir" ] && [ "$parsed" = "$kdir" ]; then
	ok "make check: the inner make parsed the installed inputs' kernel ($parsed)"
else
	nok "make check: inner make's kernel '$parsed', kernel after the install '$kdir' (rc=$rc; $out $(cat "$tmp/inner.err" 2>/dev/null))"
fi

# 4. Nothing naming a kernel reaches the inner make from before the install.
stale=$(grep -F "$tmp/cache/kernel/" "$tmp/inner.env" 2>/dev/null)
if [ -z "$stale" ] && [ -s "$tmp/inner.env" ]; then
	ok "make check passes the inner make no kernel computed before the install"
else
	nok "make check passed the inner make: ${stale:-nothing at all (it did not run)}"
fi

echo "1..$n"
[ $fails = 0 ]
