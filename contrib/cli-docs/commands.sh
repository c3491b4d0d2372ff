# shellcheck shell=bash
# Walks the `supervisor` command line through its own --help (CLI11's format: "Options:",
# "Subcommands:" sections, one entry a line, two spaces in). Sourced by man-pages.sh and
# bash-completion.sh, so that both follow the binary and never a list kept by hand.

# The subcommands one command's --help lists: "NAME<TAB>DESCRIPTION" lines.
help_subcommands() {  # help-text
    awk '/^Subcommands:$/ { inside = 1; next }
         /^[^ ]/ || /^$/ { inside = 0 }
         inside && /^  [a-z]/ {
             name = $1; $1 = ""; sub(/^ +/, ""); print name "\t" $0 }' <<<"$1"
}

# The options of one command's --help: "NAME VALUED" lines, VALUED 1 when the option takes a
# value (CLI11 prints its type after the names: TEXT, INT, TARGET ...), else 0.
help_options() {  # help-text
    awk '/^Options:$/ { inside = 1; next }
         /^[^ ]/ || /^$/ { inside = 0 }
         inside && /^  -/ {
             # the type follows the names after one space, the description after two or more
             rest = substr($0, 3 + length($1)); valued = (rest ~ /^ [A-Z]/) ? 1 : 0
             n = split($1, names, ",")
             for (i = 1; i <= n; i++) print names[i], valued }' <<<"$1"
}

# Every command path below the binary, depth first, one a line ("" is the binary itself, then
# "inspect", "inspect jobs", ...). The help text of each is fetched again by the callers.
command_paths() {  # binary [path...]
    local binary="$1" help name
    shift
    echo "$*"
    help="$("$binary" "$@" --help)" || return 1
    while IFS=$'\t' read -r name _; do
        command_paths "$binary" "$@" "$name" || return 1
    done < <(help_subcommands "$help")
}
