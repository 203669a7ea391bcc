#include "bench/report/MatrixReport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "bench/lab/CiFormat.h"
#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

// fio's percentile key for a metric name "p99.9" -> "99.900000".
std::string PercentileKey(std::string_view metric) {
  const double p = std::stod(std::string(metric.substr(1)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

const char* CsvSuffix(const std::string& m) {
  if (m == "iops") return "iops";
  if (m == "bw") return "bw_bytes";
  if (m == "lat") return "lat_mean_ns";
  if (m == "max") return "lat_max_ns";
  return nullptr;
}

const std::vector<std::string> kOps = {"read", "write", "complete"};

std::uint64_t OpIos(const nlohmann::json& cell, const std::string& op) {
  const auto& jobs = cell.at("jobs");
  if (jobs.empty() || !jobs[0].contains(op)) return 0;
  return jobs[0].at(op).value("total_ios", std::uint64_t{0});
}

}  // namespace

const nlohmann::json& MatrixSection(const nlohmann::json& results) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  auto it = results.find("matrix");
  return it != results.end() && it->is_object() ? *it : kEmpty;
}

const std::vector<std::string>& KnownMetrics() {
  static const std::vector<std::string> k = {"iops", "bw",  "lat",   "p50",    "p90",
                                             "p95",  "p99", "p99.9", "p99.99", "max"};
  return k;
}

bool IsKnownMetric(std::string_view metric) {
  const auto& k = KnownMetrics();
  return std::find(k.begin(), k.end(), metric) != k.end();
}

bool HigherIsBetter(std::string_view metric) {
  return metric == "iops" || metric == "bw";
}

double CellMetric(const nlohmann::json& cell, std::string_view op, std::string_view metric) {
  if (!cell.contains("jobs") || cell.at("jobs").empty()) return 0;
  const auto& job = cell.at("jobs").at(0);
  const std::string o(op);
  if (!job.contains(o)) return 0;
  const auto& s = job.at(o);
  if (metric == "iops") return s.value("iops", 0.0);
  if (metric == "bw") return s.value("bw_bytes", 0.0);
  if (!s.contains("lat_ns")) return 0;
  const auto& lat = s.at("lat_ns");
  if (metric == "lat") return lat.value("mean", 0.0);
  if (metric == "max") return lat.value("max", 0.0);
  if (!metric.starts_with("p") || !lat.contains("percentile")) return 0;
  const auto& pc = lat.at("percentile");
  const std::string key = PercentileKey(metric);
  return pc.contains(key) ? pc.at(key).get<double>() : 0;
}

ConfidenceInterval CellMetricCi(const nlohmann::json& cell, std::string_view op,
                                std::string_view metric) {
  if (!cell.contains("jobs") || cell.at("jobs").empty()) return {};
  const auto& job = cell.at("jobs").at(0);
  const std::string o(op);
  if (!job.is_object() || !job.contains(o) || !job.at(o).is_object()) return {};
  const auto& s = job.at(o);
  auto member = [](const nlohmann::json& j, const char* key) -> ConfidenceInterval {
    auto it = j.find(key);
    return it != j.end() ? CiFromJson(*it) : ConfidenceInterval{};
  };
  if (metric == "iops") return member(s, "iops_ci95");
  if (metric == "bw") return member(s, "bw_bytes_ci95");
  if (metric == "lat" && s.contains("lat_ns") && s.at("lat_ns").is_object()) {
    return member(s.at("lat_ns"), "mean_ci95");
  }
  return {};
}

std::string MetricTitle(std::string_view metric) {
  if (metric == "iops") return "IOPS";
  if (metric == "bw") return "GB/s";
  if (metric == "lat") return "lat ms";
  if (metric == "max") return "max ms";
  return std::string(metric) + " ms";
}

double MetricDisplay(std::string_view metric, double raw) {
  if (metric == "iops") return raw;
  if (metric == "bw") return raw / 1e9;
  return raw / 1e6;
}

std::string FormatMetric(std::string_view metric, double raw) {
  const double v = MetricDisplay(metric, raw);
  if (metric == "iops") return FormatFixed(v, 0);
  return FormatFixed(v, 3);
}

double Stat::SpreadPercent() const {
  if (n < 2 || mean == 0) return 0;
  return 100 * (max - min) / 2 / std::fabs(mean);
}

Stat Stat::Of(const std::vector<double>& values) {
  Stat s;
  s.n = values.size();
  if (values.empty()) return s;
  s.min = s.max = values[0];
  double sum = 0;
  for (double v : values) {
    sum += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / static_cast<double>(values.size());
  if (values.size() >= 2) {
    s.ci = MeanInterval(values);
    s.ci_method = kCiRepeats;
  }
  return s;
}

std::string FormatStat(std::string_view metric, const Stat& s) {
  const int digits = metric == "iops" ? 0 : 3;
  return FormatWithCi(MetricDisplay(metric, s.mean),
                      s.ci.valid() ? MetricDisplay(metric, s.ci.half_width) : -1, digits);
}

Stat CellGroup::Metric(std::string_view op, std::string_view metric) const {
  std::vector<double> v;
  for (const auto* r : runs) v.push_back(CellMetric(*r, op, metric));
  Stat s = Stat::Of(v);
  if (runs.size() == 1) {
    s.ci = CellMetricCi(*runs[0], op, metric);
    if (s.ci.valid()) s.ci_method = kCiBatchMeans;
  }
  return s;
}

nlohmann::json CellGroup::KeyValue(const std::string& key) const {
  if (key == "layout") return layout;
  if (key == "profile") return profile;
  for (const auto& [k, v] : axes) {
    if (k == key) return v;
  }
  return nullptr;
}

std::string CellGroup::Key(const std::string& key) const {
  const nlohmann::json v = KeyValue(key);
  return v.is_null() ? "" : AxisValueText(v);
}

std::vector<CellGroup> GroupCells(const nlohmann::json& results) {
  std::vector<const nlohmann::json*> cells;
  for (const auto& c : results.at("cells")) cells.push_back(&c);
  std::stable_sort(cells.begin(), cells.end(), [](const auto* a, const auto* b) {
    return a->value("index", std::size_t{0}) < b->value("index", std::size_t{0});
  });
  std::vector<CellGroup> groups;
  std::map<std::string, std::size_t> by_id;
  for (const auto* c : cells) {
    const std::string id = c->value("id", "");
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      CellGroup g;
      g.id = id;
      g.label = c->value("label", id);
      if (c->value("repeat", 0) > 0 || MatrixSection(results).value("repeats", 1) > 1) {
        const std::size_t hash = g.label.rfind(" #");
        if (hash != std::string::npos) g.label.resize(hash);
      }
      g.layout = c->value("layout_name", "");
      g.profile = c->value("profile_name", "");
      if (c->contains("axes") && c->at("axes").is_object()) {
        for (const auto& [k, v] : c->at("axes").items()) g.axes.emplace_back(k, v);
      }
      it = by_id.emplace(id, groups.size()).first;
      groups.push_back(std::move(g));
    }
    groups[it->second].runs.push_back(c);
  }
  return groups;
}

std::vector<std::string> CoordinateKeys(const nlohmann::json& results) {
  std::vector<std::string> keys;
  auto add = [&](const std::string& k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  const nlohmann::json& m = MatrixSection(results);
  if (m.contains("axes") && m.at("axes").is_object()) {
    for (const auto& [k, v] : m.at("axes").items()) add(k);
  }
  for (const auto& c : results.at("cells")) {
    if (!c.contains("axes") || !c.at("axes").is_object()) continue;
    for (const auto& [k, v] : c.at("axes").items()) add(k);
  }
  return keys;
}

Expected<void> CheckReportOptions(const nlohmann::json& results, const ReportOptions& o) {
  for (const auto& m : o.metrics) {
    if (!IsKnownMetric(m)) {
      return MakeError("--metrics: unknown \"" + m + "\"; known: " + [] {
        std::string s;
        for (const auto& k : KnownMetrics()) s += (s.empty() ? "" : ", ") + k;
        return s;
      }());
    }
  }
  if (o.metrics.empty()) return MakeError("--metrics: give at least one metric");
  std::vector<std::string> keys = {"layout", "profile"};
  for (const auto& k : CoordinateKeys(results)) keys.push_back(k);
  auto known = [&](const std::string& k) {
    return std::find(keys.begin(), keys.end(), k) != keys.end();
  };
  std::string list;
  for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
  for (const auto& r : o.rows) {
    if (!known(r)) return MakeError("--rows: unknown key \"" + r + "\"; known: " + list);
  }
  if (!o.cols.empty() && !known(o.cols)) {
    return MakeError("--cols: unknown key \"" + o.cols + "\"; known: " + list);
  }
  if (std::find(o.rows.begin(), o.rows.end(), o.cols) != o.rows.end() && !o.cols.empty()) {
    return MakeError("--rows and --cols both name \"" + o.cols + "\"");
  }
  return {};
}

std::vector<std::string> ResolveRowKeys(const nlohmann::json& results,
                                        const std::vector<CellGroup>& groups,
                                        const ReportOptions& o) {
  std::vector<std::string> rows = o.rows.empty() ? std::vector<std::string>{"layout"} : o.rows;
  if (rows.size() == 1 && rows[0] == o.cols) rows.clear();
  std::vector<std::string> all = {"layout", "profile"};
  for (const auto& k : CoordinateKeys(results)) all.push_back(k);
  for (const auto& k : all) {
    if (k == o.cols || std::find(rows.begin(), rows.end(), k) != rows.end()) continue;
    std::set<std::string> values;
    for (const auto& g : groups) values.insert(g.Key(k));
    if (values.size() > 1) rows.push_back(k);
  }
  return rows;
}

namespace {

// What a run names as its busiest resource, with how close it came to its
// limit ("cache cache0 99%"), from the group's first run; "" if none.
std::string BusiestText(const CellGroup& g) {
  if (g.runs.empty() || !g.runs.front()->contains("busiest")) return "";
  const nlohmann::json& b = g.runs.front()->at("busiest");
  char util[32];
  std::snprintf(util, sizeof util, " %.0f%%", 100 * b.value("util", 0.0));
  return b.value("resource", "none") + util;
}

}  // namespace

std::vector<ReportTable> BuildReportTables(const nlohmann::json& results,
                                           const std::vector<CellGroup>& groups,
                                           const ReportOptions& o) {
  const std::vector<std::string> row_keys = ResolveRowKeys(results, groups, o);
  std::vector<std::string> col_values;
  if (o.cols.empty()) {
    col_values.push_back("");
  } else {
    for (const auto& g : groups) {
      const std::string v = g.Key(o.cols);
      if (std::find(col_values.begin(), col_values.end(), v) == col_values.end()) {
        col_values.push_back(v);
      }
    }
  }
  std::vector<ReportTable> out;
  for (const auto& cv : col_values) {
    std::vector<const CellGroup*> members;
    for (const auto& g : groups) {
      if (o.cols.empty() || g.Key(o.cols) == cv) members.push_back(&g);
    }
    // Ops to show: those with I/O in some member; "complete" only when both
    // directions have I/O (otherwise it repeats the one that has).
    std::vector<std::string> ops;
    if (o.split_rw) {
      bool has_read = false, has_write = false;
      for (const auto* g : members) {
        for (const auto* r : g->runs) {
          has_read = has_read || OpIos(*r, "read") > 0;
          has_write = has_write || OpIos(*r, "write") > 0;
        }
      }
      if (has_read) ops.push_back("read");
      if (has_write) ops.push_back("write");
      if (ops.size() != 1) ops.push_back("complete");
    } else {
      ops.push_back("complete");
    }
    ReportTable t;
    t.title = o.cols.empty() ? std::string("all cells") : o.cols + " " + cv;
    t.table.header = row_keys;
    t.table.label_columns = row_keys.size();
    for (const auto& m : o.metrics) {
      for (const auto& op : ops) t.table.header.push_back(MetricTitle(m) + " " + op);
    }
    // The resource closest to its limit, where the runs name one (results
    // from before it was recorded do not).
    const bool busiest = std::any_of(members.begin(), members.end(),
                                     [](const CellGroup* g) { return !BusiestText(*g).empty(); });
    if (busiest) t.table.header.push_back("busiest");
    for (const auto* g : members) {
      std::vector<std::string> row;
      for (const auto& k : row_keys) row.push_back(g->Key(k));
      for (const auto& m : o.metrics) {
        for (const auto& op : ops) {
          row.push_back(FormatStat(m, g->Metric(op, m)));
        }
      }
      if (busiest) row.push_back(BusiestText(*g));
      t.table.rows.push_back(std::move(row));
    }
    out.push_back(std::move(t));
  }
  return out;
}

namespace {

std::string Summary(const nlohmann::json& results, const std::vector<CellGroup>& groups) {
  const auto& cells = results.at("cells");
  std::size_t repeats = 1;
  for (const auto& g : groups) repeats = std::max(repeats, g.runs.size());
  std::string mode = cells.empty() ? "sim" : cells[0].value("mode", "sim");
  std::ostringstream o;
  o << cells.size() << " cells (" << groups.size() << " configurations";
  if (repeats > 1) o << " x up to " << repeats << " repeats";
  o << "), mode " << mode << ", tierlab " << results.value("tierlab_version", "?")
    << ", matrix hash " << results.value("matrix_hash", "?");
  const std::string shard = results.value("shard", "");
  if (!shard.empty() && shard != "1/1" && shard != "merged") o << ", shard " << shard;
  return o.str();
}

constexpr const char* kUnits =
    "IOPS: I/Os per second; GB/s: 10^9 bytes per second; latencies in ms; read, write and "
    "complete (all I/Os).";

// What the tables' "±" means, for the methods that occur in them.
std::string CiLegend(const std::vector<CellGroup>& groups,
                     const std::vector<std::string>& metrics) {
  bool repeats = false, batches = false;
  for (const auto& g : groups) {
    if (g.runs.size() > 1) repeats = true;
    for (const auto& m : metrics) {
      if (g.runs.size() == 1 && CellMetricCi(*g.runs[0], "complete", m).valid()) batches = true;
    }
  }
  if (!repeats && !batches) return "";
  std::string s = " ±: 95% confidence interval";
  if (repeats) s += ", Student's t over the repeats";
  if (batches) {
    s += repeats ? "; for a configuration run once, batch means over its measured window (none "
                   "for its percentiles)"
                 : ", batch means over each run's measured window (none for percentiles)";
  }
  return s + ".";
}

std::string Csv(const nlohmann::json& results) {
  const std::vector<std::string> keys = CoordinateKeys(results);
  TextTable t;
  t.header = {"index", "id", "label", "layout", "profile"};
  for (const auto& k : keys) t.header.push_back(k);
  t.header.push_back("repeat");
  t.header.push_back("seed");
  for (const auto& op : kOps) {
    t.header.push_back(op + "_total_ios");
    for (const auto& m : KnownMetrics()) {
      const char* suffix = CsvSuffix(m);
      t.header.push_back(op + "_" + (suffix != nullptr ? suffix : "lat_" + m + "_ns"));
    }
  }
  t.header.push_back("cache_read_hit_ratio");
  // The run's own intervals (half-widths; empty without one), after every
  // column there was before them.
  const std::vector<std::pair<std::string, std::string>> ci_columns = {
      {"iops", "iops_ci95"}, {"bw", "bw_bytes_ci95"}, {"lat", "lat_mean_ns_ci95"}};
  for (const auto& op : kOps) {
    for (const auto& [m, suffix] : ci_columns) t.header.emplace_back(op + "_").append(suffix);
  }
  std::vector<const nlohmann::json*> cells;
  for (const auto& c : results.at("cells")) cells.push_back(&c);
  std::stable_sort(cells.begin(), cells.end(), [](const auto* a, const auto* b) {
    return a->value("index", std::size_t{0}) < b->value("index", std::size_t{0});
  });
  for (const auto* c : cells) {
    std::vector<std::string> row = {std::to_string(c->value("index", std::size_t{0})),
                                    c->value("id", ""), c->value("label", ""),
                                    c->value("layout_name", ""), c->value("profile_name", "")};
    const nlohmann::json axes = c->value("axes", nlohmann::json::object());
    for (const auto& k : keys) row.push_back(axes.contains(k) ? AxisValueText(axes.at(k)) : "");
    row.push_back(std::to_string(c->value("repeat", 0)));
    row.push_back(std::to_string(c->value("seed", std::uint64_t{0})));
    for (const auto& op : kOps) {
      row.push_back(std::to_string(OpIos(*c, op)));
      for (const auto& m : KnownMetrics()) {
        const double v = CellMetric(*c, op, m);
        row.push_back(m == "iops" || m == "lat" ? FormatFixed(v, 1) : FormatFixed(v, 0));
      }
    }
    row.push_back(c->contains("cache") ? FormatFixed(c->at("cache").value("read_hit_ratio", 0.0), 4)
                                       : "");
    for (const auto& op : kOps) {
      for (const auto& [m, suffix] : ci_columns) {
        const ConfidenceInterval ci = CellMetricCi(*c, op, m);
        row.push_back(ci.valid() ? FormatFixed(ci.half_width, m == "bw" ? 0 : 1) : "");
      }
    }
    t.rows.push_back(std::move(row));
  }
  return t.Render(TableStyle::kCsv);
}

nlohmann::json JsonReport(const nlohmann::json& results, const std::vector<CellGroup>& groups) {
  nlohmann::json out;
  out["tierlab_version"] = results.value("tierlab_version", "");
  out["matrix_name"] = results.value("matrix_name", "");
  out["matrix_hash"] = results.value("matrix_hash", "");
  out["groups"] = nlohmann::json::array();
  for (const auto& g : groups) {
    nlohmann::json gj;
    gj["id"] = g.id;
    gj["label"] = g.label;
    gj["layout"] = g.layout;
    gj["profile"] = g.profile;
    gj["axes"] = nlohmann::json::object();
    for (const auto& [k, v] : g.axes) gj["axes"][k] = v;
    gj["repeats"] = g.runs.size();
    for (const auto& op : kOps) {
      for (const auto& m : KnownMetrics()) {
        const Stat s = g.Metric(op, m);
        gj["metrics"][op][m] = {{"mean", s.mean},
                                {"min", s.min},
                                {"max", s.max},
                                {"ci95", CiToJson(s.ci, s.ci_method)}};
      }
    }
    out["groups"].push_back(std::move(gj));
  }
  return out;
}

}  // namespace

std::string RenderCsvReport(const nlohmann::json& results) {
  return Csv(results);
}

std::string RenderJsonReport(const nlohmann::json& results) {
  return JsonReport(results, GroupCells(results)).dump(2) + "\n";
}

std::string RenderTextReport(const nlohmann::json& results, const ReportOptions& o, bool md) {
  const std::vector<CellGroup> groups = GroupCells(results);
  std::ostringstream out;
  const std::string name = results.value("matrix_name", "matrix");
  out << (md ? "## " : "") << "Matrix " << name << "\n\n"
      << Summary(results, groups) << ".\n"
      << kUnits;
  out << CiLegend(groups, o.metrics) << "\n";
  for (const auto& t : BuildReportTables(results, groups, o)) {
    out << "\n" << (md ? "### " : "") << t.title << "\n\n";
    out << t.table.Render(md ? TableStyle::kMarkdown : TableStyle::kText);
  }
  return out.str();
}

}  // namespace tierlab
