#!/usr/bin/env bash
# tierlab run from the command line: the default job, output formats, real
# mode on temp files, and bad input (one-line errors, exit code 2).
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The embedded default prints the table.
out=$("$bin" run)
grep -q '^read ' <<<"$out" || fail "default run has no read row: $out"
grep -q '^write ' <<<"$out" || fail "default run has no write row"
grep -q 'cache hit %' <<<"$out" || fail "default run has no cache section"

# JSON with fio's keys, reproducible config.
"$bin" run --layout nvme1+hdd2 --profile 4k-randread --format json --seed 5 -o "$tmp/r.json"
python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
job = r["jobs"][0]
assert job["read"]["iops"] > 0, job["read"]
assert "99.000000" in job["read"]["lat_ns"]["percentile"]
assert r["seed"] == 5 and r["profile"]["randseed"] == 5
assert r["tierlab_version"] and r["layout"]["name"] == "nvme1+hdd2"
assert {t["role"] for t in r["tiers"]} == {"cache", "capacity"}
assert "read_hit_ratio" in r["cache"]
PY
"$bin" run --layout nvme1+hdd2 --profile 4k-randread --format csv | head -1 | grep -q '^op,IOPS' || fail "csv header"
"$bin" run --layout nvme1+hdd2 --profile 4k-randread --format md | grep -q '^| read' || fail "md table"

# A fio job file with [global] inheritance.
cat > "$tmp/job.fio" <<'FIO'
[global]
ioengine=libaio
direct=1
bs=4k
runtime=1
size=256m
[reader]
rw=randread
iodepth=4
FIO
"$bin" run --layout ssd1 --profile "$tmp/job.fio" | grep -q '^read ' || fail "fio job file"

# Several sections: one JSON document with fio's jobs[] over all of them,
# "job options" as the section wrote them and "global options".
cat > "$tmp/two.fio" <<'FIO'
[global]
bs=4k
size=64m
number_ios=500
[first]
rw=randread
iodepth=4
[second]
rw=randwrite ; trailing comment
verify_offset=16
FIO
"$bin" run --layout ssd1 --profile "$tmp/two.fio" --ignore-unknown --output-format json \
  >"$tmp/two.json" 2>"$tmp/two.err"
grep -qx 'tierlab: .*two.fio: ignored unknown option(s): verify_offset' "$tmp/two.err" ||
  fail "--ignore-unknown names: $(cat "$tmp/two.err")"
python3 - "$tmp/two.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
jobs = r["jobs"]
assert [j["jobname"] for j in jobs] == ["first", "second"], jobs
assert jobs[0]["read"]["total_ios"] == 500 and jobs[1]["write"]["total_ios"] == 500
assert jobs[1]["job options"] == {"rw": "randwrite", "verify_offset": "16"}, jobs[1]["job options"]
assert r["global options"] == {"bs": "4k", "size": "64m", "number_ios": "500"}, r["global options"]
assert "99.000000" in jobs[0]["read"]["clat_ns"]["percentile"]
assert isinstance(jobs[0]["read"]["bw"], int) and isinstance(jobs[0]["job_runtime"], int)
assert len(r["sections"]) == 2
PY

