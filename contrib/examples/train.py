#!/usr/bin/python3
"""A tiny, real PyTorch training job (CPU) for exercising slurm-supervisor.

A 2-layer MLP learns a synthetic regression task generated from a fixed seed.
It checkpoints atomically every K steps, resumes only from $SUPERVISOR_RESUME_FROM,
prints one parseable line per step and can inject realistic failures on chosen
attempts (FAIL_AT_STEP / FAIL_ON_ATTEMPT / FAIL_MODE / CORRUPT_LATEST).
See README.md in this directory for the exact log format.
"""

import argparse
import os
import random
import re
import resource
import signal
import socket
import sys
import time

import torch

FAIL_MODES = ("exit", "cuda_oom", "xid", "nccl_timeout", "code_bug", "hang", "kill", "oom_host")
CHECKPOINT_RE = re.compile(r"^step_(\d+)\.pt$")
FEATURES, HIDDEN, SAMPLES = 16, 64, 4096


def log(*parts):
    """Print one line to stdout and flush it (the log is read while the job runs)."""
    print(*parts, flush=True)


def warn(*parts):
    """Print one line to stderr and flush it."""
    print(*parts, file=sys.stderr, flush=True)


def die(message):
    """Report a configuration error and exit 2 (a usage error, not a training failure)."""
    print(f"train.py: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def env_int(name, default, minimum=1):
    """Read a positive integer from the environment; exit 2 with a clear message if invalid."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or value < minimum:
        die(f"{name}={raw!r} is not an integer >= {minimum}")
    return value


def current_attempt():
    """$SUPERVISOR_ATTEMPT, else $SLURM_RESTART_COUNT + 1, else 1."""
    if os.environ.get("SUPERVISOR_ATTEMPT", "").strip():
        return env_int("SUPERVISOR_ATTEMPT", 1)
    return env_int("SLURM_RESTART_COUNT", 0, minimum=0) + 1


def current_host():
    """$SLURMD_NODENAME, else the short hostname."""
    return os.environ.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0]


def parse_args(argv=None):
    """Command-line flags (batch size and accumulation come from the environment)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=60, help="optimizer steps in total (default 60)")
    p.add_argument("--checkpoint-every", type=int, default=10, metavar="K",
                   help="save step_NNNNNN.pt every K steps and at the last step (default 10)")
    p.add_argument("--checkpoint-dir", default="checkpoints", help="default ./checkpoints")
    p.add_argument("--step-seconds", type=float, default=0.2,
                   help="sleep per step so a run lasts seconds (default 0.2)")
    p.add_argument("--lr", type=float, default=0.01, help="Adam learning rate (default 0.01)")
    p.add_argument("--seed", type=int, default=0, help="seed for data, model and sampling (default 0)")
    args = p.parse_args(argv)
    if args.steps < 1 or args.checkpoint_every < 1 or args.step_seconds < 0:
        p.error("--steps and --checkpoint-every must be >= 1, --step-seconds >= 0")
    return args


