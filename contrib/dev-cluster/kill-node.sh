#!/usr/bin/env bash
# Simulate a node failure: SIGKILL the slurmd of one dev-cluster node (found via
# its PID file); or, with `slurmctld`, a controller outage. Job processes on the node keep running, as after a real slurmd
# crash; slurmctld marks the node DOWN after SlurmdTimeout (~20 s) and requeues
# its jobs. Run up.sh again to restart the slurmd (the node returns to idle).
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

usage() {
    cat <<USAGE
Usage: [SLURM_TEST_DIR=dir] $(basename "$0") NODE [SIGNAL]

  NODE     one of: ${DC_NODES[*]}, or slurmctld to kill the controller
  SIGNAL   signal to send (default KILL); TERM stops slurmctld cleanly (it saves its
           state first: a KILLed slurmctld forgets jobs submitted since its last save);
           STOP freezes a slurmd instead (then CONT to resume it)
Exits 1 if that slurmd is not running.
USAGE
}

case "${1:-}" in
    -h | --help) usage; exit 0 ;;
    "") usage >&2; exit 2 ;;
esac
node="$1"
sig="${2:-KILL}"
valid=0
daemon="slurmd-$node"
[[ "$node" == slurmctld ]] && { valid=1; daemon=slurmctld; }
for n in "${DC_NODES[@]}"; do [[ "$n" == "$node" ]] && valid=1; done
[[ $valid == 1 ]] || { echo "unknown node '$node' (expected one of: ${DC_NODES[*]} slurmctld)" >&2; exit 2; }
dc_check_dir

pid="$(dc_running_pid "$daemon")" || dc_die "$daemon is not running (pid file $(dc_pidfile "$daemon"))"
dc_log "sending SIG$sig to $daemon (pid $pid)"
kill -s "$sig" "$pid"
case "$sig" in
    KILL | 9 | TERM | 15 | INT | 2)
        # slurmctld saves its state on TERM, which can take a few seconds
        dc_wait_gone "$pid" 30 || dc_die "$daemon (pid $pid) still alive" ;;
esac
