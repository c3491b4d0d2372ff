#!/usr/bin/env python3
"""Write a synthetic distributed-training log of a given size (for bench/diagnosis only).

Mostly progress and NCCL INFO noise, with rare warning/error lines sprinkled in (about one
line in 5,000 matches a rule), and the tail of a real failure at the end: NCCL watchdog
timeouts on most ranks plus one Xid 79 line. Usage: gen_log.py OUT_PATH SIZE_MB
"""
import sys

out_path, size_mb = sys.argv[1], int(sys.argv[2])
target = size_mb * 1_000_000

noise = [
    "[2025-03-02 10:{m:02d}:{s:02d},611][train][INFO] - step {step} | loss {loss:.4f} | lr 2.9e-4 | 412 tok/s/gpu",
    "n{n}:{pid}:{tid} [{d}] NCCL INFO Channel {c:02d}/32 :    0   1   2   3   4   5   6   7",
    "n{n}:{pid}:{tid} [{d}] NCCL INFO comm 0x7f49f4008fb0 rank {r} nranks 64 cudaDev {d} busId 1b000 - Init COMPLETE",
    "Epoch 3:  41%|####      | {step}/29300 [31:02<44:40,  1.55s/it, loss={loss:.3f}, v_num=7]",
    "[rank{r}]:[W302 04:11:52.100218330 ProcessGroupNCCL.cpp:1168] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect",
    "{{'loss': {loss:.4f}, 'grad_norm': 0.812, 'learning_rate': 1.9e-05, 'epoch': 0.42}}",
]
rare = [
    "OSError: [Errno 5] Input/output error: '/lustre/datasets/web/shard-{step}.tar'",
    "[rank{r}]: KeyError: 'input_ids'",
    "n{n}:{pid}:{tid} [{d}] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer n{n}<47012>",
]

with open(out_path, "w") as out:
    written = 0
    i = 0
    block = []
    while written < target:
        step = i // 7
        v = dict(m=i % 60, s=(i * 7) % 60, step=step, loss=2.0 + (i % 97) / 1000, n=i % 8 + 1,
                 pid=4000 + i % 13, tid=5000 + i % 17, d=i % 8, c=i % 32, r=i % 64)
        line = (rare[i % 3] if i % 5000 == 4999 else noise[i % len(noise)]).format(**v)
        block.append(line)
        written += len(line) + 1
        i += 1
        if len(block) >= 10000:
            out.write("\n".join(block) + "\n")
            block = []
    for r in range(64):
        if r == 9:
            continue
        block.append(f"[rank{r}]:[E0303 12:10:00.1 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=90211, OpType=ALLREDUCE, NumelIn=262144000, NumelOut=262144000, Timeout(ms)=600000) ran for 600{r:03d} milliseconds before timing out.")
    block.append("Mar  3 12:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=48811, name=python3, GPU has fallen off the bus.")
    out.write("\n".join(block) + "\n")
