#!/usr/bin/env bash
# fio itself against tierlab --real: the same job files (written here), run
# by fio on a temp file and by tierlab on a temp-file volume of the same
# size, issue the same I/Os per section: counts, bytes, read/write mix and
# block-size histogram, exactly (times are not compared). fio's counts come
# from its write_iolog, tierlab's from issued_by_size. Also checks that the
# JSON keys and units tierlab borrows from fio are fio's. Skips (77) without
# fio.
set -euo pipefail
bin=${TIERLAB_BIN:?}
command -v fio >/dev/null || { echo "fio not installed: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

truncate -s 16m target
export TARGET="$tmp/target" SIZE=1m
cat >layout.json <<'JSON'
{"name": "one", "tiers": [{"name": "d", "preset": "ssd-hk4e", "count": 1, "capacity": "16m"}]}
JSON

# Holes, backwards, loops (fio 3.33: 128, 256, 192 I/Os).
cat >holes.fio <<'FIO'
[global]
ioengine=libaio ; as tierlab --real
direct=1
filename=${TARGET}
bs=4k
size=${SIZE}
[holes]
rw=read:4k
[back]
rw=read:-8k   # backwards over the region
[loop]
rw=write
size=256k
loops=3
FIO

# Stop conditions and per-direction sizes.
cat >sizes.fio <<'FIO'
[global]
ioengine=libaio
direct=1
filename=${TARGET}
size=1m
[iosize]
rw=randread
io_size=2m
[number]
rw=randwrite
number_ios=100
[capped]
rw=randread
number_ios=1000
[rt]
rw=write
bs=64k
size=2m
runtime=60
[bsw]
rw=write
bs=8k,32k
[bsr]
rw=read
bs=,32k
[delayed]
rw=read
size=256k
startdelay=100ms
FIO

# include (next to this file), ${VAR} in the included file, zoned with a
# shared size.
mkdir -p inc
cat >inc/common.fio <<'FIO'
ioengine=libaio
direct=1
filename=${TARGET}
bs=8k
size=${SIZE}
FIO
cat >include.fio <<'FIO'
[global]
include inc/common.fio
[zoned]
rw=randread
random_distribution=zoned:50/10:50/
[seq]
rw=write
FIO

# Sections and files (item 10): sections without stonewall run together,
# nrfiles splits a job's size into files taken round robin, filesize sizes
# each, a named file is shared, and verify reads back what a job wrote
# (in its own file, as no other job writes there) (clones' own files: JobFilesTest; fio's
# per-clone iologs would share one name). fio creates
# its files in a directory; tierlab lays them out on its volume.
mkdir -p files
export FILES="$tmp/files"
cat >files.fio <<'FIO'
[global]
ioengine=libaio
direct=1
bs=4k
directory=${FILES}
[two]
rw=read
size=64k
nrfiles=2
[three]
rw=randread
filesize=32k
nrfiles=3
number_ios=30
[shared]
filename=one
rw=write
bs=8k
size=128k
[shared-after]
stonewall
filename=one
rw=read
offset=64k
size=64k
[verified]
filename=verified
rw=write
bs=8k
size=128k
verify=crc32c
FIO

python3 - "$bin" holes.fio sizes.fio include.fio files.fio <<'PY'
import collections, json, os, re, subprocess, sys

bin, jobs = sys.argv[1], sys.argv[2:]

def fio_counts(job):
    # The same job with a write_iolog per section (fio's job file grammar).
    logs, out = [], []
    for line in open(job):
        out.append(line)
        m = re.match(r"\s*\[([^\]]+)\]", line)
        if m and m.group(1) != "global":
            logs.append(f"{job}.{len(logs)}.iolog")
            out.append(f"write_iolog={os.path.abspath(logs[-1])}\n")
    fio_job = job + ".with-log"
    open(fio_job, "w").writelines(out)
    r = subprocess.run(["fio", "--output-format=json", fio_job], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout[r.stdout.index("{"):])
    sections = []
    for log in logs:
        hist = {"read": collections.Counter(), "write": collections.Counter()}
        for rec in open(log):
            f = rec.split()  # version 3: time file action offset length
            if len(f) == 5 and f[2] in hist:
                hist[f[2]][int(f[4])] += 1
        sections.append({d: dict(sorted(c.items())) for d, c in hist.items()})
    return sections, doc

def tierlab_counts(job):
    r = subprocess.run([bin, "run", "--real", "-q", "-l", "layout.json", "-p", job,
                        "--dir", ".", "--output-format", "json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    sections = []
    for j in doc["jobs"]:
        sections.append({d: {int(k): v for k, v in sorted(j["issued_by_size"][d].items())}
                         for d in ("read", "write")})
        if "verify" in j:  # tierlab --real compares what it read back
            assert j["verify"]["checked"] and j["verify"]["mismatches"] == 0, j["verify"]
            assert j["verify"]["bytes_checked"] == j["write"]["io_bytes"], j["verify"]
        for d in ("read", "write"):  # nothing issued went unmeasured (no ramp here)
            assert j[d]["total_ios"] == sum(sections[-1][d].values()), (job, j["jobname"], d)
    return sections, doc

fio_doc = None
for job in jobs:
    want, fio_doc = fio_counts(job)
    got, doc = tierlab_counts(job)
    names = [j["jobname"] for j in fio_doc["jobs"]]
    assert [j["jobname"] for j in doc["jobs"]] == names, (job, names)
    # Sections group as fio groups them: a new group at each stonewall.
    groups = [j["groupid"] for j in fio_doc["jobs"]]
    assert [j["groupid"] for j in doc["jobs"]] == groups, (job, groups)
    for name, w, g in zip(names, want, got):
        assert w == g, f"{job} [{name}]: fio issued {w}, tierlab {g}"
        print(f"{job} [{name}]: {w}")

# The keys tierlab takes from fio are fio's, with fio's units.
f, t = fio_doc["jobs"][0], doc["jobs"][0]
missing = set(f["read"]) - set(t["read"])
assert not missing, f"fio's read keys missing in tierlab: {sorted(missing)}"
for key in ("jobname", "job options", "job_runtime", "elapsed", "error", "groupid", "read", "write"):
    assert key in t, key
for k in ("clat_ns", "slat_ns", "lat_ns"):
    assert set(f["read"][k]) <= set(t["read"][k]) | {"percentile"}, k
assert "percentile" in f["read"]["clat_ns"] and "percentile" in t["read"]["clat_ns"]
for j in (f, t):
    for d in ("read", "write"):
        s = j[d]
        if s["total_ios"] == 0:
            continue
        assert abs(s["bw"] - s["bw_bytes"] / 1024) <= 1, (s["bw"], s["bw_bytes"])  # KiB/s
        assert s["io_kbytes"] == s["io_bytes"] // 1024
        assert abs(s["runtime"] - j["job_runtime"]) <= 2, (s["runtime"], j["job_runtime"])  # ms
        for k in ("bw_min", "bw_max", "iops_min", "iops_max", "bw_samples", "iops_samples"):
            assert isinstance(s[k], int), k
print("keys and units: as fio")
PY
echo "fio compare: ok"
