#!/usr/bin/env bash
# Smoke test of the dev cluster's hosts layout (DC_LAYOUT=hosts), against a running cluster:
# is each node really a host of its own (hostname, private /tmp, its own address and munged),
# do the shared scratch dir and 3-node steps work across the bridge, and does cutting a node off
# the network make it DOWN while its slurmd lives on? Exits non-zero on any failure.
#
#   DC_LAYOUT=hosts CLEAN=1 contrib/dev-cluster/up.sh && contrib/dev-cluster/check-hosts.sh
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

usage() {
    cat <<USAGE
Usage: [SLURM_TEST_DIR=dir] $(basename "$0") [--no-cut] [--help]

Checks a running hosts-layout cluster (started with DC_LAYOUT=hosts up.sh) under
\$SLURM_TEST_DIR: hostnames, slurmctld naming the head and nodes without DNS, private /tmp
and /var/tmp, NodeAddr on the bridge, one munged
per node, a job's file in \$SLURM_TEST_DIR/scratch seen on the head and the other nodes,
\`srun -N3 hostname\`, and (unless --no-cut, ~30-60 s) \`kill-node.sh n3 cut\`: n3 not
responding/DOWN within 40 s with its slurmd alive, then uncut + up.sh: idle again.
Prints one line per check ("ok" or "FAIL") on stdout; exits 1 if any failed, 2 if the
cluster is not there to check.
USAGE
}

cut=1
for a in "$@"; do
    case "$a" in
        -h | --help) usage; exit 0 ;;
        --no-cut) cut=0 ;;
        *) echo "unknown argument: $a (see --help)" >&2; exit 2 ;;
    esac
done

# nothing here reads stdin, and srun would hand it to its task (swallowing a caller's heredoc)
exec </dev/null
dc_check_dir
[[ -f "$DC_CONF" ]] || { dc_log "no cluster in $DC_DIR ($DC_CONF missing); start one with: DC_LAYOUT=hosts $HERE/up.sh"; exit 2; }
dc_hosts_load || { dc_log "$DC_DIR runs no hosts layout; start one with: DC_LAYOUT=hosts CLEAN=1 $HERE/up.sh"; exit 2; }
export SLURM_CONF="$DC_CONF"
dc_ctld_up || { dc_log "slurmctld of $DC_DIR does not answer (see $DC_DIR/log/slurmctld.log); run $HERE/up.sh"; exit 2; }

NODE="$HERE/node.sh"
SCRATCH="$DC_DIR/scratch"
TAG="check-hosts-$$-$RANDOM"
failures=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }
# the files this run made: on the head, in scratch and in the nodes' /tmp and /var/tmp
cleanup() {
    rm -f "$SCRATCH/$TAG".* 2>/dev/null || true
    local n
    for n in "${DC_NODES[@]}"; do
        "$NODE" "$n" rm -f "/tmp/$TAG" "/var/tmp/$TAG" >/dev/null 2>&1 || true
    done
    # never leave a node cut off
    if [[ "$cut" == 1 ]]; then "$HERE/kill-node.sh" n3 uncut >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# ---------------------------------------------------------------- each node a host of its own
for n in "${DC_NODES[@]}"; do
    h="$("$NODE" "$n" hostname 2>&1)" || h="(node.sh failed: $h)"
    if [[ "$h" == "$n" ]]; then
        ok "$n: hostname is $n"
    else
        bad "$n: hostname is '$h', expected $n"
    fi

    addr="$(dc_node_addr "$n")"
    shown="$(timeout 10 scontrol show node "$n" 2>&1 || true)"
    if [[ "$shown" == *"NodeAddr=$addr "* && "$shown" == *"NodeHostName=$n "* ]]; then
        ok "$n: slurmctld knows it as NodeAddr=$addr NodeHostName=$n (the bridge, not 127.0.0.1)"
    else
        bad "$n: scontrol show node $n lacks NodeAddr=$addr NodeHostName=$n: $(grep -o 'NodeAddr=[^ ]* NodeHostName=[^ ]*' <<<"$shown" || echo "$shown")"
    fi
    st="$(timeout 10 sinfo -h -n "$n" -o %T 2>&1 || true)"
    if [[ "$st" =~ ^(idle|mixed|allocated|completing)$ ]]; then
        ok "$n: $st (slurmctld reaches it at $addr)"
    else
        bad "$n: state '$st', expected idle/mixed/allocated (slurmctld pings it at $addr)"
    fi
    listen="$("$NODE" "$n" ss -Htln "sport = :$(awk -F= '$1 == "SLURMD_PORT" { print $2 }' "$DC_DIR/etc/settings.env")" 2>&1 || true)"
    if [[ -n "$listen" ]]; then
        ok "$n: its slurmd listens inside the node"
    else
        bad "$n: no slurmd listening inside the node"
    fi

    if pid="$(dc_running_pid "munged-$n")" && dc_in_node_netns "$pid" "$n"; then
        ok "$n: its own munged (pid $pid) runs inside the node"
    else
        bad "$n: no munged of its own running inside the node ($(dc_pidfile "munged-$n"))"
    fi
    eth="$("$NODE" "$n" ip -4 -o addr show dev eth0 2>&1 || true)"
    if [[ "$eth" == *" $addr/24 "* ]]; then
        ok "$n: eth0 has $addr/24"
    else
        bad "$n: eth0 lacks $addr/24: $eth"
    fi
done

# ---------------------------------------------------------------- the head names them itself
# slurmctld (Slurm 24.11) looks up the name of every peer that connects; from its own hosts file,
# or each lookup asks DNS and a dropped query stalls it 5 s (up.sh, "the head's names")
if ctld="$(dc_running_pid slurmctld)"; then
    for a in "$DC_H_NET.1" $(for n in "${DC_NODES[@]}"; do dc_node_addr "$n"; done); do
        # getent's first word is the address itself, the second the name
        named="$(nsenter --target "$ctld" --mount --root -- getent hosts "$a" 2>/dev/null | awk '{ print $2; exit }')" || named=""
        if [[ -n "$named" ]]; then
            ok "slurmctld names $a '$named' from its hosts file, without asking DNS"
        else
            bad "slurmctld cannot name $a from its hosts file (nsenter --target $ctld --mount --root getent hosts $a): every RPC from there asks DNS"
        fi
    done
else
    bad "no slurmctld pid to look into ($(dc_pidfile slurmctld))"
fi

# ---------------------------------------------------------------- private /tmp, /var/tmp
out="$(timeout 60 srun -w n1 -N1 sh -c "echo written-on-n1 > /tmp/$TAG && hostname" 2>&1 || true)"
if [[ "$out" == n1 ]]; then
    ok "a job on n1 wrote /tmp/$TAG"
else
    bad "srun -w n1 (writing /tmp/$TAG) printed: $out"
fi
if [[ "$("$NODE" n1 cat "/tmp/$TAG" 2>&1)" == written-on-n1 ]]; then
    ok "n1 sees the job's /tmp/$TAG"
else
    bad "n1 does not see /tmp/$TAG, which its job wrote"
fi
if [[ ! -e "/tmp/$TAG" ]]; then
    ok "the head does not see n1's /tmp/$TAG"
else
    bad "the head sees n1's /tmp/$TAG"
fi
if "$NODE" n2 test ! -e "/tmp/$TAG"; then
    ok "n2 does not see n1's /tmp/$TAG"
else
    bad "n2 sees n1's /tmp/$TAG"
fi
"$NODE" n2 sh -c "echo x > /var/tmp/$TAG" || bad "could not write /var/tmp/$TAG on n2"
if { [[ ! -e "/var/tmp/$TAG" ]] && "$NODE" n3 test ! -e "/var/tmp/$TAG"; }; then
    ok "n2's /var/tmp/$TAG is seen neither on the head nor on n3"
else
    bad "n2's /var/tmp/$TAG is seen elsewhere"
fi
if "$NODE" n1 test ! -e "$DC_DIR/state"; then
    ok "n1 does not see the head's $DC_DIR/state"
else
    bad "n1 sees the head's $DC_DIR/state"
fi

# ---------------------------------------------------------------- shared scratch
out="$(timeout 60 sbatch --wait -w n2 -o "$SCRATCH/$TAG.out" \
    --wrap "hostname > $SCRATCH/$TAG.host; echo job-output" 2>&1 || true)"
if [[ "$(cat "$SCRATCH/$TAG.host" 2>/dev/null)" == n2 && "$(cat "$SCRATCH/$TAG.out" 2>/dev/null)" == job-output ]]; then
    ok "a batch job on n2 wrote $SCRATCH/$TAG.host and its log: seen on the head"
else
    bad "batch job on n2: $SCRATCH/$TAG.host / .out missing or wrong on the head (sbatch: $out)"
fi
if [[ "$("$NODE" n3 cat "$SCRATCH/$TAG.host" 2>&1)" == n2 ]]; then
    ok "n3 sees it in scratch too"
else
    bad "n3 does not see $SCRATCH/$TAG.host"
fi

# ---------------------------------------------------------------- a step on all three nodes
out="$(timeout 60 srun -N3 hostname 2>&1 | sort | tr '\n' ' ' || true)"
if [[ "$out" == "n1 n2 n3 " ]]; then
    ok "srun -N3 hostname: $out"
else
    bad "srun -N3 hostname printed: $out"
fi

# ---------------------------------------------------------------- cut n3 off the network
if [[ "$cut" == 1 ]]; then
    before="$(dc_running_pid slurmd-n3 || echo none)"
    head_addr="$DC_H_NET.1"
    ctld_port="$(awk -F= '$1 == "CTLD_PORT" { print $2 }' "$DC_DIR/etc/settings.env")"
    "$HERE/kill-node.sh" n3 cut
    t0=$SECONDS
    st=""
    while ((SECONDS - t0 < 40)); do
        st="$(timeout 10 sinfo -h -n n3 -o %T 2>/dev/null || true)"
        [[ "$st" == *"*" || "$st" == down* ]] && break
        sleep 1
    done
    if [[ "$st" == *"*" || "$st" == down* ]]; then
        ok "n3 cut: '$st' after $((SECONDS - t0)) s"
    else
        bad "n3 cut: still '$st' after 40 s"
    fi
    now="$(dc_running_pid slurmd-n3 || echo none)"
    if [[ "$now" != none && "$now" == "$before" ]]; then
        ok "n3's slurmd (pid $now) is still alive while cut"
    else
        bad "n3's slurmd changed or died while cut (before: $before, now: $now)"
    fi
    if "$NODE" n3 timeout 3 bash -c "exec 3<>/dev/tcp/$head_addr/$ctld_port" 2>/dev/null; then
        bad "n3 still reaches slurmctld at $head_addr:$ctld_port while cut"
    else
        ok "n3 cannot reach slurmctld at $head_addr:$ctld_port while cut"
    fi
    # DOWN proper comes after SlurmdTimeout: wait for it, so that uncut is tested from there
    while ((SECONDS - t0 < 40)) && [[ "$st" != down* ]]; do
        sleep 1
        st="$(timeout 10 sinfo -h -n n3 -o %T 2>/dev/null || true)"
    done
    if [[ "$st" == down* ]]; then
        ok "n3 DOWN after $((SECONDS - t0)) s"
    else
        bad "n3 not DOWN within 40 s ('$st')"
    fi
    "$HERE/kill-node.sh" n3 uncut
    t0=$SECONDS
    if up_log="$("$HERE/up.sh" 2>&1 >/dev/null)"; then
        st="$(timeout 10 sinfo -h -n n3 -o %T 2>/dev/null || true)"
        if [[ "$st" == idle ]]; then
            ok "n3 uncut + up.sh: idle again after $((SECONDS - t0)) s"
        else
            bad "n3 uncut + up.sh: state '$st', expected idle"
        fi
    else
        bad "up.sh failed after uncut: $(tail -n 5 <<<"$up_log")"
    fi
    # (its PID may differ: Slurm 24.11's slurmd re-executes itself on the SIGHUP of uncut)
    if [[ "$up_log" != *"starting slurmd n3"* ]] && dc_running_pid slurmd-n3 >/dev/null; then
        ok "n3 is back with the slurmd that was cut off (up.sh did not restart it)"
    else
        bad "n3's slurmd had to be restarted by up.sh, or is not running"
    fi
fi

if ((failures)); then
    echo "check-hosts: $failures check(s) FAILED (logs: $DC_DIR/log)"
    exit 1
fi
echo "check-hosts: all checks passed"
