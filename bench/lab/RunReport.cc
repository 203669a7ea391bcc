#include "bench/lab/RunReport.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "bench/lab/CiFormat.h"
#include "tierlab/Version.h"

namespace tierlab {
namespace {

nlohmann::json CacheJson(const CacheStats& c) {
  return {{"line_size", c.line_size},
          {"capacity_lines", c.capacity_lines},
          {"clean_lines", c.clean_lines},
          {"dirty_lines", c.dirty_lines},
          {"free_lines", c.free_lines},
          {"read_hit_ratio", c.ReadHitRatio()},
          {"read_requests", c.read_requests},
          {"read_hits", c.read_hits},
          {"read_partial_hits", c.read_partial_hits},
          {"read_misses", c.read_misses},
          {"write_requests", c.write_requests},
          {"write_hits", c.write_hits},
          {"write_absorbed", c.write_absorbed},
          {"write_bypassed", c.write_bypassed},
          {"write_throttled", c.write_throttled},
          {"throttled_ns", c.throttled_ns},
          {"throttled_max_ns", c.throttled_max_ns},
          {"promotions", c.promotions},
          {"promotions_skipped", c.promotions_skipped},
          {"write_inserts", c.write_inserts},
          {"evictions", c.evictions},
          {"invalidations", c.invalidations},
          {"lock_waits", c.lock_waits},
          {"lock_wait_ns", c.lock_wait_ns},
          {"lock_wait_max_ns", c.lock_wait_max_ns},
          {"destage_ops", c.destage_ops},
          {"destaged_bytes", c.destaged_bytes},
          {"destage_rewritten", c.destage_rewritten},
          {"avg_destage_bytes", c.AverageDestageBytes()},
          {"dirty_age_ns", c.dirty_age_ns},
          {"cache_device_write_bytes", c.cache_device_write_bytes},
          {"metadata_bytes_per_line", c.metadata_bytes_per_line}};
}

// What reduction did since the volume was built (preparation and ramp
// included, as the cache's counters are): the stored state, and the work.
nlohmann::json ReductionJson(const DataReductionTarget& t) {
  const ReductionStats& r = t.reduction_stats();
  const ReductionMapStats m = t.map_stats();
  const std::uint64_t logical = m.logical_blocks_mapped * ReductionMap::kBlock;
  const std::uint64_t physical = m.physical_blocks_used * ReductionMap::kBlock;
  const std::uint64_t nonzero = r.logical_write_blocks - r.zero_blocks;
  const DeviceStats child = t.child().stats();
  return {
      {"dedupe", t.config().dedupe},
      {"compression", std::string(ToString(t.config().compression))},
      {"logical_bytes", logical},
      {"physical_bytes", physical},
      {"stored_bytes", m.live_sectors * 512},
      {"reduction_ratio", physical == 0 ? 0.0 : static_cast<double>(logical) / physical},
      {"stored_blocks", m.stored_blocks},
      {"compressed_blocks", m.compressed_blocks},
      {"metadata_bytes", m.metadata_bytes},
      {"index_entries", m.index_entries},
      {"write_blocks", r.logical_write_blocks},
      {"zero_blocks", r.zero_blocks},
      {"dedupe_hits", r.dedupe_hits},
      {"hint_mismatches", r.hint_mismatches},
      {"verify_reads", r.verify_reads},
      {"stored_compressed", r.stored_compressed},
      {"stored_raw", r.stored_raw},
      {"no_space", r.no_space},
      {"cpu_ns", r.cpu_ns},
      {"cpu_ns_per_write_block",
       r.logical_write_blocks == 0 ? 0.0 : static_cast<double>(r.cpu_ns) / r.logical_write_blocks},
      {"device_write_bytes_per_block",
       nonzero == 0 ? 0.0 : static_cast<double>(child.write_bytes) / nonzero},
      {"device_read_bytes", child.read_bytes},
      {"device_write_bytes", child.write_bytes}};
}

double Ms(const nlohmann::json& lat, const char* key) {
  return lat.value(key, 0.0) / 1e6;
}
double Pct(const nlohmann::json& lat, const char* p) {
  const auto& pc = lat.at("percentile");
  return pc.contains(p) ? pc.at(p).get<double>() / 1e6 : 0;
}

struct Row {
  std::vector<std::string> cells;
};

// Columns a string takes in a terminal: UTF-8 code points ("±" is one).
std::size_t DisplayWidth(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// "value ± half-width" in `scale` units, or the value alone without an
// interval; CSV gets the half-width in a column of its own.
std::string WithCi(double value, const nlohmann::json& ci_json, double scale, int digits) {
  const ConfidenceInterval ci = CiFromJson(ci_json);
  return FormatWithCi(value / scale, ci.valid() ? ci.half_width / scale : -1, digits);
}
std::string HalfWidth(const nlohmann::json& ci_json, double scale, int digits) {
  const ConfidenceInterval ci = CiFromJson(ci_json);
  if (!ci.valid()) return "";
  return FormatFixed(ci.half_width / scale, CiDigits(ci.half_width / scale, digits));
}
const nlohmann::json& Member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  auto it = j.find(key);
  return it != j.end() ? *it : kNull;
}

std::string Render(const std::vector<std::string>& header, const std::vector<Row>& rows,
                   TableFormat f) {
  std::ostringstream o;
  if (f == TableFormat::kCsv) {
    for (std::size_t i = 0; i < header.size(); ++i) o << (i ? "," : "") << header[i];
    o << "\n";
    for (const auto& r : rows) {
      for (std::size_t i = 0; i < r.cells.size(); ++i) o << (i ? "," : "") << r.cells[i];
      o << "\n";
    }
    return o.str();
  }
  std::vector<std::size_t> w(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) w[i] = DisplayWidth(header[i]);
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.cells.size(); ++i) {
      w[i] = std::max(w[i], DisplayWidth(r.cells[i]));
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    if (f == TableFormat::kMarkdown) o << "|";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(w[i] - DisplayWidth(cells[i]), ' ');
      if (f == TableFormat::kMarkdown) {
        o << " " << (i == 0 ? cells[i] + pad : pad + cells[i]) << " |";
      } else {
        o << (i == 0 ? cells[i] + pad : pad + cells[i]) << (i + 1 < cells.size() ? "  " : "");
      }
    }
    o << "\n";
  };
  line(header);
  if (f == TableFormat::kMarkdown) {
    o << "|";
    for (std::size_t i = 0; i < header.size(); ++i)
      o << (i == 0 ? " :" : " ") << std::string(w[i] - 1, '-') << (i == 0 ? " |" : ": |");
    o << "\n";
  }
  for (const auto& r : rows) line(r.cells);
  return o.str();
}

