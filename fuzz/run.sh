#!/bin/bash
# Builds the libFuzzer targets with clang and runs each one for a while on a copy of its seed
# corpus (fuzz/corpus/<target>), then prints how many inputs each ran. Exits non-zero when a
# target crashed, hung, ran out of memory or broke one of its properties (the input is kept
# and its path printed), or when the build failed.
#
#   fuzz/run.sh                          every target, 20 s each
#   FUZZ_SECONDS=600 fuzz/run.sh zip     one target (or several), 10 minutes each
#
# Environment:
#   FUZZ_SECONDS     seconds per target (default 20)
#   FUZZ_BUILD_DIR   build directory (default build-fuzz in the checkout); the corpora being
#                    grown are in $FUZZ_BUILD_DIR/run/corpus/<target>, crash inputs in
#                    $FUZZ_BUILD_DIR/run/artifacts/<target>/
#   FUZZ_JOBS        parallel compile jobs, and targets run side by side (default 2)
#   FUZZ_NICE        niceness of the build and the runs (default 10)
#   FUZZ_KEEP_CORPUS 1: go on from the corpus an earlier run grew instead of a fresh copy
#   FUZZ_NO_BUILD    1: run the targets already built in FUZZ_BUILD_DIR
#
# Installs nothing and needs no network; reads no standard input.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(dirname "$here")"
build_dir="${FUZZ_BUILD_DIR:-$source_dir/build-fuzz}"
seconds="${FUZZ_SECONDS:-20}"
jobs="${FUZZ_JOBS:-2}"
niceness="${FUZZ_NICE:-10}"

# target  max_len  dictionary (fuzz/dict/<name>.dict)
targets_table="
zip                  131072 zip
safetensors           65536 safetensors
checkpoint_dir        16384 checkpoint_dir
log_excerpt          131072 logs
diagnosis             65536 logs
rules_toml             8192 toml
config_toml            4096 toml
sbatch_directives      4096 sbatch
sbatch_arguments       2048 sbatch
output_path            1024 output_path
hostlist               1024 hostlist
job_id                   64 values
submit_request_json   16384 json
progress_pattern       4096 logs
nccl_transport        16384 logs
registration_values    1024 values
notify_message         8192 json
prometheus_answer     16384 json
control_request       65536 json
control_frame         65536 json
journal_payload       16384 json
"

die() {
    echo "fuzz/run.sh: $*" >&2
    exit 2
}

# --- the tools: clang with libFuzzer and the sanitizer runtimes -------------------------
command -v cmake >/dev/null || die "cmake not found (Debian: apt-get install cmake)"
command -v clang++ >/dev/null || command -v clang++-14 >/dev/null ||
    die "clang++ not found (Debian 12: apt-get install clang libclang-rt-14-dev)"
cxx="$(command -v clang++ || command -v clang++-14)"
cc="$(command -v clang || command -v clang-14 || true)"
probe_dir="$(mktemp -d)"
trap 'rm -rf "$probe_dir"' EXIT
printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
    'extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }' \
    >"$probe_dir/probe.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe_dir/probe.cpp" -o "$probe_dir/probe" \
    >"$probe_dir/log" 2>&1; then
    cat "$probe_dir/log" >&2
    die "$cxx cannot link a libFuzzer target: the libFuzzer/sanitizer runtimes are missing" \
        "(Debian 12: apt-get install libclang-rt-14-dev; later releases: libclang-rt-dev)"
fi

# --- build ---------------------------------------------------------------------------------
if [[ "${FUZZ_NO_BUILD:-0}" == 1 ]]; then
    [[ -d "$build_dir/fuzz" ]] || die "FUZZ_NO_BUILD=1 but nothing is built in $build_dir"
    echo "== using the targets already built in $build_dir"
