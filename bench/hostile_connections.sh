#!/usr/bin/env bash
# One user against the others on a root site daemon's control socket (issue 32), side by side
# in one run: for each daemon binary given (the one before the fix, then this one), a daemon on
# a dev cluster of its own, then bench_hostile_connections with 0, 8 and 64 hostile
# connections (uid 65534 keeps them busy with 3 MB `register` requests whose replies it never
# reads) while uid 65533 times `status` and `env`. Prints Markdown tables for bench/README.md.
# Run as root.
#
#   bench/hostile_connections.sh [OLD_SUPERVISOR_BINARY]      ROUNDS=200
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
bench="$build_dir/bench/bench_hostile_connections"
current="$build_dir/src/supervisor"
[[ -x "$bench" && -x "$current" ]] || { echo "build first: cmake --build $build_dir" >&2; exit 1; }
rounds="${ROUNDS:-200}"

export SLURM_TEST_DIR="${SLURM_TEST_DIR:-/tmp/slurm-supervisor-bench-hostile}"
export SLURM_TEST_CTLD_PORT="${SLURM_TEST_CTLD_PORT:-17217}"
export SLURM_TEST_SLURMD_PORT="${SLURM_TEST_SLURMD_PORT:-17221}"
work="$(mktemp -d /tmp/ssv-hostile.XXXXXX)"
chmod 755 "$work"
daemon=""
# errexit holds in the trap too: nothing in it may fail before the cluster is stopped.
trap '[[ -z "$daemon" ]] || kill "$daemon" 2>/dev/null || true
CLEAN=1 "$root/contrib/dev-cluster/down.sh" >/dev/null 2>&1 || true
rm -rf "$work"' EXIT
eval "$(CLEAN=1 DC_LAYOUT=loopback "$root/contrib/dev-cluster/up.sh" 2>/dev/null)"

echo "| daemon | hostile connections | \`status\`: median / p99 / max ms | \`env\`: median / p99 / max ms | no answer |"
echo "|---|---:|---|---|---:|"
for binary in "$@" "$current"; do
    label="$( [[ "$binary" == "$current" ]] && echo "this tree" || echo "before" )"
    rm -rf "$work/state" && mkdir -p "$work/state"
    SUPERVISOR_STATE_DIR="$work/state" "$binary" run --poll-interval-ms 1000 \
        --control-socket "$work/control.sock" >"$work/daemon-$label.log" 2>&1 &
    daemon=$!
    for _ in $(seq 100); do [[ -S "$work/control.sock" ]] && break; sleep 0.1; done
    for connections in 0 8 64; do
        row="$("$bench" --socket "$work/control.sock" --hostile-uid 65534 --victim-uid 65533 \
            --connections "$connections" --rounds "$rounds")"
        echo "| $label ${row#| }"
    done
    kill "$daemon"; wait "$daemon" 2>/dev/null || true
    daemon=""
done
