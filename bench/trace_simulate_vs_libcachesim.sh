#!/usr/bin/env bash
# `tierlab trace simulate` against libCacheSim's cachesim, side by side on the
# same machine and the same key stream (issue 20): wall time of a policy x
# size sweep, and the miss ratio of every cell.
#
#   bench/trace_simulate_vs_libcachesim.sh [BUILD_DIR] [VSCSI_TRACE]   (from the repo root)
#
# BUILD_DIR defaults to build; VSCSI_TRACE to tests/data/traces/cloudPhysicsIO.vscsi.
#
# libCacheSim is built from source in a temporary directory that is deleted on
# exit; none of it is kept or committed. The source comes from, in order:
#   LIBCACHESIM_BIN=PATH  an already built cachesim (no build at all);
#   LIBCACHESIM_SRC=DIR   an unpacked libCacheSim source tree (it is only read:
#                         the build is out of tree, in the temporary directory);
#   a shallow git fetch of LIBCACHESIM_GIT at LIBCACHESIM_REV (needs network).
# Build needs cmake, a C and C++ compiler, pkg-config and GLib's headers
# (Debian: apt-get install cmake ninja-build pkg-config libglib2.0-dev); zstd
# trace support is switched off so libzstd is not needed. About 40 s at -j2.
#
# The trace: the vscsi trace is turned into a key-only trace, little-endian
# u64 keys (tierlab's keys-u64), one per record, which both tools read as is
# (cachesim: trace type "binary", -t "format=<Q,obj-id-col=1"). KEYS_MODE:
#   sectors  (default) one key per 512-byte sector each request covers, in
#            request order, the first RECORDS of them (default 5,300,000: the
#            sample has 8,214,801);
#   repeat   one key per request (its starting LBA, libCacheSim's vscsi object
#            id), the 113,872-request stream repeated to RECORDS keys, each
#            pass shifted to its own key range (pass p adds p << 40).
# Every object has unit size: cachesim runs with --ignore-obj-size 1, so cache
# sizes are object counts and its byte miss ratio equals its miss ratio.
#
# Sizes: FRACTIONS (default 0.01,0.05,0.10,0.25) of the unique keys, each
# rounded to a multiple of 20 so S3-FIFO's 10% small queue and 90% ghost and
# 2Q's 25%/50% queues are whole numbers in both tools; or SIZES=A,B,C,D.
# POLICIES: tierlab names (default lru,fifo,arc,2q,s3fifo; clock and lfu map
# too). THREADS: both tools' worker threads (default: nproc). REPEAT: runs per
# tool, the fastest wall counts (default 1). OUT=FILE also writes the JSON
# comparison there. TIERLAB_ARGS: extra `trace simulate` arguments.
#
# Pass: tierlab's wall <= cachesim's / 1.5; miss ratio equal to cachesim's for
# lru and fifo (cachesim prints 4 decimals: |diff| <= 0.00005), within 0.005
# for the others. Exit 0 on pass, 1 on fail, 2 on setup errors.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
vscsi=${2:-tests/data/traces/cloudPhysicsIO.vscsi}
records=${RECORDS:-5300000}
mode=${KEYS_MODE:-sectors}
fractions=${FRACTIONS:-0.01,0.05,0.10,0.25}
policies=${POLICIES:-lru,fifo,arc,2q,s3fifo}
threads=${THREADS:-$(nproc)}
repeat=${REPEAT:-1}
jobs=${JOBS:-2}
lcs_git=${LIBCACHESIM_GIT:-https://github.com/1a1a11a/libCacheSim.git}
lcs_rev=${LIBCACHESIM_REV:-aa0fc40914b2b786f4b9f4dafb099f8f332b216a}
bin=${TIERLAB_BIN:-$build/tierlab}

die() { echo "trace_simulate_vs_libcachesim.sh: $*" >&2; exit 2; }
[ -x "$bin" ] || die "$bin not built"
[ -r "$vscsi" ] || die "no trace $vscsi"
for t in python3 jq; do command -v "$t" >/dev/null || die "needs $t"; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- libCacheSim's cachesim, built from source in $tmp -----------------------
cachesim=${LIBCACHESIM_BIN:-}
if [ -z "$cachesim" ]; then
  for t in cmake cc c++ pkg-config; do
    command -v "$t" >/dev/null || die "building libCacheSim needs $t"
  done
  pkg-config --exists glib-2.0 || die "building libCacheSim needs GLib's headers (libglib2.0-dev)"
  src=${LIBCACHESIM_SRC:-}
  if [ -z "$src" ]; then
    command -v git >/dev/null || die "set LIBCACHESIM_SRC to a libCacheSim source tree (no git here)"
    src="$tmp/libCacheSim-src"
    echo "fetching libCacheSim $lcs_rev from $lcs_git" >&2
    if ! { git init -q "$src" && git -C "$src" fetch -q --depth 1 "$lcs_git" "$lcs_rev" &&
      git -C "$src" -c advice.detachedHead=false checkout -q FETCH_HEAD; } 2>"$tmp/git.log"; then
      die "cannot fetch libCacheSim ($(tail -1 "$tmp/git.log")); set LIBCACHESIM_SRC to an \
unpacked source tree of $lcs_git (commit $lcs_rev) or LIBCACHESIM_BIN to a built cachesim"
    fi
  fi
  if [ ! -f "$src/CMakeLists.txt" ] || [ ! -d "$src/libCacheSim/bin/cachesim" ]; then
    die "$src is not a libCacheSim source tree (no libCacheSim/bin/cachesim)"
  fi
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  echo "building libCacheSim's cachesim in $tmp/lcs-build (-j$jobs)" >&2
  b0=$(date +%s.%N)
  nice cmake -S "$src" -B "$tmp/lcs-build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DENABLE_TESTS=OFF -DOPT_SUPPORT_ZSTD_TRACE=OFF >"$tmp/lcs-cmake.log" 2>&1 ||
    die "libCacheSim cmake failed, see: $(tail -3 "$tmp/lcs-cmake.log")"
  nice cmake --build "$tmp/lcs-build" --target cachesim -j "$jobs" >"$tmp/lcs-build.log" 2>&1 ||
    die "libCacheSim build failed: $(tail -3 "$tmp/lcs-build.log")"
  echo "built in $(echo "$(date +%s.%N) - $b0" | bc) s" >&2
  cachesim="$tmp/lcs-build/bin/cachesim"
fi
[ -x "$cachesim" ] || die "no cachesim at $cachesim"

# --- the key stream, one file for both tools ---------------------------------
keys="$tmp/trace.u64"
python3 - "$vscsi" "$keys" "$mode" "$records" "$fractions" >"$tmp/prep.json" <<'PY'
import json, struct, sys
src, dst, mode, records, fractions = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
data = open(src, "rb").read()
if len(data) < 32 or (struct.unpack_from("<H", data, 14)[0] >> 8) != 1:
    sys.exit(f"{src}: not a version-1 vscsi trace")
reqs = [(struct.unpack_from("<I", data, off + 4)[0], struct.unpack_from("<Q", data, off + 16)[0])
        for off in range(0, len(data) - 31, 32)]  # (length in bytes, LBA in 512-byte sectors)
out, seen, n = bytearray(), set(), 0
pack = struct.Struct("<Q").pack
def keys():
    if mode == "sectors":
        for length, lbn in reqs:
            yield from range(lbn, lbn + max(1, (length + 511) // 512))
    elif mode == "repeat":
        p = 0
        while True:
            for _, lbn in reqs:
                yield lbn + (p << 40)
            p += 1
    else:
        sys.exit(f"KEYS_MODE {mode}: sectors or repeat")
for k in keys():
    if n == records:
        break
    out += pack(k)
    seen.add(k)
    n += 1
open(dst, "wb").write(out)
u = len(seen)
sizes = [max(20, round(float(f) * u / 20) * 20) for f in fractions.split(",")]
json.dump({"records": n, "unique": u, "sizes": sizes}, sys.stdout)
PY
n_req=$(jq .records "$tmp/prep.json")
uniq=$(jq .unique "$tmp/prep.json")
sizes=${SIZES:-$(jq -r '.sizes | map(tostring) | join(",")' "$tmp/prep.json")}
lcs_policies=$(tr , '\n' <<<"$policies" | sed 's/^2q$/twoq/' | paste -sd,)

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "trace: $vscsi as $mode keys: $n_req requests, $uniq unique keys; sizes $sizes objects; $threads threads"

# --- runs: fastest wall of REPEAT --------------------------------------------
timed() {  # name, command...: appends "name wall maxrss_kb" to $tmp/times
  local name=$1; shift
  local s e
  s=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$tmp/rss" "$@"
  else
    "$@"; echo 0 >"$tmp/rss"
  fi
  e=$(date +%s.%N)
  echo "$name $(echo "$e - $s" | bc) $(tail -1 "$tmp/rss")" >>"$tmp/times"
}
mkdir "$tmp/lcs-run"
for ((i = 0; i < repeat; i++)); do
  # cachesim writes result/<trace name> into its working directory.
  (cd "$tmp/lcs-run" && timed cachesim "$cachesim" "$keys" binary "$lcs_policies" "$sizes" \
    -t "format=<Q,obj-id-col=1" --ignore-obj-size 1 --num-thread "$threads" \
    >"$tmp/lcs.out" 2>"$tmp/lcs.err") || die "cachesim failed: $(tail -3 "$tmp/lcs.err")"
  # shellcheck disable=SC2086
  timed tierlab "$bin" trace simulate "$keys" --trace-format keys-u64 --policy "$policies" \
    --sizes "$sizes" --threads "$threads" --format json ${TIERLAB_ARGS:-} \
    -o "$tmp/tierlab.json" 2>"$tmp/tierlab.err" || die "tierlab failed: $(tail -3 "$tmp/tierlab.err")"
done

# cachesim's summary lines: "<trace> <cache name> cache size <n>, <r> req,
# miss ratio <m>, byte miss ratio <b>" -> TSV name, size, requests, miss ratio.
sed -nE 's/^.* ([^ ]+) +cache size +([0-9]+)[^,]*, ([0-9]+) req, miss ratio ([0-9.]+), byte miss ratio ([0-9.]+)$/\1\t\2\t\3\t\4/p' \
  "$tmp/lcs.out" >"$tmp/lcs.tsv"
[ -s "$tmp/lcs.tsv" ] || die "no results in cachesim's output: $(head -3 "$tmp/lcs.out")"

jq -n --rawfile lcs "$tmp/lcs.tsv" --slurpfile tl "$tmp/tierlab.json" --rawfile times "$tmp/times" \
  --argjson requests "$n_req" --argjson unique "$uniq" --arg mode "$mode" '
  def pname: ascii_downcase | if startswith("s3fifo") then "s3fifo"
    elif . == "twoq" then "2q" else . end;
  def tol($p): if $p == "lru" or $p == "fifo" then 0.00005 else 0.005 end;
  def best($t): [$times | split("\n")[] | select(length > 0) | split(" ")
    | select(.[0] == $t) | {wall: (.[1] | tonumber), maxrss_kb: (.[2] | tonumber)}]
    | min_by(.wall);
  ([$lcs | split("\n")[] | select(length > 0) | split("\t")
    | {key: "\(.[0] | pname)/\(.[1])", value: {requests: (.[2] | tonumber), miss_ratio: (.[3] | tonumber)}}]
    | from_entries) as $L
  | [$tl[0].results[] | {policy, size: .size_lines, tierlab: .miss_ratio, tl_requests: .requests}
     | . as $r | $L["\($r.policy)/\($r.size)"] as $l
     | $r + {cachesim: $l.miss_ratio, lcs_requests: $l.requests,
             diff: (if $l then $r.tierlab - $l.miss_ratio else null end), tolerance: tol($r.policy)}
     | . + {ok: (.cachesim != null and .tl_requests == .lcs_requests
                 and ((.diff | fabs) <= .tolerance + 1e-12))}] as $cells
  | best("cachesim") as $c | best("tierlab") as $t
  | {mode: $mode, requests: $requests, unique: $unique,
     cachesim: $c, tierlab: $t, speedup: ($c.wall / $t.wall),
     speed_ok: ($c.wall / $t.wall >= 1.5),
     cells: $cells, cells_ok: (($cells | length) == ($L | length) and all($cells[]; .ok))}
  | . + {pass: (.speed_ok and .cells_ok)}' >"$tmp/compare.json"
[ -n "${OUT:-}" ] && cp "$tmp/compare.json" "$OUT"

jq -r '(["policy", "size", "cachesim", "tierlab", "diff", "tol", "ok"] | @tsv),
  (.cells[] | [.policy, .size, .cachesim, (.tierlab * 1e6 | round / 1e6),
               (if .diff then (.diff * 1e6 | round / 1e6) else "-" end), .tolerance,
               (if .ok then "yes" else "NO" end)] | @tsv)' "$tmp/compare.json" | column -t -s $'\t'
jq -r '"cachesim: \(.cachesim.wall * 100 | round / 100) s wall, \(.cachesim.maxrss_kb / 1024 | round) MiB max RSS",
  "tierlab:  \(.tierlab.wall * 100 | round / 100) s wall, \(.tierlab.maxrss_kb / 1024 | round) MiB max RSS",
  "speedup:  \(.speedup * 100 | round / 100)x (target >= 1.5x)",
  (if .pass then "PASS" else "FAIL" end)' "$tmp/compare.json"
jq -e .pass "$tmp/compare.json" >/dev/null || exit 1
