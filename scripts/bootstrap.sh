#!/usr/bin/env bash
# Installs the Debian packages tierlab needs (only those missing), then
# configures and builds. Idempotent; quick when everything is present.
#
#   scripts/bootstrap.sh [--debug|--asan|--fuzz] [--no-build]
#
# Build trees: build/ (Release), build-debug/, build-asan/ (ASan + UBSan),
# build-fuzz/ (clang: the libFuzzer targets only, fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=release
build=1
for arg in "$@"; do
  case "$arg" in
    --debug) mode=debug ;;
    --asan) mode=asan ;;
    --fuzz) mode=fuzz ;;
    --no-build) build=0 ;;
    *) echo "bootstrap.sh: unknown option '$arg' (use --debug, --asan, --fuzz, --no-build)" >&2; exit 2 ;;
  esac
done

# Build tools and libraries (libaio and liburing drive real files; zlib, zstd
# and xz read compressed traces; lz4, zstd and xxhash measure data
# reduction's costs; their command-line tools feed the compressed-trace
# tests; ISA-L computes parity RAID's codes); real clients for the NBD and
# real-I/O tests (fio, qemu-utils, nbdkit, libnbd-bin); clang for the fuzz
# targets; chromium for the HTML report test.
packages=(
  cmake g++ ninja-build pkg-config
  libaio-dev liburing-dev libboost-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev libgtest-dev libgmock-dev
  zlib1g-dev libzstd-dev liblzma-dev gzip zstd xz-utils liblz4-dev libxxhash-dev libisal-dev
  fio qemu-utils nbdkit libnbd-bin jq bc
  clang libclang-rt-14-dev
  chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >/dev/null
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$build" -eq 1 ] || exit 0

case "$mode" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  debug) dir=build-debug; flags=(-DCMAKE_BUILD_TYPE=Debug) ;;
  asan) dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIERLAB_ASAN=ON) ;;
  fuzz)
    dir=build-fuzz
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIERLAB_FUZZ=ON -DCMAKE_C_COMPILER=clang
      -DCMAKE_CXX_COMPILER=clang++)
    ;;
esac
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
fi
target=()
[ "$mode" != fuzz ] || target=(--target fuzzers)
cmake --build "$dir" -j "$(nproc)" "${target[@]}"
