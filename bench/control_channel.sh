#!/usr/bin/env bash
# The control channel across hosts (issue 31), side by side in one run, against a real daemon
# on a dev cluster of its own (own directory and ports; stopped at the end):
#   1. latency of `env` and `status`: the Unix socket against TCP with a MUNGE credential
#      (bench_control_channel latency; interleaved requests, median and p99);
#   2. a requeued array of TASKS tasks fetching their settings at once (bench_control_channel
#      storm): every fetch answered? p99 of reply after send; and what the poll cycle cost
#      meanwhile (the daemon's own supervisor_poll_duration_seconds, from its metrics file).
# Prints Markdown tables for bench/README.md. Run as root (the cluster's daemons).
#
#   bench/control_channel.sh            ROUNDS=500 TASKS=1000
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
bench="$build_dir/bench/bench_control_channel"
supervisor="$build_dir/src/supervisor"
[[ -x "$bench" && -x "$supervisor" ]] || { echo "build first: cmake --build $build_dir" >&2; exit 1; }
rounds="${ROUNDS:-500}"
tasks="${TASKS:-1000}"

export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-supervisor-bench-channel}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-17117}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-17121}"
work="$(mktemp -d)"
daemon=""
# errexit holds in the trap too: a daemon already gone must not keep the cluster running.
trap '[[ -z "$daemon" ]] || kill "$daemon" 2>/dev/null || true
CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true
rm -rf "$work"' EXIT
eval "$(CLEAN=1 "$root/contrib/dev-cluster/up.sh" 2>/dev/null)"
munge_socket="$SLURM_TEST_DIR/munge/munge.socket"
port="${LISTEN_PORT:-17127}"

mkdir -p "$work/state"
SUPERVISOR_STATE_DIR="$work/state" "$supervisor" run --poll-interval-ms 1000 \
    --control-socket "$work/control.sock" --listen "127.0.0.1:$port" \
    --munge-socket "$munge_socket" --metrics-file "$work/metrics.prom" >"$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do [[ -S "$work/control.sock" ]] && break; sleep 0.1; done
export SUPERVISOR_SOCKET="$work/control.sock"

job=$(sbatch --parsable --hold -o /dev/null --wrap true)
"$supervisor" register "$job" >/dev/null
echo "### Latency, $rounds requests of each, interleaved ($(nproc) cores; $(date -u +%F))"
echo
"$bench" latency --socket "$work/control.sock" --tcp "127.0.0.1:$port" \
    --munge-socket "$munge_socket" --job "$job" --rounds "$rounds"

metric() {  # name: its value in the metrics file
    awk -v n="$1" '$1 == n {print $2}' "$work/metrics.prom"
}
array=$(sbatch --parsable --hold --array="0-$((tasks - 1))" -o /dev/null --wrap true)
"$supervisor" register "$array" >/dev/null
sleep 3  # a few quiet cycles with the array watched
sum0=$(metric supervisor_poll_duration_seconds_sum) count0=$(metric supervisor_poll_duration_seconds_count)
sleep 3
sum1=$(metric supervisor_poll_duration_seconds_sum) count1=$(metric supervisor_poll_duration_seconds_count)
echo
echo "### $tasks array tasks fetching their settings at once (TCP + MUNGE)"
echo
"$bench" storm --tcp "127.0.0.1:$port" --munge-socket "$munge_socket" --array "$array" \
    --tasks "$tasks" || echo "(not every fetch was answered: see above)"
sleep 2  # the cycles that ran during the storm have ended
sum2=$(metric supervisor_poll_duration_seconds_sum) count2=$(metric supervisor_poll_duration_seconds_count)
fetched=$(SUPERVISOR_STATE_DIR="$work/state" sqlite3 "$work/state/supervisor.db" \
    "select count(*) from events where kind = 'settings_fetched'" 2>/dev/null || echo "?")
awk -v s0="$sum0" -v c0="$count0" -v s1="$sum1" -v c1="$count1" -v s2="$sum2" -v c2="$count2" \
    -v f="$fetched" 'BEGIN {
    printf "\nPoll cycles of the %d watched jobs: before the storm %d cycles, mean %.1f ms; ", '"$tasks"' + 1, c1 - c0, (c1 > c0 ? 1000 * (s1 - s0) / (c1 - c0) : 0)
    printf "during and right after it %d cycles, mean %.1f ms. Fetches journaled: %s.\n", c2 - c1, (c2 > c1 ? 1000 * (s2 - s1) / (c2 - c1) : 0), f }'