// The tiers' device figures: a row per tier.
std::string TierTable(const nlohmann::json& tiers, TableFormat f) {
  std::vector<Row> rows;
  for (const auto& t : tiers) {
    rows.push_back(
        {{t.value("name", "?"), t.value("role", "?"), t.value("preset", "?"),
          std::to_string(t.value("devices", 0)), FormatFixed(t.value("read_bytes", 0.0) / 1e6, 1),
          FormatFixed(t.value("write_bytes", 0.0) / 1e6, 1),
          FormatFixed(100 * t.value("util", 0.0), 1),
          FormatFixed(t.value("avg_queue_depth", 0.0), 1)}});
  }
  return Render({"tier", "role", "preset", "devices", "MB read", "MB written", "util %", "avg QD"},
                rows, f);
}

// The log tiers' figures over the same window: a row per tier written as a
// log; empty if there is none.
std::string LogTable(const nlohmann::json& tiers, TableFormat f) {
  std::vector<Row> rows;
  for (const auto& t : tiers) {
    if (!t.contains("log")) continue;
    const auto& l = t.at("log");
    rows.push_back({{t.value("name", "?"), FormatFixed(l.value("user_bytes_written", 0.0) / 1e6, 1),
                     FormatFixed(l.value("segment_bytes_written", 0.0) / 1e6, 1),
                     FormatFixed(l.value("write_amplification", 0.0), 2),
                     FormatFixed(l.value("cleaner_bytes_read", 0.0) / 1e6, 1),
                     std::to_string(l.value("segments_cleaned", 0)),
                     std::to_string(l.value("segments_sealed_early", 0)),
                     std::to_string(l.value("write_waits", 0))}});
  }
  if (rows.empty()) return "";
  return Render({"log tier", "user MB", "segment MB", "WA", "cleaner MB read", "cleaned",
                 "sealed early", "write waits"},
                rows, f);
}

