#pragma once
// fio's other output formats of a run, beside the JSON of RunReport.h:
// json+ (the JSON with each direction's completion-latency bins) and terse
// version 3 (one semicolon-separated line per job, fio's HOWTO "Terse
// output"). Both read the run's JSON, so a saved json+ document renders as
// terse exactly like a fresh run.
//
// Bins: LatencyHistogram has fio's bin geometry (values below 128 ns exact,
// then 64 bins per power of two), and a bin's key is its midpoint, as fio's
// plat_idx_to_val() gives it, so tierlab's keys are fio's. fio's last bin
// starts at 2^34 ns (17 s) and holds everything above; tierlab's bins go on
// to 2^48 ns.

#include <nlohmann/json.hpp>
#include <string>

#include "bench/lab/LatencyHistogram.h"
#include "bench/lab/OpMetrics.h"

namespace tierlab {

// {"<midpoint ns>": count} for every non-empty bin of `h`.
nlohmann::json ClatBinsJson(const LatencyHistogram& h);

// json+: adds "bins" to the "clat_ns" of the job's "read" and "write" from
// the job's metrics (clat where recorded, else lat: what clat_ns shows).
void AddClatBins(nlohmann::json& job, const OpMetrics& m);

// The terse v3 lines of a document (one run or CombineRuns'), a line per
// job of "jobs", each with the document's "disk_util" devices at the end.
// Fields tierlab does not measure are printed as fio prints absent data:
// CPU usage and the I/O depth distribution (0), and submission latency (0,
// as in the JSON). The latency distribution needs the bins of AddClatBins;
// without them it is 0 too.
std::string FormatTerse(const nlohmann::json& doc);

// The one terse version tierlab writes.
inline constexpr int kTerseVersion = 3;

}  // namespace tierlab
