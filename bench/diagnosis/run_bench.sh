#!/bin/sh
# Diagnosis benchmark: writes synthetic logs to /tmp (never committed), then measures
# diagnose time + peak RSS on 10 MB and 2 GB, and the RE2::Set pass vs grep -E -f.
# Usage: bench/diagnosis/run_bench.sh BUILD_DIR   (BUILD_DIR holds bench/diagnosis/bench_diagnosis)
# The 2 GB grep run takes minutes; set SKIP_2G_GREP=1 to skip it.
set -eu
bin="$1/bench/diagnosis/bench_diagnosis"
here=$(dirname "$0")
python3 "$here/gen_log.py" /tmp/diag-10M.log 10
head -n -64 /tmp/diag-10M.log > /tmp/diag-body.log
tail -n 64 /tmp/diag-10M.log > /tmp/diag-end.log
for _ in $(seq 200); do cat /tmp/diag-body.log; done > /tmp/diag-2G.log
cat /tmp/diag-end.log >> /tmp/diag-2G.log
"$bin" patterns | python3 "$here/to_ere.py" > /tmp/patterns.ere
for f in /tmp/diag-10M.log /tmp/diag-2G.log; do
  /usr/bin/time -v "$bin" diagnose "$f" 2>&1 | grep -E 'cause=|_ms|Maximum resident|Elapsed'
done
for f in /tmp/diag-10M.log /tmp/diag-2G.log; do
  /usr/bin/time -f '%e s wall, %M KB peak RSS' "$bin" match "$f"
  if [ "$f" = /tmp/diag-2G.log ] && [ "${SKIP_2G_GREP:-0}" = 1 ]; then continue; fi
  /usr/bin/time -f '%e s wall, %M KB peak RSS' grep -E -c -f /tmp/patterns.ere "$f"
done
