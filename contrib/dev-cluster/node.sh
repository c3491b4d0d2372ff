#!/usr/bin/env bash
# Run a command on a node of the hosts layout (DC_LAYOUT=hosts): inside its network, UTS and
# mount namespaces, as `ssh nX COMMAND` would on a real cluster. See README.md.
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

usage() {
    cat <<USAGE
Usage: [SLURM_TEST_DIR=dir] $(basename "$0") NODE [--] COMMAND [ARG...]
       [SLURM_TEST_DIR=dir] $(basename "$0") NODE

  NODE     one of: ${DC_NODES[*]} (hosts layout only: DC_LAYOUT=hosts up.sh)
  COMMAND  runs inside the node (its network, hostname, /tmp, /run, ...), as root, with
           this environment, in the node's / ; its exit status is node.sh's
Without a command, prints the nsenter command line that enters the node, e.g.
  \$($(basename "$0") n1)                  a shell on n1
  \$($(basename "$0") n1) ip -br addr      the same as: $(basename "$0") n1 ip -br addr
USAGE
}

case "${1:-}" in
    -h | --help) usage; exit 0 ;;
    "") usage >&2; exit 2 ;;
esac
node="$1"
shift
[[ "${1:-}" == -- ]] && shift
valid=0
for n in "${DC_NODES[@]}"; do [[ "$n" == "$node" ]] && valid=1; done
[[ $valid == 1 ]] || { echo "unknown node '$node' (expected one of: ${DC_NODES[*]})" >&2; exit 2; }
dc_check_dir
dc_hosts_load || dc_die "$DC_DIR runs no hosts layout: its nodes share this machine's namespaces, there is nothing to enter (start one with: DC_LAYOUT=hosts CLEAN=1 $HERE/up.sh)"
line="$(dc_node_nsenter "$node")" || dc_die "node $node is not running (no namespace holder, $(dc_pidfile "node-$node")); run $HERE/up.sh"
if (($# == 0)); then
    printf '%s\n' "$line"
    exit 0
fi
dc_node_exec "$node" "$@"
