#!/usr/bin/env bash
# Start (or complete) a private 3-node Slurm cluster (22.05 or 24.11) on loopback for
# slurm-supervisor development and integration tests. See README.md.
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

usage() {
    cat <<EOF
Usage: [VAR=value ...] $(basename "$0") [--help]

Start a private Slurm cluster (munged, slurmctld, slurmd n1 n2 n3; optionally
mariadb + slurmdbd) with all state under \$SLURM_TEST_DIR. Idempotent: daemons
that are already running (according to their PID files) are left alone and only
missing ones are started, so running it again restarts a killed slurmd or a
stopped slurmctld. Waits until all nodes are responsive (idle/mixed/allocated).

On success prints exactly one line to stdout and writes it to \$SLURM_TEST_DIR/env.sh:
  export SLURM_CONF=\$SLURM_TEST_DIR/etc/slurm.conf
Progress messages go to stderr. Typical use:
  eval "\$($0)"        or      $0 && source \$SLURM_TEST_DIR/env.sh

Environment:
  SLURM_TEST_DIR          state root            (default /tmp/slurm-supervisor-dev)
  CLEAN=1                 stop everything and wipe the state dir first
  WITH_DBD=1              also run MariaDB + slurmdbd (accounting, sacct); installs
                          slurmdbd and mariadb-server with apt-get if missing
  SLURM_TEST_CTLD_PORT    slurmctld port        (default 16817)
  SLURM_TEST_SLURMD_PORT  port of n1's slurmd; n2/n3 use +1/+2 (default 16821)
  SLURM_TEST_DBD_PORT     slurmdbd port         (default 16819, WITH_DBD=1 only)
  SLURM_TEST_MYSQL_PORT   MariaDB port          (default 16806, WITH_DBD=1 only)
  SLURM_TEST_UP_TIMEOUT   seconds to wait for the nodes (default 60)
Settings (ports, WITH_DBD) are remembered in \$SLURM_TEST_DIR/etc/settings.env
and reused by later runs that do not set them (unless CLEAN=1).

Logs: \$SLURM_TEST_DIR/log/{slurmctld,slurmd-nX,munged,slurmdbd,mariadb}.log
EOF
}

for a in "$@"; do
    case "$a" in
        -h | --help) usage; exit 0 ;;
        *) echo "unknown argument: $a (see --help)" >&2; exit 2 ;;
    esac
done

# stdout is reserved for the final `export SLURM_CONF=...` line
exec 3>&1 1>&2

dc_check_dir
T0=$(date +%s.%N)

for cmd in slurmctld slurmd munged mungekey scontrol sinfo flock ss; do
    command -v "$cmd" >/dev/null || dc_die "'$cmd' not found; install: apt-get install -y --no-install-recommends slurm-wlm slurmctld slurmd slurm-client munge"
done

if [[ -e "$DC_DIR" ]] && ! dc_dir_is_ours; then
    dc_die "$DC_DIR exists, is not empty and was not created by up.sh; choose another SLURM_TEST_DIR"
fi
mkdir -p "$DC_DIR"
dc_lock
touch "$DC_DIR/$DC_MARKER"

if [[ "${CLEAN:-0}" == 1 ]]; then
    dc_log "CLEAN=1: stopping everything and wiping $DC_DIR"
    dc_stop_all
    dc_wipe keep-lock
    touch "$DC_DIR/$DC_MARKER"
fi

# ---------------------------------------------------------------- settings
SETTINGS="$DC_DIR/etc/settings.env"
declare -A saved=()
if [[ -f "$SETTINGS" ]]; then
    while IFS='=' read -r k v; do
        [[ "$k" =~ ^[A-Z_]+$ ]] && saved[$k]="$v"
    done <"$SETTINGS"
fi
setting() {  # name env-var default
    local v="${!2:-}"
    [[ -n "$v" ]] || v="${saved[$1]:-}"
    [[ -n "$v" ]] || v="$3"
    printf '%s' "$v"
}
CTLD_PORT="$(setting CTLD_PORT SLURM_TEST_CTLD_PORT 16817)"
SLURMD_PORT="$(setting SLURMD_PORT SLURM_TEST_SLURMD_PORT 16821)"
DBD_PORT="$(setting DBD_PORT SLURM_TEST_DBD_PORT 16819)"
MYSQL_PORT="$(setting MYSQL_PORT SLURM_TEST_MYSQL_PORT 16806)"
WITH_DBD_V="$(setting WITH_DBD WITH_DBD 0)"
UP_TIMEOUT="${SLURM_TEST_UP_TIMEOUT:-60}"
for v in CTLD_PORT SLURMD_PORT DBD_PORT MYSQL_PORT UP_TIMEOUT; do
    [[ "${!v}" =~ ^[0-9]+$ ]] || dc_die "$v must be a number (got '${!v}')"
