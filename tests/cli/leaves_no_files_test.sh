#!/bin/sh
# A passing test process leaves nothing in the temp dir, and keeps its files when asked to
# (tests/support/scratch_dir.h). Runs one test of TEST_BINARY that copies the 150 MB
# supervisor binary into its scratch directory, the kind of leak that once filled CI's disk.
# usage: leaves_no_files_test.sh TEST_BINARY GTEST_FILTER
set -u
binary=$1
filter=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

TMPDIR=$tmp "$binary" --gtest_filter="$filter" >"$tmp.log" 2>&1 || {
    cat "$tmp.log"; rm -f "$tmp.log"; echo "FAIL: $filter did not pass"; exit 1; }
rm -f "$tmp.log"
left=$(ls -A "$tmp")
if [ -n "$left" ]; then
    echo "FAIL: a passing run left files in its temp dir: $left"
    exit 1
fi

SUPERVISOR_KEEP_TEST_FILES=1 TMPDIR=$tmp "$binary" --gtest_filter="$filter" >/dev/null 2>&1
if [ -z "$(ls -A "$tmp")" ]; then
    echo "FAIL: SUPERVISOR_KEEP_TEST_FILES=1 kept nothing"
    exit 1
fi
echo "ok: nothing left after a pass; files kept when asked"
