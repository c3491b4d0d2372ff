#!/usr/bin/env bash
# The bash completion that the build generates from the binary's --help
# (contrib/cli-docs/bash-completion.sh) completes real subcommands and their options: it fails
# when the generator, or the --help it reads, breaks.
#   completion_test.sh SUPERVISOR_BINARY GENERATOR
set -uo pipefail
binary="$1"
generator="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash "$generator" "$binary" "$tmp/supervisor" || { echo "FAIL: the generator failed"; exit 1; }
failures=0
expect() {  # expected words...: COMPREPLY for the words, the last one being completed
    local expected="$1" got
    shift
    got="$(bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _supervisor; echo "${COMPREPLY[*]}"' completion "$tmp/supervisor" "$@")"
    if [[ "$got" == "$expected" ]]; then
        echo "ok: '$*' -> '$got'"
    else
        echo "FAIL: '$*' completed to '$got', not '$expected'"
        failures=$((failures + 1))
    fi
}
expect register supervisor regis
expect --checkpoint-dir supervisor register --checkpoint-d
expect --checkpoint-dir supervisor register 4711 --checkpoint-d
expect nodes supervisor inspect n
expect --slurm-conf supervisor --slurm-c
expect --json supervisor doctor --js
expect "" supervisor register --checkpoint-dir ""   # a value: bash's file completion
# Every subcommand --help lists is offered after `supervisor `.
all="$(bash -c 'source "$1"; COMP_WORDS=(supervisor ""); COMP_CWORD=1; _supervisor
    echo "${COMPREPLY[*]}"' completion "$tmp/supervisor")"
for command in diagnose register unregister status events env run doctor sbatch job-ended; do
    [[ " $all " == *" $command "* ]] || { echo "FAIL: '$command' not offered: $all"; failures=$((failures + 1)); }
done
((failures == 0)) || exit 1
echo "ok: bash completion"
