#!/usr/bin/env bash
# The builtin profiles from the command line: `tierlab profiles` lists every
# builtin and the group names; `tierlab profiles show NAME` prints a builtin
# (or a group's members) as JSON on stdout that reads back, and where its
# numbers come from on stderr; a fleet profile runs, each VM on its own
# region; a bad name is one line listing the valid names, exit code 2.
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq not found" >&2; exit 77; }

"$bin" profiles >"$tmp/list"
for g in hcibench-4k-50rand vmfleet hcibench sqlio; do
  grep -q "^$g " "$tmp/list" || fail "group $g not listed: $(cat "$tmp/list")"
done

# A family shows all its members, as many as the listing has.
for family in vmfleet hcibench sqlio; do
  listed=$(sed "/^$/q" "$tmp/list" | grep -c "^$family-")  # the builtins, not the groups
  [[ $listed -gt 0 ]] || fail "no $family-* profile listed"
  "$bin" profiles show "$family" >"$tmp/$family.json" 2>"$tmp/$family.src"
  [[ $(jq 'length' "$tmp/$family.json") == "$listed" ]] || fail "$family shows $(jq length "$tmp/$family.json") of $listed"
  [[ $(wc -l <"$tmp/$family.src") == "$listed" ]] || fail "$family: one source line per profile: $(cat "$tmp/$family.src")"
done

# One builtin: the JSON reads back unchanged; the source is on stderr only.
"$bin" profiles show vmfleet-general-w30 >"$tmp/g.json" 2>"$tmp/g.src"
"$bin" profiles show "$tmp/g.json" >"$tmp/g.again" 2>"$tmp/g.again.src"
cmp -s "$tmp/g.json" "$tmp/g.again" || fail "vmfleet-general-w30 does not read back"
[[ ! -s $tmp/g.again.src ]] || fail "a profile file has no builtin source: $(cat "$tmp/g.again.src")"
grep -q '^vmfleet-general-w30: .*Source: VMFleet, microsoft/diskspd Frameworks/VMFleet' "$tmp/g.src" \
  || fail "source line: $(cat "$tmp/g.src")"
[[ $(jq -r '.numjobs, .iodepth, .rwmixread, .split_size' "$tmp/g.json" | tr '\n' ' ') == "8 32 70 true " ]] \
  || fail "vmfleet-general-w30: $(cat "$tmp/g.json")"

# An HCIBench run: 2 VMs x 3 vmdks, each vmdk a file of its own in its VM's
# part of the working set.
jq '.[] | select(.name == "hcibench-4k70r")
    | .numjobs = 2 | .nrfiles = 3 | .size = "96m" | .runtime = "200ms" | .ramp_time = "0"' \
  "$tmp/hcibench.json" >"$tmp/h.json"
"$bin" run -l nvme1+hdd2 -p "$tmp/h.json" -f json >"$tmp/h.out"
python3 - "$tmp/h.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
job = r["jobs"][0]
assert job["read"]["iops"] > 0 and job["write"]["iops"] > 0, job
files = job["files"]
assert len(files) == 2 * 3, files
regions = sorted((f["offset"], f["offset"] + f["size"]) for f in files)
assert all(a[1] <= b[0] for a, b in zip(regions, regions[1:])), regions  # no overlap
assert sum(e - b for b, e in regions) == 96 << 20, regions  # the VMs share the 96 MiB
PY

# A bad name: one line naming the valid builtins and groups, exit code 2.
rc=0
"$bin" profiles show vmfleet-turbo >/dev/null 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 && $(wc -l <"$tmp/err") -eq 1 ]] || fail "bad name: exit $rc: $(cat "$tmp/err")"
grep -q "unknown profile 'vmfleet-turbo'.*vmfleet-peak.*sqlio-64k-seqwrite.*vmfleet, hcibench, sqlio" \
  "$tmp/err" || fail "bad name message: $(cat "$tmp/err")"
echo ok
