#!/usr/bin/python3
"""Writes the benchmark's checkpoint trees (never committed; in /tmp by default).

    gen_tree.py many DIR N BAD   N torch.save files step_NNNNNN.pt (a real torch.save of a small
                                 model, copied N times), the newest BAD of them cut in half
    gen_tree.py big DIR GIB      one torch.save file of GIB GiB (float32 tensors of 128 MiB each:
                                 a Zip64 archive with one entry per tensor)
All mtimes are set one hour back, so the CLI's --settle does not reject anything.
"""
import io
import os
import sys
import time

import torch

mode, directory = sys.argv[1], sys.argv[2]
os.makedirs(directory, exist_ok=True)
past = time.time() - 3600

if mode == "many":
    count, bad = int(sys.argv[3]), int(sys.argv[4])
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "step": 0}, buffer)
    payload = buffer.getvalue()
    for i in range(1, count + 1):
        path = os.path.join(directory, f"step_{i * 10:06d}.pt")
        data = payload if i <= count - bad else payload[: len(payload) // 2]
        with open(path, "wb") as f:
            f.write(data)
        os.utime(path, (past, past))
    print(f"{count} files of {len(payload)} bytes in {directory}, newest {bad} truncated")
elif mode == "big":
    gib = float(sys.argv[3])
    per_tensor = 128 << 20
    tensors = {f"layer{i}.weight": torch.full((per_tensor // 4,), float(i))
               for i in range(int(gib * (1 << 30)) // per_tensor)}
    path = os.path.join(directory, "step_000100.pt")
    torch.save(tensors, path)
    os.utime(path, (past, past))
    print(f"{path}: {os.path.getsize(path)} bytes, {len(tensors)} tensors")
else:
    sys.exit("usage: gen_tree.py many DIR N BAD | big DIR GIB")
