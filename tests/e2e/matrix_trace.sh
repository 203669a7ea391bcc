#!/usr/bin/env bash
# A block trace as a matrix profile: tests/data/matrix/trace-matrix.json
# replays the MSR Cambridge sample (1000 records, 127 s of trace time)
# closed loop at iodepth 4 and open loop at 10x its rate, on two layouts,
# read cache on and off. The trace path is relative to the matrix file, so
# the matrix runs from any directory. Every cell must replay every record;
# the open-loop cells follow the trace's clock; report reads the results; a
# missing trace or an axis a trace does not have exits 2 naming the place.
set -euo pipefail
bin=${TIERLAB_BIN:?}
src=${TIERLAB_SOURCE_DIR:?}
matrix="$src/tests/data/matrix/trace-matrix.json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

"$bin" matrix "$matrix" --list > list.txt
grep -q 'nvme1+hdd2 | msr-hm | cache.read=true' list.txt || fail "labels: $(cat list.txt)"
"$bin" matrix "$matrix" -q -j 2 -o results.json -f md > table.md
python3 - results.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cells = r["cells"]
assert r["cell_count"] == 8 and len(cells) == 8, len(cells)
for c in cells:
    rp = c["replay"]
    assert rp["records"] == 1000 and rp["reads"] == 508 and rp["writes"] == 492, rp
    assert rp["rejected"] == 0 and rp["format"] == "msr", rp
    job = c["jobs"][0]
    assert job["read"]["total_ios"] == 508 and job["write"]["total_ios"] == 492, job["read"]
    assert job["read"]["errors"] == 0 and job["write"]["errors"] == 0
    runtime = job["job_runtime_ns"] / 1e9
    if c["profile_name"] == "msr-hm":
        assert rp["mode"] == "closed" and rp["iodepth"] == 4, rp
        assert runtime < 12, runtime          # as fast as the stack allows
    else:
        assert rp["mode"] == "open" and rp["iodepth"] == 256, rp
        assert 12.0 < runtime < 14.0, runtime  # 127.2 s of trace at 1000 %
# The read cache axis reached the trace cells: ids differ, labels say so.
assert len({c["id"] for c in cells}) == 8
assert any("cache.read=false" in c["label"] for c in cells)
PY
grep -q 'msr-hm' table.md || fail "no trace profile in the table: $(head -5 table.md)"

# Same results from a second run (no wall time in the cells).
"$bin" matrix "$matrix" -q -j 1 -o again.json > /dev/null
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if a["cells"]==b["cells"] else 1)' \
  results.json again.json || fail "results differ between runs"
"$bin" report results.json --format csv > report.csv
test "$(wc -l < report.csv)" -eq 9 || fail "report rows: $(wc -l < report.csv)"

# A trace profile in its own JSON file, named by the matrix like a profile
# file; its trace path is relative to that file. tierlab run --profile
# replays it the same way, from any directory.
mkdir -p profiles
cp "$src/tests/data/traces/msr-cambridge1-sample.csv" profiles/
cat > profiles/hm.json <<'JSON'
{"trace": "msr-cambridge1-sample.csv", "name": "hm-file", "number_ios": 100}
JSON
cat > by-file.json <<'JSON'
{"layouts": ["nvme1+hdd2"], "profiles": ["profiles/hm.json"]}
JSON
"$bin" matrix by-file.json -q -o by-file-results.json > /dev/null
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cells"]; assert len(c)==1 and c[0]["replay"]["records"]==100 and c[0]["profile_name"]=="hm-file", c[0]["replay"]' \
  by-file-results.json || fail "trace profile file"
(cd / && "$bin" run --profile "$OLDPWD/profiles/hm.json" --layout nvme1+hdd2 --format json) \
  > run-file.json || fail "run --profile trace json: exit $?"
python3 - run-file.json by-file-results.json <<'PY' || fail "run --profile trace json results"
import json, sys
run = json.load(open(sys.argv[1])); cell = json.load(open(sys.argv[2]))["cells"][0]
assert run["profile"]["name"] == "hm-file", run["profile"]
assert run["replay"]["records"] == 100, run["replay"]
# The same replay as the matrix cell, I/O for I/O.
for k in ("reads", "writes", "records", "trace"):
    assert run["replay"][k] == cell["replay"][k], (k, run["replay"][k], cell["replay"][k])
for op in ("read", "write"):
    assert run["jobs"][0][op]["total_ios"] == cell["jobs"][0][op]["total_ios"], op
PY
# A bad key in it: exit 2, naming the file and the key.
echo '{"trace": "msr-cambridge1-sample.csv", "replay_mode": "sideways"}' > profiles/bad.json
set +e
"$bin" run --profile profiles/bad.json --layout nvme1+hdd2 2> err.txt; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'bad.json' err.txt && grep -q 'replay_mode' err.txt ||
  fail "run --profile bad trace json: $rc $(cat err.txt)"

# Bad input: exit 2, the message names the matrix entry or the axis.
cat > missing.json <<'JSON'
{"layouts": ["nvme1+hdd2"], "profiles": [{"trace": "no-such-trace.csv"}]}
JSON
set +e
"$bin" matrix missing.json -q -o out.json 2> err.txt; rc=$?
set -e
[ $rc -eq 2 ] || fail "missing trace: exit $rc"
grep -q 'profiles\[0\]' err.txt && grep -q 'no-such-trace.csv' err.txt || fail "$(cat err.txt)"
python3 - "$src" <<'PY'
import json, sys
m = {"layouts": ["nvme1+hdd2"],
     "profiles": [{"trace": sys.argv[1] + "/tests/data/traces/msr-cambridge1-sample.csv"}],
     "axes": {"bs": ["4k", "8k"]}}
json.dump(m, open("bad-axis.json", "w"))
PY
set +e
"$bin" matrix bad-axis.json -q -o out.json 2> err.txt; rc=$?
set -e
[ $rc -eq 2 ] || fail "bs axis on a trace: exit $rc"
grep -q 'axes."bs"' err.txt || fail "$(cat err.txt)"
echo OK
