#!/usr/bin/env bash
# The project's habits, checked (CI's first leg; also fine to run before every commit):
#   - every C++ file is as clang-format leaves it, with .clang-format and the pinned
#     clang-format-14 (Debian 12's; later releases lay some constructs out differently, so the
#     check uses that one version and says how to get it);
#   - every shell script (a tracked file whose first line runs sh or bash or says
#     "# shellcheck shell=", outside the byte-for-byte data of tests/data and fuzz/corpus)
#     passes `shellcheck -S warning`;
#   - no tab and no trailing space in the files .editorconfig governs;
#   - every commit subject after the baseline below is under 72 characters;
#   - a file of supervisor/ includes headers of its own room (sub-folder) or of a room before it
#     in supervisor/CMakeLists.txt's supervisor_rooms, never of one after it.
#
#   contrib/check-style.sh          check, list what is wrong, exit 1 if anything is
#   contrib/check-style.sh --fix    reformat the C++ files in place first
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

# Commits up to this one landed with longer subjects; history is not rewritten.
readonly subject_baseline=360b92e
readonly clang_format=clang-format-14

problems=0
complain() {
    echo "check-style: $*" >&2
    problems=$((problems + 1))
}

if ! command -v "$clang_format" >/dev/null; then
    echo "check-style: $clang_format not found (Debian 12: apt-get install clang-format-14)" >&2
    exit 2
fi

if ! command -v shellcheck >/dev/null; then
    echo "check-style: shellcheck not found (apt-get install shellcheck, or contrib/install-deps.sh)" >&2
    exit 2
fi

mapfile -t cxx_files < <(git ls-files '*.cpp' '*.h')
if [[ "${1:-}" == --fix ]]; then
    "$clang_format" -i "${cxx_files[@]}"
fi
# One run over every file; each change it would make is a "FILE:LINE:COL: warning:" line.
while IFS= read -r f; do
    complain "$f is not as $clang_format lays it out (fix: contrib/check-style.sh --fix)"
done < <("$clang_format" --dry-run "${cxx_files[@]}" 2>&1 |
    sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: .*/\1/p' | sort -u)

# Warnings and errors only: the style notes (SC2086 on a number, say) would be churn. Each
# finding is a "FILE:LINE:COL: warning: ... [SCNNNN]" line, which names what to fix and where.
mapfile -t shell_scripts < <(git ls-files -z | grep -z -v -E '^(tests/data|fuzz/corpus)/' |
    xargs -0 awk 'FNR == 1 && /^(#!.*(\/|env )(ba)?sh([ \t]|$)|# shellcheck shell=)/ {
        print FILENAME } { nextfile }')
while IFS= read -r finding; do
    complain "$finding"
done < <(shellcheck -S warning -f gcc "${shell_scripts[@]}" 2>&1)

# tests/data and fuzz/corpus hold real logs and inputs byte for byte (.editorconfig).
while IFS= read -r hit; do
    complain "$hit: tab or trailing space"
done < <(git ls-files -z | grep -z -v -E '^(tests/data|fuzz/corpus)/|^debian/rules$' |
    xargs -0 grep -I -n -P '\t| +$' -- 2>/dev/null | cut -d: -f1,2)
# A makefile (debian/rules) indents its recipes with tabs: only trailing spaces there.
while IFS= read -r hit; do
    complain "$hit: trailing space"
done < <(git ls-files -z debian/rules | xargs -0 -r grep -H -I -n -P ' +$' -- 2>/dev/null |
    cut -d: -f1,2)

# supervisor/'s rooms, lowest first, as supervisor/CMakeLists.txt lists them. An include of a
# later room is an arrow back up: what both need belongs in the lower room, or is passed in.
read -r -a rooms <<<"$(sed -n '/^set(supervisor_rooms/,/)/p' supervisor/CMakeLists.txt |
    tr -d '()' | sed 's/set//; s/supervisor_rooms//' | tr '\n' ' ')"
if ((${#rooms[@]} == 0)); then
    complain "supervisor/CMakeLists.txt: no set(supervisor_rooms ...) list of its sub-folders"
fi
while IFS= read -r file; do
    room="${file#supervisor/}"
    room="${room%%/*}"
    [[ " ${rooms[*]} " == *" $room "* && "$file" == supervisor/"$room"/*[!/] &&
        "${file#supervisor/"$room"/}" != */* ]] ||
        complain "$file: in no room of supervisor_rooms (supervisor/CMakeLists.txt)"
done < <(git ls-files 'supervisor/*.h' 'supervisor/*.cpp')
while IFS= read -r hit; do
    complain "$hit"
done < <(git ls-files 'supervisor/*.h' 'supervisor/*.cpp' |
    xargs -r awk -v rooms="${rooms[*]}" '
        BEGIN { n = split(rooms, names, " "); for (i = 1; i <= n; i++) rank[names[i]] = i }
        FNR == 1 { split(FILENAME, parts, "/"); room = (length(parts) == 3) ? parts[2] : "" }
        match($0, /^#include "supervisor\/[a-z_]+\//) {
            target = substr($0, RSTART + 21, RLENGTH - 22)
            if ((room in rank) && (!(target in rank) || rank[target] > rank[room]))
                print FILENAME ":" FNR ": includes a header of supervisor/" target "/, a room after " room "/ (supervisor_rooms in supervisor/CMakeLists.txt): move what both need down, or pass it in"
        }')

if git rev-parse -q --verify "$subject_baseline^{commit}" >/dev/null; then
    while IFS= read -r line; do
        complain "commit ${line%% *}: subject of 72 characters or more: ${line#* }"
    done < <(git log --format='%h %s' "$subject_baseline..HEAD" |
        awk '{ s = $0; sub(/^[^ ]+ /, "", s); if (length(s) >= 72) print }')
else
    echo "check-style: commit $subject_baseline is not in this clone; subjects not checked" >&2
fi

if ((problems > 0)); then
    echo "check-style: $problems problem(s)" >&2
    exit 1
fi
echo "check-style: ${#cxx_files[@]} C++ files as $clang_format lays them out," \
    "${#shell_scripts[@]} shell scripts shellcheck passes, no tab or trailing space," \
    "commit subjects under 72 characters, supervisor/'s ${#rooms[@]} rooms include downward only"
