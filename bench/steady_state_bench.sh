#!/usr/bin/env bash
# Fast warm-up against a brute-force timed warm-up, in one run (issue 17):
# for each layout, 8 jobs x QD32 uniform 4k random reads over 8 GiB, the
# same measured window (runtime) after
#   fast:  warmup=fast, then a 500 ms timed ramp
#   brute: no warm-up, a timed ramp of RAMP simulated seconds (900 s)
# and the ratio of their read IOPS (target: within +-3 %) and of their wall
# times (target: fast at least 20x quicker).
#
#   bench/steady_state_bench.sh [BUILD_DIR] [RAMP] [LAYOUT...]   (from the repo root)
#
# BUILD_DIR defaults to build, RAMP to 900s, the layouts to nvme2+hdd4 and
# ssd2+hdd4. A brute-force cell takes minutes of wall time (about 5 at 900 s
# on a 2.3 GHz core); RAMP=60s gives a quick look.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ramp=${2:-900s}
shift $(($# > 2 ? 2 : $#))
layouts=("$@")
[ ${#layouts[@]} -gt 0 ] || layouts=(nvme2+hdd4 ssd2+hdd4)
bin="$build/tierlab"
[ -x "$bin" ] || { echo "steady_state_bench.sh: $bin not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

job() {  # name, extra lines
  printf '[%s]\nrw=randread\nbs=4k\nsize=8g\nnumjobs=8\niodepth=32\nruntime=2s\ntime_based\n%s\n' \
    "$1" "$2" >"$tmp/$1.fio"
}
job fast $'warmup=fast\nramp_time=500ms'
job brute "ramp_time=$ramp"

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date: $(date -u +%Y-%m-%d); brute-force ramp: $ramp simulated"
printf '%-12s %12s %12s %8s %9s %9s %8s %12s\n' layout fast_iops brute_iops ratio fast_s brute_s speedup warm_accesses
for l in "${layouts[@]}"; do
  for k in fast brute; do
    start=$(date +%s.%N)
    "$bin" run -l "$l" -p "$tmp/$k.fio" -f json >"$tmp/$l-$k.json" 2>/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc >"$tmp/$l-$k.wall"
  done
  python3 - "$l" "$tmp/$l-fast.json" "$tmp/$l-brute.json" "$(cat "$tmp/$l-fast.wall")" \
    "$(cat "$tmp/$l-brute.wall")" <<'PY'
import json, sys
layout, fast, brute = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
fw, bw = float(sys.argv[4]), float(sys.argv[5])
fi, bi = fast["jobs"][0]["read"]["iops"], brute["jobs"][0]["read"]["iops"]
acc = fast["jobs"][0]["warmup"].get("accesses", 0)
print(f"{layout:<12} {fi:12.0f} {bi:12.0f} {fi / bi:8.4f} {fw:9.1f} {bw:9.1f} {bw / fw:8.1f} {acc:12d}")
PY
done
