#!/usr/bin/env bash
# tierlab validate: a matrix run in real time on a file and in simulation on
# the preset calibrate fitted to that file; the report has a row per cell
# with measured, modelled and error per metric, as a table, JSON and an
# HTML page; a matrix it cannot run is a one-line error.
# ctest: RUN_SERIAL (it holds real-time latencies to the model's)
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

"$bin" calibrate --quick --size 64m --runtime 0.2 --tolerance 200 -q dev.img -o dev.json >/dev/null ||
  fail "calibrate"
# Pauses of our own in place of the ones calibrate counted (which come and
# go with the host): a preset with pauses has its file probed again after
# each real cell (validate's pause reference).
python3 - <<'PY'
import json
d = json.load(open("dev.json"))
d["model"]["pauses"] = [{"duration_us": 300, "per_second": 1}]
json.dump(d, open("dev.json", "w"), indent=1)
PY
cat >m.json <<'JSON'
{"name": "one-file",
 "layouts": [{"name": "file", "tiers": [{"name": "d", "preset": "file:dev.json",
                                          "capacity": "64m", "paths": ["dev.img"]}]}],
 "profiles": [{"name": "qd1", "rw": "randread", "bs": "4k", "iodepth": 1, "size": "64m",
               "runtime": "500ms", "ramp_time": "100ms", "time_based": true},
              {"name": "qd8w", "rw": "randwrite", "bs": "4k", "iodepth": 8, "size": "64m",
               "runtime": "500ms", "ramp_time": "100ms", "time_based": true}]}
JSON
"$bin" validate m.json --save run >table.txt 2>progress.txt || fail "validate: $(cat progress.txt)"
grep -q "validate: 2 cells measured" progress.txt || fail "no progress: $(cat progress.txt)"
grep -q "^file | qd1 " table.txt || fail "no qd1 row: $(cat table.txt)"
grep -q "demerit .* pauses/s" table.txt || fail "no demerit and pauses/s columns: $(cat table.txt)"
# The pause reference: after each real cell the file was probed again, and
# the model's cell took what it saw.
python3 - <<'PY'
import json
real, sim = json.load(open("run-measured.json")), json.load(open("run-model.json"))
for r, s in zip(real["cells"], sim["cells"]):
    (p,) = r["device_pauses"]
    assert p["tier"] == "d" and p["path"] == "dev.img", p
    assert p["calibrated"] == [{"duration_us": 300.0, "per_second": 1.0}], p
    assert p["window_s"] >= 1 and p["median_read_us"] > 0, p
    assert abs(p["per_second"] - sum(q["per_second"] for q in p["pauses"])) < 0.01, p
    # Rates per second not paused: x seconds of pauses a second are the
    # share x / (1 + x) of the window, however busy the disk was.
    x = sum(q["duration_us"] / 1e6 * q["per_second"] for q in p["pauses"])
    assert abs(p["share"] - x / (1 + x)) < 0.01, (p, x)
    assert s["device_pauses"] == r["device_pauses"], (s.get("device_pauses"), p)
print("pause reference: %s pauses a second after the cells" %
      ", ".join("%.1f" % c["device_pauses"][0]["per_second"] for c in real["cells"]))
PY

# The rest without it (a second a cell; what they check is not the pauses).
"$bin" validate m.json -q -f json -o v.json --no-pause-reference || fail "validate -f json"
"$bin" validate m.json -q -f html -o v.html --no-pause-reference || fail "validate -f html"
python3 - <<'PY'
import json
v = json.load(open("v.json"))
assert [c["label"] for c in v["cells"]] == ["file | qd1", "file | qd8w"], v["cells"]
for c in v["cells"]:
    ms = {m["metric"]: m for m in c["metrics"]}
    assert set(ms) == {"iops", "bw", "lat", "p50", "p99"}, ms
    for m in ms.values():
        assert m["measured"] > 0 and m["model"] > 0, m
        assert abs(m["error"] - (m["model"] - m["measured"]) / m["measured"]) < 1e-9, m
    assert c["demerit_pct"] >= 0
    assert "pauses_per_second" not in c, c
# The saved results are a matrix's, measured in real time and modelled.
real, sim = json.load(open("run-measured.json")), json.load(open("run-model.json"))
assert {c["mode"] for c in real["cells"]} == {"real"}, [c["mode"] for c in real["cells"]]
assert {c["mode"] for c in sim["cells"]} == {"sim"}, [c["mode"] for c in sim["cells"]]
# QD1 in simulation is the calibrated latency.
lat = json.load(open("dev.json"))["model"]["read_latency_us"] * 1000
qd1 = [m for m in v["cells"][0]["metrics"] if m["metric"] == "lat"][0]
assert abs(qd1["model"] - lat) <= 0.02 * lat, (qd1, lat)
html = open("v.html").read()
assert html.count("<svg") == 2 and "<td>file | qd8w</td>" in html, html[:400]
print("validate: ok")
PY

