#!/usr/bin/env bash
# The unit and CLI suites (ctest -L unit: no cluster needed) under AddressSanitizer and
# UndefinedBehaviorSanitizer, then a short run of every libFuzzer target, from one build in its
# own build directory. .ci/run runs it as its last leg (its build beside the cluster legs).
#
# With clang (the CI machine has it): one clang build with SUPERVISOR_FUZZ=ON, which instruments
# every library and test for ASan, UBSan and libFuzzer's coverage; the test executables link the
# sanitizer runtimes and the fuzz targets libFuzzer as well. fuzz/run.sh then runs the targets
# already built, FUZZ_SECONDS each (default 5). One build instead of two (a GCC sanitizer build
# and a clang fuzz build); doc/development.md has what it costs.
# Without clang, or with SANITIZER_COMPILER=gcc: GCC with SUPERVISOR_SANITIZE=ON, no fuzz run.
#
# Any report fails the test or target that triggered it: UBSan is built not to recover, ASan
# stops at the first error, and LeakSanitizer reports leaks at exit. Both parts always run; the
# script fails when either does.
#
#   contrib/test-sanitizers.sh              build + ctest -L unit + fuzz targets
#   BUILD_DIR=build-x contrib/test-sanitizers.sh -R Validators   extra arguments go to ctest
#   SANITIZER_STEPS=build contrib/test-sanitizers.sh   only install and build (.ci/run starts
#                                                      this beside the cluster legs)
#   SANITIZER_STEPS=test contrib/test-sanitizers.sh    only the tests and fuzz targets of a
#                                                      build that is already there
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-sanitizers}"
jobs="${JOBS:-$(nproc)}"
steps="${SANITIZER_STEPS:-all}"
case "$steps" in
all | build | test) ;;
*)
    echo "test-sanitizers.sh: SANITIZER_STEPS must be all, build or test, not '$steps'" >&2
    exit 2
    ;;
esac

compiler="${SANITIZER_COMPILER:-}"
if [[ -z "$compiler" ]]; then
    if command -v clang++ >/dev/null; then compiler=clang; else compiler=gcc; fi
fi
case "$compiler" in
clang | gcc) ;;
*)
    echo "test-sanitizers.sh: SANITIZER_COMPILER must be clang or gcc, not '$compiler'" >&2
    exit 2
    ;;
esac

build() {
    "$root/contrib/install-deps.sh" || return 1
    # Line tables for readable stacks. clang at -O0: its instrumented -O1 took about twice as
    # long to compile (poll_cycle.cpp: 32 s against 17 s) for tests that run in 2 minutes;
    # GCC at -O1, which it needs for some of its warnings (-Werror here).
    # The libraries compile in batches of eight sources too (CMAKE_UNITY_BUILD), as the tests
    # do: the product build took 274 s of CPU instead of 741 (doc/development.md). Each file is
    # still compiled alone by the Debian 13 leg, which so catches a missing #include, and the
    # tidy leg keeps the files of one library free of clashing helper names.
    local common_options=(-DCMAKE_BUILD_TYPE=Debug -DSUPERVISOR_FAILPOINTS=ON
        -DSUPERVISOR_UNITY_TESTS=ON -DCMAKE_UNITY_BUILD=ON -DSUPERVISOR_BUILD_BENCH=OFF
        -DSUPERVISOR_BUILD_CLUSTER_TESTS=OFF)
    local configure fuzz_wanted=OFF
    if [[ "$compiler" == clang ]]; then
        fuzz_wanted=ON
        # Warnings are the GCC legs' to enforce (-Werror there); clang's set differs.
        configure=(env CC="$(command -v clang)" CXX="$(command -v clang++)" cmake -S "$root"
            -B "$build_dir" "${common_options[@]}" -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O0"
            -DSUPERVISOR_FUZZ=ON)
    else
        configure=(cmake -S "$root" -B "$build_dir" "${common_options[@]}"
            -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" -DSUPERVISOR_WERROR=ON -DSUPERVISOR_SANITIZE=ON
            -DSUPERVISOR_FUZZ=OFF)
    fi
    # A build directory configured for the other compiler (clang builds have SUPERVISOR_FUZZ=ON)
    # keeps its compiler: start it afresh.
    if [[ -f "$build_dir/CMakeCache.txt" ]] &&
        ! grep -qx "SUPERVISOR_FUZZ:BOOL=$fuzz_wanted" "$build_dir/CMakeCache.txt"; then
        echo "test-sanitizers.sh: $build_dir was configured for the other compiler:" \
            "starting afresh" >&2
        rm -rf "$build_dir"
    fi
    echo "test-sanitizers.sh: $compiler build in $build_dir" >&2
    "${configure[@]}" || return 1
    cmake --build "$build_dir" -j "$jobs"
}

run_tests() {
    [[ -f "$build_dir/CMakeCache.txt" ]] || {
        echo "test-sanitizers.sh: nothing is built in $build_dir (SANITIZER_STEPS=build first)" >&2
        return 1
    }
    local status=0
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}" \
        UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
        ctest --test-dir "$build_dir" --output-on-failure -j 2 -L unit "$@" || status=1
    if [[ "$compiler" == clang ]]; then
        # The fuzz targets report through libFuzzer, which wants ASan to print, not abort.
        ASAN_OPTIONS='' UBSAN_OPTIONS=print_stacktrace=1 FUZZ_NO_BUILD=1 \
            FUZZ_BUILD_DIR="$build_dir" FUZZ_SECONDS="${FUZZ_SECONDS:-5}" "$root/fuzz/run.sh" ||
            status=1
    else
        echo "test-sanitizers.sh: no fuzz run: the fuzz targets need clang" \
            "(Debian: apt-get install clang libclang-rt-14-dev)" >&2
    fi
    return "$status"
}

if [[ "$steps" != test ]]; then
    build || exit 1
fi
if [[ "$steps" != build ]]; then
    run_tests "$@" || exit 1
fi
exit 0
