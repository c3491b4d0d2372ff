#!/usr/bin/env bash
# Cost of one poll cycle of N watched jobs while slurmctld holds a large job table, through
# LibslurmClient (one batched RPC) side by side with the naive way (one `squeue -j` per job).
# Starts its own dev cluster (own directory and ports), fills it with held jobs, measures, and
# stops it. Prints a Markdown table for bench/README.md.
#
#   bench/poll_cost.sh                  table sizes 1000 and 10000, N = 1, 100, 1000
#   TABLE_SIZES="1000" WATCHED="1 10" bench/poll_cost.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
bench="$build_dir/bench/bench_poll_cost"
[[ -x "$bench" ]] || { echo "build first: cmake --build $build_dir (missing $bench)" >&2; exit 1; }
table_sizes=(${TABLE_SIZES:-1000 10000})
watched=(${WATCHED:-1 100 1000})
cycles="${CYCLES:-20}"

export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-supervisor-bench}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-17017}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-17021}"
trap 'CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true' EXIT
eval "$(CLEAN=1 "$root/contrib/dev-cluster/up.sh" 2>/dev/null)"
work="$(mktemp -d)"

# Total RPCs slurmctld served since the last `sdiag -r`, not counting sdiag's own.
rpc_count() {
    local stats
    stats="$(sdiag)"
    awk '/Remote Procedure Call statistics by message type/ {on=1; next}
         /Remote Procedure Call statistics by user/ {on=0}
         on && /count:/ && !/REQUEST_STATS_INFO/ {
             for (i = 1; i <= NF; i++) if ($i ~ /^count:/) { sub("count:", "", $i); n += $i } }
         END {print n + 0}' <<<"$stats"
}

echo "| jobs in slurmctld | watched N | ours: no change (median ms) | ours: changed (median ms) | ours: RPCs per cycle | naive squeue -j per job: cycle (ms) | naive: RPCs per cycle | naive / ours (changed) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
submitted=0
for size in "${table_sizes[@]}"; do
    while ((submitted < size)); do
        sbatch --parsable --hold -o /dev/null --wrap true >>"$work/ids.txt"
        submitted=$((submitted + 1))
    done
    sleep 5  # let slurmctld settle so that "no change" can be observed
    for n in "${watched[@]}"; do
        head -n "$n" "$work/ids.txt" >"$work/watched.txt"

        sdiag -r >/dev/null
        result="$("$bench" "$work/watched.txt" "$cycles")"
        ours_rpcs="$(rpc_count)"
        queries=$((1 + 2 * cycles))

        sdiag -r >/dev/null
        start=$(date +%s%N)
        while read -r id; do squeue -h -j "$id" -o %T >/dev/null; done <"$work/watched.txt"
        naive_ms=$(( ($(date +%s%N) - start) / 1000000 ))
        naive_rpcs="$(rpc_count)"

        python3 - "$size" "$n" "$result" "$ours_rpcs" "$queries" "$naive_ms" "$naive_rpcs" <<'PY'
import json, sys
size, n, result, ours_rpcs, queries, naive_ms, naive_rpcs = sys.argv[1:]
r = json.loads(result)
ours_changed = r["changed_median_ms"]
print(f"| {size} | {n} | {r['unchanged_median_ms']:.2f} ({r['unchanged_cycles_answered_no_change']}/{r['cycles']} said no change) "
      f"| {ours_changed:.2f} | {int(ours_rpcs) / int(queries):.2f} | {naive_ms} | {int(naive_rpcs) / 1:.0f} "
      f"| {int(naive_ms) / ours_changed:.0f}x |")
PY
    done
done
