#pragma once
// Validation: the measured results of a matrix (run in real time) against the
// modelled ones (the same matrix in simulation, on the presets calibrated
// from the same devices: `tierlab validate`, docs/VALIDATION.md).
//
// Cells are matched by position: both documents come from one plan, so the
// n-th configuration of one is the n-th of the other (their labels must
// agree). Per cell, on all I/O together ("complete"): IOPS, bandwidth, mean,
// p50 and p99 latency, measured, modelled and the relative error
// (model - measured) / measured; and the demerit figure of Ruemmler and
// Wilkes (IEEE Computer, 1994) for the latency distribution: the root mean
// square of the horizontal distance between the two CDFs, integrated over
// probability from fio's percentiles (1% to 99.99%), as a percentage of the
// measured mean latency.
//
// Where the real run measured the host's speed beside a cell
// (bench/lab/HostReference.h), the cell has the factors its model's CPU
// costs were scaled by (read_scale and write_scale, means over repeats): a
// column "host" in the table ("x1.030/0.970": reads 3% dearer than when
// calibrated, writes 3% cheaper). Where it probed a device's pauses after
// a cell (bench/lab/PauseReference.h), a column "pauses/s": how often they
// came, all probed devices together, the mean over repeats.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/report/TextTable.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct ValidationMetric {
  std::string metric;  // "iops", "bw", "lat", "p50", "p99"
  double measured = 0;
  double model = 0;
  double error = 0;  // (model - measured) / measured; 0 when measured is 0
};

struct ValidationCell {
  std::string label;
  std::vector<ValidationMetric> metrics;
  double demerit_pct = 0;
  std::optional<double> read_scale, write_scale;  // the host reference's, if measured
  std::optional<double> pauses_per_second;        // the pause reference's, if measured
  // The latency CDFs (percentile, ns), for the plot.
  std::vector<std::pair<double, double>> cdf_measured, cdf_model;
};

struct Validation {
  std::vector<ValidationCell> cells;
  // Largest |error| per metric over the cells, in the order of the cells'
  // metrics; and the largest demerit.
  std::vector<ValidationMetric> worst;
  double worst_demerit_pct = 0;
};

// The metrics compared, in order.
const std::vector<std::string>& ValidationMetrics();

// Errors: documents that are not results files of the same plan (different
// cell counts or labels), naming the first difference.
Expected<Validation> CompareMeasuredAndModel(const nlohmann::json& measured,
                                             const nlohmann::json& model);

// One row per cell: measured, model and error per metric, and the demerit.
std::string FormatValidation(const Validation& v, TableStyle style);
// {"cells": [{"label", "metrics": [{"metric", "measured", "model", "error"}],
//  "demerit_pct", "read_scale", "write_scale", "pauses_per_second" (when
//  measured)}], "worst": {...},
//  "worst_demerit_pct"}.
nlohmann::json ValidationJson(const Validation& v);
// A self-contained page: the table, and per cell the two latency CDFs.
std::string ValidationHtml(const Validation& v, const std::string& title);

}  // namespace tierlab
