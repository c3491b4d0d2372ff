#!/usr/bin/env bash
# The test command (README "Run the tests"; .ci/run calls exactly this).
#
# Installs what is missing, builds with warnings as errors, starts a private dev cluster in its
# own state directory and ports (so it never touches a cluster you started by hand), runs every
# test suite with CTest, and stops the cluster again even when something fails.
#
#   contrib/test.sh                  everything: unit, contract (fake and real), integration
#   contrib/test.sh -L unit          extra arguments go to ctest (here: unit tests only)
#   BUILD_DIR=build-x contrib/test.sh
#   UNITY_BUILD=1 contrib/test.sh    the libraries compiled in batches too (faster; see below)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"

"$root/contrib/install-deps.sh"

# -g1: line tables only (file:line in backtraces and gdb), not full debug info, which makes the
# build about a quarter slower; the test sources compile in batches (SUPERVISOR_UNITY_TESTS).
# doc/development.md, "What CI costs", has the figures.
# UNITY_BUILD=1 compiles the libraries and programs in batches of eight as well
# (CMAKE_UNITY_BUILD): less CPU, since each batch parses the heavy headers once. .ci/run sets it
# for the Debian 12 leg only; every other build, the Debian 13 leg's included, compiles each
# library file alone, which is how a missing #include is caught.
unity=OFF
[[ "${UNITY_BUILD:-0}" == 1 ]] && unity=ON
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERVISOR_WERROR=ON \
    -DSUPERVISOR_FAILPOINTS=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DSUPERVISOR_UNITY_TESTS=ON -DCMAKE_UNITY_BUILD="$unity" -DCMAKE_UNITY_BUILD_BATCH_SIZE=8
cmake --build "$build_dir" -j "$jobs"

# A cluster of our own: distinct directory and ports from the default dev cluster.
export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-supervisor-test}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-16917}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-16921}"
stop_cluster() { CLEAN=1 "$root/contrib/dev-cluster/down.sh" >&2 || true; }
trap stop_cluster EXIT
cluster_env="$(CLEAN=1 "$root/contrib/dev-cluster/up.sh")" || {
    echo "test.sh: the dev cluster did not start (its messages are above)" >&2
    exit 1
}
eval "$cluster_env"
echo "test.sh: dev cluster up, SLURM_CONF=$SLURM_CONF" >&2

# One run of every suite (extra arguments narrow it, e.g. -L unit). Tests that stop cluster
# daemons are RUN_SERIAL; everything else runs three at a time.
ctest --test-dir "$build_dir" --output-on-failure -j 3 "$@"
