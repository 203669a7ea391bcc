#include "bench/report/MatrixDiff.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "bench/lab/CiFormat.h"
#include "bench/lab/MatrixRunner.h"
#include "layouts/MatrixSpec.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

struct MetricRef {
  std::string op = "complete";
  std::string name;
};

MetricRef SplitMetric(const std::string& m) {
  for (const char* op : {"read.", "write.", "complete."}) {
    if (m.starts_with(op)) return {std::string(op, std::strlen(op) - 1), m.substr(std::strlen(op))};
  }
  return {"complete", m};
}

DiffRow Compare(const CellGroup& base, const CellGroup& next, const std::string& metric,
                const DiffOptions& o) {
  const MetricRef m = SplitMetric(metric);
  DiffRow r;
  r.metric = metric;
  r.base = base.Metric(m.op, m.name);
  r.next = next.Metric(m.op, m.name);
  r.delta = r.base.mean != 0 ? (r.next.mean - r.base.mean) / std::fabs(r.base.mean) : 0;
  const bool higher_better = HigherIsBetter(m.name);
  const double worse = higher_better ? -r.delta : r.delta;  // > 0: got worse
  if (std::fabs(r.delta) <= o.threshold) return r;
  if (!r.base.ci.valid() || !r.next.ci.valid()) {
    r.basis = DiffBasis::kNoCi;
  } else {
    r.basis = r.base.ci.Overlaps(r.next.ci) ? DiffBasis::kCisOverlap : DiffBasis::kCisApart;
  }
  if (r.basis == DiffBasis::kCisOverlap) {
    r.verdict = DiffVerdict::kNoise;
  } else {
    r.verdict = worse > 0 ? DiffVerdict::kRegression : DiffVerdict::kImproved;
  }
  return r;
}

// The group's coordinates except `pivot`, as one key.
std::string OtherKey(const CellGroup& g, const std::string& pivot) {
  std::string k;
  if (pivot != "layout") k += "layout=" + g.layout + ";";
  if (pivot != "profile") k += "profile=" + g.profile + ";";
  for (const auto& [path, v] : g.axes) {
    if (path != pivot) k += path + "=" + v.dump() + ";";
  }
  return k;
}

std::string LabelWithout(const CellGroup& g, const std::string& pivot) {
  std::string s;
  if (pivot != "layout") s = g.layout;
  if (pivot != "profile") s += (s.empty() ? "" : " | ") + g.profile;
  std::string axes;
  for (const auto& [path, v] : g.axes) {
    if (path != pivot) axes += (axes.empty() ? "" : " ") + path + "=" + AxisValueText(v);
  }
  if (!axes.empty()) s += " | " + axes;
  return s;
}

}  // namespace

std::string_view ToString(DiffVerdict v) {
  switch (v) {
    case DiffVerdict::kOk: return "ok";
    case DiffVerdict::kNoise: return "noise";
    case DiffVerdict::kImproved: return "improved";
    case DiffVerdict::kRegression: return "REGRESSION";
  }
  return "ok";
}

std::string DescribeBasis(DiffBasis b, double threshold) {
  const std::string t = FormatFixed(100 * threshold, 1) + "%";
  switch (b) {
    case DiffBasis::kWithinThreshold: return "|delta| <= " + t;
    case DiffBasis::kCisApart: return "> " + t + ", 95% CIs apart";
    case DiffBasis::kCisOverlap: return "> " + t + ", 95% CIs overlap";
    case DiffBasis::kNoCi: return "> " + t + ", no CI: threshold only";
  }
  return "";
}

std::size_t DiffResult::noise() const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [](const DiffRow& r) { return r.verdict == DiffVerdict::kNoise; }));
}

std::size_t DiffResult::regressions() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const DiffRow& r) {
    return r.verdict == DiffVerdict::kRegression;
  }));
}

Expected<double> ParseThreshold(std::string_view text) {
  std::string_view t = text;
  if (t.ends_with("%")) t.remove_suffix(1);
  double v = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size() || v < 0 || v >= 1000) {
    return MakeError("--threshold: expected a percentage such as 5%, got " + QuotedText(text, '"'));
  }
  return v / 100;
}

Expected<void> CheckDiffMetrics(const std::vector<std::string>& metrics) {
  if (metrics.empty()) return MakeError("--metric: give at least one metric");
  for (const auto& m : metrics) {
    if (!IsKnownMetric(SplitMetric(m).name)) {
      std::string known;
      for (const auto& k : KnownMetrics()) known += (known.empty() ? "" : ", ") + k;
      return MakeError("--metric: unknown " + QuotedText(m, '"') + "; known: " + known +
                       " (prefix read. or write. for one direction)");
    }
  }
  return {};
}

Expected<DiffResult> DiffResults(const nlohmann::json& base, const nlohmann::json& next,
                                 const DiffOptions& o) {
  auto ok = CheckDiffMetrics(o.metrics);
  if (!ok.ok()) return ok.error();
  if (auto c = CheckResultsJson(base, "base"); !c.ok()) return c.error();
  if (auto c = CheckResultsJson(next, "new"); !c.ok()) return c.error();
  const auto bg = GroupCells(base);
  const auto ng = GroupCells(next);
  std::map<std::string, const CellGroup*> by_id;
  for (const auto& g : ng) by_id[g.id] = &g;
  DiffResult d;
  std::map<std::string, bool> matched;
  for (const auto& b : bg) {
    auto it = by_id.find(b.id);
    if (it == by_id.end()) {
      d.only_base.push_back(b.label);
      continue;
    }
    matched[b.id] = true;
    for (const auto& m : o.metrics) {
      DiffRow r = Compare(b, *it->second, m, o);
      r.cell = b.label;
      r.base_name = "base";
      r.new_name = "new";
      d.rows.push_back(std::move(r));
    }
  }
  for (const auto& g : ng) {
    if (!matched.count(g.id)) d.only_new.push_back(g.label);
  }
  return d;
}

