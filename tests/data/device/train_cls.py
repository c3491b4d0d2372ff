# Case 3: an image-style classifier trained with cross_entropy; the labels of one batch were
# built 1-based, so a label equals num_classes and the CUDA loss kernel's assertion fires.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--num-classes", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--steps", type=int, default=10)
parser.add_argument("--bad-step", type=int, default=4)
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(64, args.num_classes),
).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for step in range(1, args.steps + 1):
    images = torch.randn(args.batch_size, 3, 32, 32, device=device)
    labels = torch.randint(0, args.num_classes, (args.batch_size,), device=device)
    if step == args.bad_step:
        labels = labels + 1  # this shard's labels are 1-based
    logits = model(images)
    loss = F.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"Epoch 0 | step {step:4d} | loss {loss.item():.4f}")
