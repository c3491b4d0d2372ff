#!/usr/bin/env bash
# Runs the test command (contrib/test.sh) inside a Debian 13 (trixie: Slurm 24.11, GCC 14,
# CMake 3.31) root filesystem, so one Debian 12 machine tests both Slurm releases. .ci/run
# calls it after the Debian 12 leg; it works the same on any Debian or Ubuntu host as root.
#
#   contrib/test-in-debian13.sh              every suite, as contrib/test.sh
#   contrib/test-in-debian13.sh -L unit      extra arguments go to contrib/test.sh (ctest)
#   contrib/test-in-debian13.sh --shell      an interactive shell inside, mounts in place
#
# What it does:
#  1. Creates the root filesystem with debootstrap from Debian's archive (minbase, ~30 s),
#     once: it is kept in $DEBIAN13_ROOT (default /var/tmp/slurm-supervisor-debian13) and
#     reused while complete. REBUILD_ROOT=1 starts it afresh. contrib/install-deps.sh then runs
#     inside it every time (a no-op when nothing is missing), so the package list is the
#     repository's, never the cache's.
#  2. Mounts /proc, /sys, /dev, /dev/pts and a fresh /tmp in it, and this checkout at /src.
#  3. Runs contrib/test.sh inside with BUILD_DIR=/build (outside the checkout, so the two
#     legs never share a build tree) and the dev cluster on its own ports.
#  4. Always, even on failure or Ctrl-C: stops every process still running in the root
#     filesystem (the cluster's daemons, a hung test) and unmounts what it mounted.
#
# Environment: DEBIAN13_ROOT, DEBIAN13_MIRROR (default http://deb.debian.org/debian),
# REBUILD_ROOT=1, JOBS, CI (passed through).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Resolved, because /proc/PID/root (how cleanup finds what runs inside) shows resolved paths.
rootfs="$(realpath -m "${DEBIAN13_ROOT:-/var/tmp/slurm-supervisor-debian13}")"
mirror="${DEBIAN13_MIRROR:-http://deb.debian.org/debian}"
suite=trixie
complete_marker="$rootfs/.slurm-supervisor-rootfs-complete"

log() { echo "test-in-debian13: $*" >&2; }
die() { log "$*"; exit 1; }

[[ $(id -u) == 0 ]] || die "must run as root (debootstrap, chroot and mount need it); try sudo $0"

shell=0
args=()
for a in "$@"; do
    if [[ "$a" == --shell ]]; then shell=1; else args+=("$a"); fi
done

# ----------------------------------------------------------------- root filesystem
if [[ "${REBUILD_ROOT:-0}" == 1 && -e "$rootfs" ]]; then
    log "REBUILD_ROOT=1: removing $rootfs"
    # Never remove through a mount that an interrupted run left behind.
    if grep -q " $rootfs/" /proc/mounts; then
        die "$rootfs still has mounts (see /proc/mounts); unmount them first"
    fi
    rm -rf --one-file-system "$rootfs"
fi
if [[ ! -f "$complete_marker" ]]; then
    command -v debootstrap >/dev/null || {
        log "installing debootstrap"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap \
            >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install \
            -y -q --no-install-recommends debootstrap >/dev/null; }
    }
    if grep -q " $rootfs/" /proc/mounts; then
        die "$rootfs is incomplete but still has mounts; unmount them first"
    fi
    rm -rf --one-file-system "$rootfs"
    mkdir -p "$(dirname "$rootfs")"
    log "creating a Debian 13 root filesystem in $rootfs (debootstrap $suite)"
    started=$SECONDS
    debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$rootfs.debootstrap.log" 2>&1 || {
        tail -n 20 "$rootfs.debootstrap.log" >&2
        die "debootstrap failed (whole log: $rootfs.debootstrap.log)"
    }
    log "root filesystem ready in $((SECONDS - started)) s"
    touch "$complete_marker"
