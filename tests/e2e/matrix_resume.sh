#!/usr/bin/env bash
# Long runs: progress on stderr without a terminal (--status-interval, as
# fio), quiet with -q; a matrix interrupted by SIGTERM or SIGINT keeps every
# finished cell in its results file, and --resume runs only the rest, ending
# with the same file as an uninterrupted run; --resume refuses a results
# file of another matrix or shard.
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Eight cells of about 0.4 s each.
cat >m.json <<'JSON'
{"name": "resume", "layouts": ["nvme4"], "profiles": ["4k-randread"],
 "profile_override": {"runtime": "8s", "ramp_time": "0", "iodepth": 16, "size": "1g"},
 "axes": {"bs": ["4k", "8k", "16k", "32k"], "numjobs": [1, 2]}}
JSON

# The reference: one uninterrupted run; -q prints nothing on stderr.
"$bin" matrix m.json -q -j 1 -o full.json -f json 2>full.err
[ ! -s full.err ] || fail "-q printed: $(cat full.err)"
# Without -q, a short run prints only its summary (no terminal here: the
# first status line would come after 10 s).
sed 's/"8s"/"1s"/; s/, "numjobs": \[1, 2\]//' m.json >short.json
"$bin" matrix short.json -j 2 -f json >/dev/null 2>quiet.err
python3 - <<'PY' || fail "default stderr: $(cat quiet.err)"
import re
lines = open("quiet.err").read().splitlines()
m = re.match(r"4 cells in ([0-9.]+) s ", lines[-1])
assert m, lines
# Status lines only when the run lasted 10 s (a slow or sanitized build).
assert all(l.startswith("matrix: ") for l in lines[:-1]), lines
assert len(lines) == 1 or float(m.group(1)) >= 10, lines
PY

cells() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cells"]))' "$1"; }

# interrupt SIGNAL EXIT_CODE: start the matrix, wait for two finished cells
# in the results file, send the signal, check the exit code and the file.
interrupt() {
  local sig=$1 want=$2
  rm -f part.json
  "$bin" matrix m.json -j 1 -o part.json -f json --status-interval 200ms 2>part.err &
  pid=$!
  for _ in $(seq 1 300); do
    if [ -s part.json ] && [ "$(cells part.json)" -ge 2 ]; then break; fi
    sleep 0.1
  done
  kill "-$sig" "$pid"
  local rc=0
  wait "$pid" || rc=$?
  pid=""
  [ "$rc" -eq "$want" ] || fail "SIG$sig: exit $rc, want $want: $(cat part.err)"
  grep -q "interrupted by SIG$sig: [0-9] of 8 cells are in part.json; tierlab matrix m.json -o part.json --resume runs the rest" part.err ||
    fail "SIG$sig: no note of the kept cells: $(cat part.err)"
  grep -q '^matrix: [0-9]/8 cells' part.err || fail "no status line with --status-interval: $(cat part.err)"
  # Every kept cell is whole, and the same as in the uninterrupted run.
  python3 - <<'PY'
import json
part = json.load(open("part.json"))
full = json.load(open("full.json"))
assert 2 <= len(part["cells"]) < 8, len(part["cells"])
byindex = {c["index"]: c for c in full["cells"]}
for c in part["cells"]:
    assert c == byindex[c["index"]], c["index"]
assert part["matrix_hash"] == full["matrix_hash"]
PY
}

interrupt TERM 143
kept=$(cells part.json)
"$bin" matrix m.json -j 2 -o part.json --resume -f json 2>resume.err
grep -q "resuming part.json: $kept of 8 cells already done" resume.err || fail "resume: $(cat resume.err)"
grep -q "^$((8 - kept)) cells in " resume.err || fail "resume ran more than the missing cells: $(cat resume.err)"
cmp part.json full.json || fail "resumed results differ from an uninterrupted run"

interrupt INT 130
"$bin" matrix m.json -q -j 1 -o part.json --resume -f json
cmp part.json full.json || fail "resumed results (after SIGINT) differ from an uninterrupted run"

# Refusals: another matrix, another shard, no -o. All exit 2, one line.
cp full.json full.orig
sed "s/\"8s\"/\"7s\"/" m.json >other.json
set +e
"$bin" matrix other.json -q -o full.json --resume 2>other.err
rc_other=$?
"$bin" matrix m.json -q --shard 1/2 -o full.json --resume 2>shard.err
rc_shard=$?
"$bin" matrix m.json -q --resume 2>noout.err
rc_noout=$?
set -e
[ "$rc_other" -eq 2 ] && grep -q 'full.json: .*from another matrix' other.err || fail "other matrix: $rc_other $(cat other.err)"
[ "$rc_shard" -eq 2 ] && grep -q 'full.json: holds shard 1/1, this run is shard 1/2' shard.err ||
  fail "other shard: $rc_shard $(cat shard.err)"
[ "$rc_noout" -eq 2 ] && grep -q -- '--resume needs -o FILE' noout.err || fail "no -o: $rc_noout $(cat noout.err)"
cmp full.json full.orig || fail "a refused --resume changed full.json"

# tierlab run: status lines every interval without a terminal, none with -q.
# 60 simulated seconds take about 1.4 s of wall time in the release build
# (5 s took 0.18 s: shorter than the interval, so no line was due).
cat >p.json <<'JSON'
{"name": "p", "rw": "randread", "bs": "4k", "iodepth": 16, "size": "1g", "runtime": "60s",
 "time_based": true}
JSON
"$bin" run -l nvme4 -p p.json --status-interval 200ms >/dev/null 2>run.err
grep -q '^run p: *[0-9]*%, [0-9]* I/Os' run.err || fail "run status: $(cat run.err)"
"$bin" run -l nvme4 -p p.json -q --status-interval 200ms >/dev/null 2>runq.err
[ ! -s runq.err ] || fail "run -q printed: $(cat runq.err)"
echo "matrix resume: ok"
