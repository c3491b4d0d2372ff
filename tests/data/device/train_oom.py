# Case 1: an MLP trained with a batch-size ramp-up; the batch doubles every step until the
# activations no longer fit in GPU memory (torch.OutOfMemoryError in forward or backward).
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=262144, help="initial batch size")
parser.add_argument("--max-batch-size", type=int, default=8388608)
parser.add_argument("--steps", type=int, default=10)
parser.add_argument("--lr", type=float, default=1e-3)
args = parser.parse_args()

torch.backends.cuda.matmul.allow_tf32 = True
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)

model = nn.Sequential(
    nn.Linear(512, 2048), nn.GELU(),
    nn.Linear(2048, 2048), nn.GELU(),
    nn.Linear(2048, 2048), nn.GELU(),
    nn.Linear(2048, 10),
).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
print(f"model parameters: {sum(p.numel() for p in model.parameters())/1e6:.1f}M on {device}")

batch_size = args.batch_size
for step in range(1, args.steps + 1):
    t0 = time.time()
    x = torch.randn(batch_size, 512, device=device)
    y = torch.randint(0, 10, (batch_size,), device=device)
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    mem = torch.cuda.max_memory_allocated() / 2**30 if device.type == "cuda" else 0.0
    print(f"step {step} | batch_size {batch_size} | loss {loss.item():.4f} | "
          f"max_mem {mem:.1f} GiB | {time.time() - t0:.2f}s")
    batch_size = min(batch_size * 2, args.max_batch_size)
