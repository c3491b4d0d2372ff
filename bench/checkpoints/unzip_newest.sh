#!/bin/sh
# The shell alternative: the *.pt files by version sort, newest first, `unzip -tq` each (reads
# every entry and checks its CRC) until one passes. Prints the one found.
# Usage: unzip_newest.sh DIR
cd "$1" || exit 2
for f in $(ls -1 -- *.pt | sort -V -r); do
  if unzip -tq "$f" >/dev/null 2>&1; then echo "$f"; exit 0; fi
done
exit 1
