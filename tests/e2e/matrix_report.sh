#!/usr/bin/env bash
# End to end: a tiny matrix through the CLI in two shards, merged, reported
# as Markdown, CSV and HTML; the HTML rendered by headless chromium to a PNG
# and its DOM checked for the charts. Bad input gives exit code 2; a diff
# pivot on the read cache exits 1, with the intervals apart; a drop beyond
# the threshold inside overlapping intervals is noise and exits 0.
set -euo pipefail
: "${TIERLAB_BIN:?set TIERLAB_BIN to the tierlab binary}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > m.json <<'JSON'
{"name": "e2e", "layouts": ["nvme2+hdd4", "nvme2+ssd4"], "profiles": ["4k-randread"],
 "profile_override": {"runtime": "500ms", "ramp_time": "200ms", "size": "2g",
                      "random_distribution": "zipf:1.2"},
 "axes": {"cache.read": [true, false]}}
JSON

"$TIERLAB_BIN" matrix m.json -q --shard 1/2 -o part1.json -f md > shard1.md
"$TIERLAB_BIN" matrix m.json -q --shard 2/2 -o part2.json > /dev/null
"$TIERLAB_BIN" merge part2.json part1.json -o all.json
python3 - <<'PY'
import json
a = json.load(open("all.json"))
assert a["shard"] == "merged", a["shard"]
assert [c["index"] for c in a["cells"]] == [0, 1, 2, 3], [c["index"] for c in a["cells"]]
assert a["cell_count"] == 4
PY
# The same matrix unsharded gives the same cells.
"$TIERLAB_BIN" matrix m.json -q -j 2 -o whole.json > /dev/null
python3 -c 'import json,sys; a=json.load(open("all.json")); w=json.load(open("whole.json")); sys.exit(0 if a["cells"]==w["cells"] else 1)'

"$TIERLAB_BIN" report all.json --format md > report.md
grep -q '^### profile 4k-randread' report.md
grep -q 'IOPS read' report.md
grep -q '95% confidence interval, batch means' report.md
grep -Eq '\| +[0-9]+ ± [0-9]+ \|' report.md
"$TIERLAB_BIN" report all.json --format csv > report.csv
test "$(wc -l < report.csv)" -eq 5
"$TIERLAB_BIN" report all.json --format html -o report.html
grep -q '<svg' report.html

# The gate: read cache off regresses.
set +e
"$TIERLAB_BIN" diff all.json --pivot cache.read > pivot.txt
rc=$?
"$TIERLAB_BIN" diff all.json all.json > same.txt
rc_same=$?
set -e
test "$rc" -eq 1 || { echo "diff --pivot exit $rc, want 1"; cat pivot.txt; exit 1; }
grep -Eq 'REGRESSION +> 5.0%, 95% CIs apart' pivot.txt
test "$rc_same" -eq 0 || { echo "diff of a file with itself exit $rc_same, want 0"; exit 1; }

# 10% fewer IOPS everywhere, inside intervals of +-20%: noise, exit 0.
python3 - <<'PY'
import json
def widen(path, scale):
    a = json.load(open("all.json"))
    for c in a["cells"]:
        s = c["jobs"][0]["complete"]
        s["iops"] *= scale
        h = 0.2 * s["iops"]
        s["iops_ci95"] = {"lo": s["iops"] - h, "hi": s["iops"] + h, "half_width": h, "n": 20,
                          "method": "batch_means"}
    json.dump(a, open(path, "w"))
widen("wide.json", 1.0)
widen("slower.json", 0.9)
PY
set +e
"$TIERLAB_BIN" diff wide.json slower.json --metric iops > noise.txt
rc_noise=$?
set -e
test "$rc_noise" -eq 0 || { echo "diff inside the intervals exit $rc_noise, want 0"; cat noise.txt; exit 1; }
grep -Eq 'noise +> 5.0%, 95% CIs overlap' noise.txt
grep -q '4 beyond the threshold within the intervals (noise)' noise.txt

# Bad input: exit 2 and an error naming the file and the axis.
cat > bad.json <<'JSON'
{"layouts": ["nvme2+hdd4"], "profiles": ["4k-randread"], "axes": {"cache.foo": [1]}}
JSON
set +e
"$TIERLAB_BIN" matrix bad.json 2> bad.err
rc=$?
set -e
test "$rc" -eq 2 || { echo "bad axis exit $rc, want 2"; cat bad.err; exit 1; }
grep -q 'bad.json: axes."cache.foo": ' bad.err

# Render the page in headless chromium.
chromium=""
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" > /dev/null 2>&1; then chromium=$c; break; fi
done
if [ -z "$chromium" ]; then
  echo "SKIP: chromium not installed (apt-get install -y chromium)"
  exit 77
fi
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --disable-dev-shm-usage)
timeout 120 "$chromium" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$work")" \
  --screenshot="$work/out.png" --window-size=1280,2000 "file://$work/report.html" \
  > chromium.log 2>&1 || { cat chromium.log; exit 1; }
test -s out.png
size=$(stat -c %s out.png)
test "$size" -gt 20000 || { echo "PNG only $size bytes"; exit 1; }
timeout 120 "$chromium" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$work")" \
  --dump-dom "file://$work/report.html" > dom.html 2> chromium.log || { cat chromium.log; exit 1; }
for want in 'class="bar-chart"' 'class="percentile-chart"' 'IOPS (complete I/Os)' \
            'Mean latency (ms)' '<polyline' '<table>'; do
  grep -qF "$want" dom.html || { echo "DOM lacks $want"; exit 1; }
done
test "$(grep -o '<svg' dom.html | wc -l)" -ge 4
echo "ok: PNG $size bytes"
