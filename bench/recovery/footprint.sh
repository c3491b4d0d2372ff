#!/usr/bin/env bash
# Memory and CPU of `supervisor run` watching 1,000 to 10,000 registered jobs (issues 3 and 17),
# against the obvious alternative: a shell loop doing one `squeue -j` per job per cycle.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/recovery/footprint.sh [--help]

Starts its own dev cluster, submits JOBS held jobs (`sbatch --hold --wrap true -o /dev/null`)
and EXTRA more that nobody watches (the rest of a shared table), registers the JOBS in one
command (`supervisor register ID ID ... --allow requeue`, timed; the first SAMPLE of them
one process each instead, timed), then runs
`supervisor run` for WINDOW seconds in each configuration and samples the daemon's
/proc/PID/status (VmRSS, VmHWM) and /proc/PID/stat (utime+stime) every second:

  quiet, poll P     for each P in POLL_INTERVALS: nothing changes in slurmctld
                    (every cycle after the first gets "no change")
  churn, poll 1 s   one unrelated held job is submitted every second, so every cycle
                    sees a changed job table and walks all registrations

Cycles are counted by slurmctld (`sdiag`: REQUEST_JOB_INFO served during the window).
Also times `supervisor run --once` (a cold start + one full cycle) and one cycle of the
naive way. Prints Markdown tables. Stops its cluster on exit.

Environment:
  JOBS=1000  EXTRA=0  SAMPLE=50  WINDOW=60  POLL_INTERVALS="10000 1000"  ONCE_RUNS=5
  NAIVE=1    0 skips the naive squeue loop (3 RPCs per job: minutes at 10,000 jobs)
  BUILD_DIR=build-bench (or SUPERVISOR=path)
  SUPERVISORS="new=PATH old=PATH"  several binaries side by side on the same cluster and jobs,
             each with a state directory of its own (default: the one binary above)
  SLURM_TEST_DIR=/tmp/slurm-bench-recovery SLURM_TEST_CTLD_PORT=17317 SLURM_TEST_SLURMD_PORT=17321
  KEEP=1     keep the work directory (printed on stderr)
