#!/usr/bin/python3
"""Runs a command and prints what it cost: wall time and the bytes it read, from the kernel's
own accounting in /proc/<pid>/io (rchar: bytes passed by read/pread syscalls, page-cache hits
included; read_bytes: bytes fetched from the block device). The child is waited for with
WNOWAIT so its /proc entry is read after it has exited and before it is reaped. Counts that
process only, not its children.

    measure.py LABEL -- COMMAND...       prints one JSON line
    measure.py LABEL --first-success -- COMMAND... -- FILE...
        runs COMMAND FILE for each FILE in order until one exits 0 (the "unzip -tq newest
        first" loop, one process per file), and prints the sums over the attempts
"""
import json
import os
import subprocess
import sys
import time


def run(command):
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    wall = time.monotonic() - start
    io = {}
    with open(f"/proc/{child.pid}/io") as f:
        for line in f:
            key, value = line.split(":")
            io[key] = int(value)
    return {"exit": child.wait(), "wall_s": wall, "rchar": io["rchar"],
            "read_bytes": io["read_bytes"]}


def main():
    label = sys.argv[1]
    rest = sys.argv[sys.argv.index("--") + 1:]
    if "--first-success" not in sys.argv:
        result = run(rest)
    else:
        split = rest.index("--")
        command, files = rest[:split], rest[split + 1:]
        result = {"exit": 1, "wall_s": 0.0, "rchar": 0, "read_bytes": 0, "attempts": 0}
        for name in files:
            one = run(command + [name])
            for key in ("wall_s", "rchar", "read_bytes"):
                result[key] += one[key]
            result["attempts"] += 1
            if one["exit"] == 0:
                result["exit"] = 0
                result["found"] = name
                break
    result["wall_s"] = round(result["wall_s"], 3)
    print(json.dumps({"label": label, **result}))


if __name__ == "__main__":
    main()