# A slow tier made of a fast file: 500 us of dm-delay in front of it, in the
# real run and in the model alike, so both see QD1 reads of 500 us and more.
cat >slow.json <<'JSON'
{"name": "slow-file",
 "layouts": [{"name": "slow", "tiers": [{"name": "d", "preset": "file:dev.json", "capacity": "64m",
                                          "paths": ["dev.img"], "read_delay_us": 500}]}],
 "profiles": [{"name": "qd1", "rw": "randread", "bs": "4k", "iodepth": 1, "size": "64m",
               "runtime": "500ms", "ramp_time": "100ms", "time_based": true}]}
JSON
"$bin" validate slow.json -q -f json -o slow-v.json --no-pause-reference || fail "validate slow.json"
python3 - <<'PY'
import json
c = json.load(open("slow-v.json"))["cells"][0]
lat = [m for m in c["metrics"] if m["metric"] == "lat"][0]
assert lat["measured"] >= 500e3 and lat["model"] >= 500e3, lat
# The delay dominates both: the model's error is the device's share and the
# real timers' lateness (the loop polls for its last 100 us before a timer),
# well under the delay itself.
assert abs(lat["error"]) < 0.25, lat
print("delayed tier: measured %.0f us, model %.0f us" % (lat["measured"] / 1e3, lat["model"] / 1e3))
PY

# The same tier throttled to 1,000 reads a second (blk-throttle's riops):
# at QD8 it serves 1,000 IOPS, real and modelled, whatever the file can do.
cat >throttled.json <<'JSON'
{"name": "throttled-file",
 "layouts": [{"name": "throttled",
              "tiers": [{"name": "d", "preset": "file:dev.json", "capacity": "64m",
                         "paths": ["dev.img"], "read_delay_us": 500, "read_iops_limit": 1000}]}],
 "profiles": [{"name": "qd8", "rw": "randread", "bs": "4k", "iodepth": 8, "size": "64m",
               "runtime": "1s", "ramp_time": "200ms", "time_based": true}]}
JSON
"$bin" validate throttled.json -q -f json -o throttled-v.json --no-pause-reference ||
  fail "validate throttled.json"
python3 - <<'PY'
import json
c = json.load(open("throttled-v.json"))["cells"][0]
iops = [m for m in c["metrics"] if m["metric"] == "iops"][0]
assert 900 <= iops["measured"] <= 1050 and abs(iops["model"] - 1000) < 10, iops
print("throttled tier: measured %.0f IOPS, model %.0f" % (iops["measured"], iops["model"]))
PY

# The host's CPU: calibrate --cpu fits tierlab's cost per I/O on a cached
# volume over RAM files; a layout naming the file is bound by it in
# simulation where its devices are RAM (a cache on /dev/shm that holds the
# whole region): 4k reads at the fitted cost a read, QD8 of them at once.
# The real run's figure is printed, not held to the model: on a shared
# host it moves by a fifth within minutes (docs/VALIDATION.md).
# Its RAM files in a directory of our own (--dir), which it leaves empty.
ramdir=$(mktemp -d /dev/shm/tierlab-validate-cli.XXXXXX)
trap 'rm -rf "$tmp" "$ramdir"' EXIT
"$bin" calibrate --cpu --quick --size 16m --runtime 0.2 --tolerance 200 -q --dir "$ramdir" \
  -o cpu.json >cpu.txt || fail "calibrate --cpu: $(cat cpu.txt)"
[[ -z $(ls -A "$ramdir") ]] || fail "calibrate --cpu left files in --dir: $(ls -A "$ramdir")"
grep -q '^fitted cpu: ' cpu.txt || fail "no fitted cpu: $(cat cpu.txt)"
# The host's speed over 1 ms windows of the stall probe's second, printed
# and kept with the stalls.
grep -q '^host speed: over [0-9]* windows of 1 ms' cpu.txt || fail "no host speed: $(cat cpu.txt)"
python3 - <<'PY' || fail "cpu.json: calibration.stalls.speed"
import json
s = json.load(open("cpu.json"))["calibration"]["stalls"]["speed"]
assert s["window_ms"] == 1 and s["windows"] >= 100, s
assert 0 < s["p10_units_per_us"] <= s["p50_units_per_us"] <= s["p90_units_per_us"], s
PY
# The stack's speed from the 4k points' latency spread: ten levels in the
# cpu's "speed", slowest first, or one speed where there was no spread.
grep -q '^stack speed: ' cpu.txt || fail "no stack speed: $(cat cpu.txt)"
python3 - "$(grep '^stack speed: ' cpu.txt)" <<'PY' || fail "cpu.json: cpu.speed"
import json, sys
cpu = json.load(open("cpu.json"))["cpu"]
if sys.argv[1].startswith("stack speed: one"):
    assert "speed" not in cpu, cpu
