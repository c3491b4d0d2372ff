#!/usr/bin/env bash
# Runs short PyTorch training jobs that fail the way users' jobs fail, on a machine with one
# NVIDIA GPU, and keeps each job's combined stdout+stderr verbatim, with what the machine says
# about itself around it. Made for one run on the lent H200 machine:
#
#   bash tests/data/device/capture.sh        # run from the repository root; writes into $OUT
#
# Writes $OUT/run.log (this script's progress), $OUT/machine.txt (versions, nvidia-smi,
# dmesg) and $OUT/cases.tar.gz (cases/NAME.log: the job's output, untouched; NAME.meta: the
# command, environment, exit status and duration; NAME.dmesg: kernel lines new during the case).
# Every case runs under `timeout`; cases not started by $DEADLINE seconds are skipped, so the
# whole script ends within about DEADLINE + 70 seconds.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/capture-out}
DEADLINE=${DEADLINE:-260}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/capture.XXXXXX)
CASES=$WORK/cases
mkdir -p "$CASES" "$WORK/ckpt"
RUNLOG=$OUT/run.log
MACHINE=$OUT/machine.txt
: > "$RUNLOG"
: > "$MACHINE"
T0=$(date +%s)
PY=${PY:-python3}
if command -v torchrun > /dev/null; then TORCHRUN=(torchrun); else TORCHRUN=("$PY" -m torch.distributed.run); fi
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

elapsed() { echo $(( $(date +%s) - T0 )); }
log() { echo "[$(elapsed)s] $*" | tee -a "$RUNLOG"; }

finish() {
    log "packing cases"
    tar -C "$WORK" -czf "$OUT/cases.tar.gz" cases 2>> "$RUNLOG"
    ls -l "$OUT" "$CASES" >> "$RUNLOG" 2>&1
    log "done"
}
trap finish EXIT

DMESG_OK=0
if dmesg > /dev/null 2>&1; then DMESG_OK=1; fi

# machine TITLE COMMAND: appends the command's output to machine.txt, bounded in time.
machine() {
    local title=$1; shift
    { echo "===== $title"; echo "\$ $*"; timeout -k 5 60 bash -c "$*" 2>&1; echo "[exit $?]"; echo; } >> "$MACHINE"
}

dmesg_lines() { if [ "$DMESG_OK" = 1 ]; then dmesg 2>/dev/null | wc -l; else echo 0; fi; }

