#!/usr/bin/env python3
"""Measures of the codebase that issue 16 asks to compare before and after a refactor.

    python3 bench/codebase/measure.py [--list] [--threshold 80] [ROOT]

Prints, for the product's sources (the library folders and src/; not tests, bench or fuzz):
  - functions whose definition spans more than --threshold lines (signature to closing brace),
    with --list each of them, longest first;
  - the files that handle a journal payload as text (data_json) or compare an event's or a
    step's kind with a string literal, and how many such comparisons there are. Until the
    payloads were typed (supervisor/journal/journal_events.h), every record_event() call took a kind and
    a JSON object, and counted too; it now takes a payload struct, so it no longer does.

It reads the text as clang-format lays it out (contrib/check-style.sh): a definition is a
top-level brace block (namespaces are transparent) whose head has a parameter list and is not a
type or an initialiser. Strings, characters and comments are blanked before braces are
counted, so a brace in a log pattern does not confuse it. Lambdas count with the function
that holds them. Duplicated blocks are counted with a separate tool (bench/README.md).
"""
import argparse
import pathlib
import re
import sys

PRODUCT_DIRS = ["common", "control", "http", "node_evidence", "notify", "ops", "recovery",
                "slurm", "src", "state", "supervisor"]

# Untyped journal and step contracts: a file that handles a payload as text (`data_json`, the
# column; also the outbox's column of the same name) or compares a kind with a string literal.
# state/ owns the columns and is not counted.
EVENT_READ = re.compile(r"\bdata_json\b")
KIND_COMPARE = re.compile(r"\bkind\s*[!=]=\s*\"")


def blank_literals(text):
    """The text with string and char literals and comments replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, line count) of each top-level function definition in `path`."""
    text = blank_literals(path.read_text(encoding="utf-8", errors="replace"))
    found = []
    depth = 0          # braces opened inside the current definition (or type, or initialiser)
    head_start = None  # offset where the current top-level statement began
    block = None       # (name, first line) of the function being read, or None
    transparent = 0    # namespaces and extern "C" blocks we are inside
    i = 0
    stack = []         # at top level: True for a transparent brace
    while i < len(text):
        c = text[i]
        if depth == 0 and head_start is None and not c.isspace():
            head_start = i
        if c == "#" and depth == 0 and (i == 0 or text[i - 1] == "\n"):
            j = text.find("\n", i)
            while j > 0 and text[j - 1] == "\\":
                j = text.find("\n", j + 1)
            i = len(text) if j < 0 else j
            head_start = None
            continue
        if c == "{":
            if depth == 0:
                head = text[head_start:i] if head_start is not None else ""
                if re.match(r"\s*(inline\s+)?namespace\b|\s*extern\s+\"?", head) or \
                        re.match(r"\s*extern\s*$", head):
                    stack.append(True)
                    head_start = None
                    i += 1
                    continue
                is_function = ("(" in head and not re.match(
                    r"\s*(template\s*<[^>]*>\s*)?(struct|class|enum|union)\b", head)
                    and not re.search(r"=\s*$", head) and not re.search(r"\)\s*=", head))
                name = None
                if is_function:
                    m = re.search(r"([~\w:]+|operator\S+)\s*\(", head)
                    name = m.group(1) if m else "?"
                block = (name, text.count("\n", 0, head_start) + 1) if is_function else None
            depth += 1
        elif c == "}":
            if depth == 0:
                if stack:
                    stack.pop()
                head_start = None
            else:
                depth -= 1
                if depth == 0:
                    if block is not None:
                        last = text.count("\n", 0, i) + 1
                        found.append((block[0], block[1], last - block[1] + 1))
                    block = None
                    head_start = None
        elif c == ";" and depth == 0:
            head_start = None
        i += 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".")
    parser.add_argument("--threshold", type=int, default=80)
    parser.add_argument("--list", action="store_true", help="name each long function")
    args = parser.parse_args()
    root = pathlib.Path(args.root)
    sources = sorted(p for d in PRODUCT_DIRS for p in (root / d).rglob("*")
                     if p.suffix in (".cpp", ".h"))
    long_ones = []
    total = 0
    journal_files = []
    kind_compares = 0
    for path in sources:
        for name, line, length in functions(path):
            total += 1
            if length > args.threshold:
                long_ones.append((length, f"{path.relative_to(root)}:{line}", name))
        text = path.read_text(encoding="utf-8", errors="replace")
        kind_compares += len(KIND_COMPARE.findall(text))
        if path.parts[len(root.parts)] != "state" and path.name not in ("journal.cpp", "journal.h") \
                and (EVENT_READ.search(text) or KIND_COMPARE.search(text)):
            journal_files.append(str(path.relative_to(root)))
    print(f"source files: {len(sources)}, function definitions: {total}")
    print(f"functions over {args.threshold} lines: {len(long_ones)}")
    if args.list:
        for length, where, name in sorted(long_ones, reverse=True):
            print(f"  {length:4d}  {where}  {name}")
    print(f"files that handle a payload as text (data_json) or compare a kind as text: "
          f"{len(journal_files)}")
    if args.list:
        for name in journal_files:
            print(f"  {name}")
    print(f"kinds (event or step) compared with a string literal: {kind_compares}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
