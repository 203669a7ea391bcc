#include "bench/report/Validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/lab/LatencyHistogram.h"
#include "bench/report/MatrixReport.h"
#include "bench/report/Svg.h"

namespace tierlab {

namespace {

using json = nlohmann::json;

double RelError(double model, double measured) {
  return measured != 0 ? (model - measured) / measured : 0;
}

// The cell's latency quantiles of all I/O (fio's percentiles), in order.
std::vector<std::pair<double, double>> Cdf(const json& cell) {
  std::vector<std::pair<double, double>> out;
  if (!cell.contains("jobs") || cell.at("jobs").empty()) return out;
  const json& job = cell.at("jobs").at(0);
  if (!job.contains("complete")) return out;
  const json& lat = job.at("complete").value("lat_ns", json::object());
  if (!lat.contains("percentile")) return out;
  const json& pc = lat.at("percentile");
  for (double p : kFioPercentiles) {
    char key[32];
    std::snprintf(key, sizeof key, "%f", p);
    if (pc.contains(key) && pc.at(key).is_number()) out.emplace_back(p, pc.at(key).get<double>());
  }
  return out;
}

// Ruemmler and Wilkes' demerit: sqrt of the mean over probability of the
// squared horizontal distance between the CDFs, the quantile function read
// as a step at each of fio's percentiles (trapezoids between them).
double Demerit(const std::vector<std::pair<double, double>>& a,
               const std::vector<std::pair<double, double>>& b) {
  if (a.size() != b.size() || a.size() < 2) return 0;
  double sum = 0, span = 0;
  for (std::size_t i = 1; i < a.size(); ++i) {
    const double dp = a[i].first - a[i - 1].first;
    const double d0 = a[i - 1].second - b[i - 1].second;
    const double d1 = a[i].second - b[i].second;
    sum += dp * (d0 * d0 + d1 * d1) / 2;
    span += dp;
  }
  return span > 0 ? std::sqrt(sum / span) : 0;
}

std::string Figure(const std::string& metric, double v) {
  char buf[32];
  if (metric == "iops") {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else if (metric == "bw") {
    std::snprintf(buf, sizeof buf, "%.1f", v / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", v / 1e3);
  }
  return buf;
}

std::string Percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", f * 100);
  return buf;
}

std::string Title(const std::string& metric) {
  if (metric == "iops") return "IOPS";
  if (metric == "bw") return "MB/s";
  if (metric == "lat") return "mean us";
  return metric + " us";
}

// The mean of the runs' host_reference.KEY; none when a run has none.
std::optional<double> MeanHostScale(const CellGroup& g, const char* key) {
  double sum = 0;
  for (const json* run : g.runs) {
    const auto ref = run->find("host_reference");
    if (ref == run->end() || !ref->contains(key) || !ref->at(key).is_number()) {
      return std::nullopt;
    }
    sum += ref->at(key).get<double>();
  }
  if (g.runs.empty()) return std::nullopt;
  return sum / static_cast<double>(g.runs.size());
}

// The mean over the runs of the pauses a second their probes saw (all
// probed devices together); none when a run has no device_pauses.
std::optional<double> MeanPauseRate(const CellGroup& g) {
  double sum = 0;
  for (const json* run : g.runs) {
    const auto list = run->find("device_pauses");
    if (list == run->end() || !list->is_array() || list->empty()) return std::nullopt;
    for (const json& e : *list) {
      if (!e.is_object() || !e.contains("per_second") || !e.at("per_second").is_number()) {
        return std::nullopt;
      }
      sum += e.at("per_second").get<double>();
    }
  }
  if (g.runs.empty()) return std::nullopt;
  return sum / static_cast<double>(g.runs.size());
}

}  // namespace

const std::vector<std::string>& ValidationMetrics() {
  static const std::vector<std::string> m = {"iops", "bw", "lat", "p50", "p99"};
  return m;
}

Expected<Validation> CompareMeasuredAndModel(const json& measured, const json& model) {
  const std::vector<CellGroup> real = GroupCells(measured), sim = GroupCells(model);
  if (real.size() != sim.size()) {
    return MakeError("the measured results have " + std::to_string(real.size()) +
                         " configurations and the modelled " + std::to_string(sim.size()),
                     ErrorKind::kInconsistent);
  }
  Validation v;
  for (const std::string& m : ValidationMetrics()) v.worst.push_back({m, 0, 0, 0});
  for (std::size_t i = 0; i < real.size(); ++i) {
    if (real[i].label != sim[i].label) {
      return MakeError("configuration " + std::to_string(i) + " is \"" + real[i].label +
                           "\" measured and \"" + sim[i].label + "\" modelled",
                       ErrorKind::kInconsistent);
    }
    ValidationCell c;
    c.label = real[i].label;
    for (std::size_t k = 0; k < ValidationMetrics().size(); ++k) {
      const std::string& m = ValidationMetrics()[k];
      const double a = real[i].Metric("complete", m).mean, b = sim[i].Metric("complete", m).mean;
      c.metrics.push_back({m, a, b, RelError(b, a)});
      if (std::abs(c.metrics.back().error) >= std::abs(v.worst[k].error)) {
        v.worst[k] = c.metrics.back();
      }
    }
    // The demerit of the first repeat of each side (a distribution is not
    // averaged over repeats).
    c.cdf_measured = Cdf(*real[i].runs.front());
    c.cdf_model = Cdf(*sim[i].runs.front());
    const double mean = c.metrics[2].measured;
    c.demerit_pct = mean > 0 ? 100 * Demerit(c.cdf_model, c.cdf_measured) / mean : 0;
    v.worst_demerit_pct = std::max(v.worst_demerit_pct, c.demerit_pct);
    c.read_scale = MeanHostScale(real[i], "read_scale");
    c.write_scale = MeanHostScale(real[i], "write_scale");
    c.pauses_per_second = MeanPauseRate(real[i]);
    v.cells.push_back(std::move(c));
  }
  return v;
}

namespace {

TextTable MakeTable(const Validation& v) {
  TextTable t;
  t.header = {"cell"};
  for (const std::string& m : ValidationMetrics()) {
    t.header.push_back(Title(m));
    t.header.push_back("model");
    t.header.push_back("error");
  }
  t.header.push_back("demerit");
  const bool host = std::any_of(v.cells.begin(), v.cells.end(),
                                [](const ValidationCell& c) { return c.read_scale.has_value(); });
  if (host) t.header.push_back("host");
  const bool pauses = std::any_of(v.cells.begin(), v.cells.end(), [](const ValidationCell& c) {
    return c.pauses_per_second.has_value();
  });
  if (pauses) t.header.push_back("pauses/s");
  for (const ValidationCell& c : v.cells) {
    std::vector<std::string> row = {c.label};
    for (const ValidationMetric& m : c.metrics) {
      row.push_back(Figure(m.metric, m.measured));
      row.push_back(Figure(m.metric, m.model));
      row.push_back(Percent(m.error));
    }
    char d[32];
    std::snprintf(d, sizeof d, "%.1f%%", c.demerit_pct);
    row.push_back(d);
    if (host) {
      std::snprintf(d, sizeof d, "x%.3f/%.3f", c.read_scale.value_or(1), c.write_scale.value_or(1));
      row.push_back(c.read_scale && c.write_scale ? d : "-");
    }
    if (pauses) {
      std::snprintf(d, sizeof d, "%.1f", c.pauses_per_second.value_or(0));
      row.push_back(c.pauses_per_second ? d : "-");
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

std::string FormatValidation(const Validation& v, TableStyle style) {
  return MakeTable(v).Render(style);
}

json ValidationJson(const Validation& v) {
  auto metric = [](const ValidationMetric& m) {
    return json{
        {"metric", m.metric}, {"measured", m.measured}, {"model", m.model}, {"error", m.error}};
  };
  json cells = json::array();
  for (const ValidationCell& c : v.cells) {
    json ms = json::array();
    for (const ValidationMetric& m : c.metrics) ms.push_back(metric(m));
    json cell = {{"label", c.label}, {"metrics", std::move(ms)}, {"demerit_pct", c.demerit_pct}};
    if (c.read_scale && c.write_scale) {
      cell["read_scale"] = *c.read_scale;
      cell["write_scale"] = *c.write_scale;
    }
    if (c.pauses_per_second) cell["pauses_per_second"] = *c.pauses_per_second;
    cells.push_back(std::move(cell));
  }
  json worst = json::array();
  for (const ValidationMetric& m : v.worst) worst.push_back(metric(m));
  return {{"cells", std::move(cells)},
          {"worst", std::move(worst)},
          {"worst_demerit_pct", v.worst_demerit_pct}};
}

std::string ValidationHtml(const Validation& v, const std::string& title) {
  std::string h = HtmlPageHead(title);
  h += "<h1>" + HtmlEscape(title) + "</h1>\n";
  h += "<p>Measured (real time) against modelled (simulation on the calibrated presets); "
       "error is (model - measured) / measured; demerit is the root mean square horizontal "
       "distance between the latency CDFs, in % of the measured mean; host is the factors the "
       "model's CPU costs for reads and writes were scaled by, the host's speed measured after "
       "the cell against its speed at calibration; pauses/s is how often the devices with "
       "pauses paused in a probe after the cell, the rate its model held them for.</p>\n"
       "<table>\n<tr>";
  const TextTable t = MakeTable(v);
  for (const std::string& f : t.header) h += "<th>" + HtmlEscape(f) + "</th>";
  h += "</tr>\n";
  for (const auto& row : t.rows) {
    h += "<tr>";
    for (const std::string& f : row) h += "<td>" + HtmlEscape(f) + "</td>";
    h += "</tr>\n";
  }
  h += "</table>\n";
  for (const ValidationCell& c : v.cells) {
    std::vector<SvgSeries> s(2);
    s[0].name = "measured";
    s[1].name = "model";
    for (const auto& [p, ns] : c.cdf_measured) s[0].pts.emplace_back(ns / 1e3, p);
    for (const auto& [p, ns] : c.cdf_model) s[1].pts.emplace_back(ns / 1e3, p);
    h += SvgLinePlot(c.label, "latency (us)", "percentile", s, {});
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace tierlab
