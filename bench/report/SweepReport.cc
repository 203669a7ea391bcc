#include "bench/report/SweepReport.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "bench/lab/CiFormat.h"
#include "bench/report/Svg.h"

namespace tierlab {
namespace {

// Cache size as a person reads it: 1.5 GiB, 64 MiB, 12 KiB.
std::string Bytes(std::uint64_t b) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char out[32];
  std::snprintf(out, sizeof out, v == static_cast<std::uint64_t>(v) ? "%.0f %s" : "%.1f %s", v,
                kUnits[u]);
  return out;
}

}  // namespace

nlohmann::json SweepToJson(const SweepSummary& s, const std::vector<SweepResult>& results) {
  nlohmann::json j = {{"trace", s.trace},
                      {"format", s.format},
                      {"requests", s.requests},
                      {"references", s.references},
                      {"unique_lines", s.unique_lines},
                      {"line_size", s.line_size},
                      {"view", s.object ? "object" : "block"},
                      {"writes", s.writes},
                      {"admission", s.admission}};
  nlohmann::json rows = nlohmann::json::array();
  for (const SweepResult& r : results) {
    const SweepCounts& c = r.counts;
    rows.push_back({{"policy", r.policy},
                    {"size_lines", r.size_lines},
                    {"size_bytes", r.size_bytes},
                    {"requests", c.requests},
                    {"references", c.read_refs + c.write_refs},
                    {"miss_ratio", c.MissRatio()},
                    {"byte_miss_ratio", c.ByteMissRatio()},
                    {"read_miss_ratio", c.ReadMissRatio()},
                    {"write_miss_ratio", c.WriteMissRatio()},
                    {"read_byte_miss_ratio", c.ReadByteMissRatio()},
                    {"write_byte_miss_ratio", c.WriteByteMissRatio()},
                    {"evictions", c.evictions},
                    {"dirty_evictions", c.dirty_evictions},
                    {"bypasses", c.bypasses}});
  }
  j["results"] = std::move(rows);
  return j;
}

std::string SweepTable(const std::vector<SweepResult>& results, TableStyle style) {
  TextTable t;
  t.header = {"policy",     "size_lines", "size",      "miss_ratio",     "read_miss",
              "write_miss", "byte_miss",  "evictions", "dirty_evictions"};
  for (const SweepResult& r : results) {
    const SweepCounts& c = r.counts;
    t.rows.push_back({r.policy, std::to_string(r.size_lines), Bytes(r.size_bytes),
                      FormatFixed(c.MissRatio(), 4), FormatFixed(c.ReadMissRatio(), 4),
                      FormatFixed(c.WriteMissRatio(), 4), FormatFixed(c.ByteMissRatio(), 4),
                      std::to_string(c.evictions), std::to_string(c.dirty_evictions)});
  }
  return t.Render(style);
}

std::string SweepHtml(const SweepSummary& s, const std::vector<SweepResult>& results) {
  // One series per policy, in the order the policies were given.
  std::vector<SvgSeries> all, reads;
  std::map<std::string, std::size_t> index;
  bool has_writes = false;
  constexpr double kMiB = 1 << 20;
  for (const SweepResult& r : results) {
    auto [it, inserted] = index.emplace(r.policy, all.size());
    if (inserted) {
      all.push_back({r.policy, {}});
      reads.push_back({r.policy, {}});
    }
    const double x = static_cast<double>(r.size_bytes) / kMiB;
    all[it->second].pts.push_back({x, 100 * r.counts.MissRatio()});
    reads[it->second].pts.push_back({x, 100 * r.counts.ReadMissRatio()});
    has_writes = has_writes || r.counts.write_refs > 0;
  }
  std::ostringstream o;
  o << HtmlPageHead("tierlab trace simulate: " + s.trace);
  o << "<h1>Miss ratio by policy and size: " << HtmlEscape(s.trace) << "</h1>";
  o << "<p>" << s.requests << " requests (" << HtmlEscape(s.format) << "), " << s.references
    << (s.object ? " object" : " line") << " references, " << s.unique_lines << " unique "
    << (s.object ? "objects" : "lines of " + Bytes(s.line_size))
    << "; writes: " << HtmlEscape(s.writes) << "; admission: " << HtmlEscape(s.admission)
    << ".</p>";
  o << SvgLinePlot("Miss ratio, all references", "cache MiB", "miss %", all, {});
  if (has_writes) o << SvgLinePlot("Miss ratio, reads", "cache MiB", "read miss %", reads, {});
  o << "<h2>Figures</h2><pre>" << HtmlEscape(SweepTable(results, TableStyle::kText))
    << "</pre></body></html>\n";
  return o.str();
}

}  // namespace tierlab
