#!/usr/bin/env bash
# The README's "set up and run" command. Installs what is missing, builds, starts the local dev
# cluster (contrib/dev-cluster, default directory), submits the example PyTorch training job
# (contrib/examples) with a failure injected at step 25 (CUDA out of memory while the batch is
# above 32), registers it with batch-size reduction allowed, and runs the supervisor until the
# job has been diagnosed, its batch halved (gradient accumulation doubled), requeued from its last
# checkpoint, and has finished. Its owner's notifications go by email to a mail server on
# loopback (aiosmtpd from Debian's python3-aiosmtpd, writing a Maildir under the demo directory;
# DEMO_SMTP_PORT, default 18025). Then shows `supervisor status`, `supervisor events` and the
# first email. About a minute once installed. Leaves the cluster running; stop it with
# contrib/dev-cluster/down.sh.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
demo_dir="${DEMO_DIR:-/tmp/slurm-supervisor-demo}"

"$root/contrib/install-deps.sh"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target supervisor
supervisor="$build_dir/src/supervisor"

eval "$("$root/contrib/dev-cluster/up.sh")"
rm -rf "$demo_dir"
mkdir -p "$demo_dir/checkpoints"
export SUPERVISOR_STATE_DIR="$demo_dir/state"

# The owner's mailbox: a real SMTP server on loopback that keeps what it accepts in a Maildir.
smtp_port="${DEMO_SMTP_PORT:-18025}"
/usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$smtp_port" -c aiosmtpd.handlers.Mailbox \
    "$demo_dir/mail" >"$demo_dir/smtp.log" 2>&1 &
smtp=$!
daemon=""
trap 'kill $daemon "$smtp" 2>/dev/null || true' EXIT
printf '[notify]\nsmtp_url = "smtp://127.0.0.1:%s"\nsmtp_from = "slurm-supervisor@localhost"\nsmtp_tls = "none"\n' \
    "$smtp_port" >"$demo_dir/config.toml"

echo
echo "== 1. submit the example training job with BATCH_SIZE=64; at step 25 it runs out of GPU"
echo "   memory, and will again every time while the batch is above 32"
job=$(sbatch --parsable --chdir "$demo_dir" -o "$demo_dir/train-%j.out" \
    --export="ALL,SUPERVISOR_BIN=$supervisor,TRAIN_PY=$root/contrib/examples/train.py,BATCH_SIZE=64,FAIL_AT_STEP=25,FAIL_MODE=cuda_oom,FAIL_ON_ATTEMPT=all,OOM_ABOVE_BATCH=32" \
    "$root/contrib/examples/train.sbatch" --checkpoint-dir "$demo_dir/checkpoints" --step-seconds 0.1)
echo "submitted job $job"

echo
echo "== 2. register it: checkpoints in $demo_dir/checkpoints; requeue and batch-size reduction"
echo "   allowed; the batch size is a knob (floor 8) compensated by gradient accumulation"
"$supervisor" register "$job" --checkpoint-dir "$demo_dir/checkpoints" \
    --allow requeue,reduce_batch_size \
    --knob batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM \
    --notify mailto:you@localhost

echo
echo "== 3. run the supervisor until the job is finished (its log: $demo_dir/daemon.log)"
"$supervisor" run --config "$demo_dir/config.toml" --poll-interval-ms 1000 \
    >"$demo_dir/daemon.log" 2>&1 &
daemon=$!
last=""
for _ in $(seq 300); do
    now=$("$supervisor" status "$job" | sed -n 2p | awk '{print $3, $4, $5}')
    [[ "$now" != "$last" ]] && echo "   $(date +%T)  $now" && last="$now"
    [[ "$now" == completed/* ]] && break
    sleep 1
done
sleep 2  # the outbox is sent after every cycle: let the last message go out
kill "$daemon"
wait "$daemon" 2>/dev/null || true

echo
echo "== 4. supervisor status $job"
"$supervisor" status --all
echo
echo "== 5. supervisor events $job"
"$supervisor" events "$job"
echo
echo "== 6. the job's own log: attempt 1 ran out of memory with batch 64; attempt 2 resumed"
echo "   from the checkpoint with batch 32 and accumulation 2 (the same global batch)"
grep -E "^(supervisor-example|starting|resumed|training finished)|out of memory|^step (2[0-9]|60)/" \
    "$demo_dir/train-$job.out"
echo
mails=("$demo_dir"/mail/new/*)
echo "== 7. the owner's mailbox ($demo_dir/mail): ${#mails[@]} emails; the first one, sent when"
echo "   the job failed:"
first=$(grep -l "failed; recovering" "${mails[@]}" | head -1)
sed -n '/^Subject:/p; /^$/,$p' "$first"
echo
echo "The cluster keeps running: export SLURM_CONF=$SLURM_CONF SUPERVISOR_STATE_DIR=$SUPERVISOR_STATE_DIR"
echo "Stop it with: $root/contrib/dev-cluster/down.sh"
