#!/usr/bin/env bash
# Writes bash completion for `supervisor` from the binary's own --help: its subcommands (nested
# ones too) and each one's options, so that it never drifts from the command line. The build runs
# it (contrib/cli-docs/CMakeLists.txt); tests/cli/completion_test.sh checks what it writes.
#
#   bash-completion.sh SUPERVISOR_BINARY OUTPUT_FILE
set -euo pipefail
binary="$1"
output="$2"
# shellcheck source=contrib/cli-docs/commands.sh
source "$(dirname "${BASH_SOURCE[0]}")/commands.sh"

subcommand_cases=""
option_cases=""
valued_options=()
while IFS= read -r path; do
    read -ra words <<<"$path"
    help="$("$binary" "${words[@]}" --help)"
    subcommands="$(help_subcommands "$help" | cut -f1 | tr '\n' ' ')"
    options=""
    while read -r name valued; do
        options+="$name "
        if ((valued)); then valued_options+=("$name"); fi
    done < <(help_options "$help")
    [[ -n "$subcommands" ]] && subcommand_cases+="        \"$path\") echo \"${subcommands% }\" ;;"$'\n'
    option_cases+="        \"$path\") echo \"${options% }\" ;;"$'\n'
done < <(command_paths "$binary")
[[ -n "$subcommand_cases" ]] || { echo "bash-completion.sh: $binary lists no subcommands" >&2; exit 1; }
valued="$(printf '%s\n' "${valued_options[@]}" | sort -u | tr '\n' ' ')"

cat >"$output.tmp" <<COMPLETION
# bash completion for supervisor (slurm-supervisor). Generated at build time from
# \`supervisor --help\` and each subcommand's --help by contrib/cli-docs/bash-completion.sh:
# edit the command line, not this file.

_supervisor_subcommands() {  # command path: its subcommands
    case "\$1" in
$subcommand_cases    esac
}

_supervisor_options() {  # command path: its options
    case "\$1" in
$option_cases    esac
}

_supervisor() {
    local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" path="" word i
    ((COMP_CWORD > 0)) && prev="\${COMP_WORDS[COMP_CWORD - 1]}"
    COMPREPLY=()
    # The value of an option that takes one: files and directories (bash's default).
    case " ${valued% } " in
        *" \$prev "*) return 0 ;;
    esac
    # The subcommands typed so far (words that are options or their values are skipped).
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="\${COMP_WORDS[i]}"
        case " \$(_supervisor_subcommands "\$path") " in
            *" \$word "*) path="\${path:+\$path }\$word" ;;
        esac
    done
    if [[ "\$cur" == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "\$(_supervisor_options "\$path")" -- "\$cur")
    else
        mapfile -t COMPREPLY < <(compgen -W "\$(_supervisor_subcommands "\$path")" -- "\$cur")
    fi
    return 0
}
complete -o default -F _supervisor supervisor
COMPLETION
bash -n "$output.tmp"
mv "$output.tmp" "$output"
