#!/bin/bash
# slurm-supervisor's node epilog: at the end of each job, on each of its nodes, it copies the GPU
# kernel events of the job's time window (NVIDIA Xid, ECC and row remapping, NVLink, PCIe AER,
# thermal throttling) and an nvidia-smi health summary into ONE file per job and node in a spool
# directory on shared storage, where the supervisor reads them when it diagnoses a failure
# ([evidence] epilog_spool). Installation, configuration and the file format: README.md here.
#
#   epilog.sh [--config FILE] [--deadline-ms MS]
#     --config       default /etc/slurm-supervisor/epilog.conf
#     --deadline-ms  when the work is killed, 100 to 60000 (default 900); every command inside
#                    has a share of it
#
# What it promises slurmd, whatever happens:
#   * it exits 0: a failing Epilog drains the node;
#   * it returns within 1 s: the work runs in a child that is killed at 0.9 s, every command in
#     it has its own shorter timeout, and nothing of the child holds slurmd's stdout or stderr;
#   * nothing the job controls reaches a path: only SLURM_JOB_ID (digits) and the node's name
#     (checked) name the file, and only in a directory that root (or write_as, or this user)
#     owns and no one else can write, never through a symbolic link.
# Problems are logged to syslog (tag slurm-supervisor-epilog), or where `log` says.

