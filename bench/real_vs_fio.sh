#!/usr/bin/env bash
# Compares tierlab's real I/O path (FileDevice on a RealEngine, O_DIRECT,
# through io_uring and through libaio) with fio's io_uring and libaio engines
# on the same file, in one run: 4k random read and write at QD32 and QD1, one
# job and four.
#
#   bench/real_vs_fio.sh [build-dir]
#
# Environment:
#   SIZE     file size (default 1G)
#   RUNTIME  seconds per run (default 5)
#   ROUNDS   runs per engine and point (default 2; the four engines take
#            turns, so a burst of load on this shared machine hits all)
#   TARGETS  "disk" and/or "shm" (default "disk"): the disk file lives in a
#            temporary directory under the build directory, i.e. on the
#            repo's filesystem (not /tmp, which may be tmpfs)
#   POINTS   rw:qd:jobs triples (default "randread:32:1 randwrite:32:1
#            randread:1:1 randwrite:1:1 randread:32:4 randwrite:32:4")
#   VIA      bench (default: bench/micro/FileDeviceBench) or cli (the whole
#            `tierlab run --real` path: layout with the file as its one
#            device, profile with rw, iodepth, numjobs)
# Files are laid out with real data first (a hole would read without touching
# the disk). Prints the mean IOPS per engine and point (and the mean latency
# at QD1, one job) and the engine tierlab's `auto` picks there (io_uring on
# the disk, libaio on tmpfs; FileDevice.h) against fio's best engine.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-${TIERLAB_BUILD_DIR:-$repo/build}}"
bench_bin="$build/bench/micro/FileDeviceBench"
size="${SIZE:-1G}"
runtime="${RUNTIME:-5}"
rounds="${ROUNDS:-2}"
targets="${TARGETS:-disk}"
points="${POINTS:-randread:32:1 randwrite:32:1 randread:1:1 randwrite:1:1 randread:32:4 randwrite:32:4}"
via="${VIA:-bench}"

command -v fio >/dev/null || { echo "fio not found" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq not found" >&2; exit 2; }
[[ "$via" == cli || -x "$bench_bin" ]] || {
  echo "$bench_bin not built (ninja -C $build FileDeviceBench)" >&2
  exit 2
}

cleanup_paths=()
cleanup() { rm -rf "${cleanup_paths[@]}"; }
trap cleanup EXIT

make_file() {  # $1 = directory; sets $file to a laid-out file in a new temp dir
  local dir
  dir="$(mktemp -d "$1/tierlab-real-vs-fio.XXXXXX")"
  cleanup_paths+=("$dir")
  file="$dir/data.img"
  fio --name=layout --filename="$file" --size="$size" --rw=write --bs=1M \
    --ioengine=libaio --direct=1 --iodepth=8 --output=/dev/null
}

dir_of() { [[ "$1" == randread ]] && echo read || echo write; }

run_fio() {  # file engine rw qd jobs
  fio --name=job --filename="$1" --size="$size" --ioengine="$2" --direct=1 \
    --rw="$3" --bs=4k --iodepth="$4" --numjobs="$5" --group_reporting \
    --runtime="$runtime" --time_based --output-format=json |
    jq ".jobs[0].$(dir_of "$3").iops"
}

run_tierlab() {  # file engine rw qd jobs
  if [[ "$via" == cli ]]; then
    local d layout profile
    d="$(dirname "$1")"
    layout="$d/layout.json"
    profile="$d/profile.json"
    printf '{"name": "file", "tiers": [{"name": "d", "preset": "nvme-pm1725", "count": 1, "paths": ["%s"], "engine": "%s"}]}\n' \
      "$1" "$2" >"$layout"
    printf '{"name": "j", "rw": "%s", "bs": "4k", "iodepth": %s, "numjobs": %s, "runtime": "%ss"}\n' \
      "$3" "$4" "$5" "$runtime" >"$profile"
    "$build/tierlab" run --real --layout "$layout" --profile "$profile" --format json |
      jq "[.jobs[].$(dir_of "$3").iops] | add"
    return
  fi
  local e=0 w=0
  [[ "$2" == libaio ]] && e=1
  [[ "$3" == randwrite ]] && w=1
  TIERLAB_BENCH_FILE="$1" TIERLAB_BENCH_SECONDS="$runtime" "$bench_bin" \
    --benchmark_filter="BM_FileDevice4k/engine:$e/write:$w/qd:$4/jobs:$5/" \
    --benchmark_format=json 2>/dev/null | jq '.benchmarks[0].IOPS'
}

engines=(fio:io_uring fio:libaio tierlab:io_uring tierlab:libaio)
echo "# tierlab ($via) vs fio: 4k, size=$size, runtime=${runtime}s, rounds=$rounds"
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(uname -r), $(fio --version), load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-6s %-16s %12s %12s %12s %12s %8s\n' target point fio_uring fio_libaio tl_uring tl_libaio \
  auto/best
for target in $targets; do
  case "$target" in
    shm) [[ -d /dev/shm ]] || { echo "no /dev/shm, skipped"; continue; }
         make_file /dev/shm ;;
    disk) mkdir -p "$build"; make_file "$build" ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
  df -h "$file" | tail -1 | awk -v t="$target" '{print "# " t ": " $1 " mounted on " $6}'
  for point in $points; do
    IFS=: read -r rw qd jobs <<<"$point"
    declare -A sum=()
    for e in "${engines[@]}"; do sum[$e]=0; done
    for ((r = 1; r <= rounds; r++)); do
      # Rotate the order each round so no engine always runs first.
      for ((k = 0; k < ${#engines[@]}; k++)); do
        e="${engines[$(((k + r - 1) % ${#engines[@]}))]}"
        if [[ "$e" == fio:* ]]; then
          v="$(run_fio "$file" "${e#fio:}" "$rw" "$qd" "$jobs")"
        else
          v="$(run_tierlab "$file" "${e#tierlab:}" "$rw" "$qd" "$jobs")"
        fi
        sum[$e]="$(echo "${sum[$e]} + $v" | bc -l)"
      done
    done
    m() { echo "${sum[$1]} / $rounds" | bc -l; }
    fu="$(m fio:io_uring)"; fl="$(m fio:libaio)"; tu="$(m tierlab:io_uring)"; tl="$(m tierlab:libaio)"
    best="$(echo "if ($fu > $fl) $fu else $fl" | bc -l)"
    auto="$tu"
    [[ "$target" == shm ]] && auto="$tl"
    printf '%-6s %-16s %12.0f %12.0f %12.0f %12.0f %8.3f\n' "$target" "$rw:qd$qd:j$jobs" \
      "$fu" "$fl" "$tu" "$tl" "$(echo "$auto / $best" | bc -l)"
    if [[ "$qd" == 1 && "$jobs" == 1 ]]; then
      printf '%-6s %-16s %10.1fus %10.1fus %10.1fus %10.1fus  (mean latency = 1/IOPS)\n' \
        "$target" "$rw:qd1 lat" "$(echo "1000000 / $fu" | bc -l)" "$(echo "1000000 / $fl" | bc -l)" \
        "$(echo "1000000 / $tu" | bc -l)" "$(echo "1000000 / $tl" | bc -l)"
    fi
    unset sum
  done
done