EOF
}
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { usage; exit 0; }
[[ $# -eq 0 ]] || { usage >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
supervisor="${SUPERVISOR:-$root/${BUILD_DIR:-build-bench}/src/supervisor}"
read -r -a binaries <<<"${SUPERVISORS:-ours=$supervisor}"
for entry in "${binaries[@]}"; do
    [[ -x "${entry#*=}" ]] || { echo "build first: cmake -S $root -B $root/build-bench && make -C $root/build-bench -j2 supervisor (missing ${entry#*=})" >&2; exit 1; }
done
helper=(/usr/bin/python3 "$here/recovery_bench.py")
jobs="${JOBS:-1000}"
extra="${EXTRA:-0}"
sample="${SAMPLE:-50}"
naive="${NAIVE:-1}"
window="${WINDOW:-60}"
read -r -a polls <<<"${POLL_INTERVALS:-10000 1000}"
once_runs="${ONCE_RUNS:-5}"
hz="$(getconf CLK_TCK)"

export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-bench-recovery}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-17317}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-17321}"
work="$(mktemp -d /tmp/bench-recovery-footprint.XXXXXX)"
daemon_pid="" churn_pid=""
cleanup() {
    [[ -n "$churn_pid" ]] && kill "$churn_pid" 2>/dev/null
    [[ -n "$daemon_pid" ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true
    if [[ "${KEEP:-0}" == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
eval "$(CLEAN=1 "$root/contrib/dev-cluster/up.sh" 2>"$work/up.log")"

ms() { date +%s%3N; }
job_info_rpcs() {  # REQUEST_JOB_INFO served since the last `sdiag -r`
    sdiag | awk '/^[ \t]*REQUEST_JOB_INFO[ \t]/{for (i = 1; i <= NF; i++) if ($i ~ /^count:/) {sub("count:", "", $i); print $i; exit}}
                 END {}' | head -n1
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ctld_ticks() { cpu_ticks "$(cat "$SLURM_TEST_DIR/run/slurmctld.pid")"; }
kb() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }

echo "submitting $jobs held jobs and $extra unwatched ones" >&2
for ((i = 0; i < extra; i++)); do sbatch --parsable --hold --wrap true -o /dev/null >/dev/null; done
t0=$(ms)
for ((i = 0; i < jobs; i++)); do sbatch --parsable --hold --wrap true -o /dev/null >>"$work/ids.txt"; done
submit_ms=$(( $(ms) - t0 ))
head -n "$sample" "$work/ids.txt" >"$work/sample.txt"
tail -n "+$((sample + 1))" "$work/ids.txt" >"$work/bulk.txt"
bulk=$((jobs - sample))

# register_all LABEL BINARY: a state directory of its own, SAMPLE jobs one process each, the
# rest in one command; appends one line to the setup table.
register_all() {
    local label="$1" sample_ms register_ms enabled db_kb
    export SUPERVISOR_STATE_DIR="$work/state-$label"
    mkdir -p "$SUPERVISOR_STATE_DIR"
    echo "$label: registering $sample one process each, then the other $bulk in one command" >&2
    local t0
    t0=$(ms)
    while read -r id; do "$supervisor" register "$id" --allow requeue >/dev/null 2>&1; done <"$work/sample.txt"
    sample_ms=$(( $(ms) - t0 ))
    t0=$(ms)
    # One command (the ids before --allow, which takes several values), every id on its line.
    mapfile -t bulk_ids <"$work/bulk.txt"
    "$supervisor" register "${bulk_ids[@]}" --allow requeue >/dev/null 2>"$work/register-$label.err" ||
        { tail -n 3 "$work/register-$label.err" >&2; exit 1; }
    register_ms=$(( $(ms) - t0 ))
    enabled="$("$supervisor" status --json | /usr/bin/python3 -c 'import json,sys; print(sum(r["status"] == "enabled" for r in json.load(sys.stdin)))')"
    db_kb="$(du -k "$SUPERVISOR_STATE_DIR/supervisor.db" | cut -f1)"
    awk -v label="$label" -v b="$bulk" -v r="$register_ms" -v k="$sample" -v p="$sample_ms" -v e="$enabled" -v d="$db_kb" 'BEGIN {
        printf "| %s | %.1f ms | %.1f s | %.2f ms | %d | %d KiB |\n", label, p / k, r / 1000, r / b, e, d }' >>"$work/setup-table.md"
}

# run_window LABEL POLL_MS [churn]: one line of the daemon table
run_window() {
    local label="$1" poll="$2" churn="${3:-}" cpu0 cpu1 samples="" rss max_rss=0 cycles ctld0 ctld1
    sleep 3  # let slurmctld settle
    sdiag -r >/dev/null
    ctld0="$(ctld_ticks)"
    "$supervisor" run --poll-interval-ms "$poll" >"$work/daemon-${label//[^a-z0-9]/_}.log" 2>&1 &
    daemon_pid=$!
    if [[ -n "$churn" ]]; then
        (while true; do sbatch --hold --wrap true -o /dev/null >/dev/null; sleep 1; done) &
        churn_pid=$!
    fi
    cpu0=0  # the window starts at exec: the first (full) cycle is included
    for ((s = 1; s <= window; s++)); do
        sleep 1
        rss="$(kb "$daemon_pid" VmRSS)"
        ((rss > max_rss)) && max_rss=$rss
        samples+="$rss "
    done
    cpu1="$(cpu_ticks "$daemon_pid")"
    ctld1="$(ctld_ticks)"
    local hwm first_rss
    hwm="$(kb "$daemon_pid" VmHWM)"
    first_rss="${samples%% *}"
    cycles="$(job_info_rpcs)"
    [[ -n "$churn_pid" ]] && { kill "$churn_pid"; wait "$churn_pid" 2>/dev/null || true; churn_pid=""; }
    kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=""
    awk -v label="$label" -v cyc="$cycles" -v t0="$cpu0" -v t1="$cpu1" -v hz="$hz" -v win="$window" \
        -v rss="$rss" -v first="$first_rss" -v hwm="$hwm" -v maxrss="$max_rss" -v c0="$ctld0" -v c1="$ctld1" 'BEGIN {
        cpu = (t1 - t0) / hz
        printf "| %s | %d | %.2f | %.1f%% | %s | %.1f / %.1f / %.1f | %.1f | %.2f |\n", label, cyc, cpu,
               100 * cpu / win, (cyc > 0 ? sprintf("%.1f", 1000 * cpu / cyc) : "—"),
               first / 1024, rss / 1024, maxrss / 1024, hwm / 1024, (c1 - c0) / hz }' >>"$work/daemon-table.md"
}

for entry in "${binaries[@]}"; do
    label="${entry%%=*}"
    supervisor="${entry#*=}"
    register_all "$label"
    for poll in "${polls[@]}"; do
        echo "$label: daemon, quiet cluster, poll $poll ms, ${window} s" >&2
        run_window "$label: quiet, poll $((poll / 1000)) s" "$poll"
    done
    echo "$label: daemon, churning cluster, poll 1000 ms, ${window} s" >&2
    run_window "$label: churn (1 new job/s), poll 1 s" 1000 churn
    echo "$label: supervisor run --once x$once_runs" >&2
    for ((i = 0; i < once_runs; i++)); do
        "${helper[@]}" rusage -- "$supervisor" run --once >>"$work/once-$label.jsonl" 2>/dev/null
    done
done

naive_ctld_s=""
if [[ "$naive" == 1 ]]; then
    echo "naive: one squeue -j per job" >&2
    ctld0="$(ctld_ticks)"
    "${helper[@]}" rusage -- bash -c 'while read -r id; do squeue -h -j "$id" -o %T >/dev/null; done <"$1"' _ "$work/ids.txt" >"$work/naive.json"
    naive_ctld_s="$(awk -v a="$ctld0" -v b="$(ctld_ticks)" -v hz="$hz" 'BEGIN {printf "%.2f", (b - a) / hz}')"
fi

echo "Run of $(date -u +%Y-%m-%dT%H:%MZ); JOBS=$jobs EXTRA=$extra WINDOW=$window POLL_INTERVALS=\"${polls[*]}\"; slurmctld holds $(squeue -h -t all | wc -l) jobs at the end"
echo
awk -v n="$jobs" -v s="$submit_ms" 'BEGIN { printf "sbatch --hold x%d: %.1f s, %.1f ms a job.\n", n, s / 1000, s / n }'
echo
echo "| binary | register ID, one process each (x$sample): per job | register ID ID ... (the other $bulk, one command) | per job | enabled | database |"
echo "|---|---:|---:|---:|---:|---:|"
cat "$work/setup-table.md"
echo
echo "| daemon, ${window} s window | cycles (slurmctld REQUEST_JOB_INFO) | CPU s (utime+stime) | CPU % of one core | CPU ms per cycle | RSS MiB: after 1 s / at end / max sampled | VmHWM MiB | slurmctld CPU s in the window |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
cat "$work/daemon-table.md"
echo
[[ "$naive" == 1 ]] || echo '{}' >"$work/naive.json"
/usr/bin/python3 - "$work" "$work/naive.json" "$jobs" "$naive_ctld_s" "${binaries[@]}" <<'PY'
import json, statistics, sys
naive = json.load(open(sys.argv[2]))
n = sys.argv[3]
print(f"| one cycle over {n} jobs | wall s | CPU s (user+sys, incl. children) |")
print("|---|---:|---:|")
for entry in sys.argv[5:]:
    label = entry.split("=", 1)[0]
    once = [json.loads(l) for l in open(f"{sys.argv[1]}/once-{label}.jsonl") if l.strip()]
    med = lambda k: statistics.median(r[k] for r in once)
    cpu_once = statistics.median(r["user_s"] + r["sys_s"] for r in once)
    print(f"| {label}: `supervisor run --once` (cold start + one full cycle; median of {len(once)}) | {med('wall_s'):.3f} | {cpu_once:.3f} |")
if not naive:
    sys.exit(0)
cpu_naive = naive["user_s"] + naive["sys_s"]
print(f"| naive: `squeue -h -j ID -o %T` per job (bash loop) | {naive['wall_s']:.2f} | {cpu_naive:.2f} |")
print(f"| naive / {label} | {naive['wall_s'] / med('wall_s'):.0f}x | {cpu_naive / cpu_once:.0f}x |")
print()
print(f"slurmctld's own CPU during the naive cycle: {sys.argv[4]} s.")
PY
