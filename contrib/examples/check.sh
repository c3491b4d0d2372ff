#!/bin/bash
# Self-check of train.py without Slurm (about 20-45 s, mostly imports of torch): a run that fails
# at step 25; resumes from its step_000020.pt that must reproduce the uninterrupted run's losses
# (exactly, and to 1e-4 with the batch halved and accumulation doubled); every FAIL_MODE's exit
# status and signature line; CORRUPT_LATEST and PyTorch's error on the truncated file; two
# local ranks of train_ddp.py (a clean run, an exception on one rank).
#   contrib/examples/check.sh            PYTHON=/path/to/python3 contrib/examples/check.sh
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${PYTHON:-/usr/bin/python3}"
work="$(mktemp -d /tmp/supervisor-example-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT
failures=0
ok()   { echo "ok   $*"; }
bad()  { echo "FAIL $*"; failures=$((failures + 1)); }
train() { "$py" "$here/train.py" --step-seconds 0 "$@"; }
losses() { sed -n 's#^step \([0-9]*\)/[0-9]* loss \([0-9.]*\) .*#\1 \2#p' "$1" | awk -v from="$2" '$1 > from'; }

unset SUPERVISOR_RESUME_FROM SUPERVISOR_ATTEMPT BATCH_SIZE GRAD_ACCUM FAIL_AT_STEP FAIL_MODE \
      FAIL_ON_ATTEMPT CORRUPT_LATEST SLURM_RESTART_COUNT

if train --checkpoint-dir "$work/full" > "$work/full.log" 2>&1; then ok "uninterrupted 60-step run"; else bad "uninterrupted run"; fi

FAIL_AT_STEP=25 train --checkpoint-dir "$work/ck" > "$work/a1.log" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q '^step 24/60 ' "$work/a1.log" && ! grep -q '^step 25/' "$work/a1.log"; then
    ok "FAIL_AT_STEP=25 fails with 1 after step 24"
else bad "attempt 1: rc=$rc"; fi
if [ "$(cd "$work/ck" && echo ./* ./.[!.]*)" = "./step_000010.pt ./step_000020.pt ./.[!.]*" ]; then
    ok "checkpoints step_000010.pt, step_000020.pt and no temporary files"
else bad "checkpoint directory: $(ls -A "$work/ck")"; fi

# Same batch: bit-identical losses. Halved batch, doubled accumulation: same samples, sums
# in another order, so equal to 1e-4.
for variant in "32 1 0" "16 2 0.0001"; do
    read -r bs ga tol <<< "$variant"
    set -- "$bs" "$ga"
    cp -r "$work/ck" "$work/ck-$1"
    FAIL_AT_STEP=25 SUPERVISOR_ATTEMPT=2 BATCH_SIZE=$1 GRAD_ACCUM=$2 \
        SUPERVISOR_RESUME_FROM="$work/ck-$1/step_000020.pt" train --checkpoint-dir "$work/ck-$1" > "$work/a2-$1.log" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q "^resumed from $work/ck-$1/step_000020.pt at step 20$" "$work/a2-$1.log" \
        && grep -q '^training finished at step 60$' "$work/a2-$1.log" \
        && grep -q "^step 21/60 loss [0-9.]* batch_size $1 grad_accum $2 attempt 2 host " "$work/a2-$1.log" \
        && paste -d' ' <(losses "$work/full.log" 20) <(losses "$work/a2-$1.log" 20) | awk -v tol="$tol" '
               { n++; d = $2 - $4; if ($1 != $3 || d > tol || -d > tol) bad++ }
               END { exit (n != 40 || bad) }'; then
        ok "resume at step 20 with batch $1 x accum $2: losses 21..60 match the uninterrupted run (tolerance $tol)"
    else
        bad "resume with batch $1 x accum $2 (rc=$rc)"
    fi
done

expect() {  # mode rc pattern
    local mode=$1 want=$2 pattern=$3 rc
    rm -rf "$work/f"
    SLURMD_NODENAME=n2 SLURM_JOB_ID=7 FAIL_AT_STEP=3 FAIL_MODE=$mode \
        train --checkpoint-every 2 --checkpoint-dir "$work/f" > "$work/f.log" 2>&1
    rc=$?
    if [ "$rc" = "$want" ] && grep -qE -- "$pattern" "$work/f.log"; then ok "FAIL_MODE=$mode: exit $rc"
    else bad "FAIL_MODE=$mode: exit $rc (want $want), pattern '$pattern'"; fi
}
expect exit 1 '^RuntimeError: injected failure at step 3'
expect cuda_oom 1 '^torch\.cuda\.OutOfMemoryError: CUDA out of memory\. Tried to allocate'
expect xid 1 'NVRM: Xid \(PCI:0000:3b:00\): 79, pid=[0-9]+, name=python3, GPU has fallen off the bus\.'
expect nccl_timeout 134 'Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=[0-9]+'
expect code_bug 1 "^KeyError: 'val_loss'"
expect kill 137 '^step 2/'
expect oom_host 137 'Detected 1 oom-kill event\(s\) in StepId=7\.batch'

