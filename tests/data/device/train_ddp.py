# Cases 4 and 5: a DistributedDataParallel training script launched with torchrun.
#   case 4: NCCL backend, two ranks on a one-GPU machine (no per-rank device, or a per-rank
#           device that does not exist);
#   case 5: gloo backend on CPU, one rank stops participating (stalls in its data loader, or
#           is killed with SIGKILL) and the other waits in the gradient all-reduce.
import argparse
import datetime
import os
import signal
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--backend", default="nccl")
parser.add_argument("--set-device", action="store_true", help="torch.cuda.set_device(LOCAL_RANK)")
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--timeout", type=int, default=1800, help="process group timeout, seconds")
parser.add_argument("--stall-rank", type=int, default=-1)
parser.add_argument("--kill-rank", type=int, default=-1)
parser.add_argument("--fault-step", type=int, default=3)
parser.add_argument("--stall-seconds", type=int, default=90)
args = parser.parse_args()

local_rank = int(os.environ["LOCAL_RANK"])
if args.set_device:
    torch.cuda.set_device(local_rank)
dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=args.timeout))
rank, world = dist.get_rank(), dist.get_world_size()
device = torch.device("cuda") if args.backend == "nccl" else torch.device("cpu")
print(f"[rank {rank}/{world}] initialized {args.backend} on {device}", flush=True)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(device)
model = DDP(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def next_batch(step):
    if rank == args.stall_rank and step == args.fault_step:
        time.sleep(args.stall_seconds)  # data loader worker stuck on a slow file system
    if rank == args.kill_rank and step == args.fault_step:
        os.kill(os.getpid(), signal.SIGKILL)  # the kernel's OOM killer, say
    return torch.randn(64, 256, device=device), torch.randint(0, 10, (64,), device=device)


for step in range(1, args.steps + 1):
    x, y = next_batch(step)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
    time.sleep(0.2)

dist.destroy_process_group()
