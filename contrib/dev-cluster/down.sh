#!/usr/bin/env bash
# Stop the dev cluster started by up.sh (by PID files only) and clean up job
# processes left behind; in the hosts layout also the nodes' namespaces, veth pairs and
# bridge. See README.md.
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

usage() {
    cat <<USAGE
Usage: [VAR=value ...] $(basename "$0") [--help]

Stop the dev cluster that up.sh started under \$SLURM_TEST_DIR:
  1. scancel all jobs (if slurmctld answers),
  2. stop slurmd n1..n3, slurmctld, slurmdbd, mariadbd (SIGTERM, then SIGKILL
     after a timeout) -- found through their PID files only, never by name,
  3. kill job processes left behind by a killed slurmd (slurmstepd processes
     holding sockets under \$SLURM_TEST_DIR/spool, their children and process groups),
  4. hosts layout (DC_LAYOUT=hosts): give cut nodes their link back first (so that
     step 1 works), then stop each node's munged, kill every process left in each
     node (found by its network and mount namespace: jobs, shells of node.sh, the
     namespace holder), delete the network namespaces ssv-<id>-nX, the veth pairs
     and the bridge ssv-<id>-br -- the names up.sh recorded in run/hosts.env, so
     this works after a failed start too,
  5. stop munged.
Idempotent: with nothing running it does nothing and exits 0.

Environment:
  SLURM_TEST_DIR   state root (default /tmp/slurm-supervisor-dev)
  CLEAN=1          also delete \$SLURM_TEST_DIR (only if up.sh created it)
USAGE
}

for a in "$@"; do
    case "$a" in
        -h | --help) usage; exit 0 ;;
        *) echo "unknown argument: $a (see --help)" >&2; exit 2 ;;
    esac
done
exec 1>&2

dc_check_dir
if [[ ! -d "$DC_DIR" ]]; then
    dc_log "$DC_DIR does not exist: nothing to stop"
    exit 0
fi
dc_dir_is_ours || dc_die "$DC_DIR was not created by up.sh (no $DC_MARKER); refusing to touch it"
dc_lock
dc_stop_all
if [[ "${CLEAN:-0}" == 1 ]]; then
    dc_wipe ""
fi
dc_log "stopped"
