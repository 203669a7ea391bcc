#!/usr/bin/env bash
# tierlab calibrate on a real file: it writes a preset file whose figures a
# layout names as "preset": "file:PATH", and a simulated run of that layout
# shows those figures (QD1 latency, the IOPS ceiling); what would write over
# data, or cannot be fitted, is a one-line error with exit code 2.
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

# Short runs keep this under half a minute; the tolerance is wide because a
# loaded CI machine makes a file's IOPS wander (settling is unit-tested:
# tests/bench/lab/DeviceCalibrationTest.cc).
short=(--quick --size 64m --runtime 0.2 --tolerance 200)

"$bin" calibrate "${short[@]}" dev.img -o cal.json >table.txt 2>progress.txt ||
  fail "calibrate: $(cat progress.txt)"
[[ ! -e dev.img ]] || fail "calibrate left the file it created"
grep -q "^randread 4k QD1 " table.txt || fail "no QD1 row: $(cat table.txt)"
grep -q 'preset written to cal.json: name it in a tier as "preset": "file:cal.json"' table.txt ||
  fail "no preset line: $(cat table.txt)"
grep -q "writing the region once" progress.txt || fail "no fill: $(cat progress.txt)"

python3 - <<'PY'
import json
d = json.load(open("cal.json"))
assert d["preset_file"] == 1 and d["capacity"] == "64m", d
m = d["model"]
for k in ("read_iops_4k", "write_iops_4k", "seq_read_mbps", "seq_write_mbps",
          "read_latency_us", "write_latency_us", "service_units"):
    assert m[k] > 0, (k, m)
c = d["calibration"]
assert len(c["points"]) == 10 and c["plan"] == "quick", c
for p in c["points"]:
    assert len(p["runs"]) >= 3 and p["measured"]["iops"] > 0, p
# The fit's own figures are the measured ones it was fitted to.
qd1 = [p for p in c["points"] if p["point"] == "randread 4k QD1"][0]
assert abs(qd1["measured"]["lat_mean_us"] - m["read_latency_us"]) <= 0.01 * m["read_latency_us"] + 0.01, (qd1, m)
best = max(p["measured"]["iops"] for p in c["points"] if p["point"].startswith("randread 4k"))
assert abs(best - m["read_iops_4k"]) <= 0.01 * best, (best, m)
print("preset:", json.dumps(m))
# The pause probe: 2 s of QD1 reads; each class it found is in the preset
# (how many a file here has depends on the host, so only their form is
# checked; tests/bench/lab/DevicePausesTest.cc checks the figures). They are
# taken out for the check below, which is of the fitted latency and
# ceiling: pauses lengthen the simulated QD1 mean by their share.
pc = c["pauses"]
assert pc["window_ms"] >= 2000 and pc["threshold_us"] == 200 and pc["median_read_us"] > 0, pc
pauses = m.pop("pauses", [])
assert pc["count"] >= len(pauses), (pc, pauses)
for q in pauses:
    assert q["duration_us"] >= 200 and q["per_second"] > 0, q
json.dump(d, open("cal.json", "w"))
PY

# The preset in a layout: simulated QD1 reads take the fitted latency, and
# QD32 reaches min(32 / latency, the fitted ceiling).
cat >layout.json <<'JSON'
{"name": "cal", "tiers": [{"name": "d", "preset": "file:cal.json", "capacity": "1g"}]}
JSON
"$bin" layout show layout.json | grep -q '"preset": "file:cal.json"' || fail "layout show lost the file preset"
for qd in 1 32; do
  printf '[j]\nrw=randread\nbs=4k\niodepth=%s\nruntime=1\ntime_based\n' "$qd" >qd$qd.fio
  "$bin" run -q -l layout.json -p qd$qd.fio -f json >qd$qd.json || fail "run qd$qd"
done
python3 - <<'PY'
import json
m = json.load(open("cal.json"))["model"]
def read(qd):
    t = open(f"qd{qd}.json").read()
    return json.loads(t[t.index("{"):])["jobs"][0]["read"]
r1, r32 = read(1), read(32)
lat = m["read_latency_us"] * 1000
assert abs(r1["lat_ns"]["mean"] - lat) <= 0.02 * lat, (r1["lat_ns"]["mean"], lat)
want = min(32 / (lat / 1e9), m["read_iops_4k"])
assert abs(r32["iops"] - want) <= 0.03 * want, (r32["iops"], want)
print("simulated: QD1 %.1f us, QD32 %.0f IOPS (want %.0f)" % (r1["lat_ns"]["mean"] / 1e3, r32["iops"], want))
PY

# -f json prints the preset file; -o - writes none.
"$bin" calibrate "${short[@]}" -q -f json -o - dev2.img >out.json || fail "calibrate -f json"
python3 -c 'import json; d = json.load(open("out.json")); assert d["model"]["read_iops_4k"] > 0'
[[ ! -e dev2.img && ! -e calibrated.json ]] || fail "-o - wrote a file"

