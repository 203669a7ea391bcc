#!/usr/bin/env bash
# Compares tierlab's NBD export with nbdkit under the same fio job: 4k random
# 50/50 read/write, QD16, one connection (fio --ioengine=nbd), over Unix
# sockets. Two pairs: RamDevice vs `nbdkit memory`, and FileDevice vs
# `nbdkit file` on the same file in /dev/shm. The work is done by
# bench/micro/NbdExportBench (see its header); this script checks the tools,
# prints the machine context and runs it.
#
#   bench/nbd_vs_nbdkit.sh [build-dir]
#
# Environment: RUNTIME seconds per side and round (default 10), ROUNDS
# (default 2; the servers alternate to spread noise from other processes),
# SIZE_MB export size (default 1024), SHM_DIR (default /dev/shm).
# Prints, per pair: IOPS of each server (means over the rounds), the ratio
# tierlab/nbdkit (target >= 1.0) and each server's CPU time per I/O.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-${TIERLAB_BUILD_DIR:-$repo/build}}"
bench_bin="$build/bench/micro/NbdExportBench"

command -v fio >/dev/null || { echo "fio not found (apt-get install fio)" >&2; exit 2; }
command -v nbdkit >/dev/null || { echo "nbdkit not found (apt-get install nbdkit)" >&2; exit 2; }
fio --enghelp 2>/dev/null | grep -qw nbd || { echo "this fio has no nbd engine" >&2; exit 2; }
[[ -x "$bench_bin" ]] || {
  echo "$bench_bin not built (ninja -C $build NbdExportBench)" >&2
  exit 2
}

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "fio: $(fio --version), nbdkit: $(nbdkit --version)"

TIERLAB_NBD_BENCH_SECONDS="${RUNTIME:-10}" \
TIERLAB_NBD_BENCH_ROUNDS="${ROUNDS:-2}" \
TIERLAB_NBD_BENCH_SIZE_MB="${SIZE_MB:-1024}" \
TIERLAB_NBD_BENCH_DIR="${SHM_DIR:-/dev/shm}" \
  "$bench_bin" --benchmark_counters_tabular=true

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
