#!/usr/bin/env python3
"""Turn the first ```sh block of README.md's "## Using mountctl" section into
a bash script that runs it as printed: every command line must succeed,
except one followed by a "# mountctl: ..." line, which must fail and print
exactly that.  The script ends by printing README-OK."""
import re
import shlex
import sys

text = open(sys.argv[1]).read()
section = text.split("## Using mountctl", 1)[1]
block = re.search(r"```sh\n(.*?)```", section, re.S).group(1).splitlines()
print("set -u")
for i, line in enumerate(block):
    if not line.strip() or line.startswith("#"):
        continue
    nxt = block[i + 1] if i + 1 < len(block) else ""
    if nxt.startswith("# mountctl:"):
        want = nxt[2:]
        print(f"out=$({line} 2>&1); rc=$?")
        print(f"[ $rc != 0 ] && [ \"$out\" = {shlex.quote(want)} ] || "
              f"{{ echo {shlex.quote('README: expected failure: ' + line)}; echo \"$out\"; exit 1; }}")
    else:
        print(line)
        print(f"rc=$?; [ $rc = 0 ] || {{ echo {shlex.quote('README: failed: ' + line)} rc=$rc; exit 1; }}")
print("echo README-OK")
