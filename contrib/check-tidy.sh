#!/usr/bin/env bash
# clang-tidy with the checked-in .clang-tidy (a short list of checks, each an error) over the
# product's sources, using the compile commands of a configured build directory.
#
#   contrib/check-tidy.sh            the .cpp files changed since the baseline below
#   contrib/check-tidy.sh --all      every product .cpp file (about 9 s of CPU each: minutes)
#   BUILD_DIR=build-x contrib/check-tidy.sh
#
# Not a CI leg (doc/development.md, "Habits the CI checks"): a whole run costs about as much as
# a build. The findings of the last whole run are fixed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"
readonly baseline=360b92e
readonly clang_tidy=clang-tidy-14
readonly product_dirs='^(common|control|http|node_evidence|notify|ops|recovery|slurm|src|state|supervisor)/'

if ! command -v "$clang_tidy" >/dev/null; then
    echo "check-tidy: $clang_tidy not found (Debian 12: apt-get install clang-tidy-14)" >&2
    exit 2
fi
if [[ ! -f "$build_dir/compile_commands.json" ]]; then
    echo "check-tidy: no $build_dir/compile_commands.json: configure a build there first" \
        "(cmake -S . -B $build_dir; the project exports compile commands)" >&2
    exit 2
fi

if [[ "${1:-}" == --all ]]; then
    mapfile -t files < <(git ls-files '*.cpp' | grep -E "$product_dirs")
elif git rev-parse -q --verify "$baseline^{commit}" >/dev/null; then
    mapfile -t files < <(git diff --name-only --diff-filter=AM "$baseline" -- '*.cpp' |
        grep -E "$product_dirs")
else
    echo "check-tidy: commit $baseline is not in this clone; checking every file" >&2
    mapfile -t files < <(git ls-files '*.cpp' | grep -E "$product_dirs")
fi
if ((${#files[@]} == 0)); then
    echo "check-tidy: no product source changed since $baseline"
    exit 0
fi

# Headers of the project are checked with the files that include them; system headers not.
started=$SECONDS
printf '%s\0' "${files[@]}" |
    xargs -0 -n 4 -P "$jobs" "$clang_tidy" -p "$build_dir" --quiet \
        --header-filter="^$root/" --extra-arg=-Wno-unknown-warning-option \
        >"$build_dir/check-tidy.log" 2>&1
status=$?
grep -E "(warning|error): " "$build_dir/check-tidy.log" | sort -u >&2
if ((status != 0)); then
    echo "check-tidy: findings above (all of clang-tidy's output: $build_dir/check-tidy.log)" >&2
    exit 1
fi
echo "check-tidy: ${#files[@]} files clean in $((SECONDS - started)) s"
