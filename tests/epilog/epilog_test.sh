#!/bin/bash
# Tests of contrib/slurm/epilog.sh, the node epilog, run as slurmd would run it (its environment,
# its exit status, its time) against fake journalctl, dmesg and nvidia-smi commands and kernel
# log files that each case writes into its own temporary directory. No Slurm, no GPU, no root.
#   tests/epilog/epilog_test.sh contrib/slurm/epilog.sh      (ctest: epilog_script_tests)
set -uo pipefail
export LC_ALL=C TZ=UTC
epilog="$(readlink -f "${1:?usage: $0 PATH/TO/epilog.sh}")"
top="$(mktemp -d /tmp/epilog-test.XXXXXX)"
chmod 755 "$top"  # write_as: another user reaches the spool
trap 'rm -rf "$top"' EXIT
failures=0
current=''
bad() {
    echo "FAIL $current: $*"
    failures=$((failures + 1))
}
check() {  # description command...
    local what="$1"
    shift
    "$@" || bad "$what"
}

# A fresh case: $dir with spool/ (0755) and a config whose lines are the arguments.
begin() {  # name config-lines...
    current="$1"
    shift
    dir="$top/$current"
    mkdir -p "$dir/spool"
    chmod 755 "$dir" "$dir/spool"
    {
        echo "spool = $dir/spool"
        echo "log = file:$dir/log"
        printf '%s\n' "$@"
    } >"$dir/epilog.conf"
    chmod 644 "$dir/epilog.conf"
}
# The epilog kills its worker at its deadline, 0.9 s unless --deadline-ms says otherwise, and a
# hung command would hold it 30 s. Two kinds of case, so that a loaded machine (CI runs suites
# side by side) fails neither:
#   * the time it takes: the default deadline, and at most k_slack_ms more than the deadline;
#     any epilog that waited for a hung command still fails;
#   * what it writes: a deadline of k_content_deadline_ms, so that a slow machine is not a
#     worker killed before it wrote. How fast that work is, is the first kind's business.
readonly k_slack_ms=4100
readonly k_content_deadline_ms=10000
readonly k_default_bound_ms=$((900 + k_slack_ms))
deadline_ms=$k_content_deadline_ms
# Runs the epilog as slurmd does (a clean environment: what slurmd sets and nothing else) with
# --deadline-ms $deadline_ms unless it is empty; sets $rc, $elapsed_ms and $bound_ms.
# Arguments: extra NAME=value for the environment.
run_epilog() {
    local begin_us end_us
    local -a deadline=()
    [[ -z "$deadline_ms" ]] || deadline=(--deadline-ms "$deadline_ms")
    begin_us="${EPOCHREALTIME/./}"
    env -i SLURM_JOB_ID=4242 SLURMD_NODENAME=n1 SLURM_JOB_UID=1000 \
        SLURM_SCRIPT_CONTEXT=epilog_slurmd "$@" "$epilog" --config "$dir/epilog.conf" \
        "${deadline[@]}"
    rc=$?
    end_us="${EPOCHREALTIME/./}"
    elapsed_ms=$(((end_us - begin_us) / 1000))
    bound_ms=$k_default_bound_ms
    [[ ! "$deadline_ms" =~ ^[0-9]{1,5}$ ]] || bound_ms=$((10#$deadline_ms + k_slack_ms))
}
# A fake command: writes its pid and arguments to $dir/NAME.called, then runs the body.
fake() {  # name body
    printf '#!/bin/bash\necho "$$ $*" >> %q\n%s\n' "$dir/$1.called" "$2" >"$dir/$1"
    chmod 755 "$dir/$1"
}
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }  # value low high
iso() { printf '%(%Y-%m-%dT%H:%M:%S)T' "$1"; }
now() { printf '%(%s)T' -1; }
spool_files() { (cd "$dir/spool" && LC_ALL=C ls -A); }
has_gpus() { compgen -G '/proc/driver/nvidia/gpus/*' >/dev/null; }
line_form='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\+00:00 n1 (kernel|nvidia-smi): '

# ---------------------------------------------------------------- the time it takes
in_time() {
    check "took ${elapsed_ms} ms, more than ${bound_ms} ms" [ "$elapsed_ms" -lt "$bound_ms" ]
}
# (a zombie is dead: in a container, PID 1 may reap orphans late)
alive() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
# fake-names: no process that a fake command started is left soon after the epilog is done. A
# command outlives a killed worker by at most its own timeout (half the deadline); the checks
# allow 3 s more, for a loaded machine.
none_alive() {
    local name pid waited
    for name in "$@"; do
        [ -f "$dir/$name.called" ] || continue
        while read -r pid _; do
            waited=0
            while alive "$pid" && ((waited++ < 30)); do sleep 0.1; done
            check "a hung $name (pid $pid) outlived the epilog" eval "! alive $pid"
        done <"$dir/$name.called"
    done
}
# Each hanging case runs twice: with the default deadline for the time alone, then with a
# longer one (a share of it for the hung command, the rest to write) for what it does.
for deadline_ms in '' 4000; do
    begin "hanging_commands${deadline_ms:+_$deadline_ms}" 'kernel_log = journal' \
        "journalctl = $top/hanging_commands${deadline_ms:+_$deadline_ms}/journalctl" \
        "nvidia_smi = $top/hanging_commands${deadline_ms:+_$deadline_ms}/nvidia-smi"
    fake journalctl 'exec sleep 30'
    fake nvidia-smi 'exec sleep 30'
    run_epilog
    check "exit status $rc" [ "$rc" = 0 ]
    in_time
    none_alive journalctl nvidia-smi
    if [ -n "$deadline_ms" ]; then
        check "journalctl was not run" [ -s "$dir/journalctl.called" ]
        check "nvidia-smi was not run" [ -s "$dir/nvidia-smi.called" ]
        # A GPU node (nvidia-smi exists) where nothing was found: the header alone says it looked.
        check "no header-only file: $(spool_files)" [ "$(spool_files)" = 4242.n1 ]
        check "more than the header" [ "$(wc -l <"$dir/spool/4242.n1")" = 1 ]
        check "header" grep -q '^# slurm-supervisor epilog 1: job 4242 node n1 uid 1000 ' \
            "$dir/spool/4242.n1"
    fi

    begin "hanging_dmesg${deadline_ms:+_$deadline_ms}" 'kernel_log = dmesg' \
        "dmesg = $top/hanging_dmesg${deadline_ms:+_$deadline_ms}/dmesg" 'nvidia_smi = off'
    fake dmesg 'sleep 30; echo never'
    run_epilog
    check "exit status $rc" [ "$rc" = 0 ]
    in_time
    none_alive dmesg
    if [ -n "$deadline_ms" ]; then
        check "dmesg was not run" [ -s "$dir/dmesg.called" ]
    fi
done
deadline_ms=''
begin hanging_file 'nvidia_smi = off' "kernel_log = file:$top/hanging_file/fifo"
mkfifo "$dir/fifo"  # nobody writes it: reading it waits forever
run_epilog
in_time
check "exit status $rc" [ "$rc" = 0 ]

begin bad_deadlines 'nvidia_smi = off' "kernel_log = file:$top/bad_deadlines/fifo"
mkfifo "$dir/fifo"
for deadline_ms in 99 60001 -5 0x200; do
    run_epilog  # the default, 0.9 s: the fifo is given up at 0.45 s, not sooner, not later
    check "exit status $rc with --deadline-ms '$deadline_ms'" [ "$rc" = 0 ]
    took="took ${elapsed_ms} ms with --deadline-ms '$deadline_ms'"
    check "$took, more than $k_default_bound_ms ms" [ "$elapsed_ms" -lt "$k_default_bound_ms" ]
    check "$took, less than the default's 450 ms" [ "$elapsed_ms" -ge 450 ]
done
deadline_ms=$k_content_deadline_ms

# ---------------------------------------------------------------- what it reports
# Work that the caps on lines and bytes keep short: well within the default deadline, though
# run with the long one so that it is the time that is measured, not whether it was killed.
fast() {
    check "took ${elapsed_ms} ms, more than ${k_default_bound_ms} ms" \
        [ "$elapsed_ms" -lt "$k_default_bound_ms" ]
}
begin no_gpus 'nvidia_smi = off' "kernel_log = file:$top/no_gpus/kern-%n.log"
printf '%s host kernel: eth0: link up\n%s host kernel: EXT4-fs mounted\n' "$(iso "$(now)")Z" \
    "$(iso "$(now)")Z" >"$dir/kern-n1.log"
run_epilog
check "exit status $rc" [ "$rc" = 0 ]
if has_gpus; then
    echo "note: this machine has NVIDIA GPUs; the no-GPU case is not checked"
else
    check "a node without GPUs and nothing found wrote: $(spool_files)" [ -z "$(spool_files)" ]
fi

begin kernel_lines 'nvidia_smi = off' "kernel_log = file:$top/kernel_lines/kern-%n.log"
t="$(now)"
{
    echo "$(iso $((t - 4000)))+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 31, before the job"
    echo "$(iso $((t - 30)))+00:00 gpu-host-7 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the bus."
    echo "$(iso $((t - 20 + 3600))),123456+01:00 pcieport 0000:00:03.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0"
    echo "$(iso $((t - 10 - 9000))).5-0230 n2 kernel: EDAC MC0: 1 UE memory read error"
    echo "$(iso $((t - 5)))Z host kernel: eth0: link up"
    echo "no time NVRM: Xid (PCI:0000:3b:00): 79, a line without a time"
} >"$dir/kern-n1.log"
run_epilog SLURM_JOB_START_TIME=$((t - 100))
out="$dir/spool/4242.n1"
check "exit status $rc" [ "$rc" = 0 ]
check "no file" [ -f "$out" ]
check "file mode $(stat -c %a "$out")" [ "$(stat -c %a "$out")" = 640 ]
check "not 4 lines: $(cat "$out")" [ "$(wc -l <"$out")" = 4 ]
check "header names the window" grep -q "since $((t - 160)) (start) until" "$out"
check "a line not in the form TIME n1 kernel: $(grep -v '^#' "$out" | grep -Ev "$line_form")" \
    eval "! grep -v '^#' '$out' | grep -Evq '$line_form'"
check "the Xid of the window" grep -qF "$(iso $((t - 30)))+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1" "$out"
check "+01:00 converted to UTC" grep -qF "$(iso $((t - 20)))+00:00 n1 kernel: pcieport" "$out"
check "-02:30 converted to UTC" grep -qF "$(iso $((t - 10)))+00:00 n1 kernel: EDAC" "$out"
check "a line from before the job" eval "! grep -q 'before the job' '$out'"
check "an unrelated line" eval "! grep -q 'link up' '$out'"
check "a line without a time" eval "! grep -q 'without a time' '$out'"
check "the node name of the log kept" eval "! grep -q 'gpu-host-7' '$out'"
check "temporary files left: $(spool_files)" [ "$(spool_files)" = 4242.n1 ]

begin journal 'kernel_log = journal' "journalctl = $top/journal/journalctl" 'nvidia_smi = off'
t="$(now)"
# short-unix, newest first (-r), as journalctl prints it
fake journalctl "printf '%s kernel: NVRM: Xid (PCI:0000:3b:00): 94, second\n%s kernel: NVRM: Xid (PCI:0000:3b:00): 48, first\n' '$((t - 2)).654321' '$((t - 3)).123456'"
run_epilog SLURM_JOB_START_TIME=$((t - 500))
out="$dir/spool/4242.n1"
check "journalctl arguments: $(cat "$dir/journalctl.called")" \
    grep -q -- "-k -r -q --no-pager -o short-unix --no-hostname --since @$((t - 560))\$" \
    "$dir/journalctl.called"
check "not in time order: $(cat "$out")" [ "$(grep -v '^#' "$out" | cut -d, -f2 | tr -d '\n')" = " first second" ]
check "time converted" grep -qF "$(iso $((t - 3)))+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 48" "$out"

begin dmesg_iso 'kernel_log = dmesg' "dmesg = $top/dmesg_iso/dmesg" 'nvidia_smi = off'
t="$(now)"
fake dmesg "printf '%s,000123+00:00 NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n' '$(iso $((t - 7)))'"
run_epilog
t_after="$(now)"
check "dmesg arguments" grep -q -- "--time-format iso" "$dir/dmesg.called"
check "the dmesg line" grep -qF "$(iso $((t - 7)))+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79" \
    "$dir/spool/4242.n1"
# A day before the epilog's own now, which is the second of t or a later one.
since="$(sed -n 's/^# .* since \([0-9]*\) (lookback) .*/\1/p' "$dir/spool/4242.n1")"
check "looked back from ${since:-nothing}, not a day: $(head -n 1 "$dir/spool/4242.n1")" \
    within "${since:-0}" $((t - 86400)) $((t_after - 86400))

begin nvidia_smi "nvidia_smi = $top/nvidia_smi/nvidia-smi" "kernel_log = file:$top/nvidia_smi/none"
# shellcheck disable=SC2016 # the fake's own $1
fake nvidia-smi 'case "$1" in
    --query-gpu=*) printf "00000000:3B:00.0, 2, Active, Not Active, 91\n00000000:86:00.0, 0, Not Active, Not Active, 40\n" ;;
    --query-remapped-rows=*) printf "00000000:3B:00.0, No, Yes\n00000000:86:00.0, Yes, No\n" ;;
