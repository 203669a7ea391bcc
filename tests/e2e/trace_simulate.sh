#!/usr/bin/env bash
# tierlab trace simulate from the command line, on the real CloudPhysics
# trace: every policy at several sizes, JSON fields and their consistency
# (LRU's curve falls with size, the object view counts requests), the
# table, CSV and HTML renderings, analyze --policy, and bad input (one-line
# errors, exit code 2).
set -euo pipefail
bin=${TIERLAB_BIN:?}
src=${TIERLAB_SOURCE_DIR:?}
trace="$src/tests/data/traces/cloudPhysicsIO.vscsi"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" trace simulate "$trace" --policy all --sizes 1%,10%,64m,100% --format json \
  -o "$tmp/all.json" 2>"$tmp/err"
grep -q 'cells over 113872 requests' "$tmp/err" || fail "summary line: $(cat "$tmp/err")"
python3 - "$tmp/all.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["format"] == "vscsi" and j["view"] == "block" and j["writes"] == "writeback"
assert j["requests"] == 113872, j["requests"]
rows = j["results"]
policies = sorted({r["policy"] for r in rows})
assert policies == sorted(["lru", "fifo", "clock", "2q", "arc", "smq", "s3fifo", "lfu"]), policies
keys = {"policy", "size_lines", "size_bytes", "requests", "miss_ratio", "byte_miss_ratio",
        "read_miss_ratio", "write_miss_ratio", "evictions", "dirty_evictions"}
for r in rows:
    assert keys <= set(r), set(r) ^ keys
    assert r["requests"] == 113872
    assert r["size_bytes"] == r["size_lines"] * 4096
    assert 0 < r["miss_ratio"] <= 1 and 0 <= r["read_miss_ratio"] <= 1
    assert r["dirty_evictions"] <= r["evictions"]
# 100% of the unique lines holds everything: cold misses only, no eviction,
# the same for every policy.
full = [r for r in rows if r["size_lines"] == j["unique_lines"]]
assert len(full) == 8 and all(r["evictions"] == 0 for r in full), full
assert len({round(r["miss_ratio"], 12) for r in full}) == 1
assert abs(full[0]["miss_ratio"] - j["unique_lines"] / j["references"]) < 1e-12
lru = sorted((r for r in rows if r["policy"] == "lru"), key=lambda r: r["size_lines"])
assert all(a["miss_ratio"] >= b["miss_ratio"] for a, b in zip(lru, lru[1:])), lru
PY

# The object view, libCacheSim's: one reference per request, and by
# default writes are references like reads.
"$bin" trace simulate "$trace" --object --policy lru,fifo --sizes 1000,10000 --format json \
  2>/dev/null > "$tmp/obj.json"
python3 - "$tmp/obj.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["view"] == "object" and j["writes"] == "none"
assert j["references"] == 113872 and j["unique_lines"] == 48974, (j["references"], j["unique_lines"])
for r in j["results"]:
    assert r["dirty_evictions"] == 0
PY

# The object view against libCacheSim: its cachesim (commit aa0fc40914b2,
# 2024-10-07) on this very file, `cachesim cloudPhysicsIO.vscsi vscsi
# lru,fifo,arc,twoq,s3fifo 480,2440,4900,12240 --ignore-obj-size 1`
# (measured 2026-12-02, when bench/trace_simulate_vs_libcachesim.sh was
# written), printed these miss ratios (4 decimals). LRU and FIFO must agree to its precision,
# the others within 0.005 (docs/PERFORMANCE.md lists the differences).
"$bin" trace simulate "$trace" --object --policy lru,fifo,arc,2q,s3fifo \
  --sizes 480,2440,4900,12240 --format json 2>/dev/null >"$tmp/lcs.json"
