#!/usr/bin/env python3
"""Stamp each field case's `split` from its url, or check the stamps (--check).

A thread is held out when the first byte of SHA-256(url) is below 77 (about 30 %): the choice
depends on the source alone, never on the cause, and every case of one thread falls on the same
side. Exit status 1 (with the file names) when --check finds a missing or wrong stamp.
"""
import hashlib
import pathlib
import re
import sys
import tomllib

HELD_OUT_BELOW = 77
CORPUS = pathlib.Path(__file__).resolve().parent


def split_of(url: str) -> str:
    return "held_out" if hashlib.sha256(url.encode()).digest()[0] < HELD_OUT_BELOW else "dev"


def main() -> int:
    check = "--check" in sys.argv[1:]
    wrong = []
    for expect in sorted(CORPUS.glob("*.expect")):
        text = expect.read_text()
        case = tomllib.loads(text)
        want = split_of(case["url"])
        if case.get("split") == want:
            continue
        if check:
            wrong.append(f"{expect.name}: split is {case.get('split')!r}, its url gives {want!r}")
            continue
        text = re.sub(r'(?m)^split *=.*\n?', "", text).rstrip("\n") + f'\nsplit = "{want}"\n'
        expect.write_text(text)
    for line in wrong:
        print(line, file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