done
[[ "$WITH_DBD_V" == 1 ]] || WITH_DBD_V=0
NODE_PORTS=("$SLURMD_PORT" "$((SLURMD_PORT + 1))" "$((SLURMD_PORT + 2))")
HOST="$(hostname -s)"

mkdir -p "$DC_DIR"/{etc,state,log,run,munge} "${DC_NODES[@]/#/$DC_DIR/spool/}"
chmod 0711 "$DC_DIR/munge"  # munged requires o+x on the socket dir
# The node epilog's spool (root's, 0755: the epilog and the supervisor refuse anything laxer)
# and the kernel log file of each node that tests write (README "The node epilog").
mkdir -p "$DC_DIR/epilog-spool" "$DC_DIR/kernel-log"
chmod 0755 "$DC_DIR/epilog-spool" "$DC_DIR/kernel-log"
EPILOG="$(cd "$HERE/../slurm" && pwd)/epilog.sh"
EPILOG_SLURMCTLD="$(cd "$HERE/../slurm" && pwd)/epilog-slurmctld.sh"

# ---------------------------------------------------------------- config
render() {  # template -> stdout
    local dbd_keep='#DBD#' dbd_drop='#NODBD#'
    if [[ "$WITH_DBD_V" != 1 ]]; then dbd_keep='#NODBD#'; dbd_drop='#DBD#'; fi
    sed -e "/^${dbd_drop}/d" -e "s|^${dbd_keep}||" \
        -e "s|@DIR@|$DC_DIR|g" -e "s|@HOST@|$HOST|g" \
        -e "s|@CTLD_PORT@|$CTLD_PORT|g" -e "s|@DBD_PORT@|$DBD_PORT|g" \
        -e "s|@MYSQL_PORT@|$MYSQL_PORT|g" -e "s|@MYSQL_PASS@|${MYSQL_PASS:-}|g" \
        -e "s|@PORT1@|${NODE_PORTS[0]}|g" -e "s|@PORT2@|${NODE_PORTS[1]}|g" \
        -e "s|@PORT3@|${NODE_PORTS[2]}|g" -e "s|@EPILOG@|$EPILOG|g" \
        -e "s|@EPILOG_SLURMCTLD@|$EPILOG_SLURMCTLD|g" "$1"
}
install_conf() {  # template target mode
    local new
    new="$(render "$1")"
    if [[ -f "$2" ]] && [[ "$(cat "$2")" == "$new" ]]; then
        return 0
    fi
    if [[ -f "$2" ]] && dc_any_running; then
        dc_die "$(basename "$2") would change (different ports/WITH_DBD/template) while daemons are running; run '$HERE/down.sh' first, or use CLEAN=1"
    fi
    printf '%s\n' "$new" >"$2.tmp"
    chmod "$3" "$2.tmp"
    mv -f "$2.tmp" "$2"
}