Expected<DiffResult> DiffPivot(const nlohmann::json& results, const std::string& pivot,
                               const DiffOptions& o) {
  auto ok = CheckDiffMetrics(o.metrics);
  if (!ok.ok()) return ok.error();
  if (auto c = CheckResultsJson(results, "results"); !c.ok()) return c.error();
  const auto groups = GroupCells(results);
  std::vector<std::string> keys = {"layout", "profile"};
  for (const auto& k : CoordinateKeys(results)) keys.push_back(k);
  if (std::find(keys.begin(), keys.end(), pivot) == keys.end()) {
    std::string list;
    for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
    return MakeError("--pivot: unknown key " + QuotedText(pivot, '"') + "; known: " + list);
  }
  // Pivot values in order: the axis's values as written, else first seen.
  std::vector<nlohmann::json> values;
  const nlohmann::json& m = MatrixSection(results);
  const nlohmann::json axes =
      m.contains("axes") && m.at("axes").is_object() ? m.at("axes") : nlohmann::json::object();
  if (axes.contains(pivot) && axes.at(pivot).is_array()) {
    for (const auto& v : axes.at(pivot)) values.push_back(v);
  }
  for (const auto& g : groups) {
    const nlohmann::json v = g.KeyValue(pivot);
    if (v.is_null()) continue;
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  if (values.size() < 2) {
    return MakeError("--pivot: " + QuotedText(pivot, '"') +
                     " has fewer than two values in these results");
  }
  const nlohmann::json baseline = values[0];
  DiffResult d;
  d.pivot = pivot;
  std::map<std::string, const CellGroup*> base_by_key;
  for (const auto& g : groups) {
    if (g.KeyValue(pivot) == baseline) base_by_key[OtherKey(g, pivot)] = &g;
  }
  std::map<std::string, bool> used;
  for (const auto& g : groups) {
    const nlohmann::json v = g.KeyValue(pivot);
    if (v == baseline || v.is_null()) continue;
    const std::string key = OtherKey(g, pivot);
    auto it = base_by_key.find(key);
    if (it == base_by_key.end()) {
      d.only_new.push_back(g.label);
      continue;
    }
    used[key] = true;
    for (const auto& m : o.metrics) {
      DiffRow r = Compare(*it->second, g, m, o);
      r.cell = LabelWithout(g, pivot);
      r.base_name = pivot + "=" + AxisValueText(baseline);
      r.new_name = pivot + "=" + AxisValueText(v);
      d.rows.push_back(std::move(r));
    }
  }
  for (const auto& [key, g] : base_by_key) {
    if (!used.count(key)) d.only_base.push_back(g->label);
  }
  return d;
}

std::string FormatDiff(const DiffResult& d, TableStyle style, const DiffOptions& o) {
  std::ostringstream out;
  TextTable t;
  const bool pivot = !d.pivot.empty();
  t.header = {"cell", "metric"};
  if (pivot) {
    t.header.push_back("baseline");
    t.header.push_back("value");
  }
  t.header.push_back(pivot && !d.rows.empty() ? d.rows[0].base_name : "base");
  t.header.push_back(pivot ? "compared" : "new");
  t.header.push_back("delta");
  t.header.push_back("verdict");
  t.header.push_back("why");
  t.label_columns = pivot ? 4 : 2;
  for (const auto& r : d.rows) {
    std::vector<std::string> row = {
        r.cell, MetricTitle(SplitMetric(r.metric).name) +
                    (SplitMetric(r.metric).op == "complete" ? "" : " " + SplitMetric(r.metric).op)};
    if (pivot) {
      row.push_back(r.base_name);
      row.push_back(r.new_name);
    }
    row.push_back(FormatStat(SplitMetric(r.metric).name, r.base));
    row.push_back(FormatStat(SplitMetric(r.metric).name, r.next));
    std::string change = r.delta >= 0 ? "+" : "";
    change += FormatFixed(100 * r.delta, 1);
    change += '%';
    row.push_back(std::move(change));
    row.push_back(std::string(ToString(r.verdict)));
    row.push_back(DescribeBasis(r.basis, o.threshold));
    t.rows.push_back(std::move(row));
  }
  if (pivot) {
    // The baseline column's title is generic when the rows hold the names.
    t.header[4] = "baseline value";
    t.header[5] = "compared value";
  }
  out << t.Render(style);
  if (style == TableStyle::kCsv) return out.str();
  for (const auto& l : d.only_base) out << "only in base: " << l << "\n";
  for (const auto& l : d.only_new) out << "only in new: " << l << "\n";
  out << "\n"
      << d.regressions() << " regression" << (d.regressions() == 1 ? "" : "s") << " in "
      << d.rows.size() << " comparisons (a regression: beyond the threshold of "
      << FormatFixed(100 * o.threshold, 1) << "% and the 95% confidence intervals apart; "
      << "without an interval, the threshold alone)";
  if (d.noise() > 0) {
    out << "; " << d.noise() << " beyond the threshold within the intervals (noise)";
  }
  out << "\n";
  return out.str();
}

}  // namespace tierlab
