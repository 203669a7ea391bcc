// libFuzzer target for the JSON a user hands tierlab besides profiles:
// layouts, device preset files, matrices and matrix results files. The
// bytes go through the one JSON reader (layouts/JsonParse.h); a document is
// then tried as each of the four. Checks: every error is one non-empty line
// of bounded length; an accepted layout round-trips through LayoutToJson,
// an accepted preset through PresetFileJson; an accepted matrix's
// plan counts exactly the cells its cursor streams; a results document that
// passes CheckResultsJson renders in every report format, diffs and merges
// without an exception (report/diff/merge rely on that check). See
// fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixResults.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/report/MatrixDiff.h"
#include "bench/report/Report.h"
#include "fuzz/OneLineError.h"
#include "layouts/JsonParse.h"
#include "layouts/Layout.h"
#include "layouts/MatrixSpec.h"
#include "layouts/PresetFile.h"

namespace {

using tierlab::fuzz::Accepted;
using tierlab::fuzz::CheckError;

// Matrices that only name shorthands, builtin profiles and inline objects:
// no file is opened (a fuzzed path could name a FIFO or /dev/stdin).
bool SelfContained(const nlohmann::json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    return s.find('/') == std::string::npos && s.find('.') == std::string::npos;
  }
  if (j.is_object()) {
    if (j.contains("trace")) return false;
    for (const auto& [k, v] : j.items()) {
      if (!SelfContained(v)) return false;
    }
  }
  if (j.is_array()) {
    for (const auto& v : j) {
      if (!SelfContained(v)) return false;
    }
  }
  return true;
}

void Layout(const nlohmann::json& j) {
  auto l = tierlab::ParseLayoutJson(j, "fuzz.json");
  if (!Accepted(l)) return;
  auto again = tierlab::ParseLayoutJson(tierlab::LayoutToJson(*l), "roundtrip");
  if (!again.ok() || tierlab::LayoutToJson(*again) != tierlab::LayoutToJson(*l)) std::abort();
}

// A device preset file (what `tierlab calibrate` writes): an accepted one
// must read back from PresetFileJson as the same preset.
void Preset(const nlohmann::json& j) {
  auto p = tierlab::ParsePresetFileJson(j, "fuzz.json", "file:fuzz.json");
  if (!Accepted(p)) return;
  const nlohmann::json written = tierlab::PresetFileJson(*p, nullptr);
  auto again = tierlab::ParsePresetFileJson(written, "roundtrip", "file:fuzz.json");
  if (!again.ok() || tierlab::PresetFileJson(*again, nullptr) != written) std::abort();
}

void Matrix(const nlohmann::json& j) {
  if (!j.is_object() || !SelfContained(j.value("layouts", nlohmann::json())) ||
      !SelfContained(j.value("profiles", nlohmann::json())) ||
      !SelfContained(j.value("include", nlohmann::json()))) {
    return;
  }
  auto spec = tierlab::ParseMatrixJson(j, "fuzz.json");
  if (!Accepted(spec)) return;
  auto plan = tierlab::MatrixPlan::Make(*spec);
  if (!Accepted(plan) || plan->size() > 256) return;
  auto cursor = plan->Cells();
  tierlab::MatrixCell cell;
  std::uint64_t n = 0;
  while (true) {
    auto more = cursor.Next(&cell);
    if (!Accepted(more)) return;
    if (!*more) break;
    if (cell.index != n++) std::abort();  // indices are 0, 1, 2, ...
  }
  if (n != plan->size()) std::abort();  // the count the plan worked out
}

void Results(const nlohmann::json& j) {
  if (!Accepted(tierlab::CheckResultsJson(j, "fuzz.json"))) return;
  using tierlab::ReportFormat;
  for (auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kCsv,
                 ReportFormat::kJson, ReportFormat::kHtml}) {
    auto r = tierlab::RenderReport(j, f, tierlab::ReportOptions{});
    if (!r.ok()) CheckError(r.error());
  }
  tierlab::DiffOptions o;
  auto d = tierlab::DiffResults(j, j, o);
  if (d.ok()) {
    (void)tierlab::FormatDiff(*d, tierlab::TableStyle::kText, o);
  } else {
    CheckError(d.error());
  }
  for (const std::string& key : tierlab::CoordinateKeys(j)) {
    auto p = tierlab::DiffPivot(j, key, o);
    if (!p.ok()) CheckError(p.error());
  }
  auto m = tierlab::MergeMatrixResults({j}, {"fuzz.json"});
  if (!m.ok()) CheckError(m.error());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = tierlab::ParseJsonText(text, "fuzz.json");
  if (!Accepted(j)) return 0;
  (void)tierlab::DescribeJson(*j);
  Layout(*j);
  Preset(*j);
  Matrix(*j);
  Results(*j);
  return 0;
}
