#!/usr/bin/env bash
# Writes the manual pages of `supervisor` from the binary's own --help with help2man: supervisor.1
# and one page per subcommand, nested ones too (supervisor-register.1, supervisor-inspect-jobs.1,
# ...), so that they never drift from the command line. The build runs it
# (contrib/cli-docs/CMakeLists.txt) when help2man is installed.
#
#   man-pages.sh SUPERVISOR_BINARY VERSION OUTPUT_DIRECTORY
set -euo pipefail
binary="$(realpath "$1")"
version="$2"
output="$3"
# shellcheck source=contrib/cli-docs/commands.sh
source "$(dirname "${BASH_SOURCE[0]}")/commands.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$output"

mapfile -t paths < <(command_paths "$binary")
page_of() { local path="$1"; echo "supervisor${path:+-${path// /-}}"; }

for path in "${paths[@]}"; do
    page="$(page_of "$path")"
    read -ra words <<<"$path"
    # help2man names the page after the program it runs: a wrapper of that name, which runs the
    # binary as `supervisor` (the name the usage line shows) with the subcommand's words.
    quoted=""
    for word in "${words[@]}"; do quoted+=" $(printf '%q' "$word")"; done
    printf '#!/bin/bash\nexec -a supervisor %q%s "$@"\n' "$binary" "$quoted" >"$work/$page"
    chmod +x "$work/$page"
    if [[ -z "$path" ]]; then
        name="watch Slurm training jobs, diagnose why they die, recover them"
    else
        parent="${path% *}"
        [[ "$parent" == "$path" ]] && parent=""
        read -ra parent_words <<<"$parent"
        name="$(help_subcommands "$("$binary" "${parent_words[@]}" --help)" |
            awk -F '\t' -v want="${words[-1]}" '$1 == want { print $2 }')"
        # The whatis line: the description's first clause, lower-case first letter.
        name="${name%%[;(]*}"
        name="${name% }"
        name="${name,}"
    fi
    see_also=""
    for other in "${paths[@]}"; do
        [[ "$other" == "$path" ]] || see_also+="${see_also:+,\n}.BR $(page_of "$other") (1)"
    done
    printf '[SEE ALSO]\n%b\n.PP\nThe guides: /usr/share/doc/slurm-supervisor/.\n' \
        "$see_also" >"$work/$page.h2m"
    help2man --no-info --section=1 --source="slurm-supervisor $version" \
        --version-string="$version" --name="$name" --include="$work/$page.h2m" \
        --output="$output/$page.1" "$work/$page"
done
