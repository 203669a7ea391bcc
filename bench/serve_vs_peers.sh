#!/usr/bin/env bash
# tierlab serve against the NBD servers a storage engineer would use instead,
# in one run (issue 19 item 5; figures in docs/PERFORMANCE.md, "NBD serve
# against nbdkit and qemu-nbd"):
#   tierlab   a persistent write-back cached volume (cache 1 GiB of 4 KiB
#             lines over a 1 GiB capacity file), its files in DIR
#   nbdkit-file   `nbdkit file` on a 1 GiB file in DIR
#   qemu-nbd      `qemu-nbd -f raw -t` (persistent) on the same file
#   nbdkit-memory `nbdkit memory 1G`
# Each server gets the same fio job (--ioengine=nbd, 4k randrw 50/50, QD16,
# one connection, the export written once first); rounds alternate the
# servers. Each run also reports the server's CPU time per I/O (user +
# system from /proc/PID/stat, all its threads), steadier than IOPS on a
# shared machine, and the fio client's share of a core (its usr_cpu +
# sys_cpu): near 100% the client binds the run, and a server that polls
# (tierlab's engine loop does for 20 us after work) then spends about a
# core over the IOPS whatever its own work. The peers run with their defaults: nbdkit file and
# qemu-nbd go through the page cache, tierlab's files use O_DIRECT (the
# engine `auto` picks: io_uring on a disk, libaio and mapped files on tmpfs).
#
#   bench/serve_vs_peers.sh [tierlab-binary]
# Environment: DIR (default: a new directory under the build directory, on
#   the repo's filesystem; /dev/shm for memory files), RUNTIME (s, default
#   10), ROUNDS (default 3), SERVERS (default "tierlab nbdkit-file qemu-nbd
#   nbdkit-memory").
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-${TIERLAB_BIN:-$repo/build/tierlab}}"
runtime="${RUNTIME:-10}"
rounds="${ROUNDS:-3}"
servers="${SERVERS:-tierlab nbdkit-file qemu-nbd nbdkit-memory}"
for c in fio nbdkit qemu-nbd python3; do
  command -v "$c" >/dev/null || { echo "$c not found" >&2; exit 2; }
done
[[ -x "$bin" ]] || { echo "$bin: not built" >&2; exit 2; }
base="${DIR:-$(dirname "$bin")}"
work="$(mktemp -d "$base/tierlab-peers.XXXXXX")"
sockdir="$(mktemp -d)"  # unix socket paths must stay short
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work" "$sockdir"
}
trap cleanup EXIT

cat >"$work/layout.json" <<JSON
{"name": "peers", "tiers": [
  {"name": "cache", "preset": "nvme-pm1725", "count": 1, "capacity": "1g"},
  {"name": "capacity", "preset": "ssd-hk4e", "count": 1, "capacity": "1g"}],
 "cache": {"tier": "cache", "write": "writeback", "line_size": "4k", "capacity": "1g",
           "high_watermark": 100, "low_watermark": 95}}
JSON
"$bin" create "$work/layout.json" --name peers --dir "$work/vol" >/dev/null
truncate -s 1G "$work/raw.img"

wait_sock() { for _ in $(seq 1000); do [[ -S "$1" ]] && return 0; sleep 0.005; done; return 1; }
declare -A pid_of
start() {  # NAME: starts the server on $sockdir/NAME.sock
  local s="$sockdir/$1.sock"
  case "$1" in
    tierlab) "$bin" serve "$work/vol" --nbd "unix:$s" >/dev/null 2>>"$work/serve.err" & ;;
    nbdkit-file) nbdkit --unix "$s" --foreground file "$work/raw.img" >/dev/null 2>&1 & ;;
    qemu-nbd) qemu-nbd -f raw -t -k "$s" "$work/raw.img" >/dev/null 2>&1 & ;;
    nbdkit-memory) nbdkit --unix "$s" --foreground memory 1G >/dev/null 2>&1 & ;;
    *) echo "unknown server $1" >&2; exit 2 ;;
  esac
  pid_of[$1]=$!
  pids+=("$!")
  wait_sock "$s" || { echo "$1 did not start" >&2; exit 1; }
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
run() {  # NAME: prints "IOPS CPU-us-per-I/O client-CPU-%"
  local c0 c1 s="$sockdir/$1.sock"
  c0=$(cpu_ticks "${pid_of[$1]}")
  fio --name="$1" --ioengine=nbd --uri="nbd+unix:///?socket=$s" --rw=randrw --rwmixread=50 \
    --bs=4k --iodepth=16 --size=1g --time_based --runtime="$runtime" --randseed=42 \
    --output-format=json --output="$work/$1.json" >"$work/$1.log" 2>&1 ||
    { cat "$work/$1.log" >&2; return 1; }
  c1=$(cpu_ticks "${pid_of[$1]}")
  python3 - "$work/$1.json" "$c0" "$c1" "$(getconf CLK_TCK)" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
ios = job["read"]["total_ios"] + job["write"]["total_ios"]
server_us = (int(sys.argv[3]) - int(sys.argv[2])) / int(sys.argv[4]) * 1e6
print(round(job["read"]["iops"] + job["write"]["iops"]),  # IOPS
      round(server_us / ios, 2),  # the server's CPU per I/O
      round(job["usr_cpu"] + job["sys_cpu"]))  # fio's share of a core, %
PY
}

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  cpus: $(nproc)  load: $(cut -d' ' -f1 /proc/loadavg)  $(fio --version)  $(nbdkit --version | head -1)  $(qemu-nbd --version | head -1)"
echo "dir: $(df --output=fstype "$work" | tail -1); job: randrw 50/50 4k QD16 size=1g runtime=${runtime}s, $rounds rounds"
for s in $servers; do
  start "$s"
  fio --name=fill --ioengine=nbd --uri="nbd+unix:///?socket=$sockdir/$s.sock" --rw=write \
    --bs=1m --size=1g --iodepth=4 >/dev/null 2>&1
done
declare -A sum cpu client
for s in $servers; do sum[$s]=0; cpu[$s]=""; client[$s]=""; done
for r in $(seq "$rounds"); do
  line="round $r:"
  for s in $servers; do
    read -r i c f < <(run "$s")
    sum[$s]=$((sum[$s] + i))
    cpu[$s]="${cpu[$s]} $c"
    client[$s]="${client[$s]} $f"
    line="$line $s $i ($c us, fio $f%)"
  done
  echo "$line"
done
best=0
best_name=""
for s in $servers; do
  [[ $s == tierlab ]] && continue
  m=$((sum[$s] / rounds))
  if ((m > best)); then best=$m; best_name=$s; fi
done
for s in $servers; do
  python3 - "$s" "$((sum[$s] / rounds))" "${cpu[$s]}" "$best" "$best_name" "${client[$s]}" <<'PY'
import sys
name, iops, best, best_name = sys.argv[1], int(sys.argv[2]), int(sys.argv[4]), sys.argv[5]
cpu = [float(x) for x in sys.argv[3].split()]  # per round, us per I/O
fio = [float(x) for x in sys.argv[6].split()]  # per round, % of a core
line = (f"{name:14s} mean {iops:8d} IOPS  CPU/I/O {sum(cpu) / len(cpu):6.2f} us"
        f"  fio {sum(fio) / len(fio):3.0f}% of a core")
if best:
    line += f"  ratio to best peer ({best_name}) {iops / best:.2f}"
print(line)
PY
done