// A cluster's ports over the window, a row per port; empty if none.
std::string NetworkTable(const nlohmann::json& run, TableFormat f) {
  if (!run.contains("network")) return "";
  std::vector<Row> rows;
  for (const auto& p : run.at("network")) {
    const auto& tx = p.at("tx");
    const auto& rx = p.at("rx");
    rows.push_back(
        {{p.value("name", "?"), p.value("preset", "?"),
          FormatFixed(tx.value("bytes", 0.0) / 1e6, 1),
          FormatFixed(rx.value("bytes", 0.0) / 1e6, 1), FormatFixed(100 * tx.value("util", 0.0), 1),
          FormatFixed(100 * rx.value("util", 0.0), 1),
          FormatFixed(100 * tx.value("cpu_util", 0.0), 1),
          FormatFixed(100 * rx.value("cpu_util", 0.0), 1)}});
  }
  return Render({"port", "preset", "MB sent", "MB received", "tx util %", "rx util %", "tx CPU %",
                 "rx CPU %"},
                rows, f);
}

// A cluster's node CPUs over the window, a row per node; empty if not modelled.
std::string CpuTable(const nlohmann::json& run, TableFormat f) {
  if (!run.contains("cpu")) return "";
  std::vector<Row> rows;
  for (const auto& c : run.at("cpu")) {
    rows.push_back(
        {{c.value("name", "?"), std::to_string(c.value("cores", 0)),
          std::to_string(c.value("requests", 0)), FormatFixed(100 * c.value("util", 0.0), 1)}});
  }
  return Render({"node CPU", "cores", "requests", "util %"}, rows, f);
}

}  // namespace

