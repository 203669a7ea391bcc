#pragma once
// A run's results as JSON (fio's key names where fio has them, plus
// tierlab's sections), and the same JSON rendered as a table, Markdown or CSV.
//
//   {"tierlab_version": ..., "mode": "sim", "seed": 1,
//    "layout": {effective layout}, "profile": {effective profile},
//    "jobs": [{"jobname": ..., "job options": {...}, "job_runtime": ms,
//              "read": {...}, "write": {...}, "complete": {...}}],
//    "devices": [...], "tiers": [...], "disk_util": [...], "cache": {...}}
// (read/write/complete: OpMetrics::ToJson, fio's keys and units). A
// section's numjobs clones are one job, as fio's group_reporting shows them.
// A tier written as a log carries "log" in its "tiers" entry (bytes written
// by users, to segments and by the cleaner, cleaner reads, segments
// written, cleaned and sealed early, write waits, write amplification, free
// segments and index memory: DeviceWindow.h), over the same window. A
// cluster's run has "network" (per port and direction: bytes, messages,
// wire and CPU utilisation) and, where node CPUs are modelled, "cpu" (per
// node: cores, requests, busy time and share) and, where its nodes have
// caches, "node_caches" (each node's "cache" figures, with "node"). A
// one-node layout with a "cpu" has "cpu" too, its one entry "host.cpu".
// Every run has "busiest" ({"resource", "util"}: the device, port
// direction or CPU busiest over the window, DeviceWindow.h).
//
// A run of several sections (a job file) is one document: CombineRuns.
// Each section's "devices" and "tiers" cover that section (from its start to
// its end, destage after its measured window included); the last section's
// run also carries "whole_run": {"elapsed_ns", "devices", "tiers",
// "disk_util"} over every section, which CombineRuns puts at the top of the
// document, with its disk_util as the document's (fio's disk_util is over
// the whole fio run).
//
// Every formatter reads the JSON, so a saved result renders exactly like a
// fresh one.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/lab/DeviceWindow.h"
#include "bench/lab/Runner.h"
#include "bench/workload/Profile.h"
#include "layouts/StackBuilder.h"

namespace tierlab {

struct RunMeta {
  std::string mode = "sim";  // "sim" or "real"
  std::uint64_t seed = 1;
  // The run's device window (DeviceWindow.h): "devices" and "tiers" cover
  // what the devices did since it began. Null: since they were built.
  const DeviceWindow* devices = nullptr;
};

nlohmann::json MakeRunJson(const RunResult& r, const Profile& p, const Volume& v,
                           const RunMeta& meta);

// One document for the runs of one `tierlab run`: a single run as it is; for
// several, {"tierlab_version", "mode", "seed", "layout", "jobs": [every
// section's jobs, in order], "sections": [{"profile", "devices", "tiers",
// "cache"...} of each]}. Both get "global options" (fio's key: the job
// file's [global] options, {} for other profiles).
nlohmann::json CombineRuns(const std::vector<nlohmann::json>& runs,
                           const nlohmann::json& global_options);

// fio's "job options": every option of the effective profile, as strings.
nlohmann::json FioJobOptions(const Profile& p);

enum class TableFormat : std::uint8_t { kTable, kMarkdown, kCsv, kJson };
Expected<TableFormat> ParseTableFormat(std::string_view s);

// Renders one run. kJson pretty-prints the document.
std::string FormatRun(const nlohmann::json& run, TableFormat f);

}  // namespace tierlab
