#!/usr/bin/env bash
# Simulate a node failure: SIGKILL the slurmd of one dev-cluster node (found via
# its PID file); or, with `slurmctld`, a controller outage. Job processes on the node keep running, as after a real slurmd
# crash; slurmctld marks the node DOWN after SlurmdTimeout (~20 s) and requeues
# its jobs. Run up.sh again to restart the slurmd (the node returns to idle).
# In the hosts layout (DC_LAYOUT=hosts) `cut` takes a node off the network instead: its
# slurmd lives on, unreachable, until `uncut` (or up.sh) gives the link back.
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

usage() {
    cat <<USAGE
Usage: [SLURM_TEST_DIR=dir] $(basename "$0") NODE [SIGNAL]
       [SLURM_TEST_DIR=dir] $(basename "$0") NODE cut|uncut      (hosts layout only)

  NODE     one of: ${DC_NODES[*]}, or slurmctld to kill the controller
  SIGNAL   signal to send (default KILL); TERM stops slurmctld cleanly (it saves its
           state first: a KILLed slurmctld forgets jobs submitted since its last save);
           STOP freezes a slurmd instead (then CONT to resume it)
  cut      hosts layout (DC_LAYOUT=hosts): set the node's link down (the head's end of its
           veth pair, like a dead switch port). Its slurmd and jobs keep running but
           nothing reaches them; slurmctld marks the node not responding, then DOWN
           after SlurmdTimeout (~10-20 s) and requeues its jobs.
  uncut    set the link up again (up.sh does too) and SIGHUP the node's slurmd, so that it
           registers at once (slurmctld itself only asks a DOWN node to register every
           ~20 pings, a minute or more); ReturnToService=2 makes it idle
Exits 1 if that slurmd is not running (cut/uncut: if the node does not exist).
USAGE
}

case "${1:-}" in
    -h | --help) usage; exit 0 ;;
    "") usage >&2; exit 2 ;;
esac
node="$1"
sig="${2:-KILL}"
case "$sig" in
    cut | uncut)
        [[ "$node" != slurmctld ]] || { echo "cut/uncut take a node (${DC_NODES[*]}), not slurmctld" >&2; exit 2; }
        ;;
esac
valid=0
daemon="slurmd-$node"
[[ "$node" == slurmctld ]] && { valid=1; daemon=slurmctld; }
for n in "${DC_NODES[@]}"; do [[ "$n" == "$node" ]] && valid=1; done
[[ $valid == 1 ]] || { echo "unknown node '$node' (expected one of: ${DC_NODES[*]} slurmctld)" >&2; exit 2; }
dc_check_dir

if [[ "$sig" == cut || "$sig" == uncut ]]; then
    dc_hosts_load || dc_die "cut/uncut need the hosts layout, and $DC_DIR has none running (start it with: DC_LAYOUT=hosts CLEAN=1 $HERE/up.sh)"
    veth="$(dc_veth "$node")"
    dc_link_exists "$veth" || dc_die "node $node has no link ($veth missing); run $HERE/up.sh"
    if [[ "$sig" == cut ]]; then
        dc_log "cutting node $node off the network ($veth down; its slurmd keeps running)"
        dc_node_set_link "$node" down
    else
        dc_log "giving node $node its link back ($veth up)"
        dc_node_set_link "$node" up
        dc_node_reregister "$node"
    fi
    exit 0
fi

pid="$(dc_running_pid "$daemon")" || dc_die "$daemon is not running (pid file $(dc_pidfile "$daemon"))"
dc_log "sending SIG$sig to $daemon (pid $pid)"
kill -s "$sig" "$pid"
case "$sig" in
    KILL | 9 | TERM | 15 | INT | 2)
        # slurmctld saves its state on TERM, which can take a few seconds
        dc_wait_gone "$pid" 30 || dc_die "$daemon (pid $pid) still alive" ;;
esac
