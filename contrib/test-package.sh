#!/usr/bin/env bash
# Builds the Debian package from this tree, checks it with lintian, installs it into a clean
# Debian 12 (bookworm) root filesystem with apt and checks what an administrator gets there.
# .ci/run runs it as its own leg; it works on any Debian 12 host as root.
#
#   contrib/test-package.sh
#
# What it does:
#  1. Installs what the build needs (debian/control's Build-Depends, lintian, debootstrap,
#     ccache), only what is missing.
#  2. Copies the checkout (tracked files and untracked ones git does not ignore) to
#     $PACKAGE_WORK_DIR/src and runs `dpkg-buildpackage -b` there, through ccache (its cache in
#     $PACKAGE_WORK_DIR/ccache: debhelper gives the build a HOME of its own, so the default
#     ~/.cache/ccache would be lost with the copy; a second run compiles nothing that did not
#     change).
#  3. Runs lintian on the result: any error or warning fails.
#  4. Creates a Debian 12 minbase root with debootstrap, once (kept in $PACKAGE_WORK_DIR/bookworm
#     while complete), and installs the package into a fresh copy of it with apt, so that its
#     Depends come from Debian's archive.
#  5. Checks there: `supervisor --version`, the manual page of every command --help lists, bash
#     completion of a subcommand and one of its options, the units, scripts, rules, conffiles,
#     `supervisor doctor` with the site's config (config and rules found, no Slurm named as such,
#     exit status 1) and `supervisor diagnose` with the shipped rules; then removes and purges it.
#  6. Always, even on failure or Ctrl-C: unmounts what it mounted and deletes the copy.
#
# Environment: PACKAGE_WORK_DIR (default /var/tmp/slurm-supervisor-package), DEBIAN12_MIRROR
# (default http://deb.debian.org/debian), REBUILD_ROOT=1, JOBS (default 2).
set -euo pipefail

source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(realpath -m "${PACKAGE_WORK_DIR:-/var/tmp/slurm-supervisor-package}")"
mirror="${DEBIAN12_MIRROR:-http://deb.debian.org/debian}"
pristine="$work/bookworm"
complete_marker="$pristine/.slurm-supervisor-rootfs-complete"
target="$work/bookworm-test"
started=$SECONDS

log() { echo "test-package: $*" >&2; }
die() { log "FAILED: $*"; exit 1; }

[[ $(id -u) == 0 ]] || die "must run as root (apt-get, debootstrap, chroot and mount need it)"
export DEBIAN_FRONTEND=noninteractive

