#!/usr/bin/env bash
# Detection latency and time to recovery over injected failures (issue 3), the supervisor
# side by side with the floor: a script that requeues at the instant it sees the failure.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/recovery/latency.sh [--help]

Starts its own dev cluster, then for each configuration submits FAILURES tiny jobs
(bench/recovery/fail_once.sbatch: run 1 fails with exit 3 after ~1 s, run 2 succeeds),
one after the other, and follows each with an outside poller (`squeue -j` every
WATCH_INTERVAL s, ms timestamps):

  floor        no supervisor: the poller itself runs `scontrol requeue` + `scontrol update
               StartTime=now+2` as soon as it sees the job no longer RUNNING
  supervisor   `supervisor run --poll-interval-ms P` for each P in POLL_INTERVALS; every job
               registered with `--allow requeue`; the poller only watches
  push         the same as a site daemon (`--control-socket`) for each P in PUSH_POLL_INTERVALS,
               told of each job's end by the cluster's EpilogSlurmctld
               (contrib/slurm/epilog-slurmctld.sh), jobs registered through its socket

Prints a Markdown table (median / max). Stops its cluster on exit.

Environment:
  FAILURES=20            failures per configuration
  POLL_INTERVALS="1000 300"  supervisor poll intervals (ms)
  PUSH_POLL_INTERVALS=""     poll intervals (ms) of the site daemon told by EpilogSlurmctld
  WATCH_INTERVAL=0.05    outside poller period (s)
  BUILD_DIR=build-bench  where src/supervisor is (or SUPERVISOR=path)
  SLURM_TEST_DIR=/tmp/slurm-bench-recovery SLURM_TEST_CTLD_PORT=17317 SLURM_TEST_SLURMD_PORT=17321
  KEEP=1                 keep the work directory (printed on stderr)
EOF
}
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { usage; exit 0; }
[[ $# -eq 0 ]] || { usage >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
supervisor="${SUPERVISOR:-$root/${BUILD_DIR:-build-bench}/src/supervisor}"
[[ -x "$supervisor" ]] || { echo "build first: cmake -S $root -B $root/build-bench && make -C $root/build-bench -j2 supervisor (missing $supervisor)" >&2; exit 1; }
helper=(/usr/bin/python3 "$here/recovery_bench.py")
failures="${FAILURES:-20}"
read -r -a polls <<<"${POLL_INTERVALS:-1000 300}"
read -r -a push_polls <<<"${PUSH_POLL_INTERVALS:-}"
watch_interval="${WATCH_INTERVAL:-0.05}"

export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-bench-recovery}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-17317}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-17321}"
work="$(mktemp -d /tmp/bench-recovery-latency.XXXXXX)"
daemon_pid=""
cleanup() {
    [[ -n "$daemon_pid" ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true
    if [[ "${KEEP:-0}" == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
eval "$(CLEAN=1 "$root/contrib/dev-cluster/up.sh" 2>"$work/up.log")"
results="$work/results.jsonl"

# One failure: submit, (register), follow it until run 2 is RUNNING; append one JSON line.
one_failure() {
    local config="$1" method="$2" poll="$3" state_dir="$4" id watch_json
    # random phase against the daemon's poll cycle and Slurm's whole seconds
    sleep "0.$(printf '%03d' $((RANDOM % 1000)))"
    id="$(sbatch --parsable -o "$work/job-%j.out" "$here/fail_once.sbatch")"
    local floor=()
    if [[ "$method" == floor ]]; then
        floor=(--floor)
    elif [[ "$method" == push ]]; then
        SUPERVISOR_SOCKET="$state_dir/control.sock" "$supervisor" register "$id" --allow requeue >/dev/null
    else
        SUPERVISOR_STATE_DIR="$state_dir" "$supervisor" register "$id" --allow requeue >/dev/null
    fi
    if ! watch_json="$("${helper[@]}" watch "$id" "${floor[@]}" --interval "$watch_interval")"; then
        echo "job $id did not come back within the timeout: $watch_json" >&2
    fi
    if [[ "$method" != floor ]]; then
        # the "started attempt 2" event may come up to one poll after the outside poller saw it
        sleep "$(awk -v p="$poll" 'BEGIN {print p / 1000 + 0.5}')"
        SUPERVISOR_STATE_DIR="$state_dir" "$supervisor" events "$id" --json >"$work/events-$id.json"
        "${helper[@]}" annotate --config "$config" --method "$method" --poll "$poll ms" "$watch_json" \
            "$work/events-$id.json" >>"$results"
    else
        "${helper[@]}" annotate --config "$config" --method "$method" --poll "$watch_interval s (outside poller)" \
            "$watch_json" >>"$results"
    fi
}

echo "floor: $failures failures" >&2
for ((i = 0; i < failures; i++)); do one_failure floor floor "" ""; done

for poll in "${polls[@]}"; do
    state_dir="$work/state-$poll"
    mkdir -p "$state_dir"
    SUPERVISOR_STATE_DIR="$state_dir" "$supervisor" run --poll-interval-ms "$poll" >"$work/daemon-$poll.log" 2>&1 &
    daemon_pid=$!
    echo "supervisor, poll $poll ms: $failures failures" >&2
    for ((i = 0; i < failures; i++)); do one_failure "supervisor-$poll" supervisor "$poll" "$state_dir"; done
    kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=""
done

epilog_conf="$SLURM_TEST_DIR/etc/epilog-slurmctld.conf"
for poll in "${push_polls[@]}"; do
    state_dir="$work/state-push-$poll"
    mkdir -p "$state_dir"
    chmod 0700 "$state_dir"
    SUPERVISOR_STATE_DIR="$state_dir" "$supervisor" run --poll-interval-ms "$poll" \
        --control-socket "$state_dir/control.sock" >"$work/daemon-push-$poll.log" 2>&1 &
    daemon_pid=$!
    for ((i = 0; i < 100; i++)); do [[ -S "$state_dir/control.sock" ]] && break; sleep 0.1; done
    printf 'supervisor = %s\nsocket = %s\n' "$supervisor" "$state_dir/control.sock" >"$epilog_conf"
    echo "site daemon told by EpilogSlurmctld, poll $poll ms: $failures failures" >&2
    for ((i = 0; i < failures; i++)); do one_failure "push-$poll" push "$poll" "$state_dir"; done
    printf 'supervisor =\nsocket =\n' >"$epilog_conf"
    kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=""
done

echo "Run of $(date -u +%Y-%m-%dT%H:%MZ); FAILURES=$failures POLL_INTERVALS=\"${polls[*]}\" PUSH_POLL_INTERVALS=\"${push_polls[*]}\" WATCH_INTERVAL=$watch_interval; job: bench/recovery/fail_once.sbatch"
echo
"${helper[@]}" latency-table "$results"
