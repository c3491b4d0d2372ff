# Case 2: a bag-of-embeddings classifier whose embedding lookup is a custom CUDA kernel
# (gather_kernel.cu, loaded with ctypes). At step 4 the data loader yields a corrupt token id
# (INT32_MAX, a padding sentinel nobody mapped), the kernel reads far out of bounds.
import argparse
import ctypes
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--lib", default=os.path.join(os.path.dirname(__file__), "libgather.so"))
parser.add_argument("--steps", type=int, default=10)
parser.add_argument("--bad-step", type=int, default=4)
args = parser.parse_args()

lib = ctypes.CDLL(args.lib)
for fn in (lib.gather_rows, lib.scatter_add_rows):
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                   ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    fn.restype = ctypes.c_int


class GatherRows(torch.autograd.Function):
    @staticmethod
    def forward(ctx, table, ids):
        out = torch.empty(ids.numel(), table.shape[1], device=table.device, dtype=table.dtype)
        err = lib.gather_rows(out.data_ptr(), table.data_ptr(), ids.data_ptr(), ids.numel(),
                              table.shape[1], torch.cuda.current_stream().cuda_stream)
        if err != 0:
            raise RuntimeError(f"gather_rows launch failed with cudaError {err}")
        ctx.save_for_backward(ids)
        ctx.table_shape = table.shape
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (ids,) = ctx.saved_tensors
        grad_table = torch.zeros(ctx.table_shape, device=grad_out.device, dtype=grad_out.dtype)
        err = lib.scatter_add_rows(grad_table.data_ptr(), grad_out.contiguous().data_ptr(),
                                   ids.data_ptr(), ids.numel(), ctx.table_shape[1],
                                   torch.cuda.current_stream().cuda_stream)
        if err != 0:
            raise RuntimeError(f"scatter_add_rows launch failed with cudaError {err}")
        return grad_table, None


class BagClassifier(nn.Module):
    def __init__(self, vocab=50000, dim=256, classes=20):
        super().__init__()
        self.table = nn.Parameter(torch.randn(vocab, dim) * 0.02)
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        b, t = ids.shape
        emb = GatherRows.apply(self.table, ids.reshape(-1)).view(b, t, -1)
        return self.head(emb.mean(dim=1))


device = torch.device("cuda")
torch.manual_seed(0)
model = BagClassifier().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
batch, seqlen = 512, 128
for step in range(1, args.steps + 1):
    ids = torch.randint(0, 50000, (batch, seqlen), device=device)
    if step == args.bad_step:
        ids[17, 5] = 2**31 - 1
    labels = torch.randint(0, 20, (batch,), device=device)
    loss = F.cross_entropy(model(ids), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}/{args.steps} loss {loss.item():.4f}")
