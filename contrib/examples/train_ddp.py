#!/usr/bin/python3
"""train.py's job on several nodes: one rank per node, torch.distributed over gloo on CPU.

Every rank holds the same MLP (train.py's model, data and checkpoint format), draws the same
global batch from the shared sampler, computes the gradients of its own slice, and the
gradients (with the loss) are averaged with one all_reduce a step. Rank 0 writes the atomic
checkpoints; every rank resumes from $SUPERVISOR_RESUME_FROM. The world size may change
between attempts (a node excluded after a failure): the checkpoint does not depend on it.
Launched by train_ddp.sbatch (srun -l, one task per node); see README.md in this directory.
"""

import datetime
import os
import random
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402  (model, data, checkpoints, log helpers)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

FAIL_MODES = ("exception", "exit", "hang", "stop", "kill", "slow")


def env_text(name, default=""):
    return os.environ.get(name, "").strip() or default


def env_seconds(name, default):
    text = env_text(name, default)
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        train.die(f"{name}={text!r} is not a number of seconds (0 or more)")
    return value


def fault_plan(attempt, rank):
    """The (step, FAIL_MODE) this rank injects on this attempt, or None.

    FAIL_AT_STEP, FAIL_ON_ATTEMPT (1, a comma list or all) as in train.py; FAIL_RANK picks the
    one rank that fails (default 0)."""
    if not env_text("FAIL_AT_STEP"):
        return None
    at = train.env_int("FAIL_AT_STEP", 0)
    mode = env_text("FAIL_MODE", "exception")
    if mode not in FAIL_MODES:
        train.die(f"FAIL_MODE={mode!r} is not one of {', '.join(FAIL_MODES)}")
    if train.env_int("FAIL_RANK", 0, minimum=0) != rank:
        return None
    wanted = env_text("FAIL_ON_ATTEMPT", "1")
    if wanted == "all":
        return at, mode
    try:
        attempts = {int(a) for a in wanted.split(",") if a.strip()}
    except ValueError:
        train.die(f"FAIL_ON_ATTEMPT={wanted!r} is not 'all' or a comma list of numbers")
    return (at, mode) if attempt in attempts else None


def inject_fault(mode, step):
    """Fail the way FAIL_MODE says on this rank only; never returns."""
    if mode == "exception":
        train.report_metrics({"loss": 0.0, "lr": 0.01}, ["loss", "val_loss"])  # KeyError
    if mode == "exit":
        raise RuntimeError(f"injected failure at step {step} (FAIL_MODE=exit)")
    if mode == "hang":
        while True:
            time.sleep(3600)
    if mode == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)  # frozen like a process stuck in the kernel
        while True:  # SIGCONT: still stuck
            time.sleep(3600)
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError(f"unhandled FAIL_MODE {mode}")


def main(argv=None):
    args = train.parse_args(argv)
    args.checkpoint_dir = os.path.abspath(args.checkpoint_dir)
    batch_size, grad_accum = train.env_int("BATCH_SIZE", 32), train.env_int("GRAD_ACCUM", 1)
    rank = train.env_int("RANK", train.env_int("SLURM_PROCID", 0, minimum=0), minimum=0)
    world = train.env_int("WORLD_SIZE", train.env_int("SLURM_NTASKS", 1))
    if rank >= world:
        train.die(f"rank {rank} is not below the world size {world}")
    timeout = datetime.timedelta(seconds=train.env_int("GLOO_TIMEOUT_S", 60))
    attempt, host = train.current_attempt(), train.current_host()
    fault = fault_plan(attempt, rank)
    torch.set_num_threads(1)
    random.seed(args.seed)

    # The rendezvous waits for every rank's torch import (seconds on a busy node); only the
    # training collectives get the short timeout, so a dead peer fails them quickly.
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    # PyTorch 2.4+ asks for a libuv TCPStore by default, which Debian 13's python3-torch is
    # built without ("use_libuv was requested but PyTorch was build without libuv support").
    os.environ.setdefault("USE_LIBUV", "0")
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=max(timeout, datetime.timedelta(seconds=300)))
    group = dist.new_group(backend="gloo", timeout=timeout)

    data = train.make_dataset(args.seed)
    model = train.make_model(args.seed + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    sampler = torch.Generator().manual_seed(args.seed + 2)
    config = {"batch_size": batch_size, "grad_accum": grad_accum, "seed": args.seed, "lr": args.lr}
    params = list(model.parameters())

    train.log(f"start steps {args.steps} batch_size {batch_size} grad_accum {grad_accum} "
              f"checkpoint_every {args.checkpoint_every} checkpoint_dir {args.checkpoint_dir} "
              f"attempt {attempt} host {host} pid {os.getpid()} torch {torch.__version__} "
              f"rank {rank} world {world} master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']} "
              f"gloo_timeout_s {int(timeout.total_seconds())}")
    step = 0
    resume = env_text("SUPERVISOR_RESUME_FROM")
    if resume:
        try:
            step = train.load_checkpoint(resume, model, optimizer, sampler)
        except Exception:
            train.warn(f"resume failed: cannot load checkpoint {resume}")
            raise
        train.log(f"resumed from {resume} at step {step}")
    else:
        train.log("starting from scratch")

    x, y = data
    # FAIL_MODE=slow: from the step on, this rank takes SLOW_STEP_SECONDS longer a step (a GPU
    # throttling), and the all_reduce holds every rank to its pace.
    slow_by = 0.0
    while step < args.steps:
        if fault and fault[0] == step + 1 and fault[1] == "slow":
            slow_by = env_seconds("SLOW_STEP_SECONDS", "1.0")
            train.log(f"slowing down from step {step + 1} by {slow_by} s a step (FAIL_MODE=slow) "
                      f"host {host}")
        elif fault and fault[0] == step + 1:
            inject_fault(fault[1], step + 1)
        # The same global batch on every rank (shared sampler state); each takes its slice.
        idx = torch.randint(0, x.shape[0], (batch_size * grad_accum * world,), generator=sampler)
        mine = idx[rank * batch_size * grad_accum:(rank + 1) * batch_size * grad_accum]
        optimizer.zero_grad(set_to_none=True)
        total = 0.0
        for micro in mine.split(batch_size):
            loss = torch.nn.functional.mse_loss(model(x[micro]), y[micro]) / grad_accum
            loss.backward()
            total += loss.item()
        flat = torch.cat([p.grad.reshape(-1) for p in params] + [torch.tensor([total])])
        dist.all_reduce(flat, group=group)
        flat /= world
        offset = 0
        for p in params:
            p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
        optimizer.step()
        step += 1
        train.log(f"step {step}/{args.steps} loss {flat[-1].item():.6f} batch_size {batch_size} "
                  f"grad_accum {grad_accum} attempt {attempt} host {host} rank {rank} world {world}")
        if rank == 0 and (step % args.checkpoint_every == 0 or step == args.steps):
            path = train.save_checkpoint(args.checkpoint_dir, step, model, optimizer, sampler, config)
            train.log(f"checkpoint saved {path} at step {step}")
        time.sleep(args.step_seconds + slow_by)
    train.log(f"training finished at step {step}")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
