#!/usr/bin/env bash
# Compares tierlab's real I/O path (FileDevice on a RealEngine, libaio,
# O_DIRECT) with fio on the same file: 4k random read at queue depth 32.
#
#   bench/real_vs_fio.sh [build-dir]
#
# Environment: SIZE (default 1G), RUNTIME seconds (default 10), ROUNDS
# (default 2; fio and tierlab alternate to spread noise), TARGETS (default
# "shm disk"). The "disk" file lives in a temporary directory under the build
# directory, i.e. on the repo's filesystem (not /tmp, which may be tmpfs).
# VIA=cli measures the whole `tierlab run --real` path (layout with the file
# as its one device, runner, metrics) instead of the FileDevice benchmark.
# Both files are laid out with real data first: reading a hole would never
# touch the disk. Prints IOPS of each run, the means and tierlab/fio ratio.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-${TIERLAB_BUILD_DIR:-$repo/build}}"
bench_bin="$build/bench/micro/FileDeviceBench"
size="${SIZE:-1G}"
runtime="${RUNTIME:-10}"
rounds="${ROUNDS:-2}"
targets="${TARGETS:-shm disk}"

command -v fio >/dev/null || { echo "fio not found" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq not found" >&2; exit 2; }
[[ "${VIA:-bench}" == cli || -x "$bench_bin" ]] || {
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

run_fio() {
  fio --name=randread --filename="$1" --size="$size" --ioengine=libaio --direct=1 \
    --rw=randread --bs=4k --iodepth=32 --runtime="$runtime" --time_based --numjobs=1 \
    --output-format=json | jq '.jobs[0].read.iops'
}

via="${VIA:-bench}"

run_tierlab() {
  if [[ "$via" == cli ]]; then
    local dir layout profile
    dir="$(dirname "$1")"
    layout="$dir/layout.json"
    profile="$dir/profile.json"
    printf '{"name": "file", "tiers": [{"name": "d", "preset": "nvme-pm1725", "count": 1, "paths": ["%s"]}]}\n' "$1" >"$layout"
    printf '{"name": "randread", "rw": "randread", "bs": "4k", "iodepth": 32, "runtime": "%ss"}\n' "$runtime" >"$profile"
    "$build/tierlab" run --real --layout "$layout" --profile "$profile" --format json | jq '.jobs[0].read.iops'
    return
  fi
  TIERLAB_BENCH_FILE="$1" TIERLAB_BENCH_SECONDS="$runtime" "$bench_bin" \
    --benchmark_format=json 2>/dev/null | jq '.benchmarks[0].IOPS'
}

echo "# tierlab ($via) vs fio: randread 4k QD32, size=$size, runtime=${runtime}s, rounds=$rounds"
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(uname -r), $(fio --version)"
printf '%-6s %-6s %14s %14s\n' target round fio_iops tierlab_iops
for target in $targets; do
  case "$target" in
    shm) [[ -d /dev/shm ]] || { echo "no /dev/shm, skipped"; continue; }
         make_file /dev/shm ;;
    disk) mkdir -p "$build"; make_file "$build" ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
  df -h "$file" | tail -1 | awk -v t="$target" '{print "# " t ": " $1 " mounted on " $6}'
  fio_sum=0
  tl_sum=0
  for ((r = 1; r <= rounds; r++)); do
    f_iops="$(run_fio "$file")"
    t_iops="$(run_tierlab "$file")"
    printf '%-6s %-6s %14.0f %14.0f\n' "$target" "$r" "$f_iops" "$t_iops"
    fio_sum="$(echo "$fio_sum + $f_iops" | bc -l)"
    tl_sum="$(echo "$tl_sum + $t_iops" | bc -l)"
  done
  printf '%-6s %-6s %14.0f %14.0f  ratio tierlab/fio = %.3f\n' "$target" mean \
    "$(echo "$fio_sum / $rounds" | bc -l)" "$(echo "$tl_sum / $rounds" | bc -l)" \
    "$(echo "$tl_sum / $fio_sum" | bc -l)"
done