else:
    s = cpu["speed"]
    assert s["window_ns"] == 1000000 and len(s["levels"]) == 10, s
    assert s["levels"] == sorted(s["levels"]) and s["levels"][0] > 0, s
    assert s["levels"][-1] > s["levels"][0] * 1.02, s
    print("stack speed levels:", s["levels"])
PY
shm=/dev/shm/tierlab-validate-cli-$$.img
trap 'rm -rf "$tmp" "$ramdir"; rm -f "$shm"' EXIT
cat >ram.json <<JSON
{"name": "ram-cache",
 "layouts": [{"name": "shm", "size": "64m", "cpu": "file:cpu.json",
              "tiers": [{"name": "cache", "preset": "ram", "capacity": "32m", "paths": ["$shm"],
                         "model": {"read_iops_4k": 20000000, "seq_read_mbps": 100000}},
                        {"name": "capacity", "preset": "file:dev.json", "capacity": "64m",
                         "paths": ["dev.img"]}],
              "cache": {"tier": "cache", "line_size": "4k"}}],
 "profiles": [{"name": "qd8", "rw": "randread", "bs": "4k", "iodepth": 8, "size": "16m",
               "precondition": "fill", "runtime": "500ms", "ramp_time": "100ms",
               "time_based": true}]}
JSON
"$bin" validate ram.json -q -f json -o ram-v.json --save ram --no-pause-reference ||
  fail "validate ram.json"
[[ -z $(ls -A "$ramdir") ]] || fail "validate's host reference left files: $(ls -A "$ramdir")"
"$bin" validate ram.json -q -f csv --no-host-reference --no-pause-reference -o ram-plain.csv ||
  fail "validate plain"
ramdir=$ramdir python3 - <<'PY'
import json, os
cpu = json.load(open("cpu.json"))
assert cpu["cpu_file"] == 1 and len(cpu["calibration"]["points"]) == 6, cpu
c = cpu["cpu"]
assert c["cores"] == 1 and c["per_io_ns"] > 0 and c["per_write_io_ns"] > 0, c
# The host's stalls, measured for a second beside the points: the costs
# are net of their share of the time, which the model's stalls take back.
st = cpu["calibration"]["stalls"]
assert st["window_ms"] >= 1000 and 0 <= st["lost_share"] < 0.25, st
assert len(c.get("stalls", [])) > 0 or st["count"] == 0, (c, st)
assert all(s["duration_ns"] >= 2000 and s["per_second"] > 0 for s in c.get("stalls", [])), c
# The reference: the probe's 4k reads and writes at QD32 as calibrated, in
# --dir.
ref = cpu["reference"]
assert ref["region"] == "16m" and ref["dir"] == os.environ["ramdir"], ref
points = {p["point"]: p for p in cpu["calibration"]["points"]}
for key, point in (("read_ns_per_io", "randread 4k QD32"), ("write_ns_per_io", "randwrite 4k QD32")):
    assert abs(ref[key] - 1e9 / points[point]["iops"]) < 0.1, (ref, points[point])
cell = json.load(open("ram-v.json"))["cells"][0]
# validate measured the host after the real cell: the reference's time per
# I/O against the calibration's scales the model's costs, so that its time
# per reference I/O is the measured one.
href = json.load(open("ram-measured.json"))["cells"][0]["host_reference"]
assert json.load(open("ram-model.json"))["cells"][0]["host_reference"] == href, href
scale = href["read_scale"]
assert cell["read_scale"] == scale and cell["write_scale"] == href["write_scale"], (cell, href)
assert href["calibrated_read_ns_per_io"] == ref["read_ns_per_io"], href
assert abs(scale - href["read_ns_per_io"] / ref["read_ns_per_io"]) < 1e-3, href
assert "host" not in open("ram-plain.csv").readline(), "--no-host-reference has a host column"
# The reads' cost in the model: the calibrated one times the scale, with
# the stalls' share of the time.
cost = scale * (c["per_io_ns"] + 4 * c["per_kib_ns"]) / (1 - st["lost_share"])
ms = {m["metric"]: m for m in cell["metrics"]}
# The cache's RAM is made fast enough (20 M reads a second) that the CPU
# binds on any host: 1 / cost reads a second (the cost with the stalls'
# share and the host's scale), and by Little's law QD x that cost each.
want = 1e9 / cost
assert abs(ms["iops"]["model"] - want) < 0.03 * want, (ms["iops"], cost)
assert abs(ms["lat"]["model"] - 8 * cost) < 0.05 * 8 * cost, (ms["lat"], cost)
print("host cpu: %d ns a read (x%.3f); RAM cell measured %.0f IOPS, model %.0f" %
      (cost, scale, ms["iops"]["measured"], ms["iops"]["model"]))
