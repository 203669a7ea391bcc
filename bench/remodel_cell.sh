#!/usr/bin/env bash
# Models one cell of a `tierlab validate --save PREFIX` run again, at the
# CPU costs that give the cell's measured mean latency, and prints the
# read latency's percentiles, model / measured. So the shape of the
# modelled distribution can be judged apart from the host's speed during
# the cell (the host reference scales the mean by up to a third).
#
#   bench/remodel_cell.sh [options] DIR CELL [TIERLAB]
#
# DIR holds PREFIX-measured.json and PREFIX-model.json (PREFIX "s", as
# examples/validate-local.sh DIR --save DIR/s writes them) and the cpu file
# the cell's layout names (cpu.json); CELL is the cell's index (0-based);
# TIERLAB defaults to build/tierlab. Options:
#   --one-speed       drop the cpu's speed levels (one speed, the mean)
#   --long-stalls K   the calibrated stalls of 20 us and longer K times as
#                     often (K a positive number)
#   --prefix P        the saved files' prefix (default s)
#
# The costs are scaled twice: once to the ratio of the measured mean to a
# first model's, once more to take up what queueing made of that.
set -euo pipefail

one_speed=0
long_stalls=1
prefix=s
while [[ $# -gt 0 && $1 == --* ]]; do
  case "$1" in
    --one-speed) one_speed=1; shift ;;
    --long-stalls) long_stalls=${2:?--long-stalls needs a factor}; shift 2 ;;
    --prefix) prefix=${2:?--prefix needs a name}; shift 2 ;;
    *) echo "remodel_cell: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ $# -lt 2 ]]; then
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
dir=$1
cell=$2
bin=$(realpath "${3:-build/tierlab}")
[[ -x $bin ]] || { echo "remodel_cell: $bin: not an executable" >&2; exit 2; }

python3 - "$dir" "$cell" "$bin" "$prefix" "$one_speed" "$long_stalls" <<'PY'
import json, os, subprocess, sys, tempfile

dir_, cell, tierlab, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
one_speed, long_stalls = sys.argv[5] == "1", float(sys.argv[6])
if not long_stalls > 0:
    sys.exit(f"remodel_cell: --long-stalls {sys.argv[6]}: must be a positive number")
LONG_NS = 20_000
PERCENTILES = ["5.000000", "10.000000", "30.000000", "50.000000", "70.000000",
               "90.000000", "95.000000", "99.000000"]


def load(name):
    path = os.path.join(dir_, name)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"remodel_cell: {path}: {e}")


measured_cells = load(f"{prefix}-measured.json")["cells"]
model_cells = load(f"{prefix}-model.json")["cells"]
if not 0 <= cell < len(model_cells):
    sys.exit(f"remodel_cell: cell {cell}: the run has cells 0..{len(model_cells) - 1}")
layout, profile = model_cells[cell]["layout"], model_cells[cell]["profile"]
cpu_ref = layout.get("cpu")
if not (isinstance(cpu_ref, str) and cpu_ref.startswith("file:")):
    sys.exit(f"remodel_cell: cell {cell}: its layout has no cpu file (\"cpu\": \"file:...\")")
calibrated = load(cpu_ref[len("file:"):])["cpu"]


def latency(side):
    lat = side.get("clat_ns") or side["lat_ns"]
    return lat["mean"], [lat["percentile"][p] for p in PERCENTILES]


def model(scale, work):
    cpu = dict(calibrated)
    for k in ("per_io_ns", "per_kib_ns", "per_write_io_ns", "per_write_kib_ns"):
        if k in cpu:
            cpu[k] = round(cpu[k] * scale)
    if one_speed:
        cpu.pop("speed", None)
    cpu["stalls"] = [dict(s, per_second=s["per_second"] *
                          (long_stalls if s["duration_ns"] >= LONG_NS else 1))
                     for s in cpu.get("stalls", [])]
    paths = [os.path.join(work, n) for n in ("layout.json", "profile.json", "out.json")]
    json.dump(dict(layout, cpu=cpu), open(paths[0], "w"))
    json.dump(profile, open(paths[1], "w"))
    # From DIR, so that the layout's relative preset files resolve.
    subprocess.run([tierlab, "run", "-q", "-l", paths[0], "-p", paths[1], "-f", "json",
                    "-o", paths[2]], check=True, cwd=dir_)
    return latency(json.load(open(paths[2]))["jobs"][0]["read"])


want_mean, want = latency(measured_cells[cell]["jobs"][0]["read"])
with tempfile.TemporaryDirectory() as work:
    scale = 1.0
    for _ in range(2):
        mean, _unused = model(scale, work)
        scale *= want_mean / mean
    mean, got = model(scale, work)

errors = [(g - w) / w for g, w in zip(got, want)]
print(f"cell {cell} ({model_cells[cell].get('label', '')}), reads, us, model / measured"
      f"{', one speed' if one_speed else ''}"
      f"{f', long stalls x{long_stalls:g}' if long_stalls != 1 else ''}; costs x{scale:.3f}")
print(f"  mean {mean / 1e3:.1f} / {want_mean / 1e3:.1f}  " +
      "  ".join(f"p{float(p):g} {g / 1e3:.1f} / {w / 1e3:.1f}"
                for p, g, w in zip(PERCENTILES, got, want)))
body = sum(abs(e) for e in errors[:-1]) / (len(errors) - 1)
print(f"  p5-p95 mean |error| {100 * body:.1f}%, p99 error {100 * errors[-1]:+.1f}%")
PY
