# shellcheck shell=bash
# Shared helpers for up.sh / down.sh / kill-node.sh. Sourced, not executed.
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
        *) dc_die "internal: unknown daemon $1" ;;
    esac
}
dc_comm() {
    case "$1" in
        slurmd-*) echo slurmd ;;
        *) echo "$1" ;;
    esac
}

# Does <pid> belong to daemon <name> of this state dir?
dc_pid_is() {
    local pid="$1" name="$2" comm args
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [[ -d "/proc/$pid" ]] || return 1
    comm="$(cat "/proc/$pid/comm" 2>/dev/null)" || return 1
    [[ "$comm" == "$(dc_comm "$name")" ]] || return 1
    # zombie?
    local st
    st="$(awk '{sub(/^.*\) /, ""); print $1}' "/proc/$pid/stat" 2>/dev/null)" || return 1
    [[ "$st" == Z ]] && return 1
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
    local inodes ino fd link pid
    # /proc/net/unix: Num RefCount Protocol Flags Type St Inode Path
    inodes="$(awk -v p="$DC_DIR/spool/" 'NR > 1 && index($8, p) == 1 { print $7 }' /proc/net/unix 2>/dev/null | sort -u)"
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
    for d in munged mariadbd slurmdbd slurmctld "${DC_NODES[@]/#/slurmd-}"; do
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