PY
# bench/remodel_cell.sh models the saved cell again at the costs that give
# its measured mean: that mean comes back (the costs scaled twice), and a
# cell that is not there is a one-line error.
src=${TIERLAB_SOURCE_DIR:?}
"$src/bench/remodel_cell.sh" --prefix ram "$tmp" 0 "$bin" >remodel.txt 2>err ||
  fail "remodel_cell: $(cat err)"
python3 - "$(sed -n 2p remodel.txt)" <<'PY' || fail "remodel_cell: $(cat remodel.txt)"
import re, sys
m = re.match(r"\s*mean ([0-9.]+) / ([0-9.]+)\s+p5 ", sys.argv[1])
assert m, sys.argv[1]
model, measured = float(m.group(1)), float(m.group(2))
assert measured > 0 and abs(model - measured) <= 0.05 * measured, (model, measured)
PY
grep -q "p99 error [+-][0-9.]*%$" remodel.txt || fail "remodel_cell: $(cat remodel.txt)"
rc=0
"$src/bench/remodel_cell.sh" --prefix ram "$tmp" 7 "$bin" 2>err || rc=$?
[[ $rc -ne 0 && $(wc -l <err) -eq 1 ]] && grep -q "cells 0..0" err ||
  fail "remodel_cell of a cell not there: exit $rc: $(cat err)"
rc=0
"$bin" calibrate --cpu dev.img 2>err || rc=$?
[[ $rc -eq 2 && $(wc -l <err) -eq 1 ]] || fail "calibrate --cpu PATH: exit $rc: $(cat err)"
rc=0
"$bin" calibrate --cpu --size 64t 2>err || rc=$?
[[ $rc -eq 2 ]] && grep -q "free" err || fail "calibrate --cpu beyond tmpfs: exit $rc: $(cat err)"
rc=0
"$bin" calibrate 2>err || rc=$?
[[ $rc -eq 2 ]] && grep -q "PATH" err || fail "calibrate without PATH: exit $rc: $(cat err)"
# --dir is the CPU probe's, and a RAM filesystem: the build directory's
# disk is not (where it is, this check has nothing to refuse).
bindir=$(dirname "$bin")
case $(stat -f -c %T "$bindir") in
  tmpfs | ramfs) echo "SKIP: $bindir is on a RAM filesystem" ;;
  *)
    rc=0
    "$bin" calibrate --cpu --dir "$bindir" 2>err || rc=$?
    [[ $rc -eq 2 && $(wc -l <err) -eq 1 ]] && grep -q -- "--dir: .* not on a RAM filesystem" err ||
      fail "calibrate --cpu --dir on disk: exit $rc: $(cat err)"
    ;;
esac
rc=0
"$bin" calibrate --dir "$ramdir" dev.img 2>err || rc=$?
[[ $rc -eq 2 ]] && grep -q "\-\-dir is \-\-cpu's" err || fail "calibrate PATH --dir: exit $rc: $(cat err)"

rc=0
"$bin" validate no-such.json 2>err || rc=$?
[[ $rc -ne 0 && $(wc -l <err) -eq 1 ]] || fail "missing matrix: exit $rc: $(cat err)"
grep -q "no-such.json" err || fail "missing matrix not named: $(cat err)"
rc=0
"$bin" validate m.json -f pdf 2>err || rc=$?
[[ $rc -eq 2 ]] || fail "bad format: exit $rc: $(cat err)"

# The page as a browser reads it: headless chromium's DOM has the table and
# both plots with their two lines.
chromium=""
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then chromium=$c; break; fi
done
if [[ -z $chromium ]]; then
  echo "SKIP: chromium not installed (apt-get install -y chromium)"
  exit 77
fi
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --disable-dev-shm-usage --user-data-dir="$(mktemp -d -p "$tmp")" \
  --dump-dom "file://$tmp/v.html" >dom.html 2>chromium.log || { cat chromium.log; exit 1; }
grep -qF "<td>file | qd1</td>" dom.html || fail "DOM lacks the qd1 row"
[[ $(grep -o '<polyline' dom.html | wc -l) -ge 4 ]] || fail "DOM lacks the CDF lines"
echo "validate page: ok"