def make_dataset(seed):
    """Synthetic regression data y = sin(2 x.w) + x0 x1 / 2 + noise, identical for a given seed."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(SAMPLES, FEATURES, generator=g)
    w = torch.randn(FEATURES, 1, generator=g) / FEATURES ** 0.5
    y = torch.sin(2 * x @ w) + 0.5 * x[:, :1] * x[:, 1:2] + 0.05 * torch.randn(SAMPLES, 1, generator=g)
    return x, y


def make_model(seed):
    """The 2-layer MLP, initialised from the seed."""
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(FEATURES, HIDDEN), torch.nn.Tanh(), torch.nn.Linear(HIDDEN, 1))


def rng_state(sampler):
    """Every random stream the run uses, for the checkpoint."""
    return {"torch": torch.get_rng_state(), "python": random.getstate(), "sampler": sampler.get_state()}


def set_rng_state(state, sampler):
    """Restore what rng_state() saved."""
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    sampler.set_state(state["sampler"])


def checkpoint_path(directory, step):
    """<dir>/step_000010.pt for step 10."""
    return os.path.join(directory, f"step_{step:06d}.pt")


def save_checkpoint(directory, step, model, optimizer, sampler, config):
    """torch.save to a temporary name in the same directory, fsync, then rename into place."""
    os.makedirs(directory, exist_ok=True)
    final = checkpoint_path(directory, step)
    tmp = os.path.join(directory, f".{os.path.basename(final)}.tmp-{os.getpid()}")
    state = {"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "rng": rng_state(sampler), "config": config}
    try:
        with open(tmp, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return final


def load_checkpoint(path, model, optimizer, sampler):
    """Load a checkpoint written by save_checkpoint(); returns its step."""
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    set_rng_state(state["rng"], sampler)
    return int(state["step"])


def newest_checkpoint(directory):
    """The step_N.pt with the highest N in directory, or None (used only by CORRUPT_LATEST)."""
    try:
        names = [n for n in os.listdir(directory) if CHECKPOINT_RE.match(n)]
    except FileNotFoundError:
        return None
    if not names:
        return None
    return os.path.join(directory, max(names, key=lambda n: int(CHECKPOINT_RE.match(n).group(1))))


def train_step(model, optimizer, data, sampler, batch_size, grad_accum):
    """One optimizer step over grad_accum micro-batches of batch_size; returns the mean loss.

    The global batch (batch_size * grad_accum indices) is drawn in one go, so halving the
    batch and doubling the accumulation sees the same samples."""
    x, y = data
    idx = torch.randint(0, x.shape[0], (batch_size * grad_accum,), generator=sampler)
    optimizer.zero_grad(set_to_none=True)
    total = 0.0
    for micro in idx.split(batch_size):
        loss = torch.nn.functional.mse_loss(model(x[micro]), y[micro]) / grad_accum
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total


# ----------------------------------------------------------------------------- failure injection

def fault_plan(attempt, host, batch_size):
    """The (step, FAIL_MODE) to inject on this attempt, from the environment, or None.

    FAIL_ON_HOST limits the fault to one node (a bad GPU stays with its node); OOM_ABOVE_BATCH
    limits it to batch sizes above a threshold (an out-of-memory error goes away when the
    micro-batch shrinks)."""
    if not os.environ.get("FAIL_AT_STEP", "").strip():
        return None
    only_host = os.environ.get("FAIL_ON_HOST", "").strip()
    if only_host and only_host != host:
        return None
    if os.environ.get("OOM_ABOVE_BATCH", "").strip() and batch_size <= env_int("OOM_ABOVE_BATCH", 1):
        return None
    at = env_int("FAIL_AT_STEP", 0)
    mode = os.environ.get("FAIL_MODE", "").strip() or "exit"
    if mode not in FAIL_MODES:
        die(f"FAIL_MODE={mode!r} is not one of {', '.join(FAIL_MODES)}")
    wanted = os.environ.get("FAIL_ON_ATTEMPT", "").strip() or "1"
    if wanted == "all":
        return at, mode
    try:
        attempts = {int(a) for a in wanted.split(",") if a.strip()}
    except ValueError:
        die(f"FAIL_ON_ATTEMPT={wanted!r} is not 'all' or a comma list of numbers")
    return (at, mode) if attempt in attempts else None


def corrupt_newest(directory):
    """Truncate the newest checkpoint to half its size (a half-written file)."""
    path = newest_checkpoint(directory)
    if path:
        os.truncate(path, os.path.getsize(path) // 2)


def report_metrics(metrics, keys):
    """Format the requested metrics (FAIL_MODE=code_bug asks for one that does not exist)."""
    return " ".join(f"{k} {metrics[k]:.4f}" for k in keys)


def raise_cuda_oom(batch_size):
    """Raise torch.cuda.OutOfMemoryError with the CUDA caching allocator's message (PyTorch 2.x)."""
    want = batch_size * 0.0625  # GiB; grows with the micro-batch, like a real activation
    raise torch.cuda.OutOfMemoryError(
        f"CUDA out of memory. Tried to allocate {want:.2f} GiB. GPU 0 has a total capacity of "
        f"79.15 GiB of which {want / 3:.2f} GiB is free. Including non-PyTorch memory, this process "
        f"has 79.04 GiB memory in use. Of the allocated memory 76.12 GiB is allocated by PyTorch, "
        f"and 1.37 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
        f"is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
        f"fragmentation.  See documentation for Memory Management  "
        f"(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def raise_xid(host):
    """Xid 79 in the kernel log (syslog form), NCCL's view of it, then the CUDA error in Python."""
    pid, stamp = os.getpid(), time.strftime("%b %e %H:%M:%S")
    uptime = time.monotonic()
    warn(f"{stamp} {host} kernel: [{uptime:12.6f}] NVRM: Xid (PCI:0000:3b:00): 79, pid={pid}, "
         f"name=python3, GPU has fallen off the bus.")
    warn(f"{stamp} {host} kernel: [{uptime + 0.000012:12.6f}] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.")
    warn(f"{host}:{pid}:{pid + 41} [0] enqueue.cc:1557 NCCL WARN Cuda failure 'unspecified launch failure'")
    warn(f"{host}:{pid}:{pid + 41} [0] NCCL INFO group.cc:65 -> 1")
    raise RuntimeError(
        "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled cuda error "
        "(run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3\n"
        "ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "Last error:\n"
        "Cuda failure 'unspecified launch failure'")


def abort_nccl_timeout(step):
    """ProcessGroupNCCL's watchdog timeout, then std::terminate -> SIGABRT (exit 134 in a shell)."""
    work = (f"WorkNCCL(SeqNum={step * 3 + 2}, OpType=ALLREDUCE, NumelIn=1089, NumelOut=1089, "
            f"Timeout(ms)=600000) ran for 600043 milliseconds before timing out.")
    warn(f"[rank0]:[E ProcessGroupNCCL.cpp:523] [Rank 0] Watchdog caught collective operation timeout: {work}")
    warn("[rank0]:[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the "
         "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
    warn("[rank0]:[E ProcessGroupNCCL.cpp:543] To avoid data inconsistency, we are taking the entire process down.")
    what = f"[Rank 0] NCCL watchdog thread terminated with exception: [Rank 0] Watchdog caught collective operation timeout: {work}"
    warn(f"[rank0]:[E ProcessGroupNCCL.cpp:1182] {what}")
    warn("terminate called after throwing an instance of 'c10::DistBackendError'")
    warn(f"  what():  {what}")
    warn("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:525 "
         "(most recent call first):")
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file
    os.abort()


def inject_fault(mode, step, batch_size, host, checkpoint_dir):
    """Fail the way FAIL_MODE says; never returns."""
    if os.environ.get("CORRUPT_LATEST", "") == "1":
        corrupt_newest(checkpoint_dir)
    if mode == "exit":
        raise RuntimeError(f"injected failure at step {step} (FAIL_MODE=exit)")
    if mode == "cuda_oom":
        raise_cuda_oom(batch_size)
    if mode == "xid":
        raise_xid(host)
    if mode == "nccl_timeout":
        abort_nccl_timeout(step)
    if mode == "code_bug":
        report_metrics({"loss": 0.0, "lr": 0.01}, ["loss", "val_loss"])
    if mode == "hang":
        while True:
            time.sleep(3600)
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "oom_host":
        job = os.environ.get("SLURM_JOB_ID", "0")
        warn(f"slurmstepd: error: Detected 1 oom-kill event(s) in StepId={job}.batch. Some of your "
             f"processes may have been killed by the cgroup out-of-memory handler.")
        os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError(f"unhandled FAIL_MODE {mode}")


# ----------------------------------------------------------------------------- main

def main(argv=None):
    """Train, checkpoint, resume, fail on request."""
    args = parse_args(argv)
    args.checkpoint_dir = os.path.abspath(args.checkpoint_dir)
    batch_size, grad_accum = env_int("BATCH_SIZE", 32), env_int("GRAD_ACCUM", 1)
    attempt, host = current_attempt(), current_host()
    fault = fault_plan(attempt, host, batch_size)
    torch.set_num_threads(1)
    random.seed(args.seed)

    data = make_dataset(args.seed)
    model = make_model(args.seed + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    sampler = torch.Generator().manual_seed(args.seed + 2)
    config = {"batch_size": batch_size, "grad_accum": grad_accum, "seed": args.seed, "lr": args.lr}

    log(f"start steps {args.steps} batch_size {batch_size} grad_accum {grad_accum} "
        f"checkpoint_every {args.checkpoint_every} checkpoint_dir {args.checkpoint_dir} "
        f"attempt {attempt} host {host} pid {os.getpid()} torch {torch.__version__}")
    step = 0
    resume = os.environ.get("SUPERVISOR_RESUME_FROM", "").strip()
    if resume:
        try:
            step = load_checkpoint(resume, model, optimizer, sampler)
        except Exception:
            warn(f"resume failed: cannot load checkpoint {resume}")
            raise
        log(f"resumed from {resume} at step {step}")
    else:
        log("starting from scratch")

    while step < args.steps:
        if fault and fault[0] == step + 1:
            inject_fault(fault[1], step + 1, batch_size, host, args.checkpoint_dir)
        loss = train_step(model, optimizer, data, sampler, batch_size, grad_accum)
        step += 1
        log(f"step {step}/{args.steps} loss {loss:.6f} batch_size {batch_size} "
            f"grad_accum {grad_accum} attempt {attempt} host {host}")
        if step % args.checkpoint_every == 0 or step == args.steps:
            path = save_checkpoint(args.checkpoint_dir, step, model, optimizer, sampler, config)
            log(f"checkpoint saved {path} at step {step}")
        time.sleep(args.step_seconds)
    log(f"training finished at step {step}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