nlohmann::json MakeRunJson(const RunResult& r, const Profile& p, const Volume& v,
                           const RunMeta& meta) {
  nlohmann::json j;
  j["tierlab_version"] = kVersion;
  j["mode"] = meta.mode;
  j["seed"] = meta.seed;
  j["layout"] = v.effective();
  j["profile"] = ToJson(p);
  nlohmann::json job = r.metrics.ToJson();
  job["jobname"] = p.name;
  job["groupid"] = 0;
  job["error"] = 0;
  job["job options"] = FioJobOptions(p);
  job["job_runtime"] = (r.end - r.ramp_end) / kMilli;
  job["elapsed"] = (r.end - r.start + kSecond / 2) / kSecond;  // s, ramp included
  job["job_runtime_ns"] = r.end - r.ramp_end;
  job["ramp_ns"] = r.ramp_end - r.start;
  job["issued_ios"] = r.issued;
  if (r.steadystate) job["steadystate"] = r.steadystate->Json();
  if (r.verify.enabled) {
    // tierlab's: fio reports a verify failure as the job's error only.
    job["verify"] = {{"method", p.verify},
                     {"checked", r.verify.checked},
                     {"reads", r.verify.reads},
                     {"bytes_checked", r.verify.bytes_checked},
                     {"mismatches", r.verify.mismatches},
                     {"overlaps_held", r.verify.overlaps_held},
                     {"first_bad_offsets", r.verify.first_bad}};
  }
  // fio's: the error that ended a job (84, EILSEQ: a verify mismatch), or
  // the first one continue_on_error went on after; the counts only when
  // the job continues after some errors.
  if (p.priorities.per_io()) {  // fio's per-priority completion latencies
    for (const auto& [d, dir] : {std::pair{0, "read"}, std::pair{1, "write"}}) {
      nlohmann::json prios = r.prios.Json(d);
      if (!prios.is_null() && job.contains(dir)) job[dir]["prios"] = std::move(prios);
    }
  }
  if (p.latency_target != 0) {  // fio's keys and units (fio prints them on every job)
    job["latency_depth"] = r.latency_depth;
    job["latency_target"] = p.latency_target;  // ns
    job["latency_percentile"] = p.latency_percentile;
    job["latency_window"] = p.latency_window / kMicro;  // us
  }
  job["error"] = r.errors.error;
  if (p.continue_on_error.any()) {
    job["total_err"] = r.errors.total;
    job["first_error"] = r.errors.first;
  }
  // tierlab's: issued I/Os by size per direction, ramp included.
  nlohmann::json by_size = nlohmann::json::object();
  for (int d = 0; d < 3; ++d) {
    nlohmann::json m = nlohmann::json::object();
    for (const auto& [size, count] : r.issued_by_size[d]) m[std::to_string(size)] = count;
    by_size[d == 0 ? "read" : d == 1 ? "write" : "trim"] = std::move(m);
  }
  job["issued_by_size"] = std::move(by_size);
  job["issued_syncs"] = r.issued_flushes;
  j["jobs"] = nlohmann::json::array({job});
  const DeviceWindow since_built(r.start);
  nlohmann::json figures = (meta.devices != nullptr ? *meta.devices : since_built).Json(v);
  j["devices"] = std::move(figures["devices"]);
  j["tiers"] = std::move(figures["tiers"]);
  j["disk_util"] = std::move(figures["disk_util"]);
  if (figures.contains("network")) j["network"] = std::move(figures["network"]);
  if (figures.contains("cpu")) j["cpu"] = std::move(figures["cpu"]);
  j["busiest"] = std::move(figures["busiest"]);
  if (v.cache() != nullptr) j["cache"] = CacheJson(v.cache()->cache_stats());
  // A cluster has no one cache: each node's, where it has one.
  if (!v.node_caches().empty()) {
    nlohmann::json nodes = nlohmann::json::array();
    for (std::size_t n = 0; n < v.node_caches().size(); ++n) {
      if (const CacheTarget* c = v.node_caches()[n]; c != nullptr) {
        nlohmann::json one = CacheJson(c->cache_stats());
        one["node"] = "node" + std::to_string(n);
        nodes.push_back(std::move(one));
      }
    }
    if (!nodes.empty()) j["node_caches"] = std::move(nodes);
  }
  // Erasure coding: how the writes went, since the volume was built.
  if (const ClusterTarget* c = v.cluster(); c != nullptr && c->data_chunks() > 0) {
    j["stripe_writes"] = {{"data_chunks", c->data_chunks()},
                          {"parity_chunks", c->placement().copies() - c->data_chunks()},
                          {"full_stripe", c->stripe_writes().full_stripe},
                          {"read_modify_write", c->stripe_writes().read_modify_write}};
  }
  if (v.block_cache() != nullptr) {
    const BlockCacheStats b = v.block_cache()->cache_stats();
    j["block_cache"] = {{"capacity_lines", b.capacity_lines}, {"resident_lines", b.resident_lines},
                        {"hit_ratio", b.HitRatio()},          {"read_requests", b.read_requests},
                        {"read_hits", b.read_hits},           {"inserts", b.inserts},
                        {"evictions", b.evictions},           {"write_updates", b.write_updates},
                        {"invalidations", b.invalidations},   {"cpu_ns", b.cpu_ns},
                        {"lock_wait_ns", b.lock_wait_ns}};
  }
  if (v.reduction() != nullptr) j["reduction"] = ReductionJson(*v.reduction());
  if (v.tier_target() != nullptr) {
    const TierStats t = v.tier_target()->tier_stats();
    nlohmann::json tiers = nlohmann::json::array();
    for (std::size_t i = 0; i < t.tiers.size(); ++i) {
      const TierUsage& u = t.tiers[i];
      tiers.push_back({{"extents", u.extents},
                       {"bytes", u.bytes},
                       {"slots", u.slots},
                       {"free_slots", u.free_slots},
                       {"read_ops", u.read_ops},
                       {"read_bytes", u.read_bytes},
                       {"write_ops", u.write_ops},
                       {"write_bytes", u.write_bytes},
                       {"op_share", t.OpShare(i)},
                       {"byte_share", t.ByteShare(i)}});
    }
    j["tiering"] = {{"extent_size", t.extent_size},
                    {"tiers", tiers},
                    {"promotions", t.promotions},
                    {"promoted_bytes", t.promoted_bytes},
                    {"demotions", t.demotions},
                    {"demoted_bytes", t.demoted_bytes},
                    {"migration_passes", t.migration_passes},
                    {"migration_busy_ns", t.migration_busy_ns},
                    {"recopy_rounds", t.recopy_rounds},
                    {"held_rounds", t.held_rounds},
                    {"migrations_abandoned", t.migrations_abandoned},
                    {"migration_errors", t.migration_errors},
                    {"max_move_ns", t.max_move_ns},
                    {"held_ops", t.held_ops},
                    {"held_ns", t.held_ns},
                    {"max_held_ns", t.max_held_ns},
                    {"zero_read_ops", t.zero_read_ops},
                    {"zero_fill_bytes", t.zero_fill_bytes},
                    {"heat_histogram", t.heat_histogram}};
  }
  return j;
}

