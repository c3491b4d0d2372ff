#!/bin/bash
# EpilogSlurmctld for slurm-supervisor's site daemon: tells the daemon, through its control
# socket or, when it runs on another host, over TCP (client.conf), that a job (or one run of it:
# a requeue) has just ended, so the daemon looks at once
# instead of at its next poll. slurmctld runs it on its own host as SlurmUser when any job ends;
# the daemon hears only root and SlurmUser, follows only jobs registered with it, and asks
# slurmctld what happened (a report decides nothing). Installation: README.md here.
#
#   epilog-slurmctld.sh [--config FILE]     (default /etc/slurm-supervisor/epilog-slurmctld.conf)
#
# The config is `key = value` lines, never sourced: `supervisor` (the binary, default
# /usr/bin/supervisor), `socket` (the daemon's control socket, default
# /run/slurm-supervisor/control.sock) and `client_conf` (a client.conf naming a daemon on another
# host, `supervisor run --listen`; when set, the report goes there over TCP with a MUNGE
# credential of SlurmUser's, and `socket` is not used). It must belong to root or to this user and be writable
# by nobody else: it names a program run as SlurmUser.
#
# Always exits 0, at once: slurmctld keeps the job COMPLETING until this script is done, so it
# waits at most 2 s for the daemon and never fails the job's end for it.

config=/etc/slurm-supervisor/epilog-slurmctld.conf
while (($#)); do
    case "$1" in
        --config) config="${2-}"; shift 2 || shift ;;
        *) shift ;;
    esac
done

supervisor=/usr/bin/supervisor
socket=/run/slurm-supervisor/control.sock
client_conf=""
if [[ -f "$config" && ! -L "$config" ]]; then
    info="$(stat -c '%u %a' -- "$config" 2>/dev/null)" || exit 0
    uid="${info% *}" mode="${info#* }"
    { [[ "$uid" == 0 || "$uid" == "$EUID" ]] && (((8#$mode & 8#022) == 0)); } || exit 0
    while IFS= read -r line || [[ -n "$line" ]]; do
        [[ "$line" =~ ^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]] || continue
        case "${BASH_REMATCH[1]}" in
            supervisor) supervisor="${BASH_REMATCH[2]-}" ;;
            socket) socket="${BASH_REMATCH[2]-}" ;;
            client_conf) client_conf="${BASH_REMATCH[2]-}" ;;
        esac
    done <"$config"
fi
[[ -x "$supervisor" ]] || exit 0
if [[ -n "$client_conf" ]]; then
    [[ -f "$client_conf" ]] || exit 0
    route=(env -u SUPERVISOR_SOCKET SUPERVISOR_CLIENT_CONF="$client_conf")
else
    [[ -S "$socket" ]] || exit 0
    route=(env SUPERVISOR_SOCKET="$socket")
fi

# An array task is known to the supervisor as ARRAY_TASK, as sbatch --array shows it.
job="${SLURM_JOB_ID-}"
if [[ -n "${SLURM_ARRAY_JOB_ID-}" && -n "${SLURM_ARRAY_TASK_ID-}" ]]; then
    job="${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"
fi
[[ "$job" =~ ^[0-9]+(_[0-9]+)?$ ]] || exit 0
timeout -s KILL 2 "${route[@]}" "$supervisor" job-ended "$job" >/dev/null 2>&1
exit 0
