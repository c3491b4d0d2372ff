#!/usr/bin/env bash
# The suites' cluster (issue 31), as ctest runs it: slurmctld on the head names the head's and
# every node's address from its own hosts file (contrib/dev-cluster/up.sh, "the head's names").
# Slurm 24.11 looks up the name of every peer that connects and caches no failure, so without
# it each RPC asks DNS, and a query the resolver drops stalls slurmctld 5 s: the suites failed
# on Debian 13 in this layout for that. Reads the running cluster in $SLURM_TEST_DIR; skipped
# (exit 77) when that cluster is not of separate hosts (DC_LAYOUT=loopback).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../../contrib/dev-cluster/lib.sh
source "$root/contrib/dev-cluster/lib.sh"
say() { echo "head_names_check: $*"; }
if ! dc_hosts_load; then
    say "the cluster in $DC_DIR is not of separate hosts (no $DC_HOSTS_ENV): nothing to check"
    exit 77
fi
ctld="$(dc_running_pid slurmctld)" || { say "FAILED: no slurmctld running for $DC_DIR"; exit 1; }
failed=0
for a in "$DC_H_NET.1" $(for n in "${DC_NODES[@]}"; do dc_node_addr "$n"; done); do
    # the resolver of slurmctld's own mount namespace, files first; getent prints "ADDR NAME"
    named="$(nsenter --target "$ctld" --mount --root -- getent hosts "$a" | awk '{ print $2; exit }')" ||
        named=""
    if [[ -n "$named" ]]; then
        say "ok: slurmctld (pid $ctld) names $a '$named'"
    else
        say "FAILED: slurmctld (pid $ctld) cannot name $a without DNS"
        failed=1
    fi
done
exit "$failed"
