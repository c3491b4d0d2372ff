#!/usr/bin/env bash
# The unit and CLI suites (ctest -L unit: no cluster needed) built with AddressSanitizer and
# UndefinedBehaviorSanitizer, in their own build directory. Any report fails the test that
# triggered it: UBSan is built not to recover, ASan stops at the first error, and LeakSanitizer
# reports leaks at exit. .ci/run runs it as a third leg.
#
#   contrib/test-sanitizers.sh              build + ctest -L unit
#   BUILD_DIR=build-x contrib/test-sanitizers.sh -R Validators   extra arguments go to ctest
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-sanitizers}"
jobs="${JOBS:-$(nproc)}"

"$root/contrib/install-deps.sh"

# Debug info without optimisation beyond -O1 keeps the stacks readable and the build quick.
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" \
    -DSUPERVISOR_WERROR=ON -DSUPERVISOR_FAILPOINTS=ON -DSUPERVISOR_SANITIZE=ON \
    -DSUPERVISOR_BUILD_BENCH=OFF -DSUPERVISOR_BUILD_CLUSTER_TESTS=OFF
cmake --build "$build_dir" -j "$jobs"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "$build_dir" --output-on-failure -j 2 -L unit "$@"