fi
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
cp /etc/hosts "$rootfs/etc/hosts"
hostname >"$rootfs/etc/hostname"

# ----------------------------------------------------------------- mounts and cleanup
mounted=()
mount_into() {  # mount-args... target-inside
    local target="$rootfs${*: -1}"
    mkdir -p "$target"
    mount "${@:1:$#-1}" "$target"
    mounted+=("$target")
}

# (or a directory inside it: the dev cluster's hosts layout chroots each node into a bind mount
# of it under its state directory)
processes_inside() {  # PIDs whose root directory is the root filesystem
    local p link
    for p in /proc/[0-9]*; do
        link="$(readlink "$p/root" 2>/dev/null)" || continue
        [[ "$link" == "$rootfs" || "$link" == "$rootfs"/* ]] && echo "${p#/proc/}"
    done
    return 0
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    local pids
    pids="$(processes_inside)"
    if [[ -n "$pids" ]]; then
        log "stopping what is still running inside: $(echo $pids)"
        kill -TERM $pids 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            [[ -z "$(processes_inside)" ]] && break
            sleep 0.5
        done
        pids="$(processes_inside)"
        [[ -z "$pids" ]] || kill -KILL $pids 2>/dev/null || true
    fi
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" || true
    done
    exit "$status"
}
# An interrupted run (a killed CI, a session that ended mid-leg) leaves its mounts behind, and
# binding the checkout on a stale /src then fails ("mount(2) system call failed: No such file or
# directory"). With nothing running inside they are its leftovers, unmounted here; with
# something running inside, another run owns them.
if grep -q " $rootfs/" /proc/mounts; then
    [[ -z "$(processes_inside)" ]] ||
        die "$rootfs is in use by another run (processes inside it): wait for it, or stop it"
    log "unmounting what an interrupted run left mounted in $rootfs"
    awk -v prefix="$rootfs/" 'index($2, prefix) == 1 { print $2 }' /proc/mounts | sort -r |
        while read -r stale; do umount -R -l "$stale" 2>/dev/null || true; done
fi
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mount_into -t proc proc /proc
mount_into --rbind /sys /sys
mount --make-rslave "$rootfs/sys"
mount_into --bind /dev /dev
mount_into --bind /dev/pts /dev/pts
mount_into -t tmpfs -o mode=1777 tmpfs /tmp
mount_into -t tmpfs -o mode=0755 tmpfs /run
mount_into --bind "$root" /src
# /etc/hosts a mount point of its own: the dev cluster's head daemons bind their names over it
# in a namespace of theirs, which needs a mount inside the root to make private (lib.sh
# dc_head_exec); the file itself is the copy made above
mount --bind "$rootfs/etc/hosts" "$rootfs/etc/hosts"
mounted+=("$rootfs/etc/hosts")

# ----------------------------------------------------------------- the test command
# The suites' cluster is the hosts layout here too, as in the Debian 12 leg. (It was loopback
# until slurmctld's 5 s stalls on Slurm 24.11 were traced to its name lookups of each peer:
# contrib/dev-cluster/README.md, "The head names its nodes".) DEBIAN13_DC_LAYOUT=loopback runs
# the suites with the nodes as processes of this machine.
inside_env=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
            HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" JOBS="${JOBS:-}"
            BUILD_DIR=/build SLURM_TEST_DIR=/tmp/slurm-supervisor-test
            DC_LAYOUT="${DEBIAN13_DC_LAYOUT:-hosts}"
            SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-16937}"
            SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-16941}")
if ((shell)); then
    log "shell inside $rootfs (the checkout is /src; exit to unmount)"
    chroot "$rootfs" "${inside_env[@]}" /bin/bash -l || true
    exit 0
fi
log "running contrib/test.sh ${args[*]} inside Debian 13 ($rootfs)"
chroot "$rootfs" "${inside_env[@]}" /src/contrib/test.sh "${args[@]}"
