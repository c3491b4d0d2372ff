#!/usr/bin/python3
"""Writes the checkpoint fixtures of tests/unit/recovery/validators_test.cpp (checked in; run
again only to refresh them): real torch.save output in both formats, so the validators are
tested on what PyTorch writes, not only on the tests' own zip writer.

    /usr/bin/python3 tests/data/checkpoints/make_fixtures.py tests/data/checkpoints
"""
import os
import sys

import torch

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)
state = {
    "step": 20,
    "model": {"weight": torch.randn(4, 3), "bias": torch.zeros(4)},
    "optimizer": {"lr": 0.1, "momentum": torch.ones(4, 3)},
}
# torch >= 1.6: a zip archive (PyTorch's writer always adds the Zip64 records).
torch.save(state, os.path.join(out, "torch_zip.pt"))
# The legacy pickle format (no index).
torch.save(state, os.path.join(out, "torch_legacy.pt"), _use_new_zipfile_serialization=False)
print("torch", torch.__version__, "->", out)