# --write-cliff: 64 runs of 4k random writes after the probe, kept under
# calibration.write_cliff; whether a file shows a cliff is the machine's
# (a model's cliff is unit-tested), so either the fitted figures or the
# note that there was none.
"$bin" calibrate "${short[@]}" --write-cliff 64m --cliff-idle 0.2 -o cliff.json cliff.img \
  >cliff.txt 2>progress.txt || fail "calibrate --write-cliff: $(cat progress.txt)"
grep -q "write cliff: 64m of 4k random writes at QD32 in 64 runs, then idle and again" progress.txt ||
  fail "no cliff progress line: $(cat progress.txt)"
grep -Eq "^(note: no write cliff in 64 MiB of 4k random writes|write cliff after [0-9]+ MiB)" cliff.txt ||
  fail "no cliff verdict: $(cat cliff.txt)"
python3 - <<'PY'
import json
d = json.load(open("cliff.json"))
w = d["calibration"]["write_cliff"]
assert len(w["samples"]) == 64, w
assert all(s["iops"] > 0 and s["bytes"] == 1 << 20 for s in w["samples"]), w["samples"]
# Each run starts where the one before it ended.
for a, b in zip(w["samples"], w["samples"][1:]):
    assert b["written"] == a["written"] + a["bytes"], (a, b)
assert w["sequential"]["bw_mbps"] > 0, w
m = d["model"]
if "write_cliff" in m:
    assert 0 < m["steady_write_iops_4k"] <= m["write_iops_4k"], m
else:
    assert "steady_write_iops_4k" not in m and "cliff_recovery_mbps" not in m, m
PY

# expect_error PATTERN ARGS...: exit 2 and one line matching.
expect_error() {
  local pattern=$1 rc=0
  shift
  "$bin" calibrate "$@" >/dev/null 2>err || rc=$?
  [[ $rc -eq 2 ]] || fail "calibrate $*: exit $rc, want 2: $(cat err)"
  [[ $(wc -l <err) -eq 1 ]] || fail "calibrate $*: error is not one line: $(cat err)"
  grep -q -- "$pattern" err || fail "calibrate $*: error does not match '$pattern': $(cat err)"
}
head -c 1m /dev/urandom >data.img
cp data.img data.copy
expect_error "data.img: calibrate writes over its first 64m; pass --force to let it" "${short[@]}" data.img
cmp -s data.img data.copy || fail "a refused calibrate changed the file"
expect_error "x.img: calibrating a disk needs an existing block device or a file written whole" --type hdd x.img
# A disk's probe needs every block on the media, and a platter to wait for
# (a wide tolerance: a busy disk's QD1 reads need not settle for this).
truncate -s 64m sparse.img
expect_error "sparse.img: has holes below 64m, which a disk's reads never reach" --type hdd --force sparse.img
head -c 64m /dev/zero >flash.img
expect_error "flash.img: does not look rotational: its 4k random reads take [0-9]* us at QD1" \
  --type hdd --force --runtime 0.2 --tolerance 200 flash.img
expect_error '--type: unknown "tape"' --type tape x.img
expect_error '--engine: unknown "spdk"' --engine spdk x.img
expect_error "--size: bytes, at least 1m" --size 4k x.img
expect_error "--write-cliff: bytes, at least 64m" --write-cliff 1m x.img
expect_error "--cliff-idle: needs --write-cliff" --cliff-idle 1 x.img
[[ ! -e x.img ]] || fail "a refused calibrate created its file"

# A file on tmpfs is mapped, so its reads and writes are copies on the
# engine's thread: the preset is fitted to the memory's own copies, not to
# the points (which hold the engine's thread, as calibrate --cpu does).
if [[ -d /dev/shm && -w /dev/shm && $(stat -f -c %T /dev/shm) == tmpfs ]]; then
  shm=/dev/shm/tierlab-e2e-calibrate-$$.img
  "$bin" calibrate "${short[@]}" "$shm" -o ram.json >ram.txt 2>ram.err ||
    fail "calibrate $shm: $(cat ram.err)"
  [[ ! -e $shm ]] || { rm -f "$shm"; fail "calibrate left $shm"; }
  grep -q "^note: a mapped memory file: fitted to its own copies" ram.txt ||
    fail "no memory note: $(cat ram.txt)"
  python3 - <<'PY'
import json
d = json.load(open("ram.json"))
m, c = d["model"], d["calibration"]
mc = c["memory_copies"]
assert m["type"] == "ram" and m["service_units"] == 1, m
assert abs(m["read_latency_us"] * 1000 - mc["read_4k_ns"]) <= 1, (m, mc)
assert abs(m["write_latency_us"] * 1000 - mc["write_4k_ns"]) <= 1, (m, mc)
assert abs(m["read_iops_4k"] - 1e9 / (m["read_latency_us"] * 1000)) <= 1, m
assert abs(m["seq_read_mbps"] - mc["read_mbps"]) <= 0.1, (m, mc)
assert mc["window_ms"] >= 200, mc
print("ram: 4k copies %.0f / %.0f ns, 1m %.0f / %.0f MB/s" % (
    mc["read_4k_ns"], mc["write_4k_ns"], mc["read_mbps"], mc["write_mbps"]))
PY
fi
echo "calibrate: ok"
