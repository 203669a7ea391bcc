#pragma once
// The host's speed after each real cell of `tierlab validate`.
//
// Why: the cells whose devices are RAM are bound by the host's CPU, and on
// a shared host its speed moves by 10-30% within minutes (another tenant's
// load, the host's frequency), so a model fitted at calibration time misses
// such a cell by what the host changed, not by what the model gets wrong
// (docs/VALIDATION.md). The cure is a control measurement: the points that
// `tierlab calibrate --cpu` recorded as its reference (HostCpuSpec.h: 4 KiB
// random reads and writes at QD32 on its cached volume over RAM files) are
// run again right after each real cell, and the cell's model runs at the
// host they saw:
//
//   read_scale  = ns per read now  / ns per read at calibration
//   write_scale = ns per write now / ns per write at calibration
//
// its read costs times read_scale and its write costs times write_scale,
// so that the model's time per reference I/O is the one measured. Its
// stalls stay the calibrated ones: a second's count of them gives the
// tail better than the quarter second a measurement here could spare (a
// spin of 250 ms after each cell, tried, put the 70/30 cells' p99 19-26%
// under the measured one where the calibrated stalls gave 1-6%). Right after the
// cell, not before it: that is the measurement nearest its measured window
// (a cell's build and preparation come before the window), and one taken
// before a cell starts carries what the previous cell left the host doing.
// The reference is not the cell's workload (one size, one direction at a
// time, QD32), so the model still has to get the cell's mix, sizes and
// queueing right.
//
// Threading: one thread (the matrix runner's worker in real mode, which
// runs one cell at a time); a probe owns an engine of its own.

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "bench/lab/Matrix.h"
#include "layouts/HostCpuSpec.h"
#include "tiering/core/Expected.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

// The reference points' volume, built once (its region written once and
// the points run once unmeasured) and run again on each Measure().
class HostReferenceProbe {
 public:
  // Errors: the directory or the volume (as calibrate --cpu's).
  static Expected<std::unique_ptr<HostReferenceProbe>> Make(const HostCpuReference& ref);
  ~HostReferenceProbe();
  HostReferenceProbe(const HostReferenceProbe&) = delete;
  HostReferenceProbe& operator=(const HostReferenceProbe&) = delete;

  struct Sample {
    double read_ns_per_io = 0;  // wall time per I/O of the reference reads
    double write_ns_per_io = 0;
  };
  // Each point's median over three runs (a 30 ms ramp, 150 ms measured).
  Expected<Sample> Measure();

 private:
  struct State;
  explicit HostReferenceProbe(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// `cpu` with its read costs times `read` and its write costs times
// `write` (a write cost of 0, "as a read", becomes the read's times
// `write`); its cores and stalls as they are.
NodeCpuSpec ScaleCpuCosts(const NodeCpuSpec& cpu, double read, double write);

// The measurements after the real cells, for MatrixRunOptions' hooks.
// Before() builds the cell's probe if it has none yet; After() measures
// and writes into the cell's JSON
//
//   "host_reference": {"read_ns_per_io": 861.0, "write_ns_per_io": 1003.2,
//                      "calibrated_read_ns_per_io": 842.1,
//                      "calibrated_write_ns_per_io": 977.5,
//                      "read_scale": 1.022, "write_scale": 1.026}
//
// Cells whose layout has no cpu file with a reference are left alone.
// Errors: the probe's. One probe per reference directory and region, kept
// for the whole run.
class CellHostReference {
 public:
  Expected<void> Before(const MatrixCell& cell);
  Expected<void> After(const MatrixCell& cell, nlohmann::json& cell_json);

 private:
  Expected<HostReferenceProbe*> ProbeFor(const HostCpuReference& ref);
  std::map<std::pair<std::string, std::uint64_t>, std::unique_ptr<HostReferenceProbe>> probes_;
};

// The model's side: `cell`'s CPU costs times the read_scale and
// write_scale its measured twin recorded (After() above); a cell without a
// host_reference is left alone. Errors (kInconsistent): a scale that is
// not a positive number.
Expected<void> ApplyHostReference(MatrixCell& cell, const nlohmann::json& measured_cell);

}  // namespace tierlab
