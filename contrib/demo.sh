#!/usr/bin/env bash
# The README's "set up and run" command. Installs what is missing, builds, starts a local Slurm
# cluster whose three nodes are hosts of their own (contrib/dev-cluster, DC_LAYOUT=hosts: own
# network, hostname, /tmp and munged each; only a scratch directory is shared with this machine,
# the head), runs the supervisor daemon on the head listening on the cluster's network, submits
# the example PyTorch training job (contrib/examples) with a failure injected at step 25 (CUDA
# out of memory while the batch is above 32), registers it with batch-size reduction allowed,
# and waits until the job has been diagnosed, its batch halved (gradient accumulation doubled),
# requeued from its last checkpoint, and has finished. The job, on a node, fetches its settings
# from the daemon over TCP with a MUNGE credential (client.conf in scratch): nothing of the
# daemon's state is visible there. The owner's notifications go by email to a mail server on
# loopback (aiosmtpd from Debian's python3-aiosmtpd, writing a Maildir under the demo directory;
# DEMO_SMTP_PORT, default 18025). Then shows `supervisor status`, `supervisor events`, the job's
# own log and the first email. About a minute once built. Leaves the cluster running; stop it
# with the down.sh line it prints at the end.
#
#   DEMO_MODE=site (default)  a root daemon, as the site's system unit runs it
#   DEMO_MODE=user            an ordinary user's own daemon (per-user mode; user sup-demo,
#                             created when missing), their job and their client.conf
#   DEMO_LAYOUT=loopback      the nodes as processes of this machine instead (no namespaces)
#   DEMO_CHECK=1              also check, and exit 1 unless, the job's own log shows it resumed
#                             from the checkpoint with batch 32 fetched over TCP (the tests run
#                             it so: tests/hosts/)
#   DEMO_SUPERVISOR=PATH      use this binary, build nothing
#   DEMO_STOP=1               stop the demo's cluster and remove its directory at the end
#   DEMO_DIR, DEMO_CLUSTER_DIR, DEMO_CTLD_PORT, DEMO_SLURMD_PORT, DEMO_LISTEN_PORT: where
#                             (defaults: /tmp/slurm-supervisor-demo, ...-demo-cluster, 17917,
#                             17921, 17927)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
demo_dir="${DEMO_DIR:-/tmp/slurm-supervisor-demo}"
mode="${DEMO_MODE:-site}"
layout="${DEMO_LAYOUT:-hosts}"
check="${DEMO_CHECK:-0}"
listen_port="${DEMO_LISTEN_PORT:-17927}"
case "$mode" in site | user) ;; *) echo "demo: DEMO_MODE must be site or user" >&2; exit 2 ;; esac

if [[ -n "${DEMO_SUPERVISOR:-}" ]]; then
    supervisor="$DEMO_SUPERVISOR"
else
    "$root/contrib/install-deps.sh"
    cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build_dir" -j "$(nproc)" --target supervisor
    supervisor="$build_dir/src/supervisor"
fi

# A cluster of the demo's own (directory, ports, subnet), so it never disturbs the dev cluster
# or the tests' one. In the hosts layout the nodes see the checkout and the build directory, as
# installed software, unless they lie under a node's private /tmp, /root or /home.
export SLURM_TEST_DIR="${DEMO_CLUSTER_DIR:-/tmp/slurm-supervisor-demo-cluster}"
export SLURM_TEST_CTLD_PORT="${DEMO_CTLD_PORT:-17917}"
export SLURM_TEST_SLURMD_PORT="${DEMO_SLURMD_PORT:-17921}"
cluster_env="$(DC_LAYOUT="$layout" "$root/contrib/dev-cluster/up.sh")"
eval "$cluster_env"
scratch="${SLURM_TEST_SCRATCH:-$SLURM_TEST_DIR/scratch}"
head_addr="${SLURM_TEST_HEAD_ADDR:-127.0.0.1}"
munge_socket="$SLURM_TEST_DIR/munge/munge.socket"  # the same path on every host: its own munged

# The head's private files (state, mail) and the files a job shares with it (scratch).
rm -rf "$demo_dir" "$scratch/demo"
mkdir -p "$demo_dir/state" "$scratch/demo/checkpoints"
chmod 0755 "$demo_dir"
as_owner=()
if [[ "$mode" == user ]]; then
    id sup-demo >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/sh sup-demo
    chown -R sup-demo: "$demo_dir/state" "$scratch/demo"
    # The build tree may not be the user's to enter: a copy in scratch, which every host sees.
    cp "$supervisor" "$scratch/demo/supervisor" && chmod 0755 "$scratch/demo/supervisor"
    supervisor="$scratch/demo/supervisor"
    as_owner=(runuser -u sup-demo --)
fi
# What a login or compute node reads to find the daemon: in scratch, where every host sees it.
printf 'daemon = "%s:%s"\nmunge_socket = "%s"\n' "$head_addr" "$listen_port" "$munge_socket" \
    >"$scratch/demo/client.conf"
chmod 0644 "$scratch/demo/client.conf"
export SUPERVISOR_CLIENT_CONF="$scratch/demo/client.conf"

# The owner's mailbox: a real SMTP server on loopback that keeps what it accepts in a Maildir.
smtp_port="${DEMO_SMTP_PORT:-18025}"
/usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$smtp_port" -c aiosmtpd.handlers.Mailbox \
    "$demo_dir/mail" >"$demo_dir/smtp.log" 2>&1 &
