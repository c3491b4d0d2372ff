# Case 2b: the same bug in a Triton kernel: a fused embedding-lookup + scale kernel with no
# bounds check on the token ids; a corrupt id at step 4 makes it load far out of bounds.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=10)
parser.add_argument("--bad-step", type=int, default=4)
args = parser.parse_args()


@triton.jit
def embed_scale_kernel(out_ptr, table_ptr, ids_ptr, scale, DIM: tl.constexpr):
    row = tl.program_id(0)
    tok = tl.load(ids_ptr + row)
    cols = tl.arange(0, DIM)
    vals = tl.load(table_ptr + tok * DIM + cols)
    tl.store(out_ptr + row * DIM + cols, vals * scale)


class EmbedScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, table, ids, scale):
        n, dim = ids.numel(), table.shape[1]
        out = torch.empty(n, dim, device=table.device, dtype=table.dtype)
        embed_scale_kernel[(n,)](out, table, ids, scale, DIM=dim)
        ctx.save_for_backward(ids)
        ctx.shape, ctx.scale = table.shape, scale
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (ids,) = ctx.saved_tensors
        grad = torch.zeros(ctx.shape, device=grad_out.device, dtype=grad_out.dtype)
        grad.index_add_(0, ids, grad_out * ctx.scale)
        return grad, None, None


class Model(nn.Module):
    def __init__(self, vocab=32000, dim=256, classes=20):
        super().__init__()
        self.table = nn.Parameter(torch.randn(vocab, dim) * 0.02)
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        b, t = ids.shape
        emb = EmbedScale.apply(self.table, ids.reshape(-1), 16.0).view(b, t, -1)
        return self.head(emb.mean(dim=1))


device = torch.device("cuda")
torch.manual_seed(0)
model = Model().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(1, args.steps + 1):
    ids = torch.randint(0, 32000, (256, 128), device=device)
    if step == args.bad_step:
        ids[3, 100] = 2**31 - 1
    labels = torch.randint(0, 20, (256,), device=device)
    loss = F.cross_entropy(model(ids), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"[step {step}] loss={loss.item():.4f}")