rm -rf "$work/f"
FAIL_AT_STEP=3 FAIL_MODE=hang timeout 6 "$py" "$here/train.py" --step-seconds 0 --checkpoint-dir "$work/f" > "$work/f.log" 2>&1
rc=$?
if [ "$rc" = 124 ] && [ "$(tail -1 "$work/f.log" | cut -d' ' -f1-2)" = "step 2/60" ]; then
    ok "FAIL_MODE=hang: no output after step 2 until killed"
else bad "FAIL_MODE=hang: rc=$rc"; fi

rm -rf "$work/f"
CORRUPT_LATEST=1 FAIL_AT_STEP=5 train --checkpoint-every 2 --checkpoint-dir "$work/f" > /dev/null 2>&1
full=$(stat -c %s "$work/f/step_000002.pt") half=$(stat -c %s "$work/f/step_000004.pt")
if [ "$half" = $((full / 2)) ]; then ok "CORRUPT_LATEST=1 halves step_000004.pt only"
else bad "CORRUPT_LATEST: sizes $full $half"; fi
SUPERVISOR_RESUME_FROM="$work/f/step_000004.pt" train --checkpoint-dir "$work/f" > "$work/f.log" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q 'PytorchStreamReader failed reading zip archive' "$work/f.log"; then
    ok "resuming from the truncated checkpoint fails with PyTorch's zip error"
else bad "resume from the truncated checkpoint: rc=$rc"; fi

# train_ddp.py with two local ranks (no srun): a clean run, then rank 1's KeyError, which its
# peer sees as gloo's "Connection closed by peer" (or "reset by peer", by timing).
ddp() {  # name port [VAR=value ...]: both ranks in the background, logs $work/NAME.R.log
    local name=$1 port=$2 rank
    shift 2
    for rank in 0 1; do
        env RANK=$rank WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" GLOO_SOCKET_IFNAME=lo \
            GLOO_TIMEOUT_S=10 "$@" "$py" "$here/train_ddp.py" --step-seconds 0 --steps 6 \
            --checkpoint-every 3 --checkpoint-dir "$work/$name" > "$work/$name.$rank.log" 2>&1 &
    done
}
port=$((30000 + $$ % 20000))
ddp ddp "$port"
ddp ddpfail $((port + 1)) FAIL_AT_STEP=4 FAIL_RANK=1 FAIL_MODE=exception
wait
if grep -q '^step 6/6 .* rank 0 world 2$' "$work/ddp.0.log" && grep -q '^step 6/6 .* rank 1 world 2$' "$work/ddp.1.log" \
    && [ "$(sed -n 's#^step 6/6 loss \([0-9.]*\) .*#\1#p' "$work/ddp.0.log")" = "$(sed -n 's#^step 6/6 loss \([0-9.]*\) .*#\1#p' "$work/ddp.1.log")" ] \
    && [ -f "$work/ddp/step_000006.pt" ]; then
    ok "train_ddp.py, 2 ranks: same losses on both, rank 0's checkpoints"
else bad "train_ddp.py, 2 ranks: $(tail -2 "$work/ddp.0.log" "$work/ddp.1.log")"; fi
if grep -q "^KeyError: 'val_loss'" "$work/ddpfail.1.log" && ! grep -q '^step 4/' "$work/ddpfail.1.log" \
    && grep -qE 'gloo/transport/tcp/.*(Connection closed by peer|Connection reset by peer)' "$work/ddpfail.0.log"; then
    ok "train_ddp.py FAIL_MODE=exception FAIL_RANK=1: KeyError on rank 1, gloo's peer error on rank 0"
else bad "train_ddp.py FAIL_MODE=exception: $(tail -2 "$work/ddpfail.0.log" "$work/ddpfail.1.log")"; fi

echo "$failures failure(s)"
[ "$failures" = 0 ]
