#!/usr/bin/env bash
# Start (or complete) a private 3-node Slurm cluster (22.05 or 24.11) as three separate "hosts"
# (network, UTS and mount namespaces on a bridge), or with DC_LAYOUT=loopback as processes of this
# machine on 127.0.0.1, for slurm-supervisor development and integration tests. See README.md.
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
  export SLURM_CONF=\$SLURM_TEST_DIR/etc/slurm.conf SLURM_TEST_SCRATCH=\$SLURM_TEST_DIR/scratch
    SLURM_TEST_HEAD_ADDR=<the head's address on the nodes' network; 127.0.0.1 on loopback>
Progress messages go to stderr. Typical use:
  eval "\$($0)"        or      $0 && source \$SLURM_TEST_DIR/env.sh

Layouts (DC_LAYOUT):
  hosts (default)     each node its own host: its own network namespace (ssv-<id>-nX, address
                      <subnet>.11/.12/.13 on a bridge whose .1 is this machine, the head, where
                      slurmctld runs), hostname nX (UTS namespace), private /tmp /var/tmp /run
                      /root /home /dev/shm (mount namespace), its own munged. Shared with the
                      head: \$SLURM_TEST_DIR/{etc,log,run,scratch,epilog-spool,kernel-log} and
                      the node's spool, the checkout and \$BUILD_DIR. Job files belong in
                      \$SLURM_TEST_DIR/scratch (mode 1777). Run commands on a node with
                      node.sh; cut a node off with kill-node.sh NODE cut.
  loopback            every daemon in this machine's namespaces; slurmd -N nX on 127.0.0.1,
                      one port each (no namespaces: for a machine where they are not allowed)

Environment:
  SLURM_TEST_DIR          state root            (default /tmp/slurm-supervisor-dev)
  CLEAN=1                 stop everything and wipe the state dir first
  WITH_DBD=1              also run MariaDB + slurmdbd (accounting, sacct); installs
                          slurmdbd and mariadb-server with apt-get if missing
  SLURM_TEST_CTLD_PORT    slurmctld port        (default 16817)
  SLURM_TEST_SLURMD_PORT  port of n1's slurmd; n2/n3 use +1/+2 (default 16821); in the
                          hosts layout the one port of every node's slurmd (SlurmdPort)
  SLURM_TEST_DBD_PORT     slurmdbd port         (default 16819, WITH_DBD=1 only)
  SLURM_TEST_MYSQL_PORT   MariaDB port          (default 16806, WITH_DBD=1 only)
  SLURM_TEST_UP_TIMEOUT   seconds to wait for the nodes (default 60)
  DC_LAYOUT               hosts (default) or loopback
  SLURM_TEST_SUBNET       hosts layout: a private /24 for the bridge
                          (default 10.219.<slurmctld port mod 256>.0/24)
  SLURM_TEST_NODE_PATHS   hosts layout: more paths (colon-separated) that the nodes see as
                          the head does, e.g. a build dir under /tmp
Settings (ports, WITH_DBD, DC_LAYOUT, SLURM_TEST_SUBNET, SLURM_TEST_NODE_PATHS) are
remembered in \$SLURM_TEST_DIR/etc/settings.env and reused by later runs that do not set
them (unless CLEAN=1); a settings file without a LAYOUT line (written before the hosts layout
was the default) means loopback. Changing the layout or subnet needs down.sh first.

