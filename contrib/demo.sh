#!/usr/bin/env bash
# The README's "set up and run" command: installs what is missing, builds, starts the local dev
# cluster (contrib/dev-cluster, default directory), submits a job that fails and shows what the
# supervisor sees of it through libslurm. Leaves the cluster running; stop it with
# contrib/dev-cluster/down.sh.
#
# Today this shows the Slurm side (issue 2). Registering the job and recovering it from its
# last checkpoint is issue 3; this script grows with it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"

"$root/contrib/install-deps.sh"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target supervisor
supervisor="$build_dir/src/supervisor"

eval "$("$root/contrib/dev-cluster/up.sh")"
echo
echo "== the cluster, as the supervisor sees it"
"$supervisor" inspect nodes

out_dir="${SLURM_TEST_DIR:-/tmp/slurm-supervisor-dev}/jobs"
mkdir -p "$out_dir"
job=$(sbatch --parsable -J demo-train -o "$out_dir/%x-%j.out" \
    --wrap 'echo "step 100 loss 2.31"; echo "RuntimeError: CUDA error: an illegal memory access was encountered" >&2; exit 3')
echo
echo "== submitted job $job; waiting for it to end"
for _ in $(seq 60); do
    state=$(squeue -h -j "$job" -o %T 2>/dev/null || true)
    [[ "$state" == FAILED || "$state" == COMPLETED ]] && break
    sleep 0.5
done
"$supervisor" inspect job "$job"
echo
echo "== its log (path expanded from the %x-%j pattern by the supervisor)"
cat "$out_dir/demo-train-$job.out"
echo
echo "The cluster keeps running. Use it with:  export SLURM_CONF=$SLURM_CONF"
echo "Stop it with:                           $root/contrib/dev-cluster/down.sh"
