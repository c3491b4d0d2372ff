#!/usr/bin/env python3
"""Write a log an owner could craft against the diagnosis scan (for bench/diagnosis only).

near_miss: lines full of the words rules look for (error words, "out of memory", rank
prefixes, brackets) in random order, so that many lines hit some rule.
wrapped: every line is long and the next one starts in lower case, so that every line is
scanned a second time joined with its successor (the worst case of the wrapped-line pass).
Usage: gen_hostile.py OUT_PATH SIZE_MB near_miss|wrapped
"""
import random
import sys

out_path, size_mb, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
target = size_mb * 1_000_000
rng = random.Random(15)

words = [
    "error", "Error:", "out of memory", "[rank3]:", "NCCL", "WARN", "killed", "signal", "Bus",
    "timeout", "CUDA", "Xid", "(", ")", "[", "]", "failed", "No space left", "nan", "loss",
    "checkpoint", "Traceback", "RuntimeError:", "exitcode", ":", "-9", "127.0.0.1", "shm",
    "preempted", "denied", "401", "memory", "node", "socket", "reducing loss scale to",
]

with open(out_path, "w") as out:
    written = 0
    while written < target:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(8, 24)))
        if kind == "wrapped":
            line = "continued " + line.lower()
        elif kind != "near_miss":
            sys.exit(f"unknown kind {kind!r}: near_miss or wrapped")
        out.write(line + "\n")
        written += len(line) + 1