Logs: \$SLURM_TEST_DIR/log/{slurmctld,slurmd-nX,munged,slurmdbd,mariadb}.log
      (hosts layout also munged-nX.log, node-nX.log: the namespace holder's messages)
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
    # written before the hosts layout was the default, when loopback wrote no LAYOUT line
    [[ -n "${saved[LAYOUT]:-}" ]] || saved[LAYOUT]=loopback
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
LAYOUT="$(setting LAYOUT DC_LAYOUT hosts)"
HEAD_ADDR=127.0.0.1
case "$LAYOUT" in
    loopback) ;;
    hosts)
        for cmd in ip unshare nsenter findmnt chroot sha1sum; do
            command -v "$cmd" >/dev/null || dc_die "the hosts layout needs '$cmd'; install: apt-get install -y --no-install-recommends iproute2 util-linux coreutils"
        done
        SUBNET="$(setting SUBNET SLURM_TEST_SUBNET "10.219.$((CTLD_PORT % 256)).0/24")"
        # a private /24 only: the bridge's route must never shadow an address of the outside
        private_24() {
            [[ "$1" =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.0/24$ ]] || return 1
            local a=$((10#${BASH_REMATCH[1]})) b=$((10#${BASH_REMATCH[2]})) c=$((10#${BASH_REMATCH[3]}))
            ((b <= 255 && c <= 255)) || return 1
            ((a == 10 || (a == 172 && b >= 16 && b <= 31) || (a == 192 && b == 168)))
        }
        if ! private_24 "$SUBNET"; then
            dc_die "SLURM_TEST_SUBNET must be a private /24 written A.B.C.0/24 (10.x, 172.16-31.x or 192.168.x), got '$SUBNET'"
        fi
        NET="${SUBNET%.0/24}"
        HEAD_ADDR="$NET.1"
        # Every node listens on the same port, as on a real cluster (SlurmdPort): each has its
        # own network namespace, so nothing collides, and nothing can tell the nodes apart by
        # port instead of by address.
        NODE_PORTS=("$SLURMD_PORT" "$SLURMD_PORT" "$SLURMD_PORT")
        NODE_PATHS="$(setting NODE_PATHS SLURM_TEST_NODE_PATHS "")"
        [[ "$NODE_PATHS" =~ [[:space:]] ]] && dc_die "SLURM_TEST_NODE_PATHS must not contain whitespace"
        # what the nodes see at the same path as the head, like installed software: this
        # checkout (the epilog lives in it) and the build dir, wherever they are
        NODE_SHARE="$(cd "$HERE/../.." && pwd -P)${BUILD_DIR:+:$BUILD_DIR}${NODE_PATHS:+:$NODE_PATHS}"
        ;;
    *) dc_die "DC_LAYOUT must be 'loopback' or 'hosts' (got '$LAYOUT')" ;;
esac
# The layout and the subnet are not changed under running daemons or existing namespaces.
if [[ -n "${saved[LAYOUT]:-}" && "$LAYOUT" != "${saved[LAYOUT]}" || ("$LAYOUT" == hosts && -n "${saved[SUBNET]:-}" && "$SUBNET" != "${saved[SUBNET]}") ]] &&
    { dc_any_running || dc_hosts_load; }; then
    dc_die "the cluster in $DC_DIR runs with DC_LAYOUT=${saved[LAYOUT]}${saved[SUBNET]:+ (subnet ${saved[SUBNET]})}; run '$HERE/down.sh' before changing the layout or subnet, or use CLEAN=1"
fi

mkdir -p "$DC_DIR"/{etc,state,log,run,munge} "${DC_NODES[@]/#/$DC_DIR/spool/}"
chmod 0711 "$DC_DIR/munge"  # munged requires o+x on the socket dir
# The node epilog's spool (root's, 0755: the epilog and the supervisor refuse anything laxer)
# and the kernel log file of each node that tests write (README "The node epilog").
mkdir -p "$DC_DIR/epilog-spool" "$DC_DIR/kernel-log"
chmod 0755 "$DC_DIR/epilog-spool" "$DC_DIR/kernel-log"
# Job logs, checkpoints, test files: the one data directory that the head and every node share
# in the hosts layout (its nodes' /tmp are their own). Also made in the loopback layout, so that
# a test can use the same path in both.
mkdir -p "$DC_DIR/scratch"
chmod 1777 "$DC_DIR/scratch"
EPILOG="$(cd "$HERE/../slurm" && pwd)/epilog.sh"
EPILOG_SLURMCTLD="$(cd "$HERE/../slurm" && pwd)/epilog-slurmctld.sh"

# ---------------------------------------------------------------- config
render() {  # template -> stdout
    local dbd_keep='#DBD#' dbd_drop='#NODBD#' lay_keep='#LOOPBACK#' lay_drop='#HOSTS#'
    if [[ "$WITH_DBD_V" != 1 ]]; then dbd_keep='#NODBD#'; dbd_drop='#DBD#'; fi
    if [[ "$LAYOUT" == hosts ]]; then lay_keep='#HOSTS#'; lay_drop='#LOOPBACK#'; fi
    sed -e "/^${dbd_drop}/d" -e "s|^${dbd_keep}||" -e "/^${lay_drop}/d" -e "s|^${lay_keep}||" \
        -e "s|@HEAD_ADDR@|$HEAD_ADDR|g" -e "s|@NET@|${NET:-}|g" \
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
printf 'LAYOUT=%s\n' "$LAYOUT" >>"$SETTINGS"
if [[ "$LAYOUT" == hosts ]]; then
    printf 'SUBNET=%s\nNODE_PATHS=%s\n' "$SUBNET" "$NODE_PATHS" >>"$SETTINGS"
fi
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

hosts_check_subnet() {  # the subnet must be ours alone: no address in it, no direct route to it
    local used r
    used="$(ip -4 -o addr show to "$NET.0/24" 2>/dev/null | awk '{ print $2 " " $4 }')"
    r="$(ip -4 route get "$NET.11" 2>/dev/null || true)"
    if [[ -z "$used" && "$r" != *" via "* && "$r" =~ \ dev\ ([^ ]+) ]]; then
        used="a route to $NET.0/24 on ${BASH_REMATCH[1]}"
    fi
    [[ -z "$used" ]] ||
        dc_die "subnet $NET.0/24 is already in use on this machine ($(dc_words "$used")); choose another with SLURM_TEST_SUBNET=A.B.C.0/24 (after down.sh)"
}

# pre-flight: every port we are about to listen on must be free (the hosts layout's slurmd
# listen in their nodes' namespaces: checked there)
dc_running_pid slurmctld >/dev/null || check_port_free "$CTLD_PORT" slurmctld
for i in "${!DC_NODES[@]}"; do
    [[ "$LAYOUT" == hosts ]] && break
    dc_running_pid "slurmd-${DC_NODES[$i]}" >/dev/null || check_port_free "${NODE_PORTS[$i]}" "slurmd ${DC_NODES[$i]}"
done
if [[ "$LAYOUT" == hosts ]] && ! dc_link_exists "ssv-$(dc_hosts_id "$DC_DIR" "$CTLD_PORT")-br"; then
    hosts_check_subnet
fi
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

# ---------------------------------------------------------------- the head's names (hosts layout)
# Slurm 24.11 names each connection it accepts after its peer (getnameinfo in conmgr, and on the
# address in a munge credential) and caches only lookups that succeed. A head that cannot name
# the cluster's addresses locally asks DNS on every RPC, and each query the resolver drops holds
# slurmctld 5 s (issue 31: the suites failed on Debian 13 in this layout). A real head knows its
# nodes (DNS or /etc/hosts): here slurmctld and slurmdbd see the machine's /etc/hosts plus the
# cluster's names, bound over /etc/hosts in a mount namespace of their own (lib.sh
# dc_head_exec); nothing on the machine itself changes.
head_daemon=()
if [[ "$LAYOUT" == hosts ]]; then
    {
        cat /etc/hosts
        echo "# the dev cluster's names (up.sh): the head and its nodes"
        echo "$HEAD_ADDR $HOST"
        for n in "${DC_NODES[@]}"; do echo "$(DC_H_NET="$NET" dc_node_addr "$n") $n"; done
    } >"$DC_DIR/etc/head-hosts.tmp"
    mv -f "$DC_DIR/etc/head-hosts.tmp" "$DC_DIR/etc/head-hosts"
    # shellcheck disable=SC2016  # expanded by the inner bash
    head_daemon=(unshare --mount --propagation unchanged -- bash -c
        'source "$1" && shift && dc_head_exec "$@"' dc-head-exec "$HERE/lib.sh"
        "$DC_DIR/etc/head-hosts")
fi

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
        spawn "$DC_DIR/log/slurmdbd.stdout" "${head_daemon[@]}" slurmdbd ||
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
    spawn "$DC_DIR/log/slurmctld.stdout" "${head_daemon[@]}" slurmctld -f "$DC_CONF" ||
        { tail_log "$DC_DIR/log/slurmctld.stdout"; tail_log "$DC_DIR/log/slurmctld.log"; dc_die "slurmctld failed to start (see $DC_DIR/log/slurmctld.log)"; }
fi

# ---------------------------------------------------------------- hosts layout: bridge, nodes
# The bridge (head: $NET.1) and, per node, a network namespace with a veth pair (eth0, $NET.1x),
# the holder of its UTS and mount namespaces (lib.sh dc_node_init), its munged and its slurmd.
hosts_network_up() {
    local want_id n
    want_id="$(dc_hosts_id "$DC_DIR" "$CTLD_PORT")"
    if dc_hosts_load && [[ "$DC_H_ID" != "$want_id" || "$DC_H_NET" != "$NET" ]]; then
        # left by a start with other ports or another subnet: gone, or refuse
        for n in "${DC_NODES[@]}"; do
            if dc_running_pid "node-$n" >/dev/null || dc_running_pid "slurmd-$n" >/dev/null; then
                dc_die "node $n still runs in namespace ssv-$DC_H_ID-$n on $DC_H_NET.0/24 (an earlier start with other ports or subnet); run '$HERE/down.sh' first"
            fi
        done
        dc_hosts_teardown
    fi
    printf 'ID=%s\nNET=%s\n' "$want_id" "$NET" >"$DC_HOSTS_ENV.tmp"
    mv -f "$DC_HOSTS_ENV.tmp" "$DC_HOSTS_ENV"
    dc_hosts_load || dc_die "internal: cannot read $DC_HOSTS_ENV"
    if ! dc_link_exists "$DC_H_BRIDGE"; then
        hosts_check_subnet
        dc_log "creating bridge $DC_H_BRIDGE, head address $HEAD_ADDR/24"
        # no STP, no forwarding delay: a port forwards as soon as it is up
        ip link add name "$DC_H_BRIDGE" type bridge stp_state 0 forward_delay 0 ||
            dc_die "cannot create bridge $DC_H_BRIDGE (ip link add ... type bridge; are you root, with CAP_NET_ADMIN?)"
    fi
    if ! ip -4 -o addr show dev "$DC_H_BRIDGE" | grep -q " $HEAD_ADDR/24 "; then
        ip addr add "$HEAD_ADDR/24" dev "$DC_H_BRIDGE"
    fi
    ip link set dev "$DC_H_BRIDGE" up
}

hosts_node_files() {  # node: its munge dir (the cluster's key) and /etc/hosts
    local n="$1" d="$DC_DIR/nodes/$1" m
    mkdir -p "$d/munge" "$d/root"
    chmod 0711 "$d/munge"
    if ! cmp -s "$DC_DIR/munge/munge.key" "$d/munge/munge.key"; then
        install -m 0600 "$DC_DIR/munge/munge.key" "$d/munge/munge.key"
    fi
    {
        echo "127.0.0.1 localhost"
        echo "::1 localhost ip6-localhost ip6-loopback"
        echo "$HEAD_ADDR $HOST"
        for m in "${DC_NODES[@]}"; do echo "$(dc_node_addr "$m") $m"; done
    } >"$d/hosts.tmp"
    mv -f "$d/hosts.tmp" "$d/hosts"
}

node_munge_ok() {  # node
    # shellcheck disable=SC2016  # expanded by the inner bash
    dc_node_exec "$1" bash -c 'c="$(munge -n -S "$1")" && unmunge -S "$1" <<<"$c" >/dev/null' _ "$MUNGE_SOCK" 2>/dev/null
}

hosts_node_up() {  # node
    local n="$1" ns veth addr hpid i pid
    local -a enter
    ns="$(dc_netns "$n")"
    veth="$(dc_veth "$n")"
    addr="$(dc_node_addr "$n")"
    hosts_node_files "$n"
    if hpid="$(dc_running_pid "node-$n")"; then
        dc_log "node $n already up (namespaces held by pid $hpid, $addr)"
    else
        # Without its holder a node's namespaces are lost: whatever is left of it goes, and it
        # starts afresh, as after a reboot.
        if [[ -e "/run/netns/$ns" ]] || dc_link_exists "$veth" || [[ -n "$(dc_node_pids "$n")" ]]; then
            dc_log "node $n: its namespace holder is gone; removing what is left of the node"
            dc_node_kill_all "$n"
            if dc_link_exists "$veth"; then ip link del dev "$veth"; fi
            if [[ -e "/run/netns/$ns" ]]; then ip netns del "$ns"; fi
        fi
        dc_log "creating node $n: network namespace $ns, $addr on $DC_H_BRIDGE"
        ip netns add "$ns" || dc_die "cannot create network namespace $ns (ip netns add $ns)"
        ip link add name "$veth" type veth peer name eth0 netns "$ns" ||
            dc_die "cannot create the veth pair $veth/eth0 for node $n (ip link add ... type veth)"
        ip link set dev "$veth" master "$DC_H_BRIDGE" up
        # (not `ip -n`: iproute2 6.15 also remounts / then, which fails in a chroot)
        nsenter --net="/run/netns/$ns" ip link set dev lo up
        nsenter --net="/run/netns/$ns" ip addr add "$addr/24" dev eth0
        nsenter --net="/run/netns/$ns" ip link set dev eth0 up
        rm -f "$DC_DIR/run/node-$n.pid"
        # shellcheck disable=SC2016  # expanded by the inner bash
        SLURM_TEST_DIR="$DC_DIR" DC_NODE_SHARE="$NODE_SHARE" spawn_bg "$DC_DIR/log/node-$n.log" \
            nsenter --net="/run/netns/$ns" -- unshare --uts --mount --propagation unchanged -- \
            bash -c 'source "$1" && dc_node_init "$2"' dc-node-init "$HERE/lib.sh" "$n"
        pid=$!
        for ((i = 0; i < 100; i++)); do
            hpid="$(dc_running_pid "node-$n")" && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        [[ -n "$hpid" ]] ||
            { tail_log "$DC_DIR/log/node-$n.log"; dc_die "node $n: its namespaces could not be set up (see $DC_DIR/log/node-$n.log)"; }
    fi
    local uncut=0
    if ! dc_link_is_up "$veth"; then
        dc_log "node $n: restoring its link (it was cut)"
        ip link set dev "$veth" up
        uncut=1
    fi
    read -ra enter <<<"$(dc_node_nsenter "$n")"
    if pid="$(dc_running_pid "munged-$n")"; then
        dc_log "munged $n already running (pid $pid)"
    else
        rm -f "$DC_DIR/nodes/$n/munge/munge.socket" "$DC_DIR/nodes/$n/munge/munge.socket.lock"
        dc_log "starting munged $n"
        # the paths are the node's: its munge dir is mounted at $DC_DIR/munge there
        spawn "$DC_DIR/log/munged-$n.stdout" "${enter[@]}" -- munged --socket="$MUNGE_SOCK" \
            --key-file="$DC_DIR/munge/munge.key" --pid-file="$DC_DIR/munge/munged.pid" \
            --seed-file="$DC_DIR/munge/munged.seed" --log-file="$DC_DIR/log/munged-$n.log" ||
            { tail_log "$DC_DIR/log/munged-$n.stdout"; tail_log "$DC_DIR/log/munged-$n.log"; dc_die "munged $n failed to start (see $DC_DIR/log/munged-$n.log)"; }
    fi
    wait_for 10 "munged $n" node_munge_ok "$n" ||
        { tail_log "$DC_DIR/log/munged-$n.log"; dc_die "munged of node $n does not answer on $MUNGE_SOCK inside the node (see $DC_DIR/log/munged-$n.log)"; }
    if pid="$(dc_running_pid "slurmd-$n")"; then
        dc_log "slurmd $n already running (pid $pid)"
        # a node that was cut is DOWN: have it register now rather than in a minute
        [[ $uncut == 0 ]] || dc_node_reregister "$n"
        return 0
    fi
    if [[ -n "$(dc_node_exec "$n" ss -Htln "sport = :$SLURMD_PORT" 2>/dev/null)" ]]; then
        dc_die "port $SLURMD_PORT is already in use inside node $n ($(dc_node_exec "$n" ss -Htlnp "sport = :$SLURMD_PORT" 2>&1)); down.sh stops everything in the node"
    fi
    dc_log "starting slurmd $n on $addr:$SLURMD_PORT"
    # plain `slurmd`: it finds its node by its hostname (NodeHostname=$n)
    spawn "$DC_DIR/log/slurmd-$n.stdout" "${enter[@]}" -- slurmd -f "$DC_CONF" ||
        { tail_log "$DC_DIR/log/slurmd-$n.stdout"; tail_log "$DC_DIR/log/slurmd-$n.log"; dc_die "slurmd $n failed to start (see $DC_DIR/log/slurmd-$n.log)"; }
}

if [[ "$LAYOUT" == hosts ]]; then
    hosts_network_up
    for n in "${DC_NODES[@]}"; do hosts_node_up "$n"; done
else
    # a hosts-layout network left by an earlier start (nothing of it runs: checked above)
    dc_hosts_teardown
fi

# ---------------------------------------------------------------- slurmd n1..n3
for i in "${!DC_NODES[@]}"; do
    [[ "$LAYOUT" == hosts ]] && break  # started above, each in its node
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

line="export SLURM_CONF=$DC_CONF SLURM_TEST_SCRATCH=$DC_DIR/scratch SLURM_TEST_HEAD_ADDR=$HEAD_ADDR"
printf '%s\n' "$line" >"$DC_DIR/env.sh.tmp"
mv -f "$DC_DIR/env.sh.tmp" "$DC_DIR/env.sh"
dc_log "cluster ready in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s${SUBNET:+ (hosts layout, $SUBNET)}: $(for n in "${DC_NODES[@]}"; do printf '%s=%s ' "$n" "${node_state[$n]}"; done)(logs: $DC_DIR/log)"
printf '%s\n' "$line" >&3
