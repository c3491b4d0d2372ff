# shellcheck shell=bash
# Shared helpers for up.sh / down.sh / kill-node.sh / node.sh. Sourced, not executed.
# Every daemon is identified by its PID file under $SLURM_TEST_DIR, and a PID is
# only trusted if /proc/<pid>/comm is the expected program and the process
# command line (or environment) mentions the state dir. Nothing is ever found
# or killed by process name alone.

DC_DIR="${SLURM_TEST_DIR:-/tmp/slurm-supervisor-dev}"
DC_DIR="${DC_DIR%/}"
DC_NODES=(n1 n2 n3)
DC_MARKER=".slurm-supervisor-dev-cluster"
DC_CONF="$DC_DIR/etc/slurm.conf"

dc_log() { printf '[dev-cluster %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
dc_words() { tr -s ' \n' '  ' <<<"$1" | sed 's/ *$//'; }
dc_die() { dc_log "ERROR: $*"; exit 1; }

dc_check_dir() {
    case "$DC_DIR" in
        /*) ;;
        *) dc_die "SLURM_TEST_DIR must be an absolute path (got '$DC_DIR')" ;;
    esac
    [[ "$DC_DIR" =~ [[:space:]] ]] && dc_die "SLURM_TEST_DIR must not contain whitespace"
    case "$DC_DIR" in
        / | /tmp | /root | /home | /usr | /etc | /var | /var/lib | /opt | /srv | "${HOME:-/root}")
            dc_die "refusing to use '$DC_DIR' as SLURM_TEST_DIR" ;;
    esac
    return 0
}

# Is $DC_DIR safe to wipe? Only if it is missing, empty, or was created by up.sh.
dc_dir_is_ours() {
    [[ ! -e "$DC_DIR" ]] && return 0
    [[ -f "$DC_DIR/$DC_MARKER" ]] && return 0
    [[ -d "$DC_DIR" && -z "$(ls -A "$DC_DIR" 2>/dev/null)" ]] && return 0
    return 1
}

# Serialise concurrent up.sh/down.sh runs on the same state dir.
dc_lock() {
    exec 9>>"$DC_DIR/.lock"
    flock -n 9 && return 0
    dc_log "waiting for the lock $DC_DIR/.lock (another up.sh/down.sh is running)"
    if ! flock -w 300 9; then
        dc_die "could not lock $DC_DIR/.lock within 300 s (another up.sh/down.sh running?)"
    fi
}

# pid file, program name (comm) of each daemon
dc_pidfile() {
    case "$1" in
        munged) echo "$DC_DIR/munge/munged.pid" ;;
        mariadbd) echo "$DC_DIR/run/mariadbd.pid" ;;
        slurmdbd) echo "$DC_DIR/run/slurmdbd.pid" ;;
        slurmctld) echo "$DC_DIR/run/slurmctld.pid" ;;
        slurmd-*) echo "$DC_DIR/run/$1.pid" ;;
        # hosts layout: each node's own munged (its munge dir is nodes/<node>/munge, seen on
        # the node as munge/) and the process that holds the node's namespaces
        munged-*) echo "$DC_DIR/nodes/${1#munged-}/munge/munged.pid" ;;
        node-*) echo "$DC_DIR/run/$1.pid" ;;
        *) dc_die "internal: unknown daemon $1" ;;
    esac
}
dc_comm() {
    case "$1" in
        slurmd-*) echo slurmd ;;
        munged-*) echo munged ;;
        node-*) echo sleep ;;
        *) echo "$1" ;;
    esac
}

# Does <pid> belong to daemon <name> of this state dir?
dc_pid_is() {
    local pid="$1" name="$2" comm args
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [[ -d "/proc/$pid" ]] || return 1
    comm="$(cat "/proc/$pid/comm" 2>/dev/null)" || return 1
    # Debian's slurmd and slurmctld are alternatives for slurmd-wlm and slurmctld-wlm: started
    # as `slurmd` they are named so, but Slurm 24.11 re-executes itself (/proc/self/exe) on
    # SIGHUP or `scontrol reconfigure`, and is then named slurmd-wlm
    [[ "$comm" == "$(dc_comm "$name")" || "$comm" == "$(dc_comm "$name")-wlm" ]] || return 1
    # zombie?
    local st
    st="$(awk '{sub(/^.*\) /, ""); print $1}' "/proc/$pid/stat" 2>/dev/null)" || return 1
    [[ "$st" == Z ]] && return 1
    # a node's holder is a `sleep`: it must also sit in that node's network namespace
    if [[ "$name" == node-* ]] && ! dc_in_node_netns "$pid" "${name#node-}"; then
        return 1
    fi
    args="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
    [[ "$args" == *"$DC_DIR/"* ]] && return 0
    # slurmdbd has no config option: it is started with SLURM_CONF in its environment
    args="$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null)" || return 1
    [[ $'\n'"$args"$'\n' == *$'\n'"SLURM_CONF=$DC_CONF"$'\n'* ]] && return 0
    return 1
}

# Print the PID of a running daemon of this state dir, or fail.
dc_running_pid() {
    local name="$1" f pid
    f="$(dc_pidfile "$name")"
    [[ -r "$f" ]] || return 1
    pid="$(head -n1 "$f" 2>/dev/null | tr -dc '0-9')"
    dc_pid_is "$pid" "$name" || return 1
    echo "$pid"
}

dc_wait_gone() {  # pid timeout_seconds
    local pid="$1" t="$2" i
    for ((i = 0; i < t * 10; i++)); do
        [[ -d "/proc/$pid" ]] || return 0
        # zombie of a process we started ourselves counts as gone
        [[ "$(awk '{sub(/^.*\) /, ""); print $1}' "/proc/$pid/stat" 2>/dev/null)" == Z ]] && return 0
        sleep 0.1
    done
    return 1
}

# Stop daemon <name>: SIGTERM, wait <timeout>, then SIGKILL. No-op if not running.
dc_stop() {
    local name="$1" t="${2:-15}" pid f
    f="$(dc_pidfile "$name")"
    if pid="$(dc_running_pid "$name")"; then
        dc_log "stopping ${name/-/ } (pid $pid)"
        kill -TERM "$pid" 2>/dev/null || true
        if ! dc_wait_gone "$pid" "$t"; then
            dc_log "${name/-/ } (pid $pid) did not exit after ${t}s, sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            dc_wait_gone "$pid" 5 || dc_log "WARNING: ${name/-/ } (pid $pid) still alive"
        fi
    fi
    rm -f "$f"
}

# All PIDs whose open file descriptors include a unix socket bound under
# $DC_DIR/spool/ (slurmstepd processes; also finds orphans of a killed slurmd).
dc_stepd_pids() {
    local inodes ino fd link pid tables=(/proc/net/unix) n p
    # /proc/net/unix lists the sockets of the reader's network namespace only: in the hosts
    # layout the steps' sockets are in the nodes' namespaces, read through one of their processes
    if dc_hosts_load; then
        for n in "${DC_NODES[@]}"; do
            p="$(dc_node_pids "$n")"
            p="${p%%$'\n'*}"
            [[ -n "$p" ]] && tables+=("/proc/$p/net/unix")
        done
    fi
    # /proc/net/unix: Num RefCount Protocol Flags Type St Inode Path
    inodes="$(awk -v p="$DC_DIR/spool/" 'FNR > 1 && index($8, p) == 1 { print $7 }' "${tables[@]}" 2>/dev/null | sort -u)"
    [[ -n "$inodes" ]] || return 0
    declare -A want=()
    for ino in $inodes; do want["socket:[$ino]"]=1; done
    for fd in /proc/[0-9]*/fd/*; do
        link="$(readlink "$fd" 2>/dev/null)" || continue
        if [[ -n "${want[$link]:-}" ]]; then
            pid="${fd#/proc/}"
            echo "${pid%%/*}"
        fi
    done | sort -un
}

# Print <pid> and all its descendants (one per line).
dc_descendants() {
    local -A kids=()
    local stat p pp rest
    for stat in /proc/[0-9]*/stat; do
        rest="$(cat "$stat" 2>/dev/null)" || continue
        p="${rest%% *}"
        rest="${rest##*) }"   # after "(comm) "
        pp="$(cut -d' ' -f2 <<<"$rest")"
        kids[$pp]+="$p "
    done
    local queue=("$@") out=() cur
    while ((${#queue[@]})); do
        cur="${queue[0]}"
        queue=("${queue[@]:1}")
        out+=("$cur")
        for p in ${kids[$cur]:-}; do queue+=("$p"); done
    done
    printf '%s\n' "${out[@]}" | sort -un
}

dc_pgid() { awk '{sub(/^.*\) /, ""); print $3}' "/proc/$1/stat" 2>/dev/null; }

# Kill slurmstepd processes of this cluster and everything they started
# (process groups of the job tasks included).
dc_kill_job_leftovers() {
    local stepds pids p g mypg
    mypg="$(dc_pgid $$)"
    for _ in 1 2 3; do
        stepds="$(dc_stepd_pids)"
        [[ -n "$stepds" ]] || return 0
        # shellcheck disable=SC2086
        pids="$(dc_descendants $stepds)"
        dc_log "killing leftover job processes (slurmstepd: $(dc_words "$stepds"); all: $(dc_words "$pids"))"
        local -A pgids=()
        for p in $pids; do
            g="$(dc_pgid "$p")" || continue
            [[ -n "$g" && "$g" -gt 1 && "$g" != "$mypg" ]] && pgids[$g]=1
        done
        # stop everything first so nothing forks away, then kill
        for p in $pids; do kill -STOP "$p" 2>/dev/null || true; done
        for g in "${!pgids[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done
        for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
        for p in $pids; do dc_wait_gone "$p" 5 || true; done
    done
    stepds="$(dc_stepd_pids)"
    [[ -z "$stepds" ]] || dc_log "WARNING: slurmstepd processes still alive: $(dc_words "$stepds")"
}

# Anything of ours (by PID file) still alive?
dc_any_running() {
    local d
    for d in munged mariadbd slurmdbd slurmctld "${DC_NODES[@]/#/slurmd-}" \
        "${DC_NODES[@]/#/munged-}" "${DC_NODES[@]/#/node-}"; do
        dc_running_pid "$d" >/dev/null && return 0
    done
    return 1
}

# Is slurmctld alive and answering?
dc_ctld_up() {
    dc_running_pid slurmctld >/dev/null || return 1
    local out
    out="$(SLURM_CONF="$DC_CONF" timeout 10 scontrol ping 2>&1)" || return 1
    [[ "$out" == *"is UP"* ]]
}

# Cancel all jobs and stop every daemon of this cluster; kill leftover job processes.
dc_stop_all() {
    [[ -d "$DC_DIR" ]] || return 0
    # hosts layout: a node cut off by kill-node.sh gets its link back first, so that its jobs
    # can be cancelled cleanly like everyone else's
    dc_hosts_uncut_all
    if [[ -f "$DC_CONF" ]] && dc_ctld_up; then
        local ids out i
        ids="$(SLURM_CONF="$DC_CONF" timeout 10 squeue -h -o '%A' 2>/dev/null || true)"
        if [[ -n "$ids" ]]; then
            dc_log "cancelling jobs: $(dc_words "$ids")"
            # shellcheck disable=SC2086
            SLURM_CONF="$DC_CONF" timeout 10 scancel $ids >&2 2>/dev/null || true
            # give slurmd a moment to kill the steps cleanly (up to 10 s; only 2 s if
            # a slurmd is dead: its jobs stay COMPLETING until the node is DOWN)
            local tries=100 n
            for n in "${DC_NODES[@]}"; do
                dc_running_pid "slurmd-$n" >/dev/null || tries=20
            done
            for ((i = 0; i < tries; i++)); do
                out="$(SLURM_CONF="$DC_CONF" timeout 5 squeue -h -t R,CG,S -o '%A' 2>/dev/null || true)"
                [[ -z "$out" ]] && break
                sleep 0.1
            done
        fi
    fi
    local n
    for n in "${DC_NODES[@]}"; do dc_stop "slurmd-$n" 10; done
    dc_stop slurmctld 20
    dc_stop slurmdbd 20
    dc_stop mariadbd 60
    dc_kill_job_leftovers
    dc_hosts_teardown
    dc_stop munged 10
}

# Remove everything in $DC_DIR (keep the directory and its lock file if asked).
dc_wipe() {
    local keep_lock="${1:-}"  # "keep-lock" or empty
    [[ -e "$DC_DIR" ]] || return 0
    dc_dir_is_ours || dc_die "$DC_DIR exists but was not created by up.sh (no $DC_MARKER); refusing to wipe it"
    dc_log "wiping $DC_DIR"
    if [[ -n "$keep_lock" ]]; then
        find "$DC_DIR" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +
    else
        rm -rf "$DC_DIR"
    fi
}

# ---------------------------------------------------------------- the hosts layout
# DC_LAYOUT=hosts (README "The hosts layout"): every node n1..n3 is its own host as far as
# software can tell: its own network namespace (an address on a bridge in the head's
# namespace), UTS namespace (hostname nX) and mount namespace (private /tmp, /run, ...), held
# open by a `sleep` whose PID is in run/node-<node>.pid. There is no PID namespace: PID files,
# kill-node.sh and the leftover-process cleanup work on the same PIDs from the head.
# up.sh records the names it uses in run/hosts.env BEFORE it creates anything, so that
# down.sh removes exactly those, also after a failed start or a later change of the ports.
DC_HOSTS_ENV="$DC_DIR/run/hosts.env"
DC_H_ID=""
DC_H_NET=""
DC_H_BRIDGE=""
dc_hosts_load() {  # fails when this state dir has no hosts-layout network (loopback layout)
    DC_H_ID=""
    DC_H_NET=""
    DC_H_BRIDGE=""
    [[ -f "$DC_HOSTS_ENV" ]] || return 1
    local k v
    while IFS='=' read -r k v; do
        case "$k" in
            ID) [[ "$v" =~ ^[0-9a-f]{6}$ ]] && DC_H_ID="$v" ;;
            NET) [[ "$v" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] && DC_H_NET="$v" ;;
        esac
    done <"$DC_HOSTS_ENV"
    [[ -n "$DC_H_ID" && -n "$DC_H_NET" ]] || return 1
    DC_H_BRIDGE="ssv-$DC_H_ID-br"
}
dc_hosts_load || true
# Names: one id per cluster, "ssv-<id>-n1" for the namespace and for the head's end of the
# node's veth pair (interface names have at most 15 characters: this is 13).
dc_hosts_id() {  # dir ctld-port -> 6 hex digits
    # The directory alone is not unique: contrib/test-in-debian13.sh runs a cluster in the
    # same directory inside its root filesystem, sharing the host's network namespace (and so
    # its interface names). Two clusters that run at once never share the slurmctld port.
    printf '%s:%s' "$1" "$2" | sha1sum | cut -c1-6
}
dc_netns() { echo "ssv-$DC_H_ID-$1"; }
dc_veth() { echo "ssv-$DC_H_ID-$1"; }
dc_node_addr() { echo "$DC_H_NET.$((10 + ${1#n}))"; }  # n1 -> .11

dc_netns_ino() {  # node -> inode of its network namespace (fails when it does not exist)
    local f
    f="/run/netns/$(dc_netns "$1")"
    [[ -e "$f" ]] || return 1
    stat -L -c %i "$f" 2>/dev/null
}
dc_in_node_netns() {  # pid node
    local want have
    want="$(dc_netns_ino "$2")" || return 1
    have="$(stat -L -c %i "/proc/$1/ns/net" 2>/dev/null)" || return 1
    [[ "$have" == "$want" ]]
}

# Every process of a node: in its network namespace, or in its mount namespace (while the
# holder lives to name it). Found through /proc/*/ns, never by name. Not this script nor its
# ancestors (down.sh run inside a node through node.sh).
dc_node_pids() {  # node
    local net="" mnt="" h mine
    net="$(dc_netns_ino "$1")" || net=""
    if h="$(dc_running_pid "node-$1")"; then
        mnt="$(stat -L -c %i "/proc/$h/ns/mnt" 2>/dev/null)" || mnt=""
    fi
    [[ -n "$net$mnt" ]] || return 0
    mine=" $(dc_ancestors $$ | tr '\n' ' ') "
    # (stat fails for processes that exit meanwhile, and for zombies: they have no namespaces)
    {
        if [[ -n "$net" ]]; then
            stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null | awk -v i="$net" '$1 == i { print $2 }' || true
        fi
        if [[ -n "$mnt" ]]; then
            stat -L -c '%i %n' /proc/[0-9]*/ns/mnt 2>/dev/null | awk -v i="$mnt" '$1 == i { print $2 }' || true
        fi
    } | awk -F/ '{ print $3 }' | sort -un | while read -r p; do
        [[ "$mine" == *" $p "* ]] || echo "$p"
    done
}
dc_ancestors() {  # pid -> it and its ancestors
    local p="$1"
    while [[ "$p" =~ ^[0-9]+$ && "$p" -gt 1 ]]; do
        echo "$p"
        p="$(awk '{sub(/^.*\) /, ""); print $2}' "/proc/$p/stat" 2>/dev/null)" || break
    done
}

# Kill every process of a node (the holder included): STOP all first so that nothing forks
# away, then KILL. What is left of the node afterwards is only its network namespace's name.
dc_node_kill_all() {  # node
    local pids p
    for _ in 1 2 3 4 5; do
        pids="$(dc_node_pids "$1")"
        [[ -n "$pids" ]] || return 0
        dc_log "killing the processes of node $1: $(dc_words "$pids")"
        for p in $pids; do kill -STOP "$p" 2>/dev/null || true; done
        for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
        for p in $pids; do dc_wait_gone "$p" 5 || true; done
    done
    pids="$(dc_node_pids "$1")"
    [[ -z "$pids" ]] || dc_log "WARNING: processes of node $1 still alive: $(dc_words "$pids")"
}

dc_link_exists() { ip link show dev "$1" >/dev/null 2>&1; }
dc_link_is_up() { [[ "$(ip -o link show dev "$1" 2>/dev/null)" =~ \<([^>]*,)?UP[,\>] ]]; }  # admin up (not LOWER_UP)

# kill-node.sh NODE cut|uncut: the head's end of the node's veth pair down (the "switch port"),
# the node keeps its address and its processes; slurmctld cannot reach it, nor it anyone.
dc_node_set_link() {  # node up|down
    local veth
    veth="$(dc_veth "$1")"
    dc_link_exists "$veth" || return 1
    ip link set dev "$veth" "$2"
}
# After a cut, slurmctld no longer pings the DOWN node: it only asks it to register in its
# periodic round of registration requests (every ~20 pings: up to a minute and more here).
# SIGHUP makes the node's slurmd reconfigure and register at once, as an admin's
# `systemctl reload slurmd` would after fixing a network.
dc_node_reregister() {  # node
    local pid
    pid="$(dc_running_pid "slurmd-$1")" || return 0
    dc_log "asking slurmd $1 (pid $pid) to register with slurmctld again (SIGHUP)"
    kill -HUP "$pid" 2>/dev/null || true
}
dc_hosts_uncut_all() {
    dc_hosts_load || return 0
    local n veth
    for n in "${DC_NODES[@]}"; do
        veth="$(dc_veth "$n")"
        if dc_link_exists "$veth" && ! dc_link_is_up "$veth"; then
            dc_log "restoring the link of node $n (it was cut)"
            ip link set dev "$veth" up || dc_log "WARNING: could not set $veth up"
        fi
    done
}

# Remove all of the hosts layout: each node's munged, every process left in a node, the
# namespaces, veth pairs and the bridge. Idempotent; does nothing in the loopback layout.
dc_hosts_teardown() {
    dc_hosts_load || return 0
    local n ns veth
    for n in "${DC_NODES[@]}"; do
        dc_stop "munged-$n" 10
        dc_node_kill_all "$n"
        ns="$(dc_netns "$n")"
        veth="$(dc_veth "$n")"
        if dc_link_exists "$veth"; then
            ip link del dev "$veth" || dc_log "WARNING: could not delete interface $veth"
        fi
        if [[ -e "/run/netns/$ns" ]]; then
            dc_log "removing network namespace $ns"
            ip netns del "$ns" || dc_log "WARNING: could not delete network namespace $ns (ip netns del $ns)"
        fi
        rm -f "$DC_DIR/run/node-$n.pid"
    done
    if dc_link_exists "$DC_H_BRIDGE"; then
        dc_log "removing bridge $DC_H_BRIDGE ($DC_H_NET.0/24)"
        ip link del dev "$DC_H_BRIDGE" || dc_log "WARNING: could not delete bridge $DC_H_BRIDGE"
    fi
    rm -f "$DC_HOSTS_ENV"
    dc_hosts_load || true
}

# Run a command inside a node: all its namespaces, and its root directory (which matters in
# a chroot: entering a mount namespace resets the root to the namespace's own).
dc_node_nsenter() {  # node -> the nsenter command line (words) on stdout
    local h
    h="$(dc_running_pid "node-$1")" || return 1
    echo "nsenter --target $h --net --uts --mount --root --wd"
}
dc_node_exec() {  # node command...
    local n="$1" h
    shift
    h="$(dc_running_pid "node-$n")" || dc_die "node $n is not running (no holder process, $(dc_pidfile "node-$n")); run up.sh"
    nsenter --target "$h" --net --uts --mount --root --wd -- "$@"
}

# dc_head_exec HOSTS-FILE COMMAND...: runs COMMAND (slurmctld, slurmdbd: they daemonize) with
# HOSTS-FILE bound over /etc/hosts, in the new mount namespace of `unshare --mount --propagation
# unchanged` (up.sh says why). The mount that holds /etc/hosts is made a slave here first, so the
# bind stays in this namespace while mounts made outside later (ip netns) still reach it. That
# mount is `/` on a plain machine, /etc/hosts itself in a container or in contrib/test-in-debian13.sh
# (which binds the file onto itself for this); a chroot that shows neither cannot keep it private.
dc_head_exec() {  # hosts-file command...
    local hosts="$1" holder
    shift
    holder="$(findmnt -n -o TARGET --target /etc/hosts 2>/dev/null | head -n1)" || holder=""
    [[ -n "$holder" ]] ||
        dc_die "no mount point holds /etc/hosts here (a chroot?), so the head's names cannot be bound over it privately; bind-mount /etc/hosts onto itself before starting the cluster (contrib/test-in-debian13.sh does)"
    mount --make-rslave "$holder" ||
        dc_die "cannot make $holder a slave mount in the head's namespace (mount --make-rslave $holder)"
    mount --bind "$hosts" /etc/hosts || dc_die "cannot bind $hosts over /etc/hosts"
    exec "$@"
}

# The holder of a node, run by up.sh through
#   nsenter --net=/run/netns/<ns> unshare --uts --mount --propagation unchanged bash -c ...
# It sets the hostname, gives the node private /tmp /var/tmp /run /root /home /dev/shm and a
# private $DC_DIR (fresh tmpfs mounts) with only what a node needs of $DC_DIR bound back at the
# same paths, then becomes `sleep infinity` with its PID in run/node-<node>.pid.
# DC_NODE_SHARE: colon-separated paths (the checkout, a build dir) that stay visible as they are.
dc_node_init() {  # node [chrooted]
    set -eEuo pipefail
    local n="$1" stage="${2:-}" lib
    # the log says where it stopped (up.sh shows the last lines of log/node-<node>.log)
    trap 'dc_log "ERROR: node $n: setting up its namespaces failed at: $BASH_COMMAND"' ERR
    lib="$(readlink -f "${BASH_SOURCE[0]}")"
    cd /
    if [[ -z "$stage" ]] && ! mount --make-rprivate / 2>/dev/null; then
        # Inside a chroot whose root is no mount point (contrib/test-in-debian13.sh) `/` cannot
        # be made private, and a mount on /var/tmp could then propagate to the head. Instead:
        # make the mount that holds $DC_DIR private in this namespace, bind the whole tree
        # below `/` onto nodes/<node>/root on it, make that private and chroot into it.
        local stage_dir="$DC_DIR/nodes/$n/root" m
        m="$(findmnt -n -o TARGET --target "$stage_dir" 2>/dev/null | head -n1)" || m=""
        if [[ -z "$m" || "$m" == / ]]; then
            dc_die "node $n: / is not a mount point here (a chroot?) and $DC_DIR is not on a mount point either, so the node's mounts cannot be kept private; put SLURM_TEST_DIR on a tmpfs (e.g. under /tmp, which contrib/test-in-debian13.sh mounts) or bind-mount the chroot onto itself"
        fi
        mount --make-rprivate "$m"
        mount --rbind / "$stage_dir"
        mount --make-rprivate "$stage_dir"
        # shellcheck disable=SC2016  # expanded by the inner bash
        exec chroot "$stage_dir" /bin/bash -c 'source "$1" && dc_node_init "$2" chrooted' dc-node-init "$lib" "$n"
    fi
    [[ -z "$stage" ]] || mount --make-rprivate /
    hostname "$n"
    # this namespace's copies of the nodes' network namespace files would keep them alive
    # after down.sh deletes them
    if mountpoint -q /run/netns 2>/dev/null; then umount -l /run/netns || true; fi

    local -a covered=() srcs=() dsts=() early=() share=()
    local c p s i real fd
    for c in /tmp /var/tmp /run /root /home /dev/shm; do
        [[ -d "$c" && ! -L "$c" ]] && covered+=("$c")
    done
    # what is hidden below a covered directory and must stay: the shared paths (before
    # $DC_DIR's own tmpfs, in case $DC_DIR lies below one of them)
    IFS=: read -ra share <<<"${DC_NODE_SHARE:-}"
    for p in "${share[@]}"; do
        [[ -n "$p" && -e "$p" ]] || continue
        real="$(readlink -f "$p")"
        for c in "${covered[@]}"; do
            if [[ "$c/" == "$real/"* ]]; then
                dc_log "node $n: not sharing $real: it holds $c, which the node must have private"
                continue 2
            fi
            if [[ "$real" == "$c/"* ]]; then
                srcs+=("$real")
                dsts+=("$real")
                early+=(1)
                continue 2
            fi
        done
    done
    for s in etc log run epilog-spool kernel-log scratch "spool/$n"; do
        srcs+=("$DC_DIR/$s")
        dsts+=("$DC_DIR/$s")
        early+=(0)
    done
    # the node's own munge dir, where slurm.conf's AuthInfo=socket= looks on every host
    srcs+=("$DC_DIR/nodes/$n/munge")
    dsts+=("$DC_DIR/munge")
    early+=(0)
    # names of the head and the nodes (nothing in Slurm needs them: NodeAddr is set)
    srcs+=("$DC_DIR/nodes/$n/hosts")
    dsts+=(/etc/hosts)
    early+=(0)

    # Open each source before covering anything: /proc/self/fd/N still reaches it afterwards
    # (mount --no-canonicalize, or mount(8) would resolve the link to the covered path).
    local -a fds=()
    for i in "${!srcs[@]}"; do
        exec {fd}<"${srcs[$i]}" || dc_die "node $n: cannot open ${srcs[$i]}"
        fds+=("$fd")
    done
    for c in "${covered[@]}"; do
        case "$c" in
            /root) mount -t tmpfs -o mode=0700 "tmpfs-$n" "$c" ;;
            /run | /home) mount -t tmpfs -o mode=0755 "tmpfs-$n" "$c" ;;
            *) mount -t tmpfs -o mode=1777 "tmpfs-$n" "$c" ;;
        esac
    done
    bind_back() {  # index
        local d="${dsts[$1]}" src="/proc/self/fd/${fds[$1]}"
        # (the source's own path may be covered by now: look through the open fd)
        if [[ -d "$src" ]]; then mkdir -p "$d"; else [[ -e "$d" ]] || { mkdir -p "$(dirname "$d")" && : >"$d"; }; fi
        mount --no-canonicalize --bind "$src" "$d"
    }
    for i in "${!srcs[@]}"; do [[ "${early[$i]}" == 1 ]] && bind_back "$i"; done
    # $DC_DIR itself: private too, wherever it is (the head's state/, mysql/, the other nodes'
    # spools are not the node's business); only the paths above come back
    mkdir -p "$DC_DIR"
    mount -t tmpfs -o mode=0755 "tmpfs-$n" "$DC_DIR"
    for i in "${!srcs[@]}"; do [[ "${early[$i]}" == 0 ]] && bind_back "$i"; done
    for fd in "${fds[@]}"; do exec {fd}<&-; done

    echo $$ >"$DC_DIR/run/node-$n.pid"
    # argv[0] names the node and the state dir in `ps` (and for dc_pid_is)
    exec -a "ssv-node $n $DC_DIR/" sleep infinity
}
