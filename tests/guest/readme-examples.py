#!/usr/bin/env python3
"""Turn the ```sh blocks of README.md's "## Using mountctl" section into a
bash script that runs them as printed: every command line must succeed,
except one followed by a "# mountctl: ..." line, which must fail and print
exactly that.  The script ends by printing README-OK.

    readme-examples.py [--first] README.md

--first: the first block only, which needs no loop device or disk (the
host test runs it in a mount namespace of its own, on the machine's
kernel)."""
import re
import shlex
import sys

args = sys.argv[1:]
first = args[0] == "--first"
text = open(args[-1]).read()
section = text.split("## Using mountctl", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
block = [line for b in blocks[: 1 if first else None] for line in b.splitlines()]
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