esac'
run_epilog
out="$dir/spool/4242.n1"
check "ECC errors" grep -qE "$line_form"'GPU 00000000:3B:00.0: 2 uncorrectable ECC errors' "$out"
check "thermal slowdown" grep -qF 'GPU 00000000:3B:00.0: hardware thermal slowdown active, 91 C' "$out"
check "row remapping failed" grep -qF 'GPU 00000000:3B:00.0: row remapping failed' "$out"
check "row remapping pending" grep -qF 'GPU 00000000:86:00.0: row remapping pending' "$out"
check "a healthy GPU reported: $(cat "$out")" [ "$(grep -c '86:00.0' "$out")" = 1 ]

begin hostile_lines 'nvidia_smi = off' "kernel_log = file:$top/hostile_lines/kern-n1.log" \
    'max_bytes = 8192'
t="$(now)"
stamp="$(iso $((t - 1)))+00:00"
{
    for i in $(seq 1 20000); do
        printf '%s h kernel: NVRM: Xid (PCI:0000:3b:00): 31, flood %d\n' "$stamp" "$i"
    done
    printf '%s h kernel: NVRM: Xid (PCI:0000:3b:00): 79, %s\n' "$stamp" "$(head -c 100000 /dev/zero | tr '\0' A)"
    printf '%s h kernel: NVRM: Xid (PCI:0000:3b:00): 13, \033[2J\033]0;title\a\r\b\x7f\x01 end\n' "$stamp"
    printf '%s h kernel: NVRM: Xid (PCI:0000:3b:00): 13, nul\0byte\n' "$stamp"
    printf '%s evil kernel: NVRM: Xid, n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79 fake host\n' "$stamp"
    printf '%s h kernel: NVRM: Xid (PCI:0000:3b:00): 79, the newest\n' "$stamp"
} >"$dir/kern-n1.log"
run_epilog
out="$dir/spool/4242.n1"
check "exit status $rc" [ "$rc" = 0 ]
fast
check "file of $(stat -c %s "$out") bytes, more than max_bytes" [ "$(stat -c %s "$out")" -le 8192 ]
check "the newest line dropped" grep -q 'the newest$' "$out"
check "the long line not cut" grep -qE ' 79, A{900,1024} \[cut\]$' "$out"
check "control characters not replaced" grep -qF ': 13, ?[2J?]0;title????? end' "$out"
check "the NUL byte not dropped" grep -qF ': 13, nulbyte' "$out"
check "the fake host kept" grep -qF "$stamp n1 kernel: NVRM: Xid, n2 kernel: NVRM: Xid" "$out"
check "the flood's newest line dropped" grep -q 'flood 20000$' "$out"
check "the flood not cut" eval "! grep -q 'flood 1\$' '$out'"
longest="$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$out")"
check "longest line $longest bytes" [ "$longest" -le 1100 ]
check "a control character" eval "! grep -q \$'[\x01-\x09\x0b-\x1f\x7f]' '$out'"
check "a line not in the form TIME n1 kernel:" eval "! grep -v '^#' '$out' | grep -Evq '$line_form'"