nlohmann::json FioJobOptions(const Profile& p) {
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json all = ToJson(p);  // items() does not keep a temporary alive
  for (const auto& [key, value] : all.items()) {
    if (key == "name") continue;
    out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return out;
}

nlohmann::json CombineRuns(const std::vector<nlohmann::json>& runs,
                           const nlohmann::json& global_options) {
  if (runs.empty()) return nlohmann::json::object();
  if (runs.size() == 1) {
    nlohmann::json one = runs.front();
    one["global options"] = global_options;
    return one;
  }
  nlohmann::json doc = nlohmann::json::object();
  for (const char* key : {"tierlab_version", "mode", "seed", "layout"}) {
    if (runs.front().contains(key)) doc[key] = runs.front()[key];
  }
  doc["global options"] = global_options;
  doc["jobs"] = nlohmann::json::array();
  doc["sections"] = nlohmann::json::array();
  for (const nlohmann::json& r : runs) {
    nlohmann::json section = nlohmann::json::object();
    for (const auto& [key, value] : r.items()) {
      if (key == "jobs") {
        for (const auto& j : value) doc["jobs"].push_back(j);
      } else if (key == "whole_run") {
        doc["whole_run"] = value;  // the devices over every section
      } else if (!doc.contains(key)) {
        section[key] = value;
      }
    }
    doc["sections"].push_back(std::move(section));
  }
  // fio's disk_util covers the whole fio run; each section keeps its own.
  if (doc.contains("whole_run") && doc["whole_run"].contains("disk_util")) {
    doc["disk_util"] = doc["whole_run"]["disk_util"];
  }
  return doc;
}

Expected<TableFormat> ParseTableFormat(std::string_view s) {
  if (s == "table") return TableFormat::kTable;
  if (s == "md" || s == "markdown") return TableFormat::kMarkdown;
  if (s == "csv") return TableFormat::kCsv;
  if (s == "json") return TableFormat::kJson;
  return MakeError("--format: unknown \"" + std::string(s) + "\"; known: table, json, csv, md");
}

std::string FormatRun(const nlohmann::json& run, TableFormat f) {
  if (f == TableFormat::kJson) return run.dump(2) + "\n";
  std::ostringstream o;
  const auto& job = run.at("jobs").at(0);
  if (f != TableFormat::kCsv) {
    o << (f == TableFormat::kMarkdown ? "**" : "") << "layout " << run["layout"].value("name", "?")
      << ", profile " << run["profile"].value("name", "?") << ", " << run.value("mode", "sim")
      << ", seed " << run.value("seed", std::uint64_t{0})
      << (f == TableFormat::kMarkdown ? "**" : "") << "\n\n";
  }
  std::vector<std::string> header = {"op",     "IOPS",   "MB/s",     "mean ms", "p50 ms",
                                     "p95 ms", "p99 ms", "p99.9 ms", "max ms"};
  const bool csv = f == TableFormat::kCsv;
  if (csv) header.insert(header.end(), {"IOPS ci95", "MB/s ci95", "mean ms ci95"});
  std::vector<Row> rows;
  bool any_ci = false;
  for (const char* op : {"read", "write", "complete"}) {
    const auto& s = job.at(op);
    if (s.value("total_ios", 0) == 0 && std::string(op) != "complete") continue;
    const auto& lat = s.at("lat_ns");
    const nlohmann::json& iops_ci = Member(s, "iops_ci95");
    const nlohmann::json& bw_ci = Member(s, "bw_bytes_ci95");
    const nlohmann::json& lat_ci = Member(lat, "mean_ci95");
    any_ci = any_ci || CiFromJson(iops_ci).valid();
    Row row;
    if (csv) {
      row.cells = {op, FormatFixed(s.value("iops", 0.0), 0),
                   FormatFixed(s.value("bw_bytes", 0.0) / 1e6, 1), FormatFixed(Ms(lat, "mean"), 3)};
    } else {
      row.cells = {op, WithCi(s.value("iops", 0.0), iops_ci, 1, 0),
                   WithCi(s.value("bw_bytes", 0.0), bw_ci, 1e6, 1),
                   WithCi(lat.value("mean", 0.0), lat_ci, 1e6, 3)};
    }
    for (const char* p : {"50.000000", "95.000000", "99.000000", "99.900000"}) {
      row.cells.push_back(FormatFixed(Pct(lat, p), 3));
    }
    row.cells.push_back(FormatFixed(Ms(lat, "max"), 3));
    if (csv) {
      row.cells.insert(row.cells.end(), {HalfWidth(iops_ci, 1, 0), HalfWidth(bw_ci, 1e6, 1),
                                         HalfWidth(lat_ci, 1e6, 3)});
    }
    rows.push_back(std::move(row));
  }
  o << Render(header, rows, f);
  if (csv) return o.str();
  if (any_ci) {
    o << "±: 95% confidence interval, batch means over the measured window "
         "(docs/METHODOLOGY.md).\n";
  }

  o << "\n" << TierTable(run.at("tiers"), f);
  if (std::string logs = LogTable(run.at("tiers"), f); !logs.empty()) o << "\n" << logs;
  if (std::string net = NetworkTable(run, f); !net.empty()) o << "\n" << net;
  if (std::string cpu = CpuTable(run, f); !cpu.empty()) o << "\n" << cpu;
  if (run.contains("busiest") && f == TableFormat::kTable) {
    const auto& b = run.at("busiest");
    o << "busiest: " << b.value("resource", "none") << ", "
      << FormatFixed(100 * b.value("util", 0.0), 1) << " % busy\n";
  }
  if (run.contains("cache")) {
    const auto& c = run.at("cache");
    o << "\n";
    std::vector<Row> crow = {
        {{FormatFixed(100 * c.value("read_hit_ratio", 0.0), 1),
          std::to_string(c.value("dirty_lines", 0)), std::to_string(c.value("clean_lines", 0)),
          std::to_string(c.value("promotions", 0)), std::to_string(c.value("evictions", 0)),
          FormatFixed(c.value("destaged_bytes", 0.0) / 1e6, 1),
          FormatFixed(c.value("avg_destage_bytes", 0.0) / 1024, 1),
          std::to_string(c.value("write_throttled", 0))}}};
    o << Render({"cache hit %", "dirty lines", "clean lines", "promotions", "evictions",
                 "destaged MB", "avg destage KiB", "throttled writes"},
                crow, f);
  }
  if (run.contains("reduction")) {
    const auto& r = run.at("reduction");
    o << "\n";
    std::vector<Row> rrow = {
        {{FormatFixed(r.value("logical_bytes", 0.0) / 1e6, 1),
          FormatFixed(r.value("physical_bytes", 0.0) / 1e6, 1),
          FormatFixed(r.value("reduction_ratio", 0.0), 2),
          std::to_string(r.value("dedupe_hits", 0)), std::to_string(r.value("zero_blocks", 0)),
          std::to_string(r.value("stored_compressed", 0)), std::to_string(r.value("stored_raw", 0)),
          FormatFixed(r.value("cpu_ns_per_write_block", 0.0) / 1e3, 2),
          FormatFixed(r.value("metadata_bytes", 0.0) / 1e6, 1)}}};
    o << Render({"logical MB", "physical MB", "reduction", "dedupe hits", "zero blocks",
                 "compressed", "raw", "cpu us/block", "metadata MB"},
                rrow, f);
  }
  if (run.contains("whole_run")) {
    const auto& w = run.at("whole_run");
    o << "\nwhole run, every section (" << FormatFixed(w.value("elapsed_ns", 0.0) / 1e9, 1)
      << " s):\n"
      << TierTable(w.at("tiers"), f);
  }
  return o.str();
}

}  // namespace tierlab