if [[ "$WITH_DBD_V" == 1 ]]; then
    mkdir -p "$DC_DIR/mysql"
    chmod 0700 "$DC_DIR/mysql"
    if [[ ! -s "$DC_DIR/mysql/slurm.pass" ]]; then
        (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$DC_DIR/mysql/slurm.pass")
    fi
    MYSQL_PASS="$(cat "$DC_DIR/mysql/slurm.pass")"
fi
install_conf "$HERE/slurm.conf.in" "$DC_CONF" 0644
install_conf "$HERE/gres.conf.in" "$DC_DIR/etc/gres.conf" 0644
# Read at each job's end, not at a daemon's start: rewritten even while the cluster runs (up.sh
# from another checkout points the epilog at that checkout's script).
for f in epilog epilog.conf epilog-slurmctld epilog-slurmctld.conf; do
    render "$HERE/$f.in" >"$DC_DIR/etc/$f.tmp"
    chmod "$([[ $f == *.conf ]] && echo 0644 || echo 0755)" "$DC_DIR/etc/$f.tmp"
    mv -f "$DC_DIR/etc/$f.tmp" "$DC_DIR/etc/$f"
done
if [[ "$WITH_DBD_V" == 1 ]]; then
    install_conf "$HERE/slurmdbd.conf.in" "$DC_DIR/etc/slurmdbd.conf" 0600
else
    rm -f "$DC_DIR/etc/slurmdbd.conf"
fi
printf 'CTLD_PORT=%s\nSLURMD_PORT=%s\nDBD_PORT=%s\nMYSQL_PORT=%s\nWITH_DBD=%s\n' \
    "$CTLD_PORT" "$SLURMD_PORT" "$DBD_PORT" "$MYSQL_PORT" "$WITH_DBD_V" >"$SETTINGS"
export SLURM_CONF="$DC_CONF"

# ---------------------------------------------------------------- helpers
port_busy() {  # tcp port in LISTEN state?
    local out
    out="$(ss -Htln "sport = :$1" 2>/dev/null || true)"
    [[ -n "$out" ]]
}
check_port_free() {  # port what
    if port_busy "$1"; then
        local who
        who="$(ss -Htlnp "sport = :$1" 2>/dev/null || true)"
        dc_die "port $1 for $2 is already in use by another process: ${who:-?}. Pick other ports (see --help) or stop it."
    fi
}
wait_for() {  # timeout description command...
    local t="$1" i
    shift 2  # $2 is a description for the reader
    for ((i = 0; i < t * 10; i++)); do
        if "$@"; then return 0; fi
        sleep 0.1
    done
    return 1
}
tail_log() {
    [[ -f "$1" ]] || return 0
    echo "---- last lines of $1 (harmless pmix/MPI noise left out):" >&2
    grep -v -e 'pmix' -e 'MPI: Cannot create context' "$1" | tail -n 12 >&2 || true
}
# start a daemon detached from our session; stdin/stdout/stderr never point at
# the caller's pipes (so `$(up.sh)` returns), and they must not inherit our lock
# (fd 9) or the saved stdout (fd 3)
spawn() {  # logfile command...
    local log="$1"
    shift
    setsid "$@" </dev/null >>"$log" 2>&1 3>&- 9>&-
}
spawn_bg() {  # logfile command...   (for programs that do not daemonize)
    local log="$1"
    shift
    setsid "$@" </dev/null >>"$log" 2>&1 3>&- 9>&- &
    disown $! 2>/dev/null || true
}

# pre-flight: every port we are about to listen on must be free
dc_running_pid slurmctld >/dev/null || check_port_free "$CTLD_PORT" slurmctld
for i in "${!DC_NODES[@]}"; do
    dc_running_pid "slurmd-${DC_NODES[$i]}" >/dev/null || check_port_free "${NODE_PORTS[$i]}" "slurmd ${DC_NODES[$i]}"
done
if [[ "$WITH_DBD_V" == 1 ]]; then
    dc_running_pid slurmdbd >/dev/null || check_port_free "$DBD_PORT" slurmdbd
    dc_running_pid mariadbd >/dev/null || check_port_free "$MYSQL_PORT" mariadb
fi

# ---------------------------------------------------------------- munged
MUNGE_SOCK="$DC_DIR/munge/munge.socket"
munge_ok() {
    local cred
    cred="$(munge -n -S "$MUNGE_SOCK" 2>/dev/null)" || return 1
    unmunge -S "$MUNGE_SOCK" <<<"$cred" >/dev/null 2>&1
}
if pid="$(dc_running_pid munged)"; then
    dc_log "munged already running (pid $pid)"
else
    if [[ ! -s "$DC_DIR/munge/munge.key" ]]; then
        mungekey --create --keyfile="$DC_DIR/munge/munge.key" >&2
    fi
    chmod 0600 "$DC_DIR/munge/munge.key"
    rm -f "$MUNGE_SOCK" "$MUNGE_SOCK.lock"
    dc_log "starting munged"
    spawn "$DC_DIR/log/munged.stdout" munged --socket="$MUNGE_SOCK" \
        --key-file="$DC_DIR/munge/munge.key" --pid-file="$DC_DIR/munge/munged.pid" \
        --seed-file="$DC_DIR/munge/munged.seed" --log-file="$DC_DIR/log/munged.log" ||
        { tail_log "$DC_DIR/log/munged.stdout"; tail_log "$DC_DIR/log/munged.log"; dc_die "munged failed to start (see $DC_DIR/log/munged.log)"; }
fi
wait_for 10 munged munge_ok ||
    { tail_log "$DC_DIR/log/munged.log"; dc_die "munged does not answer on $MUNGE_SOCK (see $DC_DIR/log/munged.log)"; }

# ---------------------------------------------------------------- mariadb + slurmdbd
if [[ "$WITH_DBD_V" == 1 ]]; then
    MYSQL_SOCK="$DC_DIR/mysql/mysqld.sock"
    if ! command -v slurmdbd >/dev/null || ! [[ -x /usr/sbin/mariadbd ]] || ! command -v mariadb-install-db >/dev/null; then
        dc_log "installing slurmdbd mariadb-server (apt-get)"
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -q -y --no-install-recommends slurmdbd mariadb-server >&2; then
            apt-get -q update >&2
            apt-get install -q -y --no-install-recommends slurmdbd mariadb-server >&2
        fi
    fi
    mysql_ok() { mariadb-admin --no-defaults --socket="$MYSQL_SOCK" -uroot ping >/dev/null 2>&1; }
    if pid="$(dc_running_pid mariadbd)"; then
        dc_log "mariadbd already running (pid $pid)"
    else
        if [[ ! -d "$DC_DIR/mysql/data/mysql" ]]; then
            dc_log "initialising MariaDB datadir"
            rm -rf "$DC_DIR/mysql/data"
            mariadb-install-db --no-defaults --datadir="$DC_DIR/mysql/data" --user=root \
                --auth-root-authentication-method=socket --skip-test-db \
                >>"$DC_DIR/log/mariadb-install.log" 2>&1 ||
                { tail_log "$DC_DIR/log/mariadb-install.log"; dc_die "mariadb-install-db failed (see $DC_DIR/log/mariadb-install.log)"; }
        fi
        check_port_free "$MYSQL_PORT" mariadb
        mkdir -p "$DC_DIR/mysql/tmp"
        rm -f "$MYSQL_SOCK"
        dc_log "starting mariadbd on 127.0.0.1:$MYSQL_PORT"
        # slurmdbd logs an error for innodb_buffer_pool_size < 512M (half of its 1G
        # recommendation) and innodb_lock_wait_timeout < 450; the pool is allocated lazily
        spawn_bg "$DC_DIR/log/mariadb.stdout" /usr/sbin/mariadbd --no-defaults --user=root \
            --datadir="$DC_DIR/mysql/data" --tmpdir="$DC_DIR/mysql/tmp" --socket="$MYSQL_SOCK" \
            --port="$MYSQL_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
            --pid-file="$DC_DIR/run/mariadbd.pid" --log-error="$DC_DIR/log/mariadb.log" \
            --innodb-buffer-pool-size=512M --innodb-lock-wait-timeout=900
    fi
    wait_for 60 mariadb mysql_ok ||
        { tail_log "$DC_DIR/log/mariadb.log"; dc_die "mariadbd not answering (see $DC_DIR/log/mariadb.log)"; }
    mariadb --no-defaults --socket="$MYSQL_SOCK" -uroot <<SQL
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$MYSQL_PASS';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$MYSQL_PASS';
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
SQL

    if pid="$(dc_running_pid slurmdbd)"; then
        dc_log "slurmdbd already running (pid $pid)"
    else
        check_port_free "$DBD_PORT" slurmdbd
        dc_log "starting slurmdbd on port $DBD_PORT"
        spawn "$DC_DIR/log/slurmdbd.stdout" slurmdbd ||
            { tail_log "$DC_DIR/log/slurmdbd.log"; dc_die "slurmdbd failed to start (see $DC_DIR/log/slurmdbd.log)"; }
    fi
    wait_for 30 slurmdbd port_busy "$DBD_PORT" ||
        { tail_log "$DC_DIR/log/slurmdbd.log"; dc_die "slurmdbd not listening on $DBD_PORT (see $DC_DIR/log/slurmdbd.log)"; }
    clusters="$(timeout 20 sacctmgr -nP list cluster format=cluster 2>&1)" ||
        { tail_log "$DC_DIR/log/slurmdbd.log"; dc_die "sacctmgr cannot talk to slurmdbd: $clusters"; }
    if [[ $'\n'"$clusters"$'\n' != *$'\n'devcluster$'\n'* ]]; then
        dc_log "registering cluster devcluster in slurmdbd"
        timeout 20 sacctmgr -i add cluster devcluster >&2
    fi
fi

# ---------------------------------------------------------------- slurmctld
if pid="$(dc_running_pid slurmctld)"; then
    dc_log "slurmctld already running (pid $pid)"
else
    check_port_free "$CTLD_PORT" slurmctld
    dc_log "starting slurmctld on port $CTLD_PORT"
    spawn "$DC_DIR/log/slurmctld.stdout" slurmctld -f "$DC_CONF" ||
        { tail_log "$DC_DIR/log/slurmctld.stdout"; tail_log "$DC_DIR/log/slurmctld.log"; dc_die "slurmctld failed to start (see $DC_DIR/log/slurmctld.log)"; }
fi

# ---------------------------------------------------------------- slurmd n1..n3
for i in "${!DC_NODES[@]}"; do
    n="${DC_NODES[$i]}"
    if pid="$(dc_running_pid "slurmd-$n")"; then
        dc_log "slurmd $n already running (pid $pid)"
        continue
    fi
    check_port_free "${NODE_PORTS[$i]}" "slurmd $n"
    dc_log "starting slurmd $n on port ${NODE_PORTS[$i]}"
    spawn "$DC_DIR/log/slurmd-$n.stdout" slurmd -f "$DC_CONF" -N "$n" ||
        { tail_log "$DC_DIR/log/slurmd-$n.stdout"; tail_log "$DC_DIR/log/slurmd-$n.log"; dc_die "slurmd $n failed to start (see $DC_DIR/log/slurmd-$n.log)"; }
done

# ---------------------------------------------------------------- wait until ready
fail() {
    local msg="$1" f
    dc_log "ERROR: $msg"
    for f in "$@"; do [[ "$f" == "$msg" ]] || tail_log "$f"; done
    dc_log "ERROR: $msg"
    exit 1
}
# 24.11's daemons fork once more after writing their PID file and write it again: look twice,
# a second apart, before calling one dead.
still_running() { dc_running_pid "$1" >/dev/null || { sleep 1; dc_running_pid "$1" >/dev/null; }; }
ctld_ready=0
out="slurmctld port $CTLD_PORT not listening"
declare -A node_state=()
deadline=$(($(date +%s) + UP_TIMEOUT))
while :; do
    # daemons that died right after starting
    still_running slurmctld ||
        fail "slurmctld is not running; see $DC_DIR/log/slurmctld.log" "$DC_DIR/log/slurmctld.stdout" "$DC_DIR/log/slurmctld.log"
    for n in "${DC_NODES[@]}"; do
        still_running "slurmd-$n" ||
            fail "slurmd $n is not running; see $DC_DIR/log/slurmd-$n.log" "$DC_DIR/log/slurmd-$n.stdout" "$DC_DIR/log/slurmd-$n.log"
    done
    # (only ping once the port listens: against a closed port scontrol retries for ~4 s)
    if [[ $ctld_ready == 0 ]] && port_busy "$CTLD_PORT"; then
        out="$(timeout 10 scontrol ping 2>&1 || true)"
        [[ "$out" == *"is UP"* ]] && ctld_ready=1
    fi
    if [[ $ctld_ready == 1 ]]; then
        out="$(timeout 10 sinfo -h -N -o '%N %T' 2>/dev/null || true)"
        ready=0
        node_state=()
        while read -r name st; do
            [[ -n "$name" ]] && node_state[$name]="$st"
        done <<<"$out"
        for n in "${DC_NODES[@]}"; do
            st="${node_state[$n]:-missing}"
            st="${st%[-\$]}"   # planned-by-backfill / maintenance suffixes are fine
            case "$st" in
                idle | mixed | allocated | completing) ready=$((ready + 1)) ;;
            esac
        done
        [[ $ready == "${#DC_NODES[@]}" ]] && break
    fi
    if (($(date +%s) >= deadline)); then
        if [[ $ctld_ready == 0 ]]; then
            fail "slurmctld did not answer 'scontrol ping' within ${UP_TIMEOUT}s (last: $out); see $DC_DIR/log/slurmctld.log" \
                "$DC_DIR/log/slurmctld.log"
        fi
        bad=()
        logs=("$DC_DIR/log/slurmctld.log")
        for n in "${DC_NODES[@]}"; do
            bad+=("$n=${node_state[$n]:-missing}")
            case "${node_state[$n]:-missing}" in
                idle | mixed | allocated | completing) ;;
                *) logs+=("$DC_DIR/log/slurmd-$n.log") ;;
            esac
        done
        fail "nodes not ready within ${UP_TIMEOUT}s (${bad[*]}); see $DC_DIR/log/slurmctld.log and $DC_DIR/log/slurmd-nX.log" "${logs[@]}"
    fi
    sleep 0.1
done

line="export SLURM_CONF=$DC_CONF"
printf '%s\n' "$line" >"$DC_DIR/env.sh.tmp"
mv -f "$DC_DIR/env.sh.tmp" "$DC_DIR/env.sh"
dc_log "cluster ready in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s: $(for n in "${DC_NODES[@]}"; do printf '%s=%s ' "$n" "${node_state[$n]}"; done)(logs: $DC_DIR/log)"
printf '%s\n' "$line" >&3
