#!/usr/bin/env bash
# Registering many jobs (issue 13): `supervisor register ID ID ...` (one process, one Slurm
# query, one transaction) and `register --mine`, against one `supervisor register ID` process
# per job, side by side on the same held jobs.
set -euo pipefail

usage() {
    cat <<'EOF2'
Usage: bench/recovery/bulk_register.sh [--help]

Starts its own dev cluster, submits JOBS held jobs (`sbatch --hold --wrap true -o /dev/null`),
then times, each in a fresh state directory:
  one process per job   `supervisor register ID --allow requeue` for the first SAMPLE jobs
  one command           `supervisor register ID ID ... --allow requeue` for all JOBS
  --mine                `supervisor register --mine --allow requeue` (lists them itself)
and checks that every job ended up enabled. Prints a Markdown table. Stops its cluster on exit.

Environment:
  JOBS=1000  SAMPLE=100  BUILD_DIR=build (or SUPERVISOR=path)
  SLURM_TEST_DIR=/tmp/slurm-bench-register SLURM_TEST_CTLD_PORT=17417 SLURM_TEST_SLURMD_PORT=17421
EOF2
}
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { usage; exit 0; }
[[ $# -eq 0 ]] || { usage >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
supervisor="${SUPERVISOR:-$root/${BUILD_DIR:-build}/src/supervisor}"
[[ -x "$supervisor" ]] || { echo "build first (missing $supervisor)" >&2; exit 1; }
jobs="${JOBS:-1000}"
sample="${SAMPLE:-100}"

export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-bench-register}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-17417}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-17421}"
work="$(mktemp -d /tmp/bench-bulk-register.XXXXXX)"
cleanup() {
    CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
eval "$(CLEAN=1 "$root/contrib/dev-cluster/up.sh" 2>"$work/up.log")"

ms() { date +%s%3N; }
enabled() {
    SUPERVISOR_STATE_DIR="$1" "$supervisor" status --json |
        /usr/bin/python3 -c 'import json,sys; print(sum(r["status"] == "enabled" for r in json.load(sys.stdin)))'
}

echo "submitting $jobs held jobs" >&2
for ((i = 0; i < jobs; i++)); do sbatch --parsable --hold --wrap true -o /dev/null >>"$work/ids.txt"; done

echo "one process per job ($sample)" >&2
export SUPERVISOR_STATE_DIR="$work/single"
t0=$(ms)
head -n "$sample" "$work/ids.txt" | while read -r id; do
    "$supervisor" register "$id" --allow requeue >/dev/null
done
single_ms=$(( $(ms) - t0 ))
single_ok="$(enabled "$work/single")"

echo "one command ($jobs)" >&2
export SUPERVISOR_STATE_DIR="$work/bulk"
t0=$(ms)
mapfile -t ids <"$work/ids.txt"
"$supervisor" register "${ids[@]}" --allow requeue >"$work/bulk.out"
bulk_ms=$(( $(ms) - t0 ))
bulk_ok="$(enabled "$work/bulk")"

echo "--mine ($jobs)" >&2
export SUPERVISOR_STATE_DIR="$work/mine"
t0=$(ms)
"$supervisor" register --mine --allow requeue >"$work/mine.out"
mine_ms=$(( $(ms) - t0 ))
mine_ok="$(enabled "$work/mine")"

# The same number of tasks as one held job array, registered by its id (after the plain jobs,
# so --mine above did not see it).
echo "job array of $jobs tasks" >&2
array="$(sbatch --parsable --hold --array=0-$((jobs - 1)) --wrap true -o /dev/null)"
export SUPERVISOR_STATE_DIR="$work/array"
t0=$(ms)
"$supervisor" register "$array" --allow requeue >"$work/array.out"
array_ms=$(( $(ms) - t0 ))
array_ok="$(enabled "$work/array")"

awk -v n="$jobs" -v s="$sample" -v sm="$single_ms" -v so="$single_ok" -v bm="$bulk_ms" \
    -v bo="$bulk_ok" -v mm="$mine_ms" -v mo="$mine_ok" -v am="$array_ms" -v ao="$array_ok" 'BEGIN {
    per = sm / s
    printf "| how | jobs | enabled | wall | per job | vs one process per job |\n"
    printf "|---|---:|---:|---:|---:|---:|\n"
    printf "| `register ID` x%d, one process each | %d | %d | %.2f s | %.2f ms | 1x |\n", s, s, so, sm / 1000, per
    printf "| `register ID ID ...`, one command | %d | %d | %.2f s | %.3f ms | %.0fx faster |\n", n, bo, bm / 1000, bm / n, per / (bm / n)
    printf "| `register --mine`, one command | %d | %d | %.2f s | %.3f ms | %.0fx faster |\n", n, mo, mm / 1000, mm / n, per / (mm / n)
    printf "| `register ARRAYID`, an array of %d tasks | %d | %d | %.2f s | %.3f ms | %.0fx faster |\n", n, n, ao, am / 1000, am / n, per / (am / n)
}'
