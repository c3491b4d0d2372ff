#!/usr/bin/env bash
# A node cut off mid-run on a cluster of separate hosts (issue 31), as ctest runs it: a
# three-node training job (contrib/examples/train_ddp.sbatch) whose files are in scratch, the
# daemon on the head reached over TCP; one of the job's nodes loses its link (slurmd alive but
# unreachable, as behind a dead switch port). The supervisor must diagnose a node failure,
# exclude that node alone, and resume the job from its checkpoint on the others, where it
# finishes. Starts and removes a cluster of its own.
#
#   tests/hosts/cut_node_check.sh SUPERVISOR_BINARY
#
# Skipped (exit 77) when not root, failed under CI=true instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
binary="$1"
if [[ $(id -u) != 0 ]]; then
    echo "cut_node_check: needs root (network and mount namespaces)" >&2
    [[ "${CI:-}" == true ]] && exit 1
    exit 77
fi
export SLURM_TEST_DIR=/tmp/slurm-supervisor-cut-check-cluster
export SLURM_TEST_CTLD_PORT=19017 SLURM_TEST_SLURMD_PORT=19021
work=/tmp/slurm-supervisor-cut-check
daemon=""
cleanup() {
    [[ -n "$daemon" ]] && kill "$daemon" 2>/dev/null
    CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true
}
trap cleanup EXIT
say() { echo "cut_node_check: $*"; }
fail() {
    say "FAILED: $*"
    echo "---- the job's log"; cat "$scratch/job.out" 2>/dev/null || true
    echo "---- the journal"; "$binary" events "$job" 2>&1 || true
    echo "---- the daemon's log"; tail -n 30 "$work/daemon.log" || true
    exit 1
}
# Its own output is the environment to take; a cluster that did not start (a port in use) ends
# the check here, rather than leaving it to wait for a job that never comes.
cluster_env="$(DC_LAYOUT=hosts CLEAN=1 "$root/contrib/dev-cluster/up.sh")" || {
    say "FAILED: the cluster of separate hosts did not start (its messages are above)"
    exit 1
}
eval "$cluster_env"
scratch="$SLURM_TEST_SCRATCH"
rm -rf "$work"
mkdir -p "$work/state" "$scratch/ckpt"
printf 'daemon = "%s:19027"\nmunge_socket = "%s"\n' "$SLURM_TEST_HEAD_ADDR" \
    "$SLURM_TEST_DIR/munge/munge.socket" >"$scratch/client.conf"
export SUPERVISOR_CLIENT_CONF="$scratch/client.conf"
printf 'requeue_backoff_s = 1\n' >"$work/config.toml"
SUPERVISOR_STATE_DIR="$work/state" "$binary" run --config "$work/config.toml" \
    --poll-interval-ms 500 --listen "$SLURM_TEST_HEAD_ADDR:19027" \
    --munge-socket "$SLURM_TEST_DIR/munge/munge.socket" >"$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do
    "$binary" status >/dev/null 2>&1 && break
    sleep 0.2
done

ctld_log="$SLURM_TEST_DIR/log/slurmctld.log"
slurm_declared_failed() {  # the nodes slurmctld set DOWN or failed a job for, one per line
    sed -nE -e 's/.*due to failure of node ([^ ]+).*/\1/p' \
        -e 's/.*Nodes ([^ ]+) not responding, setting DOWN.*/\1/p' "$ctld_log" |
        while read -r list; do scontrol show hostnames "$list"; done | sort -u
}

json_field() {  # field: of the job's `status JOB --json` (a list of one), as text
    "$binary" status "$job" --json 2>/dev/null | python3 -c "
import json, sys
value = json.load(sys.stdin)[0].get('$1', '')
print(json.dumps(value) if isinstance(value, list) else value)" 2>/dev/null || true
}
job=$(sbatch --parsable -N 2-3 -o "$scratch/job.out" --requeue \
    --export="ALL,SUPERVISOR_BIN=$binary,TRAIN_PY=$root/contrib/examples/train.py,GLOO_TIMEOUT_S=5" \
    "$root/contrib/examples/train_ddp.sbatch" --checkpoint-dir "$scratch/ckpt" --steps 40 \
    --checkpoint-every 3 --step-seconds 0.3)
"$binary" register "$job" --checkpoint-dir "$scratch/ckpt" --allow requeue,exclude_node ||
    fail "register"

# Running (on three nodes: the cluster is idle), with a checkpoint written: then the last node (never the batch host,
# which runs rank 0) loses its link.
for _ in $(seq 120); do
    nodes="$(squeue -h -j "$job" -t R -o %N)"
    [[ -n "$nodes" && -n "$(ls -A "$scratch/ckpt")" ]] && break
    sleep 0.5
done
[[ -n "${nodes:-}" ]] || fail "the job never ran with a checkpoint"
victim="$(scontrol show hostnames "$nodes" | tail -n 1)"
say "job $job runs on $nodes; cutting $victim off"
"$root/contrib/dev-cluster/kill-node.sh" "$victim" cut

for _ in $(seq 240); do
    [[ "$(json_field attempt)" == 2 && "$(json_field last_slurm_state)" == RUNNING ]] && break
    sleep 0.5
done
[[ "$(json_field attempt)" == 2 ]] || fail "no second attempt"
[[ "$(json_field last_cause)" == node_failure ]] || fail "cause $(json_field last_cause), not node_failure"
if [[ "$(json_field excluded_nodes)" != "[\"$victim\"]" ]]; then
    # Slurm 24.11 on this layout, under load, sometimes declares a second node failed (its
    # slurmctld stalls for seconds: doc/development.md). The supervisor then rightly keeps the
    # job off both, and the job cannot start on the one node left: not the case this check is
    # about. Only then, and once, the whole check starts over on a fresh cluster.
    others="$(slurm_declared_failed | grep -vx "$victim" | paste -sd, -)"
    if [[ -n "$others" && -z "${CUT_CHECK_STARTED_OVER:-}" ]]; then
        say "slurmctld itself declared $others failed besides $victim (its log:" \
            "$(grep -E 'not responding, setting DOWN|failure of node' "$ctld_log" | tr '\n' ' '));" \
            "the supervisor excluded $(json_field excluded_nodes); starting over once"
        kill "$daemon" 2>/dev/null
        wait "$daemon" 2>/dev/null || true
        daemon=""
        cleanup
        exec env CUT_CHECK_STARTED_OVER=1 "$0" "$binary"
    fi
    fail "excluded $(json_field excluded_nodes), not [\"$victim\"] alone"
fi
say "diagnosed node_failure, excluded $victim alone, running again on $(squeue -h -j "$job" -o %N)"
for _ in $(seq 240); do
    [[ "$(json_field status)" == completed ]] && break
    sleep 0.5
done
[[ "$(json_field status)/$(json_field outcome)" == completed/succeeded ]] ||
    fail "not finished: $(json_field status)/$(json_field outcome)"
grep -q "resumed from $scratch/ckpt/" "$scratch/job.out" || fail "no resume from the checkpoint"
say "ok: it resumed from its checkpoint without $victim and finished"
