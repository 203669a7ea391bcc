#!/usr/bin/env bash
# tierlab analyze on the real CloudPhysics vscsi trace: JSON fields exist and
# are sane, the HTML page is self-contained, bad input exits 2.
set -euo pipefail
bin=${TIERLAB_BIN:?}
src=${TIERLAB_SOURCE_DIR:?}
trace="$src/tests/data/traces/cloudPhysicsIO.vscsi"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" analyze --trace "$trace" --cache-preset nvme-pm1725 --cache-size 2g --capacity hdd4 \
  --write-points 4 --format json -o "$tmp/a.json"
python3 - "$tmp/a.json" <<'PY'
import json, math, sys
a = json.load(open(sys.argv[1]))
w = a["write_absorption"]
assert w["write_requests"] == 66898, w          # the trace's writes
assert 0 <= w["absorbed_share"] <= 1
assert w["offered_write_mb_per_s"] > 0
assert abs(a["duration_s"] - 7200.09) < 1, a["duration_s"]  # trace time
d = a["dirty"]
assert d["low_watermark_bytes"] < d["high_watermark_bytes"] <= a["cache"]["cache_bytes"]
assert d["peak_bytes"] > 0 and len(d["timeline"]) > 10
ts = [p[0] for p in d["timeline"]]
assert ts == sorted(ts)
assert 0 <= a["destage"]["capacity_busy_share"] <= 1
assert 0 < a["read_hit_ratio"] <= 1
e = a["endurance"]
assert e["rated_dwpd"] > 0 and e["device_dwpd"] > 0 and e["life_years"] > 0
assert e["cache_device_write_bytes"] >= e["host_write_bytes"] > 0
assert e["write_amplification"] >= 1
# DWPD = device bytes per day of trace time / capacity: the whole device's
# (1.6 TB, the preset's) and the 2 GiB cache partition's; life from the device's.
per_day = e["cache_device_write_bytes"] / (a["duration_s"] / 86400)
assert a["cache"]["device_bytes"] == 1600000000000, a["cache"]
assert a["cache"]["partition_bytes"] == 2 << 30, a["cache"]
for key, cap in (("device_dwpd", "device_bytes"), ("partition_dwpd", "partition_bytes")):
    assert math.isclose(e[key], per_day / a["cache"][cap], rel_tol=1e-6), (key, e[key])
assert math.isclose(e["life_years"], 5 * e["rated_dwpd"] / e["device_dwpd"], rel_tol=1e-9)
s = a["sizing"]
assert len(s["write_curve"]) == 4
sizes = [p["cache_bytes"] for p in s["write_curve"]]
assert sizes == sorted(sizes) and sizes[-1] == a["cache"]["cache_bytes"]
# The recommended range lies on the curve: reached at at_most and above it,
# missed just below it (or nothing below was tried).
rr = s["recommended_range"]
shares = {p["cache_bytes"]: p["absorbed_share"] for p in s["write_curve"]}
if rr["kind"] == "unreached":
    assert rr["at_most_bytes"] is None and shares[sizes[-1]] < s["absorb_target"]
else:
    k = sizes.index(rr["at_most_bytes"])
    assert all(shares[x] >= s["absorb_target"] for x in sizes[k:]), rr
    assert rr["at_most_bytes"] == s["recommended_bytes"]
    if rr["kind"] == "between_sizes":
        assert rr["above_bytes"] == sizes[k - 1] and shares[sizes[k - 1]] < s["absorb_target"], rr
    else:
        assert rr["kind"] == "below_smallest_size" and k == 0 and rr["above_bytes"] is None, rr
m = s["read_mrc"]
assert s["read_mrc_method"] == "exact" and len(m["points"]) > 5
r = [p["read_miss_ratio"] for p in m["points"]]
assert all(x >= y - 1e-12 for x, y in zip(r, r[1:])), "LRU MRC must not increase"
assert "absorbs" in s["recommendation"]
PY

