#!/usr/bin/env bash
# The many-hosts promise end to end (issue 31), as ctest runs it: contrib/demo.sh on a cluster
# whose nodes are hosts of their own (DC_LAYOUT=hosts), in DEMO_CHECK mode: the job runs on a
# node that shares nothing with the daemon's host but scratch, runs out of GPU memory at batch
# 64, and must resume from its checkpoint with batch 32, having fetched its settings over TCP
# with a MUNGE credential. The demo's cluster is stopped and removed at the end.
#
#   tests/hosts/demo_check.sh SUPERVISOR_BINARY site|user
#
# Skipped (exit 77) when not root (namespaces, users), failed under CI=true instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
binary="$1"
mode="$2"
if [[ $(id -u) != 0 ]]; then
    echo "demo_check: needs root (network and mount namespaces, a user of its own)" >&2
    [[ "${CI:-}" == true ]] && exit 1
    exit 77
fi
# Its own directories and ports, apart from the dev cluster, the tests' cluster and a demo
# someone runs by hand.
export DEMO_DIR="/tmp/slurm-supervisor-demo-check-$mode"
export DEMO_CLUSTER_DIR="/tmp/slurm-supervisor-demo-check-cluster"
export DEMO_CTLD_PORT=18917 DEMO_SLURMD_PORT=18921 DEMO_LISTEN_PORT=18927
export DEMO_SMTP_PORT="${DEMO_SMTP_PORT:-18925}"
export DEMO_MODE="$mode" DEMO_CHECK=1 DEMO_STOP=1 DEMO_SUPERVISOR="$binary"
exec "$root/contrib/demo.sh"