# ---------------------------------------------------------------- the time it may take
# Only the command line (root's: slurm.conf names the script, or a wrapper of the site's) sets
# the deadline, never the environment or the config. A bad value is the default, not a failure.
deadline_ms=900
arguments=("$@")
for ((i = 0; i + 1 < ${#arguments[@]}; i++)); do
    if [[ "${arguments[i]}" == --deadline-ms && "${arguments[i + 1]}" =~ ^[0-9]{1,5}$ ]] &&
        ((10#${arguments[i + 1]} >= 100 && 10#${arguments[i + 1]} <= 60000)); then
        deadline_ms=$((10#${arguments[i + 1]}))
    fi
done
seconds_of() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }  # milliseconds

# ---------------------------------------------------------------- the watchdog (slurmd's child)
if [[ "${1-}" != --worker ]]; then
    export PATH=/usr/sbin:/usr/bin:/sbin:/bin
    # Nothing reaches slurmd's log, not even this shell's "Killed" when the worker is killed.
    exec </dev/null >/dev/null 2>&1
    # Without timeout(1) nothing can be bounded: do nothing rather than risk the node's release.
    if command -v timeout >/dev/null 2>&1; then
        timeout -s KILL "$(seconds_of "$deadline_ms")" "${BASH:-/bin/bash}" "${BASH_SOURCE[0]}" \
            --worker "$@"
    fi
    exit 0
fi
shift

# ---------------------------------------------------------------- the worker
set -u
umask 077
export LC_ALL=C TZ=UTC

# Shares of the deadline (0.45 s, 0.2 s and 0.3 s of the default 0.9 s).
k_kernel_timeout="$(seconds_of $((deadline_ms / 2)))"  # journalctl / dmesg / reading the file
k_smi_timeout="$k_kernel_timeout"  # each nvidia-smi query (they run beside the kernel log read)
k_command_timeout="$(seconds_of $((deadline_ms * 2 / 9)))"  # stat, id, hostname, logger
k_writer_timeout="$(seconds_of $((deadline_ms / 3)))"       # writing the file
readonly k_kernel_timeout k_smi_timeout k_command_timeout k_writer_timeout
readonly k_max_line=1024        # bytes of one message kept
readonly k_max_lines=2000       # matching lines looked at, the newest
readonly k_file_tail=8388608    # bytes read from the end of a file: source

config=/etc/slurm-supervisor/epilog.conf
while (($#)); do
    case "$1" in
        --config) config="${2-}"; shift 2 || shift ;;
        *) shift ;;  # --deadline-ms, read above
    esac
done

log_target=syslog
note() {
    case "$log_target" in
        syslog)
            command -v logger >/dev/null 2>&1 &&
                timeout -s KILL "$k_command_timeout" logger -t slurm-supervisor-epilog \
                    -p daemon.warning -- "job ${SLURM_JOB_ID-?}: $*"
            ;;
        file:/*) printf 'job %s: %s\n' "${SLURM_JOB_ID-?}" "$*" >>"${log_target#file:}" ;;
    esac
    return 0
}

# A root-owned file or directory (or this user's, or write_as's when `owners` says so), that
# nobody else may write: stat's "uid mode".
owners="0 $EUID"
trusted() {  # path what
    local info uid mode
    if [[ -L "$1" ]]; then
        note "$2 $1 is a symbolic link: not used"
        return 1
    fi
    info="$(timeout -s KILL "$k_command_timeout" stat -c '%u %a' -- "$1" 2>/dev/null)" || {
        note "$2 $1 cannot be looked at"
        return 1
    }
    uid="${info% *}" mode="${info#* }"
    if (((8#$mode & 8#022) != 0)); then
        note "$2 $1 can be written by group or others (mode $mode): not used"
        return 1
    fi
    if [[ " $owners " != *" $uid "* ]]; then
        note "$2 $1 belongs to uid $uid, not to root (or write_as): not used"
        return 1
    fi
    return 0
}

# ---- configuration: `key = value` lines, never sourced (it names commands run as root)
spool='' kernel_log=auto journalctl_cmd=journalctl dmesg_cmd=dmesg nvidia_smi=auto
lookback=86400 margin=60 max_bytes=65536 file_mode=0640 write_as=''
[[ -f "$config" ]] || { note "no config $config: nothing done"; exit 0; }
trusted "$config" config || exit 0
while IFS= read -r line || [[ -n "$line" ]]; do
    [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
    if [[ ! "$line" =~ ^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]]; then
        note "$config: not a 'key = value' line: ${line:0:80}"
        continue
    fi
    key="${BASH_REMATCH[1]}" value="${BASH_REMATCH[2]-}"
    if [[ "$value" =~ ^\"(.*)\"$ || "$value" =~ ^\'(.*)\'$ ]]; then
        value="${BASH_REMATCH[1]}"
    fi
    case "$key" in
        spool) spool="$value" ;;
        kernel_log) kernel_log="$value" ;;
        journalctl) journalctl_cmd="$value" ;;
        dmesg) dmesg_cmd="$value" ;;
        nvidia_smi) nvidia_smi="$value" ;;
        lookback_s) lookback="$value" ;;
        margin_s) margin="$value" ;;
        max_bytes) max_bytes="$value" ;;
        file_mode) file_mode="$value" ;;
        write_as) write_as="$value" ;;
        log) log_target="$value" ;;
        *) note "$config: unknown key '$key' ignored" ;;
    esac
done <"$config"
case "$log_target" in syslog | none | file:/*) ;; *) log_target=syslog ;; esac

number_in() {  # value low high default
    if [[ "$1" =~ ^[0-9]{1,9}$ ]] && ((10#$1 >= $2 && 10#$1 <= $3)); then
        echo $((10#$1))
    else
        note "'$1' is not a number from $2 to $3: $4 used"
        echo "$4"
    fi
}
lookback="$(number_in "$lookback" 60 2592000 86400)"
margin="$(number_in "$margin" 0 3600 60)"
max_bytes="$(number_in "$max_bytes" 8192 1048576 65536)"
[[ "$file_mode" =~ ^0?[64][40][40]$ ]] || { note "file_mode $file_mode: 0640 used"; file_mode=0640; }

# ---- who and when
job="${SLURM_JOB_ID-}"
[[ "$job" =~ ^[0-9]{1,10}$ ]] || { note "SLURM_JOB_ID '${job:0:40}' is not a job id"; exit 0; }
node="${SLURMD_NODENAME-}"
[[ -n "$node" ]] || node="$(timeout -s KILL "$k_command_timeout" hostname -s 2>/dev/null)"
if [[ ! "$node" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ ]]; then
    note "node name '${node:0:40}' cannot name a file"
    exit 0
fi
uid="${SLURM_JOB_UID-}"
[[ "$uid" =~ ^[0-9]{1,10}$ ]] || uid=unknown
printf -v now '%(%s)T' -1
# Slurm 23.02 and later give the job's start; 22.05 does not: then a bounded look back.
start="${SLURM_JOB_START_TIME-}"
if [[ "$start" =~ ^[0-9]{1,12}$ ]] && ((start > 0 && start <= now)); then
    since=$((start - margin))
    window="start"
else
    since=$((now - lookback))
    window="lookback"
fi

# Where root cannot write the shared file system (NFS's root_squash), the file is written as
# another user, SlurmUser by custom (the supervisor trusts it as an owner too).
writer_uid='' writer_gid=''
if [[ -n "$write_as" ]]; then
    writer_uid="$(timeout -s KILL "$k_command_timeout" id -u -- "$write_as" 2>/dev/null)"
    writer_gid="$(timeout -s KILL "$k_command_timeout" id -g -- "$write_as" 2>/dev/null)"
    if [[ ! "$writer_uid" =~ ^[0-9]+$ || ! "$writer_gid" =~ ^[0-9]+$ ]] ||
        ! command -v setpriv >/dev/null 2>&1; then
        note "write_as '$write_as' is not a user, or setpriv is missing: nothing done"
        exit 0
    fi
    owners+=" $writer_uid"
fi

[[ "$spool" == /* ]] || { note "no absolute 'spool' in $config: nothing done"; exit 0; }
[[ -d "$spool" ]] || { note "spool $spool is not a directory: nothing done"; exit 0; }
trusted "$spool" spool || exit 0

# ---- the GPU's health summary, started now so that it runs beside the kernel log read
smi=''
case "$nvidia_smi" in
    off) ;;
    auto) [[ -x /usr/bin/nvidia-smi ]] && smi=/usr/bin/nvidia-smi ;;
    /*) [[ -x "$nvidia_smi" ]] && smi="$nvidia_smi" ;;
    *) note "nvidia_smi must be auto, off or an absolute path, not '$nvidia_smi'" ;;
esac
gpus=0
if [[ -n "$smi" ]] || compgen -G '/proc/driver/nvidia/gpus/*' >/dev/null; then
    gpus=1
fi
if [[ -n "$smi" ]]; then
    exec {smi_gpu}< <(timeout -s KILL "$k_smi_timeout" "$smi" \
        --query-gpu=pci.bus_id,ecc.errors.uncorrected.volatile.total,clocks_throttle_reasons.hw_thermal_slowdown,clocks_throttle_reasons.sw_thermal_slowdown,temperature.gpu \
        --format=csv,noheader,nounits 2>/dev/null)
    exec {smi_rows}< <(timeout -s KILL "$k_smi_timeout" "$smi" \
        --query-remapped-rows=gpu_bus_id,remapped_rows.pending,remapped_rows.failure \
        --format=csv,noheader,nounits 2>/dev/null)
fi

# ---- the kernel log, newest matching lines last, as "TIME MESSAGE" (TIME: epoch or ISO 8601)
source_kind="$kernel_log"
if [[ "$kernel_log" == auto ]]; then
    if [[ -d /run/systemd/journal ]] && command -v "$journalctl_cmd" >/dev/null 2>&1; then
        source_kind=journal
    else
        source_kind=dmesg
    fi
fi
# What a GPU node's kernel says when its hardware misbehaves (the supervisor's rules decide).
pattern='NVRM:|Xid|[Nn][Vv][Ll]ink|fallen off the bus|AER:|PCIe Bus Error|EDAC|ECC|[Rr]ow[ -]?[Rr]emap|[Mm]achine [Cc]heck|Hardware Error|[Tt]hermal|[Tt]hrottl|temperature above threshold'
kernel_lines() {
    case "$source_kind" in
        journal)
            # Newest first, so that the line cap keeps the newest; turned around again below.
            timeout -s KILL "$k_kernel_timeout" "$journalctl_cmd" -k -r -q --no-pager \
                -o short-unix --no-hostname --since "@$since" 2>/dev/null |
                tr -d '\000' | cut -b "1-$((k_max_line + 200))" | grep -a -E -- "$pattern" |
                head -n "$k_max_lines" | tac
            ;;
        dmesg)
            timeout -s KILL "$k_kernel_timeout" "$dmesg_cmd" --time-format iso 2>/dev/null |
                tr -d '\000' | cut -b "1-$((k_max_line + 200))" | grep -a -E -- "$pattern" |
                tail -n "$k_max_lines"
            ;;
        file:/*)
            local path="${source_kind#file:}"
            path="${path//%n/$node}"
            timeout -s KILL "$k_kernel_timeout" tail -c "$k_file_tail" -- "$path" 2>/dev/null |
                tr -d '\000' | cut -b "1-$((k_max_line + 200))" | grep -a -E -- "$pattern" |
                tail -n "$k_max_lines"
            ;;
        *)
            note "kernel_log must be auto, journal, dmesg or file:/PATH, not '$source_kind'"
            ;;
    esac
}

# Each line: its time parsed (epoch "1764118923.123456" or ISO "2026-11-26T01:02:03[.,frac]
# [Z|+hh:mm|+hhmm]", no zone meaning UTC), the host and "kernel:" after it dropped, kept when
# in [since, now + 60 s], control characters made '?', cut at max_line bytes, then written as
# "ISO NODE kernel: MESSAGE". Only the newest lines that fit in `budget` bytes are printed.
# Calendar arithmetic by hand (days from 1970-01-01), so any awk does (mawk has no mktime).
# shellcheck disable=SC2016 # an awk program: its $0 is awk's
normalize='
function days(y, m, d) {
    y -= (m <= 2); era = int(y / 400); yoe = y - era * 400
    doy = int((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
    return era * 146097 + yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy - 719468
}
function iso(t,   z, era, doe, yoe, y, doy, mp, d, m, s) {
    s = t % 86400; z = (t - s) / 86400 + 719468
    era = int(z / 146097); doe = z - era * 146097
    yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
    y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
    mp = int((5 * doy + 2) / 153); d = doy - int((153 * mp + 2) / 5) + 1
    m = mp + (mp < 10 ? 3 : -9); y += (m <= 2)
    return sprintf("%04d-%02d-%02dT%02d:%02d:%02d+00:00", y, m, d, int(s / 3600),
                   int(s % 3600 / 60), s % 60)
}
{
    line = $0; t = -1
    if (match(line, /^[0-9]+(\.[0-9]+)? /)) {
        t = int(substr(line, 1, RLENGTH - 1)); line = substr(line, RLENGTH + 1)
    } else if (match(line, /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/)) {
        t = days(substr(line, 1, 4) + 0, substr(line, 6, 2) + 0, substr(line, 9, 2) + 0) * 86400 \
            + substr(line, 12, 2) * 3600 + substr(line, 15, 2) * 60 + substr(line, 18, 2)
        line = substr(line, 20)
        if (match(line, /^[.,][0-9]+/)) line = substr(line, RLENGTH + 1)
        if (match(line, /^Z/)) line = substr(line, 2)
        else if (match(line, /^[+-][0-9][0-9]:?[0-9][0-9]/)) {
            zone = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
            gsub(/:/, "", zone)
            offset = substr(zone, 2, 2) * 3600 + substr(zone, 4, 2) * 60
            t += (substr(zone, 1, 1) == "-") ? offset : -offset
        }
        if (substr(line, 1, 1) != " ") t = -1
        line = substr(line, 2)
    }
    if (t < since || t > now + 60) next
    if (!sub(/^kernel: /, "", line)) sub(/^[^ :]+ kernel: /, "", line)
    gsub(/[\001-\037\177]/, "?", line)
    if (length(line) > maxline) line = substr(line, 1, maxline) " [cut]"
    out[++n] = iso(t) " " node " kernel: " line
}
END {
    used = 0
    for (first = n; first >= 1; first--) {
        used += length(out[first]) + 1
        if (used > budget) break
    }
    for (i = first + 1; i <= n; i++) print out[i]
}'

header="# slurm-supervisor epilog 1: job $job node $node uid $uid since $since ($window) until $now, kernel log: $source_kind"
readonly k_health_bytes=2048  # room kept for the nvidia-smi lines
budget=$((max_bytes - ${#header} - 1 - k_health_bytes))
body="$(kernel_lines | awk -v since="$since" -v now="$now" -v node="$node" \
    -v maxline="$k_max_line" -v budget="$budget" "$normalize")"

# ---- the health summary: one line per GPU and problem, none for a healthy GPU
printf -v stamp '%(%Y-%m-%dT%H:%M:%S+00:00)T' "$now"
health=''
smi_line() {  # bus message
    local line="$stamp $node nvidia-smi: GPU ${1//[^0-9A-Fa-f:.]/?}: $2"
    ((${#health} + ${#line} < k_health_bytes)) && health+="$line"$'\n'
    return 0
}
if [[ -n "$smi" ]]; then
    # CSV: "00000000:3B:00.0, 2, Active, Not Active, 91" (values may hold blanks)
    while IFS=, read -r bus ecc hw sw temp; do
        bus="${bus// /}" ecc="${ecc// /}" hw="${hw// /}" sw="${sw// /}" temp="${temp// /}"
        [[ -n "$bus" ]] || continue
        [[ "$ecc" =~ ^[0-9]{1,9}$ ]] && ((ecc > 0)) &&
            smi_line "$bus" "$ecc uncorrectable ECC errors since the driver loaded (volatile)"
        [[ "$hw" == Active ]] && smi_line "$bus" "hardware thermal slowdown active, ${temp//[^0-9]/} C"
        [[ "$sw" == Active ]] && smi_line "$bus" "software thermal slowdown active, ${temp//[^0-9]/} C"
    done < <(timeout -s KILL "$k_smi_timeout" head -c 65536 <&"$smi_gpu")
    while IFS=, read -r bus pending failure; do
        bus="${bus// /}" pending="${pending// /}" failure="${failure// /}"
        [[ -n "$bus" ]] || continue
        [[ "$failure" == Yes || "$failure" =~ ^[1-9] ]] && smi_line "$bus" "row remapping failed"
        [[ "$pending" == Yes || "$pending" =~ ^[1-9] ]] && smi_line "$bus" "row remapping pending (the GPU needs a reset)"
    done < <(timeout -s KILL "$k_smi_timeout" head -c 65536 <&"$smi_rows")
fi

# Nothing found on a node without NVIDIA GPUs: nothing to say, no file. On a GPU node a file
# with the header alone says that the epilog ran and saw nothing.
if [[ -z "$body" && -z "$health" && "$gpus" == 0 ]]; then
    exit 0
fi

# ---- the file: a temporary one in the same directory, then renamed over <spool>/<job>.<node>
# (rename(2) replaces whatever has the name, a symbolic link included, and follows nothing).
# shellcheck disable=SC2016 # the writer's own arguments
writer='umask 077
tmp="$(mktemp -p "$1" ".$2.XXXXXX")" || exit 1
if cat >"$tmp" && chmod "$3" -- "$tmp" && mv -f -T -- "$tmp" "$1/$2"; then exit 0; fi
rm -f -- "$tmp"
exit 1'
run_writer() {
    if [[ -n "$writer_uid" ]]; then
        timeout -s KILL "$k_writer_timeout" setpriv --reuid="$writer_uid" \
            --regid="$writer_gid" --clear-groups -- \
            "$BASH" -c "$writer" writer "$spool" "$job.$node" "$file_mode"
    else
        timeout -s KILL "$k_writer_timeout" \
            "$BASH" -c "$writer" writer "$spool" "$job.$node" "$file_mode"
    fi
}
if ! {
    printf '%s\n' "$header"
    [[ -z "$body" ]] || printf '%s\n' "$body"
    printf '%s' "$health"
} | run_writer 2>/dev/null; then
    note "cannot write $spool/$job.$node${write_as:+ as $write_as}"
fi
exit 0
