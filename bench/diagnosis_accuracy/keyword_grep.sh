#!/bin/sh
# The obvious peer: what an operator's script would do with grep. For each log, the first
# keyword family (most specific first) that matches any line names the cause; nothing matched
# is "unknown". Prints NAME<TAB>CAUSE per log, NAME being the file name without .log.
#
# Usage: keyword_grep.sh LOG...
set -eu

classify() {
    log=$1
    while IFS='|' read -r cause pattern; do
        [ -n "$cause" ] || continue
        if grep -a -i -q -E -e "$pattern" -- "$log"; then
            echo "$cause"
            return
        fi
    done <<'EOF'
time_limit|due to time limit|time limit|walltime
preemption|preempt
node_failure|node fail|node failure
gpu_xid|xid|fallen off the bus
ecc_error|ecc error
cuda_oom|cuda out of memory|cuda error: out of memory|outofmemoryerror
host_oom|out of memory|oom-kill|oom_kill|oom killer|memoryerror|killed
shm_exhausted|bus error|/dev/shm|shared memory
nccl_timeout|collective operation timeout|nccl.*time(d)? ?out|timed out
nccl_network|nccl
checkpoint_corrupt|pytorchstreamreader|unpickling|ran out of input|checkpoint.*corrupt
io_error|input/output error|no space left|disk quota|stale file handle|i/o error
credential_error|401|403|unauthorized|credential|permission denied
loss_nan|loss.*nan|nan.*loss
cuda_error|cuda error|cudnn|cublas
hang|hang|stuck|deadlock
code_bug|traceback|error
EOF
    echo unknown
}

for log in "$@"; do
    name=$(basename "$log" .log)
    printf '%s\t%s\n' "$name" "$(classify "$log")"
done
