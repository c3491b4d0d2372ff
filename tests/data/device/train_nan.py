# Case 6: a regression model trained with a learning rate far too high; the loss overflows to
# inf, then NaN; the loop notices the NaN and stops (exit 1). With --detect-anomaly, autograd's anomaly mode
# raises at the first backward that produces NaN instead.
import argparse
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--steps", type=int, default=50)
parser.add_argument("--detect-anomaly", action="store_true")
args = parser.parse_args()

if args.detect_anomaly:
    torch.autograd.set_detect_anomaly(True)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                      nn.Linear(256, 1)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
w_true = torch.randn(64, 1, device=device)

for step in range(1, args.steps + 1):
    x = torch.randn(512, 64, device=device)
    y = x @ w_true + 0.1 * torch.randn(512, 1, device=device)
    pred = model(x)
    loss = F.mse_loss(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    loss_value = loss.item()
    print(f"step {step} lr {args.lr:g} loss {loss_value:.6g}")
    if math.isnan(loss_value):
        print(f"Loss is {loss_value}, stopping training")
        sys.exit(1)
