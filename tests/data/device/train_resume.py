# Case 7: a training script that checkpoints every few steps and resumes from the last
# checkpoint. capture.sh runs it once to write the checkpoint, damages the file (truncated, as
# by a job killed mid-write, or empty, as on a full file system), then runs it again to resume.
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--ckpt-dir", required=True)
parser.add_argument("--steps", type=int, default=6)
parser.add_argument("--save-every", type=int, default=3)
parser.add_argument("--resume", action="store_true")
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                      nn.Linear(1024, 100)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
start_step = 0
ckpt_path = os.path.join(args.ckpt_dir, "last.pt")

if args.resume:
    print(f"=> loading checkpoint '{ckpt_path}'")
    checkpoint = torch.load(ckpt_path, map_location=device)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    start_step = checkpoint["step"]
    print(f"=> loaded checkpoint '{ckpt_path}' (step {start_step})")

for step in range(start_step + 1, start_step + args.steps + 1):
    x = torch.randn(256, 512, device=device)
    y = torch.randint(0, 100, (256,), device=device)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
    if step % args.save_every == 0:
        os.makedirs(args.ckpt_dir, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "step": step}, ckpt_path)
        print(f"saved checkpoint to {ckpt_path}")
