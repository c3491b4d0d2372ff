#!/usr/bin/env bash
# slurmctld's answer time on the dev cluster's hosts layout with the head naming its nodes from
# its own hosts file (as up.sh starts it) and without (as on a head that cannot name them), side
# by side on one cluster (issue 31; contrib/dev-cluster/README.md, "The head names its nodes").
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: [SLURM_TEST_DIR=DIR] bench/slurmctld_names.sh [--help]

Against a running hosts-layout dev cluster in $SLURM_TEST_DIR (root): times CALLS `squeue -h`
one after another, and counts the DNS packets slurmctld sends during 40 of them (strace, when
installed), first with slurmctld as up.sh started it (the cluster's names bound over its
/etc/hosts), then with slurmctld restarted on the same state outside that mount namespace.
Prints one Markdown row per mode (median, p99, max, calls over 1 s, DNS packets). Restarts
slurmctld with up.sh at the end. Environment: CALLS=300.
USAGE
}
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { usage; exit 0; }
[[ $# -eq 0 ]] || { usage >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../contrib/dev-cluster/lib.sh
source "$root/contrib/dev-cluster/lib.sh"
calls="${CALLS:-300}"
dc_hosts_load || { echo "no hosts-layout cluster in $DC_DIR: start one with contrib/dev-cluster/up.sh" >&2; exit 1; }
export SLURM_CONF="$DC_CONF"
dc_ctld_up || { echo "slurmctld of $DC_DIR does not answer" >&2; exit 1; }

ms_now() { echo $(($(date +%s%N) / 1000000)); }
measure() {  # mode
    local pid packets="(no strace)" tracer="" t i
    pid="$(dc_running_pid slurmctld)"
    if command -v strace >/dev/null; then
        strace -f -qq -e trace=connect,sendto,sendmmsg -p "$pid" -o "$DC_DIR/log/names-$1.strace" &
        tracer=$!
        sleep 1
        for ((i = 0; i < 40; i++)); do timeout 30 squeue -h >/dev/null 2>&1 || true; done
        kill "$tracer"
        wait "$tracer" 2>/dev/null || true
        packets="$(grep -c 'htons(53)' "$DC_DIR/log/names-$1.strace" || true)"
    fi
    for ((i = 0; i < calls; i++)); do
        t="$(ms_now)"
        timeout 30 squeue -h >/dev/null 2>&1 || true
        echo $(($(ms_now) - t))
    done | sort -n | awk -v mode="$1" -v packets="$packets" '
        { a[NR] = $1; if ($1 > 1000) slow++ }
        END { printf "| %s | %d | %d ms | %d ms | %d ms | %d | %s |\n", mode, NR, a[int((NR + 1) / 2)],
              a[int(NR * 0.99)], a[NR], slow, packets }'
}
restart_ctld() {  # how: up (as up.sh starts it) or plain (outside the names' namespace)
    local pid i
    pid="$(dc_running_pid slurmctld)" && kill "$pid"
    for ((i = 0; i < 100; i++)); do dc_running_pid slurmctld >/dev/null || break; sleep 0.1; done
    if [[ "$1" == up ]]; then
        "$root/contrib/dev-cluster/up.sh" >/dev/null 2>>"$DC_DIR/log/names-bench.log"
    else
        slurmctld -f "$DC_CONF"
        for ((i = 0; i < 60; i++)); do dc_ctld_up && break; sleep 0.5; done
    fi
}

echo "| slurmctld | calls | median | p99 | max | over 1 s | DNS packets in 40 calls |"
echo "|---|---:|---:|---:|---:|---:|---:|"
measure "names in its hosts file"
restart_ctld plain
measure "names from the machine's resolver"
restart_ctld up
