#!/usr/bin/python3
"""The obvious alternative to the checkpoint finder: list the directory, sort the *.pt files by
the step number in their names, newest first, and torch.load each until one loads. Prints the
one found, the attempts, and the time spent in the loop (after `import torch`) to stderr.

    torch_load_newest.py DIR
"""
import os
import re
import sys
import time

import torch

directory = sys.argv[1]
start = time.monotonic()
names = [n for n in os.listdir(directory) if n.endswith(".pt")]
names.sort(key=lambda n: int(re.search(r"(\d+)", n).group(1)), reverse=True)
attempts = 0
for name in names:
    attempts += 1
    try:
        torch.load(os.path.join(directory, name), map_location="cpu")
    except Exception:  # noqa: BLE001 - any failure means "not loadable"
        continue
    print(f"found {name} after {attempts} attempts; loop {time.monotonic() - start:.3f} s",
          file=sys.stderr)
    sys.exit(0)
print(f"nothing loadable after {attempts} attempts", file=sys.stderr)
sys.exit(1)