python3 - "$tmp/lcs.json" <<'PY'
import json, sys
cachesim = {
    "lru": [0.8382, 0.8246, 0.8049, 0.6722],
    "fifo": [0.8482, 0.8266, 0.8054, 0.6847],
    "arc": [0.8276, 0.8114, 0.7727, 0.6139],
    "2q": [0.8306, 0.8151, 0.7741, 0.6396],
    "s3fifo": [0.8304, 0.8030, 0.7524, 0.6527],
}
sizes = [480, 2440, 4900, 12240]
rows = json.load(open(sys.argv[1]))["results"]
for r in rows:
    want = cachesim[r["policy"]][sizes.index(r["size_lines"])]
    tol = 0.00005 if r["policy"] in ("lru", "fifo") else 0.005
    assert abs(r["miss_ratio"] - want) <= tol + 1e-12, (r["policy"], r["size_lines"], r["miss_ratio"], want)
    assert r["requests"] == 113872
assert len(rows) == 20
PY

# Compressed, from standard input, or plain: the same results.
"$bin" trace simulate "$trace" --policy lru,s3fifo --sizes 2%,20% -f csv 2>/dev/null >"$tmp/plain.csv"
zstd -q -c "$trace" | "$bin" trace simulate - --policy lru,s3fifo --sizes 2%,20% -f csv \
  2>/dev/null >"$tmp/zstd.csv"
cmp "$tmp/plain.csv" "$tmp/zstd.csv" || fail "zstd from stdin differs from the plain file"
gzip -c "$trace" >"$tmp/t.gz"
"$bin" trace simulate "$tmp/t.gz" --policy lru,s3fifo --sizes 2%,20% -f csv 2>/dev/null >"$tmp/gz.csv"
cmp "$tmp/plain.csv" "$tmp/gz.csv" || fail "gzip differs from the plain file"

out=$("$bin" trace simulate "$trace" --policy s3fifo,arc --sizes 5% 2>/dev/null)
grep -Eq '^s3fifo +[0-9]+ ' <<<"$out" || fail "table has no s3fifo row: $out"
"$bin" trace simulate "$trace" --sizes 5%,20% -f csv 2>/dev/null | head -1 |
  grep -q '^policy,size_lines,size,miss_ratio' || fail "csv header"
"$bin" trace simulate "$trace" --policy lru,arc --sizes 1%,5%,20% -f html -o "$tmp/s.html" 2>/dev/null
grep -q '<svg' "$tmp/s.html" || fail "html has no plot"
grep -q '>arc</text>' "$tmp/s.html" || fail "html legend has no arc"
! grep -qi '<script\|src=\|href=' "$tmp/s.html" || fail "html is not self-contained"

# analyze --policy: the read MRC simulated with that policy.
"$bin" analyze --trace "$trace" --policy s3fifo --write-points 1 --format json > "$tmp/a.json"
python3 - "$tmp/a.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sizing"]
assert s["read_mrc_policy"] == "s3fifo", s.get("read_mrc_policy")
pts = s["read_mrc"]["points"]
assert len(pts) > 1 and all(0 <= p["read_miss_ratio"] <= 1 for p in pts)
PY

# Bad input: one line, exit 2.
expect_fail() {
  local want=$1; shift
  set +e
  "$bin" "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  set -e
  [ "$rc" = 2 ] || fail "$* exited $rc, want 2"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "$*: not one line: $(cat "$tmp/err")"
  grep -q -- "$want" "$tmp/err" || fail "$*: no '$want' in: $(cat "$tmp/err")"
}
expect_fail 'unknown "mru"' trace simulate "$trace" --policy lru,mru
expect_fail 'size "12q"' trace simulate "$trace" --sizes 1%,12q
expect_fail 'unknown write mode "back"' trace simulate "$trace" --writes back
expect_fail '--admission' trace simulate "$trace" --admission nhit:x
expect_fail "unknown 'svg'" trace simulate "$trace" --format svg
expect_fail 'nonexistent' trace simulate "$tmp/nonexistent.vscsi"
expect_fail '--policy' analyze --trace "$trace" --policy mru
echo ok