# run_case NAME LIMIT [VAR=value ...] -- COMMAND...
run_case() {
    local name=$1 limit=$2; shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local now; now=$(elapsed)
    if [ "$now" -ge "$DEADLINE" ]; then
        log "SKIP $name (deadline: ${now}s >= ${DEADLINE}s)"
        echo "skipped: started past the script's deadline" > "$CASES/$name.meta"
        return
    fi
    local room=$(( DEADLINE + 60 - now ))
    [ "$limit" -gt "$room" ] && limit=$room
    local before; before=$(dmesg_lines)
    log "START $name (timeout ${limit}s): ${envs[*]} $*"
    local t=$(date +%s)
    ( cd "$WORK" && env PYTHONUNBUFFERED=1 "${envs[@]}" timeout -k 10 "$limit" "$@" ) > "$CASES/$name.log" 2>&1
    local rc=$?
    local dt=$(( $(date +%s) - t ))
    {
        echo "command: env PYTHONUNBUFFERED=1 ${envs[*]} timeout -k 10 $limit $*"
        echo "cwd: $WORK"
        echo "exit_status: $rc$( [ $rc = 124 ] && echo ' (timeout fired)')"
        echo "seconds: $dt"
        echo "finished_at: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    } > "$CASES/$name.meta"
    if [ "$DMESG_OK" = 1 ]; then
        dmesg 2>/dev/null | tail -n +"$(( before + 1 ))" > "$CASES/$name.dmesg"
    else
        echo "dmesg not readable on this machine" > "$CASES/$name.dmesg"
    fi
    log "END $name rc=$rc ${dt}s lines=$(wc -l < "$CASES/$name.log") last: $(grep -v '^\s*$' "$CASES/$name.log" | tail -n 1 | cut -c1-200)"
}

# ---------------------------------------------------------------------------------------------
log "work dir $WORK, out $OUT, deadline ${DEADLINE}s, dmesg readable: $DMESG_OK"
machine "nvidia-smi" nvidia-smi
machine "versions" "$PY -c 'import sys, torch; print(\"python\", sys.version.split()[0]); print(\"torch\", torch.__version__); print(\"torch.version.cuda\", torch.version.cuda); print(\"nccl\", torch.cuda.nccl.version()); print(\"cudnn\", torch.backends.cudnn.version()); print(\"device\", torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))'; $PY -c 'import triton; print(\"triton\", triton.__version__)'; $NVCC --version | tail -n 2; uname -a; cat /proc/driver/nvidia/version; command -v torchrun"
machine "dmesg readable?" "dmesg > /dev/null && echo 'dmesg: readable' || echo 'dmesg: NOT readable'"
machine "dmesg tail (before)" "dmesg | tail -n 30"
machine "nvidia-smi -q (before)" "nvidia-smi -q"
machine "ECC/row remapping/page retirement (before)" "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT"
log "machine info written"

# Case 5 (gloo on CPU) runs in the background beside the GPU cases.
run_case 05a-gloo-timeout-stalled-rank 150 -- "${TORCHRUN[@]}" --nproc_per_node=2 --master_port=29531 \
    "$HERE/train_ddp.py" --backend gloo --timeout 20 --stall-rank 1 --fault-step 3 --stall-seconds 100 &
BG1=$!
run_case 05b-gloo-peer-sigkill 120 -- "${TORCHRUN[@]}" --nproc_per_node=2 --master_port=29532 \
    "$HERE/train_ddp.py" --backend gloo --timeout 20 --kill-rank 1 --fault-step 3 &
BG2=$!

# Case 1: CUDA OOM.
run_case 01-cuda-oom-batch-rampup 120 -- "$PY" "$HERE/train_oom.py" --batch-size 262144

# Case 2: illegal memory access from a custom kernel (nvcc + ctypes), then from a Triton kernel.
log "nvcc build of gather_kernel.cu"
"$NVCC" -O2 -arch=sm_90 -shared -Xcompiler -fPIC -o "$WORK/libgather.so" "$HERE/gather_kernel.cu" > "$CASES/02a-build.txt" 2>&1
log "nvcc rc=$?"
run_case 02a-illegal-address-ctypes-kernel 90 -- "$PY" "$HERE/train_custom_kernel.py" --lib "$WORK/libgather.so"
machine "ECC/row remapping/page retirement (after case 02a)" "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT"
run_case 02b-illegal-address-triton-kernel 120 -- "$PY" "$HERE/train_triton.py"
machine "nvidia-smi (after case 02b)" nvidia-smi
machine "dmesg xid (after case 02)" "dmesg | grep -i -E 'xid|nvrm' | tail -n 40"

# Case 3: device-side asserts.
run_case 03a-device-assert-cross-entropy 90 -- "$PY" "$HERE/train_cls.py"
run_case 03b-device-assert-cross-entropy-launch-blocking 90 CUDA_LAUNCH_BLOCKING=1 -- "$PY" "$HERE/train_cls.py"
run_case 03c-device-assert-embedding-index 90 -- "$PY" "$HERE/train_lm.py"

# Case 4: NCCL, two ranks on the one GPU.
run_case 04a-nccl-two-ranks-one-gpu 90 -- "${TORCHRUN[@]}" --nproc_per_node=2 --master_port=29541 \
    "$HERE/train_ddp.py" --backend nccl
run_case 04c-nccl-set-device-rank1-no-gpu 90 -- "${TORCHRUN[@]}" --nproc_per_node=2 --master_port=29543 \
    "$HERE/train_ddp.py" --backend nccl --set-device

# Case 6: NaN loss.
run_case 06a-loss-nan-lr-too-high 60 -- "$PY" "$HERE/train_nan.py" --lr 1e6
run_case 06b-loss-nan-detect-anomaly 60 -- "$PY" "$HERE/train_nan.py" --lr 1e6 --detect-anomaly

# Case 7: a damaged checkpoint. The first run writes it (kept as 07-setup.log), then it is cut.
log "case 7 setup"
( cd "$WORK" && PYTHONUNBUFFERED=1 timeout -k 10 60 "$PY" "$HERE/train_resume.py" --ckpt-dir "$WORK/ckpt" ) > "$CASES/07-setup.log" 2>&1
size=$(stat -c %s "$WORK/ckpt/last.pt" 2>/dev/null || echo 0)
truncate -s $(( size / 2 )) "$WORK/ckpt/last.pt" 2>> "$RUNLOG"
log "checkpoint $WORK/ckpt/last.pt: $size bytes, truncated to $(( size / 2 ))"
run_case 07a-checkpoint-truncated 60 -- "$PY" "$HERE/train_resume.py" --ckpt-dir "$WORK/ckpt" --resume
: > "$WORK/ckpt/last.pt"
run_case 07b-checkpoint-empty 60 -- "$PY" "$HERE/train_resume.py" --ckpt-dir "$WORK/ckpt" --resume

# Lowest priority: case 4 again with NCCL's own log.
run_case 04b-nccl-two-ranks-one-gpu-debug-info 90 NCCL_DEBUG=INFO -- "${TORCHRUN[@]}" --nproc_per_node=2 \
    --master_port=29542 "$HERE/train_ddp.py" --backend nccl

log "waiting for the background cases"
wait "$BG1" "$BG2"
machine "ECC/row remapping/page retirement (after)" "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT"
machine "dmesg xid/nvrm (after)" "dmesg | grep -i -E 'xid|nvrm|nvidia'"
machine "dmesg tail (after)" "dmesg | tail -n 40"
machine "nvidia-smi (after)" nvidia-smi
