#!/usr/bin/env bash
# Figures for docs/PERFORMANCE.md, section "NBD serve vs nbdkit":
#   1. fio --ioengine=nbd, 4k random 50/50 read/write, QD16, one connection,
#      against `tierlab serve` on a persistent write-back cached volume whose
#      files live in /dev/shm (cache 1 GiB of 4 KiB lines in front of a 1 GiB
#      capacity file; the journal commits on fio's flushes), and against
#      `nbdkit memory` with the same job; rounds alternate the servers.
#   2. Recovery time after SIGKILL with a full dirty cache: 1 GiB of 4 KiB
#      dirty lines (262144), measured from the restart to the socket
#      accepting, and the open's own recovery time as serve reports it.
#
# Each round also reports CPU time per I/O of each server process (user +
# system from /proc/PID/stat over the run): steadier than IOPS on a shared
# machine.
#
#   bench/volume_serve_bench.sh [tierlab-binary]
# Environment: RUNTIME (s per run, default 10), ROUNDS (default 2),
# FSYNC (fio fsync= for the IOPS job, default 0 = no flushes), SHM_DIR.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-${TIERLAB_BIN:-$repo/build/tierlab}}"
runtime="${RUNTIME:-10}"
rounds="${ROUNDS:-2}"
fsync="${FSYNC:-0}"
shm="${SHM_DIR:-/dev/shm}"
command -v fio >/dev/null || { echo "fio not found" >&2; exit 2; }
command -v nbdkit >/dev/null || { echo "nbdkit not found" >&2; exit 2; }
[[ -x "$bin" ]] || { echo "$bin: not built" >&2; exit 2; }

work="$(mktemp -d "$shm/tierlab-bench.XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/layout.json" <<JSON
{"name": "shm", "tiers": [
  {"name": "cache", "preset": "nvme-pm1725", "count": 1, "capacity": "1g"},
  {"name": "capacity", "preset": "hdd-7200", "count": 1, "capacity": "1g"}],
 "cache": {"tier": "cache", "write": "writeback", "line_size": "4k", "capacity": "1g",
           "high_watermark": 100, "low_watermark": 95}}
JSON
"$bin" create "$work/layout.json" --name shm --dir "$work/vol" >/dev/null

wait_sock() { for _ in $(seq 400); do [[ -S "$1" ]] && return 0; sleep 0.005; done; return 1; }
serve() {
  "$bin" serve "$work/vol" --nbd "unix:$work/t.sock" >/dev/null 2>>"$work/serve.err" &
  spid=$!
  pids+=("$spid")
  wait_sock "$work/t.sock"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
iops() {  # SOCKET LABEL SERVER_PID: prints "IOPS CPU-µs-per-I/O"
  local c0 c1
  c0=$(cpu_ticks "$3")
  fio --name="$2" --ioengine=nbd --uri="nbd+unix:///?socket=$1" --rw=randrw --rwmixread=50 \
    --bs=4k --iodepth=16 --size=1g --time_based --runtime="$runtime" --fsync="$fsync" \
    --randseed=42 --output-format=json --output="$work/$2.json" >"$work/$2.log" 2>&1 ||
    { cat "$work/$2.log" >&2; return 1; }
  c1=$(cpu_ticks "$3")
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; n=j["read"]["total_ios"]+j["write"]["total_ios"]; print(round(j["read"]["iops"]+j["write"]["iops"]), round((int(sys.argv[3])-int(sys.argv[2]))/int(sys.argv[4])*1e6/n, 2))' \
    "$work/$2.json" "$c0" "$c1" "$(getconf CLK_TCK)"
}

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  cpus: $(nproc)  fio: $(fio --version)  nbdkit: $(nbdkit --version | head -1)"
echo "job: randrw 50/50 4k QD16 size=1g runtime=${runtime}s fsync=$fsync, ${rounds} rounds"
nbdkit --unix "$work/k.sock" --foreground memory 1G >/dev/null 2>&1 &
kpid=$!
pids+=("$kpid")
wait_sock "$work/k.sock"
serve
# Warm both: the first pass over a sparse region allocates.
fio --name=warm --ioengine=nbd --uri="nbd+unix:///?socket=$work/t.sock" --rw=write --bs=1m \
  --size=1g --iodepth=4 >/dev/null 2>&1
fio --name=warm --ioengine=nbd --uri="nbd+unix:///?socket=$work/k.sock" --rw=write --bs=1m \
  --size=1g --iodepth=4 >/dev/null 2>&1
t_sum=0
k_sum=0
tc_all=""
kc_all=""
for r in $(seq "$rounds"); do
  read -r t tc < <(iops "$work/t.sock" tierlab "$spid")
  read -r k kc < <(iops "$work/k.sock" nbdkit "$kpid")
  echo "round $r: tierlab serve $t IOPS ($tc µs CPU/I/O), nbdkit memory $k IOPS ($kc µs CPU/I/O)"
  t_sum=$((t_sum + t))
  k_sum=$((k_sum + k))
  tc_all="$tc_all $tc"
  kc_all="$kc_all $kc"
done
python3 -c "t=$t_sum/$rounds; k=$k_sum/$rounds; print(f'mean: tierlab {t:.0f} IOPS, nbdkit {k:.0f} IOPS, ratio {t/k:.2f}')"
python3 -c "import sys; a=[float(x) for x in '$tc_all'.split()]; b=[float(x) for x in '$kc_all'.split()]; print(f'CPU per I/O: tierlab {sum(a)/len(a):.2f} µs, nbdkit {sum(b)/len(b):.2f} µs')"

# Recovery with 1 GiB of dirty 4 KiB lines: overwrite the whole volume (the
# warm-up already filled the cache; watermark 100% keeps every line dirty),
# flush, SIGKILL, restart.
fio --name=dirty --ioengine=nbd --uri="nbd+unix:///?socket=$work/t.sock" --rw=randwrite \
  --bs=4k --size=1g --iodepth=16 --end_fsync=1 --randseed=7 >/dev/null 2>&1
"$bin" status "$work/vol" --format json |
  python3 -c 'import json,sys; m=json.load(sys.stdin)["metadata"]; print("committed dirty lines before the kill:", m["committed_dirty_lines"])'
kill -KILL "$spid"
wait "$spid" 2>/dev/null || true
rm -f "$work/t.sock"
t0=$(date +%s.%N)
serve
t1=$(date +%s.%N)
python3 -c "print(f'restart to socket ready: {$t1 - $t0:.3f} s')"
grep 'recovered' "$work/serve.err" | tail -1
