#!/bin/sh
# Checkpoint finder benchmark (bench/README.md, "Checkpoints"). Writes its trees to WORK
# (default /tmp/ckpt-bench; deleted at the end, the 3 GiB file included), then:
#  1. the newest valid checkpoint among 10,000 torch.save files whose newest 5 are truncated:
#     `supervisor checkpoints` vs a Python loop that torch.loads newest first vs `unzip -tq`
#     newest first (hyperfine, warm cache), and the bytes each read (/proc/<pid>/io);
#  2. one 3 GiB torch.save file (Zip64): `supervisor checkpoints` vs `unzip -tq` vs
#     torch.load, cold (page cache dropped, or else the file's pages evicted) and warm.
# Usage: bench/checkpoints/run_bench.sh BUILD_DIR [WORK]     (BUILD_DIR: an existing build dir)
set -eu
build=$1
work=${2:-/tmp/ckpt-bench}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
bin="$build/src/supervisor"
cmake --build "$build" --target supervisor -j2 >/dev/null
command -v unzip >/dev/null || { echo "unzip missing: apt-get install -y unzip" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/many" "$work/big" "$work/empty"
trap 'rm -rf "$work"' EXIT

cold() {  # drop the page cache, or at least the file's own pages
  sync
  if echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then echo "  (page cache dropped)"
  else "$py" "$here/evict.py" "$@"; echo "  (drop_caches refused: the file's pages evicted with posix_fadvise DONTNEED)"
  fi
}
measure() { "$py" "$here/measure.py" "$@"; }

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== 1. newest valid checkpoint among 10,000 candidates"
"$py" "$here/gen_tree.py" many "$work/many" 10000 5
"$bin" checkpoints "$work/many" --json | "$py" -c 'import json,sys; j=json.load(sys.stdin); c=[x for x in j["candidates"] if x["verdict"]!="not_checked"]; print("  ours: chose", j["chosen"], "| validated", len(c), "of", len(j["candidates"]), "| bytes_read (own count)", j["bytes_read"])'
"$here/unzip_newest.sh" "$work/many" | sed 's/^/  unzip loop: chose /'
"$py" "$here/torch_load_newest.py" "$work/many" 2>&1 | sed 's/^/  torch.load loop: /'
hyperfine -N --warmup 1 --runs 10 --export-json "$work/many.json" \
  -n ours "$bin checkpoints $work/many" \
  -n unzip_loop "sh $here/unzip_newest.sh $work/many" \
  -n torch_load_loop "$py $here/torch_load_newest.py $work/many" 2>&1 | grep -v '^ *$'
measure ours_empty_dir_baseline -- "$bin" checkpoints "$work/empty"
measure ours -- "$bin" checkpoints "$work/many"
measure python_import_torch_baseline -- "$py" -c "import torch"
measure torch_load_loop -- "$py" "$here/torch_load_newest.py" "$work/many"
# gen_tree.py names them step_NNNNNN.pt: nothing to split or glob in them.
# shellcheck disable=SC2046
measure unzip_loop --first-success -- unzip -tq -- $(ls -1 "$work"/many/*.pt | sort -V -r)

echo "== 2. one multi-GB checkpoint file"
"$py" "$here/gen_tree.py" big "$work/big" 3
big="$work/big/step_000100.pt"
ls -l "$big"
"$bin" checkpoints "$work/big" --json | "$py" -c 'import json,sys; j=json.load(sys.stdin); c=j["candidates"][0]; print("  ours:", c["verdict"], "|", c["reason"], "| bytes_read", c["bytes_read"])'
for run in cold warm warm; do
  [ "$run" = cold ] && cold "$big"
  measure "ours_$run" -- "$bin" checkpoints "$work/big"
done
for run in cold warm; do
  [ "$run" = cold ] && cold "$big"
  measure "unzip_tq_$run" -- unzip -tq "$big"
done
for run in cold warm; do
  [ "$run" = cold ] && cold "$big"
  measure "torch_load_$run" -- "$py" -c "import sys, torch; torch.load(sys.argv[1], map_location='cpu')" "$big"
done
