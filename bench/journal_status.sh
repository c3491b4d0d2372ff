#!/usr/bin/env bash
# `supervisor status` and `status --json` of 10,000 jobs with weeks of history (issue 17), for
# one or several built binaries side by side on the same database file.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/journal_status.sh [--help]

Fills a store with build/bench/bench_journal_at_scale (JOBS jobs, half of them over, WEEKS of
history, FAILURES_PER_WEEK failures a week; its own table of in-process timings goes to
stderr), then for each binary times `supervisor --state-dir DIR status` and `status --json`
RUNS times on its own copy of the file (one untimed run first, which also migrates the copy to
the binary's schema), alternating binaries. Prints a Markdown table of medians (wall, user
CPU, peak RSS) and whether the outputs are byte-identical.

Environment:
  JOBS=10000 WEEKS=8 FAILURES_PER_WEEK=2 RUNS=3
  SUPERVISORS="new=PATH old=PATH"  (default: build/src/supervisor)
USAGE
}
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { usage; exit 0; }
[[ $# -eq 0 ]] || { usage >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fill="$root/build/bench/bench_journal_at_scale"
read -r -a binaries <<<"${SUPERVISORS:-ours=$root/build/src/supervisor}"
for entry in "$fill" "${binaries[@]#*=}"; do
    [[ -x "$entry" ]] || { echo "build first (missing $entry)" >&2; exit 1; }
done
runs="${RUNS:-3}"
work="$(mktemp -d /tmp/bench-journal-status.XXXXXX)"
trap 'rm -rf "$work"' EXIT

"$fill" --jobs "${JOBS:-10000}" --weeks "${WEEKS:-8}" \
    --failures-per-week "${FAILURES_PER_WEEK:-2}" --repeats 3 --keep "$work/filled" >&2
for entry in "${binaries[@]}"; do
    label="${entry%%=*}"
    cp -r "$work/filled" "$work/$label"
    if ! "${entry#*=}" --state-dir "$work/$label/state" status >/dev/null 2>"$work/err"; then
        # A binary from before schema 9 (which only added the index events_by_kind) reads
        # the file once the index is dropped and the version set back.
        grep -q "newer than this supervisor knows (8)" "$work/err" || { cat "$work/err" >&2; exit 1; }
        python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DROP INDEX events_by_kind")
db.execute("PRAGMA user_version = 8")
db.commit()' "$work/$label/state/supervisor.db"
        "${entry#*=}" --state-dir "$work/$label/state" status >/dev/null
    fi
done

for ((i = 0; i < runs; i++)); do
    for entry in "${binaries[@]}"; do
        label="${entry%%=*}"
        for mode in text json; do
            mode_flag=()
            [[ $mode == json ]] && mode_flag=(--json)
            /usr/bin/time -f "$label $mode %e %U %M" -a -o "$work/times" \
                "${entry#*=}" --state-dir "$work/$label/state" status \
                "${mode_flag[@]}" >"$work/out-$label-$mode"
        done
    done
done

echo "| binary | status: wall | user CPU | peak RSS | status --json: wall | user CPU | peak RSS | --json output |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for entry in "${binaries[@]}"; do
    label="${entry%%=*}"
    median() {  # mode column
        awk -v l="$label" -v m="$1" '$1 == l && $2 == m {print $'"$2"'}' "$work/times" | sort -n |
            awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
    }
    printf '| %s | %.2f s | %.2f s | %.0f MiB | %.2f s | %.2f s | %.0f MiB | %.1f MB |\n' "$label" \
        "$(median text 3)" "$(median text 4)" "$(($(median text 5) / 1024))" \
        "$(median json 3)" "$(median json 4)" "$(($(median json 5) / 1024))" \
        "$(($(stat -c %s "$work/out-$label-json") / 100000))e-1"
done
first="${binaries[0]%%=*}"
for entry in "${binaries[@]:1}"; do
    label="${entry%%=*}"
    for mode in text json; do
        if cmp -s "$work/out-$first-$mode" "$work/out-$label-$mode"; then
            echo "$label $mode output: byte-identical to $first's"
        else
            echo "$label $mode output: DIFFERS from $first's"
        fi
    done
done
