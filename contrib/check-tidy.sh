#!/usr/bin/env bash
# clang-tidy with the checked-in .clang-tidy (a short list of checks, each an error) over every
# library, program, test and benchmark of the project: CI's tidy leg.
#
#   contrib/check-tidy.sh                  everything (about 4 minutes on 2 cores)
#   contrib/check-tidy.sh supervisor tests/unit/supervisor   only the targets of these folders
#   BUILD_DIR=build-x contrib/check-tidy.sh     where to configure (default: build-tidy)
#
# One clang-tidy run per target, not per source file. The build folder is configured (not
# built) with CMake's unity build, one unity source per target, so that the headers every file
# includes (the standard library, nlohmann/json, spdlog, gtest) are parsed once per target
# instead of once per file: 3.5 minutes for the whole tree against about 25 for the files one
# by one (doc/development.md). The findings are reported at the line of the file that has them.
#
# A unity source is one translation unit, so two files of one target must not both define a
# helper of the same name in their anonymous namespaces: clang reports that as an error here
# ("redefinition of 'join'"). Give the helper a name that says what it does, or share it.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1
build_dir="${BUILD_DIR:-$root/build-tidy}"
jobs="${JOBS:-$(nproc)}"
readonly clang_tidy=clang-tidy-14

if ! command -v "$clang_tidy" >/dev/null; then
    echo "check-tidy: $clang_tidy not found (Debian 12: apt-get install clang-tidy-14)" >&2
    exit 2
fi

# Configure only: clang-tidy needs the compile commands and the generated headers, no object.
mkdir -p "$build_dir"
if ! cmake -S "$root" -B "$build_dir" -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 \
    -DSUPERVISOR_UNITY_TESTS=OFF -DSUPERVISOR_FAILPOINTS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    >"$build_dir/configure.log" 2>&1; then
    cat "$build_dir/configure.log" >&2
    echo "check-tidy: configuring $build_dir failed (above)" >&2
    exit 2
fi

# The unity source of each target: <build>/<folder>/CMakeFiles/<target>.dir/Unity/unity_0_cxx.cxx
mapfile -t units < <(python3 - "$build_dir" "$@" <<'EOF'
import json, sys
build, folders = sys.argv[1], [f.strip("/") for f in sys.argv[2:]]
for command in json.load(open(f"{build}/compile_commands.json")):
    unit = command["file"]
    if "/Unity/unity_" not in unit:
        continue
    folder = unit[len(build) + 1:].split("/CMakeFiles/")[0]
    if not folders or folder in folders:
        print(unit)
EOF
)
if ((${#units[@]} == 0)); then
    echo "check-tidy: no target in ${*:-the tree} (folders are relative to the root:" \
        "supervisor, tests/unit/state)" >&2
    exit 2
fi

# The project's own files are checked (the sources through their unity source, the headers
# through the files that include them); the system's and the build folder's are not.
log="$build_dir/check-tidy.log"
started=$SECONDS
printf '%s\0' "${units[@]}" |
    xargs -0 -n 1 -P "$jobs" "$clang_tidy" -p "$build_dir" --quiet \
        --config-file="$root/.clang-tidy" \
        --header-filter="^$root/(common|control|http|node_evidence|notify|ops|recovery|slurm|src|state|supervisor|tests|bench|fuzz)/" \
        --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1
status=$?
grep -E "(warning|error): " "$log" | sort -u >&2
if ((status != 0)); then
    echo "check-tidy: findings above (all of clang-tidy's output: $log)" >&2
    exit 1
fi
echo "check-tidy: ${#units[@]} target(s) clean in $((SECONDS - started)) s"