# Flooded with long lines: still in time (the cap on lines and bytes works before the shell).
begin long_flood 'nvidia_smi = off' "kernel_log = file:$top/long_flood/kern-n1.log"
long="$(head -c 4000 /dev/zero | tr '\0' B)"
for i in $(seq 1 3000); do
    printf '%s h kernel: NVRM: Xid (PCI:0000:3b:00): 31, %s\n' "$stamp" "$long"
done >"$dir/kern-n1.log"
run_epilog
fast
check "file of $(stat -c %s "$dir/spool/4242.n1") bytes" [ "$(stat -c %s "$dir/spool/4242.n1")" -le 65536 ]

# ---------------------------------------------------------------- where it writes, and where not
begin target_link 'nvidia_smi = off' "kernel_log = file:$top/target_link/kern-n1.log"
echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/kern-n1.log"
echo precious >"$dir/victim"
ln -s "$dir/victim" "$dir/spool/4242.n1"
run_epilog
check "the link's target written" [ "$(cat "$dir/victim")" = precious ]
check "the link not replaced by a file" eval "[ -f '$dir/spool/4242.n1' ] && [ ! -L '$dir/spool/4242.n1' ]"

# The files name other jobs' processes: 0640 unless the site chooses 0644 for per-user daemons.
begin file_mode_0644 'nvidia_smi = off' "kernel_log = file:$top/file_mode_0644/kern-n1.log" \
    'file_mode = 0644'
echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/kern-n1.log"
run_epilog
check "exit status $rc" [ "$rc" = 0 ]
check "file_mode 0644 not used: $(stat -c %a "$dir/spool/4242.n1")" \
    [ "$(stat -c %a "$dir/spool/4242.n1")" = 644 ]

begin spool_link 'nvidia_smi = off' "kernel_log = file:$top/spool_link/kern-n1.log"
echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/kern-n1.log"
mkdir -m 755 "$dir/elsewhere"
rmdir "$dir/spool" && ln -s "$dir/elsewhere" "$dir/spool"
run_epilog
check "exit status $rc" [ "$rc" = 0 ]
check "written through a linked spool" [ -z "$(ls -A "$dir/elsewhere")" ]
check "no reason logged" grep -q 'symbolic link' "$dir/log"

begin spool_writable 'nvidia_smi = off' "kernel_log = file:$top/spool_writable/kern-n1.log"
echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/kern-n1.log"
chmod 1777 "$dir/spool"
run_epilog
check "exit status $rc" [ "$rc" = 0 ]
check "written into a spool anyone can write" [ -z "$(spool_files)" ]
check "no reason logged" grep -q 'written by group or others' "$dir/log"

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    begin spool_of_another 'nvidia_smi = off' "kernel_log = file:$top/spool_of_another/kern-n1.log"
    echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/kern-n1.log"
    chown nobody "$dir/spool"
    run_epilog
    check "written into a user's spool" [ -z "$(spool_files)" ]