# ----------------------------------------------------------------- 1. build dependencies
install_packages() {  # package...
    local missing=() p
    for p in "$@"; do
        [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == "install ok installed" ]] ||
            missing+=("$p")
    done
    ((${#missing[@]} == 0)) && return 0
    log "installing ${missing[*]}"
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
        apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" \
            >/dev/null; } || die "apt-get install ${missing[*]} failed (run it by hand to see why)"
}
install_packages dpkg-dev debhelper lintian debootstrap ccache man-db
# dpkg-checkbuilddeps names what debian/control's Build-Depends lacks ("a (>= 1) | b, c"). It
# exits 1 when something is missing, which is the case this handles: without `|| true` the
# assignment failed under `set -e -o pipefail` and the script stopped without a word (seen on a
# fresh machine, where help2man was missing).
unmet="$(cd "$source_dir" && { dpkg-checkbuilddeps 2>&1 || true; } |
    sed -n 's/.*Unmet build dependencies: //p')"
if [[ -n "$unmet" ]]; then
    # shellcheck disable=SC2046  # one package name per word
    install_packages $(sed -E 's/\([^)]*\)//g; s/\|[^,]*//g; s/,/ /g' <<<"$unmet")
fi

# ----------------------------------------------------------------- mounts and cleanup
mounted=()
cleanup() {
    local status=$? i
    trap - EXIT INT TERM
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" || true
    done
    if [[ -d "$target" ]] && ! grep -q " $target/" /proc/mounts; then
        rm -rf --one-file-system "$target"
    fi
    if ((status != 0)); then
        log "FAILED after $((SECONDS - started)) s (exit $status)"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ----------------------------------------------------------------- 2. the package
mkdir -p "$work"
build="$work/src"
rm -rf "$build"
mkdir -p "$build/slurm-supervisor"
(cd "$source_dir" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do if [[ -e "$file" ]]; then printf '%s\0' "$file"; fi; done |
    tar --null -T - -cf -) | tar -xf - -C "$build/slurm-supervisor"
log "building the package (dpkg-buildpackage -b, in $build)"
build_started=$SECONDS
(cd "$build/slurm-supervisor" &&
    PATH="/usr/lib/ccache:$PATH" CCACHE_DIR="$work/ccache" CCACHE_MAXSIZE=2G \
        CCACHE_BASEDIR="$build" CCACHE_NOHASHDIR=1 \
        DEB_BUILD_OPTIONS="parallel=${JOBS:-2}" dpkg-buildpackage -b -uc -us \
        >"$build/build.log" 2>&1) || {
    tail -n 40 "$build/build.log" >&2
    die "dpkg-buildpackage failed (whole log: $build/build.log)"
}
changes="$(ls "$build"/slurm-supervisor_*_"$(dpkg --print-architecture)".changes)"
deb="$(ls "$build"/slurm-supervisor_*_"$(dpkg --print-architecture)".deb)"
log "built $(basename "$deb") in $((SECONDS - build_started)) s"

# ----------------------------------------------------------------- 3. lintian
log "lintian $(basename "$changes")"
# (Its notice that it runs as root is not a finding.)
lintian_status=0
lintian_output="$(lintian --fail-on error,warning "$changes" 2>&1)" || lintian_status=$?
lintian_output="$(grep -v -x 'running with root privileges is not recommended!' <<<"$lintian_output" ||
    true)"
if ((lintian_status != 0)); then
    echo "$lintian_output" >&2
    die "lintian reported errors or warnings (exit $lintian_status)"
fi
[[ -z "$lintian_output" ]] || echo "$lintian_output" >&2
log "lintian: no errors, no warnings"

# ----------------------------------------------------------------- 4. a clean Debian 12
if [[ ! -f "$complete_marker" ]] || [[ "${REBUILD_ROOT:-0}" == 1 ]]; then
    grep -q " $pristine/" /proc/mounts && die "$pristine has mounts; unmount them first"
    rm -rf --one-file-system "$pristine"
    log "creating a Debian 12 root filesystem in $pristine (debootstrap --variant=minbase)"
    debootstrap --variant=minbase bookworm "$pristine" "$mirror" >"$work/debootstrap.log" 2>&1 || {
        tail -n 20 "$work/debootstrap.log" >&2
        die "debootstrap failed (whole log: $work/debootstrap.log)"
    }
    touch "$complete_marker"
fi
grep -q " $target/" /proc/mounts && die "$target has mounts: another run, or an interrupted one"
rm -rf --one-file-system "$target"
cp -a "$pristine" "$target"
cp /etc/resolv.conf "$target/etc/resolv.conf"
mount_into() {  # mount-args... target-inside
    local inside="$target${*: -1}"
    mkdir -p "$inside"
    mount "${@:1:$#-1}" "$inside"
    mounted+=("$inside")
}
mount_into -t proc proc /proc
mount_into --bind /dev /dev
mount_into -t tmpfs -o mode=1777 tmpfs /tmp
inside() { chroot "$target" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

cp "$deb" "$target/tmp/"
log "installing $(basename "$deb") with apt in a clean Debian 12"
{ inside apt-get update -q && inside apt-get install -y -q --no-install-recommends \
    "/tmp/$(basename "$deb")"; } >"$work/install.log" 2>&1 || {
    tail -n 30 "$work/install.log" >&2
    die "apt-get install of the package failed (whole log: $work/install.log)"
}

# ----------------------------------------------------------------- 5. what the package gives
failures=0
check() {  # what command...
    local what="$1" output
    shift
    if output="$("$@" 2>&1)"; then
        log "ok: $what"
    else
        log "FAIL: $what"
        [[ -z "$output" ]] || sed 's/^/    /' <<<"$output" >&2
        failures=$((failures + 1))
    fi
}
contains() {  # text pattern...: every extended regex matches some line
    local text="$1" pattern
    shift
    for pattern in "$@"; do
        grep -q -E -- "$pattern" <<<"$text" || { echo "no line matches /$pattern/ in:"; echo "$text"; return 1; }
    done
}

version="$(cd "$source_dir" && dpkg-parsechangelog -S Version)"
check "supervisor --version starts and says $version" \
    contains "$(inside supervisor --version 2>&1)" "^supervisor $version \(built against Slurm "

# Every command --help lists has its page; each renders without a warning.
cp "$source_dir/contrib/cli-docs/commands.sh" "$target/tmp/"
mapfile -t pages < <(inside bash -c 'source /tmp/commands.sh; command_paths supervisor' |
    sed 's/^/supervisor /; s/ $//; s/ /-/g')
check "--help lists commands (${#pages[@]})" test "${#pages[@]}" -gt 10
for page in "${pages[@]}"; do
    file="$target/usr/share/man/man1/$page.1.gz"
    check "manual page $page(1)" bash -c "test -f '$file' &&
        out=\$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l '$file' 2>&1 >/dev/null) &&
        test -z \"\$out\" && zgrep -q '^\.SH OPTIONS' '$file'"
done

completion() {  # words...: what bash completes for the last one
    inside bash -c 'source /usr/share/bash-completion/completions/supervisor
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _supervisor; echo "${COMPREPLY[*]}"' \
        completion "$@"
}
check "bash completes 'supervisor regis' to register" \
    test "$(completion supervisor regis)" == register
check "bash completes 'supervisor register --checkpoint-d' to --checkpoint-dir" \
    test "$(completion supervisor register --checkpoint-d)" == --checkpoint-dir
check "bash completes 'supervisor inspect n' to nodes" \
    test "$(completion supervisor inspect n)" == nodes

check "units, scripts, rules, logrotate, conffiles in place" inside bash -c '
    set -e
    test -f /lib/systemd/system/slurm-supervisor.service
    test -f /usr/lib/systemd/user/slurm-supervisor.service
    grep -q "^ExecStart=/usr/bin/supervisor run --config /etc/slurm-supervisor/config.toml" \
        /lib/systemd/system/slurm-supervisor.service
    test -x /usr/libexec/slurm-supervisor/epilog.sh
    test -x /usr/libexec/slurm-supervisor/epilog-slurmctld.sh
    test -f /usr/share/slurm-supervisor/slurm/epilog.conf.example
    test -f /usr/share/slurm-supervisor/slurm/epilog-slurmctld.conf.example
    test -f /usr/share/slurm-supervisor/rules/default.toml
    test -f /etc/logrotate.d/slurm-supervisor
    grep -qx /etc/slurm-supervisor/config.toml /var/lib/dpkg/info/slurm-supervisor.conffiles
    grep -qx /etc/logrotate.d/slurm-supervisor /var/lib/dpkg/info/slurm-supervisor.conffiles'

# The site daemon's doctor, as doc/operations.md has the administrator run it, in a root with
# no Slurm configured: its own installation is fine, Slurm is named as what is missing, exit 1.
doctor_status=0
doctor="$(inside env SUPERVISOR_STATE_DIR=/var/lib/slurm-supervisor \
    supervisor doctor --config /etc/slurm-supervisor/config.toml 2>&1)" || doctor_status=$?
sed 's/^/    doctor: /' <<<"$doctor" >&2
check "supervisor doctor exits 1 (slurmctld unreachable): $doctor_status" test "$doctor_status" == 1
check "supervisor doctor: the config and the rules found and loaded; no Slurm configuration" \
    contains "$doctor" \
    '^ok +config: /etc/slurm-supervisor/config\.toml: poll every 10000 ms' \
    '^ok +rules: [1-9][0-9]* diagnosis rules loaded' \
    '^(ok|warn) +state_dir: /var/lib/slurm-supervisor' \
    '^ok +slurm_version: built against Slurm ' \
    '^FAIL +slurmctld: no readable Slurm configuration at /etc/slurm/slurm\.conf'
check "supervisor doctor: slurmctld is the one check that fails" \
    test "$(grep -c '^FAIL' <<<"$doctor")" == 1

printf '%s\n' "step 12 loss 2.1" \
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" \
    >"$target/tmp/job.log"
check "supervisor diagnose with the shipped rules: CUDA out of memory" \
    contains "$(inside supervisor diagnose --log /tmp/job.log 2>&1)" '^Cause: cuda_oom ' \
    'gpu\.out_of_memory'

check "remove keeps the conffiles; purge removes them" inside bash -c '
    set -e
    dpkg -r slurm-supervisor >/dev/null
    test ! -e /usr/bin/supervisor && test -f /etc/slurm-supervisor/config.toml
    dpkg -P slurm-supervisor >/dev/null
    test ! -e /etc/slurm-supervisor/config.toml'

((failures == 0)) || die "$failures checks failed"
log "passed in $((SECONDS - started)) s"
