#!/usr/bin/env bash
# Cost of one poll cycle of N watched jobs while slurmctld holds a large job table, for each form
# of job query LibslurmClient can make and for the one it chooses, side by side with the naive
# way (one `squeue -j` per job). Time is measured on our side (median ms a cycle) and on
# slurmctld's (`sdiag`: the total_time of every RPC it served for those cycles, in us a cycle).
# Starts its own dev cluster (own directory and ports), fills it, measures, and stops it.
# Prints a Markdown table for bench/README.md. Run as root: the filler jobs are submitted with
# `sbatch --uid` as another user, created if missing (FILLER_USER), so that the watched owner's
# own jobs are a small part of the big table, as on a shared cluster.
#
#   bench/poll_cost.sh                      tables of 1000 and 10000 jobs, N = 1 10 100 1000
#   TABLE_SIZES="1000" WATCHED="1 10" CYCLES=5 bench/poll_cost.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
bench="$build_dir/bench/bench_poll_cost"
[[ -x "$bench" ]] || { echo "build first: cmake --build $build_dir (missing $bench)" >&2; exit 1; }
[[ "$(id -u)" == 0 ]] || { echo "run as root: filler jobs are submitted as another user" >&2; exit 1; }
read -r -a table_sizes <<<"${TABLE_SIZES:-1000 10000}"
read -r -a watched <<<"${WATCHED:-1 10 100 1000}"
cycles="${CYCLES:-20}"
filler_user="${FILLER_USER:-slurm-bench-filler}"
own_jobs=0
for n in "${watched[@]}"; do ((n > own_jobs)) && own_jobs=$n; done

if ! id "$filler_user" >/dev/null 2>&1; then
    echo "creating system user $filler_user for the filler jobs (remove: userdel $filler_user)" >&2
    useradd --system --no-create-home --shell /usr/sbin/nologin "$filler_user"
fi

export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-supervisor-bench}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-17017}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-17021}"
work="$(mktemp -d)"
trap 'CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
eval "$(CLEAN=1 "$root/contrib/dev-cluster/up.sh" 2>/dev/null)"

# From an `sdiag` output: "RPCS TIME_US", every RPC slurmctld served since the last `sdiag -r`
# and their total time, not counting sdiag's own REQUEST_STATS_INFO.
rpc_totals() {
    awk '/Remote Procedure Call statistics by message type/ {on=1; next}
         /Remote Procedure Call statistics by user/ {on=0}
         on && /count:/ && !/REQUEST_STATS_INFO/ {
             for (i = 1; i <= NF; i++) {
                 if ($i ~ /^count:/) { sub("count:", "", $i); n += $i }
                 if ($i ~ /^total_time:/) { sub("total_time:", "", $i); t += $i } } }
         END {print n + 0, t + 0}' "$1"
}

submit_held() {  # COUNT [sbatch options...]: held jobs that never run, ids on stdout
    local count=$1
    shift
    for ((i = 0; i < count; i++)); do
        sbatch --parsable --hold -o /dev/null "$@" --wrap true
    done
}

echo "| jobs in slurmctld | watched N | whole, no change: ms / ctld us | whole, changed: ms / ctld us | per owner: ms / ctld us | per job: ms / ctld us / RPCs | chosen (busy cluster): form, ms / ctld us | naive squeue -j: ms / ctld us / RPCs | naive / chosen: ms, ctld |"
echo "|---:|---:|---|---|---|---|---|---|---|"
submit_held "$own_jobs" >"$work/ids.txt"
in_table=$own_jobs
for size in "${table_sizes[@]}"; do
    if ((size > in_table)); then
        submit_held $((size - in_table)) --uid="$filler_user" >/dev/null
        in_table=$size
    fi
    sleep 5  # let slurmctld settle so that "no change" can be observed
    for n in "${watched[@]}"; do
        head -n "$n" "$work/ids.txt" >"$work/watched.txt"
        row="| $size | $n"
        for form in whole_unchanged whole_changed per_owner per_job auto_busy; do
            form_cycles=$cycles
            # 1,000 round trips a cycle: a few cycles tell as much.
            [[ $form == per_job ]] && ((n >= 1000)) && form_cycles=3
            result="$("$bench" "$work/watched.txt" "$form" "$form_cycles" "$work/sdiag.txt")"
            read -r rpcs total_us < <(rpc_totals "$work/sdiag.txt")
            row+="$(python3 - "$result" "$rpcs" "$total_us" "$work/chosen.txt" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); rpcs, total_us = int(sys.argv[2]), int(sys.argv[3])
per_cycle_us = total_us / r["cycles"]
if r["found"] != r["watched_jobs"]:
    sys.exit(f"{r['form']}: found {r['found']} of {r['watched_jobs']} watched jobs")
cell = f"{r['median_ms']:.2f} / {per_cycle_us:.0f}"
if r["form"] == "whole_unchanged":
    cell += f" ({r['answered_no_change']}/{r['cycles']} no change)"
if r["form"] == "per_job":
    cell += f" / {rpcs / r['cycles']:.0f}"
if r["form"] == "auto_busy":
    cell = f"{r['chosen']}, {cell}"
    open(sys.argv[4], "w").write(f"{r['median_ms']} {per_cycle_us}\n")
print(f" | {cell}", end="")
PY
)"
            [[ $form == auto_busy ]] && read -r chosen_ms chosen_us <"$work/chosen.txt"
        done
        sdiag -r >/dev/null
        start=$(date +%s%N)
        while read -r id; do squeue -h -j "$id" -o %T >/dev/null; done <"$work/watched.txt"
        naive_ms=$((($(date +%s%N) - start) / 1000000))
        sdiag >"$work/sdiag.txt"
        read -r naive_rpcs naive_us < <(rpc_totals "$work/sdiag.txt")
        row+="$(python3 -c "
import sys
naive_ms, naive_us, rpcs, ms, us = map(float, sys.argv[1:])
print(f' | {naive_ms:.0f} / {naive_us:.0f} / {rpcs:.0f} | {naive_ms / ms:.1f}x, {naive_us / max(us, 1):.1f}x |', end='')
" "$naive_ms" "$naive_us" "$naive_rpcs" "$chosen_ms" "$chosen_us")"
        echo "$row"
    done
done