fi

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
    # Where root cannot write the shared file system, the epilog writes as another user.
    begin write_as 'nvidia_smi = off' "kernel_log = file:$top/write_as/kern-n1.log" \
        'write_as = nobody'
    echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/kern-n1.log"
    chown nobody "$dir/spool"
    run_epilog
    check "exit status $rc" [ "$rc" = 0 ]
    check "not written as nobody: $(stat -c %U "$dir/spool/4242.n1" 2>&1)" \
        [ "$(stat -c '%U %a' "$dir/spool/4242.n1" 2>&1)" = "nobody 640" ]
    check "the Xid" grep -q ' n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, x$' "$dir/spool/4242.n1"

    begin write_as_unknown 'nvidia_smi = off' "kernel_log = file:$top/write_as_unknown/k.log" \
        'write_as = no-such-user-here'
    echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/k.log"
    run_epilog
    check "exit status $rc" [ "$rc" = 0 ]
    check "written although write_as is no user" [ -z "$(spool_files)" ]
    check "no reason logged" grep -q 'is not a user' "$dir/log"
fi

begin config_writable 'nvidia_smi = off' "kernel_log = file:$top/config_writable/kern-n1.log"
echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/kern-n1.log"
chmod 666 "$dir/epilog.conf"
run_epilog
check "exit status $rc" [ "$rc" = 0 ]
check "a config anyone can write was used" [ -z "$(spool_files)" ]

begin hostile_environment 'nvidia_smi = off' "kernel_log = file:$top/hostile_environment/kern-%n.log"
echo "$(iso "$(now)")Z h kernel: NVRM: Xid (PCI:0000:3b:00): 79, x" >"$dir/kern-n1.log"
for variables in 'SLURM_JOB_ID=../4242' 'SLURM_JOB_ID=' 'SLURMD_NODENAME=../n1' \
    'SLURMD_NODENAME=.hidden' "SLURMD_NODENAME=n1$(printf '\nx')" 'SLURMD_NODENAME=n1/x'; do
    run_epilog "$variables"
    check "exit status $rc with $variables" [ "$rc" = 0 ]
done
check "a file written with a hostile environment: $(spool_files)" [ -z "$(spool_files)" ]
check "anything written beside the spool: $(echo "$dir"/* "$dir"/.[!.]*)" \
    [ "$(cd "$dir" && echo * .[!.]*)" = "epilog.conf kern-n1.log log spool .[!.]*" ]

begin no_config
rm "$dir/epilog.conf"
run_epilog
check "exit status $rc without a config" [ "$rc" = 0 ]
begin bad_config 'this is not a key value line' 'kernel_log = ftp://x' 'max_bytes = lots'
run_epilog
check "exit status $rc with a bad config" [ "$rc" = 0 ]
check "the bad line not logged" grep -q 'not a .key = value. line' "$dir/log"
begin no_spool
sed -i "s|^spool = .*|spool = $dir/missing|" "$dir/epilog.conf"
run_epilog
check "exit status $rc without a spool" [ "$rc" = 0 ]

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all epilog checks passed"