smtp=$!
daemon=""
stop_cluster() {
    [[ "${DEMO_STOP:-0}" == 1 ]] && CLEAN=1 "$root/contrib/dev-cluster/down.sh" >&2 || true
}
trap 'kill $daemon "$smtp" 2>/dev/null || true; stop_cluster' EXIT
printf '[notify]\nsmtp_url = "smtp://127.0.0.1:%s"\nsmtp_from = "slurm-supervisor@localhost"\nsmtp_tls = "none"\n' \
    "$smtp_port" >"$demo_dir/config.toml"
chmod 0644 "$demo_dir/config.toml"

echo
echo "== 1. the supervisor daemon on the head ($mode mode), listening for the nodes on"
echo "   $head_addr:$listen_port (each request a MUNGE credential; its log: $demo_dir/daemon.log)"
touch "$demo_dir/daemon.log"
[[ "$mode" == user ]] && chown sup-demo: "$demo_dir/daemon.log"
"${as_owner[@]}" env SUPERVISOR_STATE_DIR="$demo_dir/state" "$supervisor" run \
    --config "$demo_dir/config.toml" --poll-interval-ms 1000 \
    --listen "$head_addr:$listen_port" --munge-socket "$munge_socket" \
    >>"$demo_dir/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do
    "${as_owner[@]}" "$supervisor" status >/dev/null 2>&1 && break
    sleep 0.2
done

echo
echo "== 2. submit the example training job with BATCH_SIZE=64, its files in scratch; at step 25"
echo "   it runs out of GPU memory, and will again every time while the batch is above 32"
job=$("${as_owner[@]}" sbatch --parsable --chdir "$scratch/demo" -o "$scratch/demo/train-%j.out" \
    --export="ALL,SUPERVISOR_BIN=$supervisor,TRAIN_PY=$root/contrib/examples/train.py,BATCH_SIZE=64,FAIL_AT_STEP=25,FAIL_MODE=cuda_oom,FAIL_ON_ATTEMPT=all,OOM_ABOVE_BATCH=32" \
    "$root/contrib/examples/train.sbatch" --checkpoint-dir "$scratch/demo/checkpoints" \
    --step-seconds 0.1)
echo "submitted job $job"

echo
echo "== 3. register it, through the daemon's TCP channel as a login node would: checkpoints in"
echo "   scratch; requeue and batch-size reduction allowed; the batch size is a knob (floor 8)"
echo "   compensated by gradient accumulation"
"${as_owner[@]}" "$supervisor" register "$job" --checkpoint-dir "$scratch/demo/checkpoints" \
    --allow requeue,reduce_batch_size \
    --knob batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM \
    --notify mailto:you@localhost

echo
echo "== 4. wait until the job is finished"
last=""
for _ in $(seq 300); do
    now=$("${as_owner[@]}" "$supervisor" status "$job" | sed -n 3p | awk '{print $3, $4, $5}')
    [[ "$now" != "$last" ]] && echo "   $(date +%T)  $now" && last="$now"
    [[ "$now" == completed/* ]] && break
    sleep 1
done
sleep 2  # the outbox is sent after every cycle: let the last message go out

echo
echo "== 5. supervisor status $job"
"${as_owner[@]}" "$supervisor" status --all
echo
echo "== 6. supervisor events $job"
"${as_owner[@]}" "$supervisor" events "$job"
kill "$daemon"
wait "$daemon" 2>/dev/null || true
echo
log="$scratch/demo/train-$job.out"
echo "== 7. the job's own log ($log): attempt 1 ran out of memory with batch 64; attempt 2,"
echo "   on a node that sees nothing of the head but scratch, fetched its settings over TCP and"
echo "   resumed from the checkpoint with batch 32 and accumulation 2 (the same global batch)"
grep -E "^(supervisor-example|starting|resumed|training finished)|out of memory|^step (2[0-9]|60)/|batch_size" \
    "$log"
echo
mails=("$demo_dir"/mail/new/*)
echo "== 8. the owner's mailbox ($demo_dir/mail): ${#mails[@]} emails; the first one, sent when"
echo "   the job failed:"
first=$(grep -l "failed; recovering" "${mails[@]}" | head -1)
sed -n '/^Subject:/p; /^$/,$p' "$first"
echo
if [[ "${DEMO_STOP:-0}" != 1 ]]; then
    echo "The cluster keeps running: $cluster_env"
    echo "Stop it with: SLURM_TEST_DIR=$SLURM_TEST_DIR $root/contrib/dev-cluster/down.sh"
fi

if [[ "$check" == 1 ]]; then
    failed=0
    expect() {  # what pattern
        if grep -qE "$2" "$log"; then
            echo "demo check: ok: $1"
        else
            echo "demo check: FAILED: $1 (no line matching '$2' in $log)"
            failed=1
        fi
    }
    expect "attempt 2 fetched its settings with supervisor env" \
        "resume environment from '.*supervisor env'.*SUPERVISOR_ATTEMPT=2 BATCH_SIZE=32 GRAD_ACCUM=2"
    expect "it resumed from the checkpoint" "resumed from $scratch/demo/checkpoints/.* at step 20"
    expect "with the batch halved" "batch_size 32 grad_accum 2 .*attempt 2"
    expect "and finished" "^supervisor-example: train.py exited with status 0"
    if [[ "$layout" == hosts ]]; then
        expect "on a node host, not the head" "host n[123] "
        if ! "${as_owner[@]}" env SUPERVISOR_STATE_DIR="$demo_dir/state" "$supervisor" events \
            "$job" | grep -q "settings_fetched.*(tcp from ${head_addr%.*}\.1[123])"; then
            echo "demo check: FAILED: no fetch over TCP from a node in the journal"
            failed=1
        else
            echo "demo check: ok: the journal shows the fetch over TCP from a node's address"
        fi
    fi
    exit "$failed"
fi
