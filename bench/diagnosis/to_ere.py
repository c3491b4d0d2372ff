#!/usr/bin/env python3
"""Translate RE2 patterns (stdin, one per line) into POSIX ERE for `grep -E -f` (stdout).

Only the constructs our catalogue uses: named and non-capturing groups become plain groups,
\\s/\\S become POSIX classes (GNU grep also knows \\s, \\S, \\w, \\b). A leading (?i) cannot be
expressed per pattern in ERE; such patterns are written out case-folded by hand-rolled
[xX] classes so that grep matches the same lines.
"""
import re
import sys

def fold(p):
    out = []
    i = 0
    in_class = False
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p):
            out.append(p[i:i + 2]); i += 2; continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        if c.isalpha() and not in_class:
            out.append(f"[{c.lower()}{c.upper()}]")
        else:
            out.append(c)
        i += 1
    return "".join(out)

for line in sys.stdin:
    p = line.rstrip("\n")
    p = re.sub(r"\(\?P<[A-Za-z_]+>", "(", p)
    p = p.replace("(?:", "(")
    if p.startswith("(?i)"):
        p = fold(p[4:])
    p = p.replace("\\S", "[^[:space:]]").replace("\\s", "[[:space:]]")
    p = p.replace("()", "")
    print(p)