# SHARDS mode and the HTML page (no network resources).
"$bin" analyze --trace "$trace" --cache-size 2g --sample 0.1 --write-points 1 --format html -o "$tmp/a.html"
grep -q '<svg' "$tmp/a.html" || fail "no svg"
grep -q 'Dirty occupancy' "$tmp/a.html" || fail "no dirty plot"
! grep -Eo '(src|href)="https?:' "$tmp/a.html" || fail "html fetches something"
out=$("$bin" analyze --trace "$trace" --cache-size 2g --write-points 1)
grep -q '^recommendation:' <<<"$out" || fail "table has no recommendation"

# The MSR sample (issue 16 item 7): every size tried absorbs all writes and
# nothing is destaged. The table says the answer is below the smallest size
# simulated (not ">= 256 MiB"), the destage rate is n/a (not 0.00 MB/s), DWPD
# is labelled for the device and the partition, and the life is the same in
# the endurance line and the recommendation.
out=$("$bin" analyze --trace "$src/tests/data/traces/msr-cambridge1-sample.csv")
rec=$(grep '^recommendation:' <<<"$out") || fail "msr: no recommendation"
grep -q '^recommendation: below 256 MiB, the smallest size simulated' <<<"$rec" || fail "msr: $rec"
! grep -q '>=' <<<"$rec" || fail "msr: recommends a size as if it were a knee: $rec"
grep -Eq '^sustainable destage rate +n/a' <<<"$out" || fail "msr: $(grep destage <<<"$out")"
dev=$(grep -E '^endurance, device +[0-9.e+-]+ DWPD of the device' <<<"$out") || fail "msr: no device DWPD"
grep -Eq '^endurance, cache partition +[0-9.e+-]+ DWPD of the cache partition \(8.0 GiB\)' <<<"$out" ||
  fail "msr: no partition DWPD"
years=$(grep -Eo '[0-9]+\.[0-9] years' <<<"$dev") || fail "msr: no life in: $dev"
grep -qF "($years at this rate)" <<<"$rec" || fail "msr: table says $years, recommendation: $rec"

# A profile gets a read MRC too: its generated stream, one reference per
# 4 KiB I/O, exact; zipf makes it a real curve.
cat > "$tmp/zipf.json" <<'JSON'
{"name": "zipf-rw", "rw": "randrw", "rwmixread": 70, "bs": "4k", "size": "1g",
 "random_distribution": "zipf:1.1", "iodepth": 8, "number_ios": 20000}
JSON
"$bin" analyze --profile "$tmp/zipf.json" --cache-size 2g --capacity hdd2 --write-points 1 \
  --format json -o "$tmp/p.json"
python3 - "$tmp/p.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
s = a["sizing"]
assert s["read_mrc_method"] == "exact", s.get("read_mrc_method")
m = s["read_mrc"]
assert m["references"] == 20000, m["references"]
assert 0.6 * 20000 < m["read_references"] < 0.8 * 20000, m["read_references"]
r = [p["read_miss_ratio"] for p in m["points"]]
assert len(r) > 5 and all(x >= y - 1e-12 for x, y in zip(r, r[1:])), r
assert r[0] > r[-1] > 0, r
PY
out=$("$bin" analyze --profile "$tmp/zipf.json" --cache-size 2g --write-points 1)
grep -q 'read miss-ratio curve' <<<"$out" || fail "profile table has no read MRC"

# Bad input.
set +e
"$bin" analyze --cache-size 2g 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "no workload: exit $rc"
"$bin" analyze --trace "$trace" --layout ssd2 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "layout without cache: exit $rc"
"$bin" analyze --trace "$src/tests/data/traces/spc-bad.csv" --trace-format spc 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "malformed trace: exit $rc"
grep -q 'spc-bad.csv:2:' "$tmp/err" || fail "no file:line: $(cat "$tmp/err")"
set -e
echo OK