else
    echo "== build in $build_dir ($cxx)"
    build_start=$SECONDS
    # A build directory configured from another checkout (a clone in another place, a copied
    # machine) makes cmake refuse to configure: start it afresh rather than fail.
    cache="$build_dir/CMakeCache.txt"
    if [[ -f "$cache" ]] &&
        ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$source_dir" "$cache"; then
        echo "== $build_dir was configured from another source directory: starting it afresh"
        rm -rf "$build_dir"
    fi
    CC="${cc:-$cxx}" CXX="$cxx" nice -n "$niceness" cmake -S "$source_dir" -B "$build_dir" \
        -DSUPERVISOR_FUZZ=ON -DSUPERVISOR_BUILD_TESTS=OFF -DSUPERVISOR_BUILD_BENCH=OFF \
        >"$probe_dir/configure.log" 2>&1 ||
        { cat "$probe_dir/configure.log" >&2; die "cmake configure failed (log above)"; }
    nice -n "$niceness" cmake --build "$build_dir" --target fuzz_targets -j "$jobs" </dev/null ||
        die "build failed"
    echo "== built in $((SECONDS - build_start)) s"
fi

# --- run -----------------------------------------------------------------------------------
# Stack traces for UBSan reports too (ASan prints them anyway).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
selected=("$@")
for wanted in "${selected[@]}"; do
    grep -qE "^$wanted " <<<"$targets_table" || die "no fuzz target '$wanted'"
done
run_dir="$build_dir/run"
mkdir -p "$run_dir"

# One target for $seconds on a fresh copy of its seed corpus. Its summary line goes to
# $run_dir/<target>.line and the fuzzer's exit status to <target>.status, read back once all
# have ended. Targets run $jobs at a time, one core each: libFuzzer without -jobs is
# single-threaded.
run_target() {  # name max_len dict
    local name="$1" max_len="$2" dict="$3"
    local corpus="$run_dir/corpus/$name" artifacts="$run_dir/artifacts/$name/"
    if [[ "${FUZZ_KEEP_CORPUS:-0}" != 1 || ! -d "$corpus" ]]; then
        rm -rf "$corpus"
        mkdir -p "$corpus"
        cp -r "$here/corpus/$name/." "$corpus/"
    fi
    mkdir -p "$artifacts"
    local log="$run_dir/$name.log" status=0
    (cd "$run_dir" && nice -n "$niceness" "$build_dir/fuzz/fuzz_$name" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
        -dict="$here/dict/$dict.dict" -print_final_stats=1 -artifact_prefix="$artifacts" \
        "$corpus" </dev/null >"$log" 2>&1) || status=$?
    local runs rate line
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
    line="$(printf '%-22s %12s execs %9s exec/s' "$name" "${runs:-0}" "${rate:-?}")"
    if ((status != 0)); then
        line="$line  FAILED (exit $status)"
        grep -E "^==[0-9]+==ERROR|^SUMMARY|property failed|runtime error|Test unit written|ALARM|out-of-memory|deadly signal" \
            "$log" | head -n 20 >&2 || true
        echo "   full log: $log" >&2
    fi
    echo "$line" >"$run_dir/$name.line"
    echo "$status" >"$run_dir/$name.status"
    echo "   $line"
}

chosen=()
while read -r name max_len dict; do
    [[ -z "$name" ]] && continue
    if ((${#selected[@]} > 0)) && [[ " ${selected[*]} " != *" $name "* ]]; then
        continue
    fi
    chosen+=("$name")
    while (($(jobs -rp | wc -l) >= jobs)); do
        wait -n || true
    done
    echo "== $name: ${seconds} s, max_len $max_len, dict $dict.dict"
    rm -f "$run_dir/$name.line" "$run_dir/$name.status"
    run_target "$name" "$max_len" "$dict" &
done <<<"$targets_table"
wait

failed=()
total=0
summary=""
for name in "${chosen[@]}"; do
    if [[ "$(cat "$run_dir/$name.status" 2>/dev/null)" != 0 ]]; then
        failed+=("$name")
    fi
    line="$(cat "$run_dir/$name.line" 2>/dev/null || echo "$name 0 execs: no result")"
    total=$((total + $(awk '{print $2}' <<<"$line")))
    summary+="$line"$'\n'
done

echo
echo "== summary ($seconds s per target)"
printf '%s' "$summary"
echo "   total: $total executions"
if ((${#failed[@]} > 0)); then
    echo "FAILED: ${failed[*]} (inputs under $run_dir/artifacts/; README.md: reproducing)" >&2
    exit 1
fi
