#!/usr/bin/env bash
# `supervisor register ID ID ...` through a site daemon's control socket (issue 17): how long
# registering JOBS jobs in one command takes, and how many control requests it costs, for one
# or several binaries side by side on the same cluster and jobs.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/recovery/site_register.sh [--help]

Starts its own dev cluster, submits JOBS held jobs (`sbatch --hold --wrap true -o /dev/null`),
then for each binary: starts `supervisor run --control-socket` on a fresh state directory
(the site daemon, as root), times `supervisor register ID ID ... --allow requeue` through its
socket (as root, an operator: every job's ownership is still checked), counts the requests the
daemon logged, then times registering one more job into the full database (the median of
five, after the daemon's next cycle). Prints a Markdown table. Stops its cluster on exit.

Environment:
  JOBS=10000
  SUPERVISORS="new=PATH old=PATH"  binaries side by side (default: build/src/supervisor)
  SLURM_TEST_DIR=/tmp/slurm-bench-site-register SLURM_TEST_CTLD_PORT=17417
  SLURM_TEST_SLURMD_PORT=17421
  KEEP=1     keep the work directory (printed on stderr)
EOF
}
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { usage; exit 0; }
[[ $# -eq 0 ]] || { usage >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
read -r -a binaries <<<"${SUPERVISORS:-ours=$root/build/src/supervisor}"
for entry in "${binaries[@]}"; do
    [[ -x "${entry#*=}" ]] || { echo "build first (missing ${entry#*=})" >&2; exit 1; }
done
jobs="${JOBS:-10000}"

export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-bench-site-register}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-17417}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-17421}"
work="$(mktemp -d /tmp/bench-site-register.XXXXXX)"
daemon_pid=""
cleanup() {
    [[ -n "$daemon_pid" ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true
    if [[ "${KEEP:-0}" == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
eval "$(CLEAN=1 "$root/contrib/dev-cluster/up.sh" 2>"$work/up.log")"

ms() { date +%s%3N; }

echo "submitting $jobs held jobs" >&2
for ((i = 0; i < jobs; i++)); do
    sbatch --parsable --hold --wrap true -o /dev/null >>"$work/ids.txt"
done

rows=()
for entry in "${binaries[@]}"; do
    label="${entry%%=*}" supervisor="${entry#*=}"
    state="$work/state-$label" socket="$work/$label.sock" log="$work/daemon-$label.log"
    mkdir -p "$state"
    SUPERVISOR_STATE_DIR="$state" "$supervisor" run --poll-interval-ms 10000 \
        --control-socket "$socket" >"$log" 2>&1 &
    daemon_pid=$!
    for ((i = 0; i < 200; i++)); do [[ -S "$socket" ]] && break; sleep 0.1; done
    [[ -S "$socket" ]] || { tail -n 5 "$log" >&2; exit 1; }

    echo "$label: registering $jobs jobs through the socket" >&2
    t0=$(ms)
    mapfile -t ids <"$work/ids.txt"
    SUPERVISOR_SOCKET="$socket" "$supervisor" register "${ids[@]}" --allow requeue \
        >"$work/register-$label.out" 2>&1 || { tail -n 3 "$work/register-$label.out" >&2; exit 1; }
    register_ms=$(($(ms) - t0))
    registered=$(sed -n 's/^\([0-9]*\) of [0-9]* jobs registered.*/\1/p' "$work/register-$label.out")
    requests=$(grep -c "registered by uid" "$log" || true)

    # After the daemon's next cycle (10 s polls) has taken the new rows in, so that the
    # single registrations do not wait for its write lock: the median of five.
    sleep 12
    singles=()
    for ((i = 0; i < 5; i++)); do
        one=$(sbatch --parsable --hold --wrap true -o /dev/null)
        t0=$(ms)
        SUPERVISOR_SOCKET="$socket" "$supervisor" register "$one" --allow requeue >/dev/null 2>&1
        singles+=($(($(ms) - t0)))
        scancel "$one"
    done
    one_ms=$(printf '%s\n' "${singles[@]}" | sort -n | sed -n 3p)

    kill "$daemon_pid" && wait "$daemon_pid" 2>/dev/null || true
    daemon_pid=""
    rows+=("$(awk -v l="$label" -v n="$registered" -v j="$jobs" -v r="$register_ms" \
        -v q="$requests" -v o="$one_ms" 'BEGIN {
        printf "| %s | %s of %s | %.1f s | %.2f ms | %s | %d ms |", l, n, j, r / 1000, r / j, q, o }')")
done

echo "| binary | registered | register ID ID ... through the socket | per job | requests the daemon logged | one more job into the full database (median of 5) |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