# Real mode on temp files.
cat > "$tmp/real.json" <<'JSON'
{"name": "small", "tiers": [{"name": "d", "preset": "ssd-hk4e", "count": 2, "capacity": "64m"}]}
JSON
cat > "$tmp/mix.json" <<'JSON'
{"name": "mix", "rw": "randrw", "bs": "4k", "iodepth": 8, "number_ios": 4000}
JSON
"$bin" run --real --layout "$tmp/real.json" --profile "$tmp/mix.json" --format json -o "$tmp/real-out.json" --dir "$tmp"
python3 - "$tmp/real-out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mode"] == "real"
moved = sum(d["read_bytes"] + d["write_bytes"] for d in r["devices"])
assert moved == 4000 * 4096, moved
PY
ls "$tmp"/*.img 2>/dev/null && fail "real mode left device files behind"
# The same through each engine named in the layout: the same I/O moves.
for engine in io_uring libaio; do
  sed "s/\"count\": 2,/\"count\": 2, \"engine\": \"$engine\",/" "$tmp/real.json" >"$tmp/real-$engine.json"
  "$bin" run --real --layout "$tmp/real-$engine.json" --profile "$tmp/mix.json" --format json \
    -o "$tmp/real-$engine-out.json" --dir "$tmp" 2>"$tmp/real-$engine.err" || fail "real run on $engine"
  grep -q "using libaio" "$tmp/real-$engine.err" && fail "$engine: unexpected fallback"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); m=sum(d["read_bytes"]+d["write_bytes"] for d in r["devices"]); assert m == 4000*4096, m' \
    "$tmp/real-$engine-out.json" || fail "real run on $engine moved the wrong amount"
done

# Bad input: one line naming the file and field, exit code 2.
expect_error() {  # expected-substring, args...
  local want=$1; shift
  set +e
  err=$("$bin" "$@" 2>&1 >/dev/null)
  code=$?
  set -e
  [ "$code" -eq 2 ] || fail "exit $code (want 2) for: $*: $err"
  grep -qF -- "$want" <<<"$err" || fail "error '$err' lacks '$want'"
  [ "$(wc -l <<<"$err")" -eq 1 ] || fail "error is not one line: $err"
}
echo '{"rw": "randsometimes"}' > "$tmp/bad-rw.json"
expect_error 'bad-rw.json: rw:' run --profile "$tmp/bad-rw.json"
echo '{"rw": "randrw", "rwmixread": 150}' > "$tmp/bad-mix.json"
expect_error 'bad-mix.json: rwmixread:' run --profile "$tmp/bad-mix.json"
echo '{"bs": 0}' > "$tmp/bad-bs.json"
expect_error 'bad-bs.json: bs:' run --profile "$tmp/bad-bs.json"
echo '{"random_distribution": "zipf:abc"}' > "$tmp/bad-zipf.json"
expect_error 'bad-zipf.json: random_distribution:' run --profile "$tmp/bad-zipf.json"
printf '[job]\nrw=randread\nverify_offset=64\n' > "$tmp/unknown.fio"
expect_error 'verify_offset' run --profile "$tmp/unknown.fio"
"$bin" run --layout ssd1 --profile "$tmp/unknown.fio" --ignore-unknown >/dev/null || fail "--ignore-unknown"
echo '{"tiers": [{"preset": "optane", "count": 2}]}' > "$tmp/bad-layout.json"
expect_error 'bad-layout.json: tiers[0].preset: unknown "optane"; known:' run --layout "$tmp/bad-layout.json"
expect_error 'no-such-profile' run --profile no-such-profile
expect_error 'nope.json' run --profile "$tmp/nope.json"
expect_error '--format' run --format yaml

# verify: with --with-data the models keep what was written and every block
# read back is compared; without, the reads are issued and stderr says
# nothing was checked.
printf '[wv]\nrw=write\nbs=64k\nsize=8m\niodepth=8\nverify=crc32c\n' > "$tmp/verify.fio"
"$bin" run -q --layout nvme1+ssd1 --profile "$tmp/verify.fio" --with-data -f json \
  >"$tmp/verify.json" 2>"$tmp/verify.err" || fail "verify run: $(cat "$tmp/verify.err")"
python3 - "$tmp/verify.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
v = j["verify"]
assert v["checked"] and v["mismatches"] == 0 and v["bytes_checked"] == 8 << 20, v
assert v["reads"] == 128 and j["read"]["total_ios"] == 128 and j["error"] == 0, (v, j["read"])
PY
"$bin" run -q --layout ssd1 --profile "$tmp/verify.fio" >/dev/null 2>"$tmp/verify.err" ||
  fail "verify without data"
grep -q "wv: verify: nothing checked" "$tmp/verify.err" || fail "no note: $(cat "$tmp/verify.err")"
expect_error '--with-data is for simulations' run --real --with-data
echo "run_cli: ok"
