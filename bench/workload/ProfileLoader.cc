#include "bench/workload/ProfileLoader.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/workload/BuiltinProfiles.h"
#include "bench/workload/FioJobFile.h"
#include "bench/workload/TraceProfile.h"
#include "layouts/Layout.h"

namespace tierlab {

Expected<std::vector<Profile>> LoadProfiles(std::string_view name_or_path, bool ignore_unknown,
                                            ProfileLoadInfo* info) {
  const std::string s(name_or_path);
  std::error_code ec;
  if (std::filesystem::is_directory(s, ec)) {
    return MakeError(s + ": is a directory, not a profile file (or a builtin profile name)");
  }
  if (!std::filesystem::is_regular_file(s, ec)) {
    if (s.ends_with(".json") || s.ends_with(".fio") || s.find('/') != std::string::npos) {
      return MakeError(s + ": cannot open: no such file");
    }
    return ExpandProfileName(s);
  }
  const std::string file = std::filesystem::path(s).filename().string();
  if (s.ends_with(".json")) {
    auto j = ReadJsonFile(s);
    if (!j.ok()) return j.error();
    if (IsTraceProfileJson(*j)) {
      return MakeError(file +
                       ": a trace profile (it has \"trace\"): list it in a matrix's "
                       "profiles, or replay the trace with tierlab run --trace");
    }
    std::vector<Profile> out;
    if (j->is_array()) {
      for (std::size_t i = 0; i < j->size(); ++i) {
        auto p = ParseProfileJson((*j)[i], file + "[" + std::to_string(i) + "]");
        if (!p.ok()) return p.error();
        out.push_back(std::move(p.value()));
      }
      if (out.empty()) return MakeError(file + ": no profiles in the array");
      return out;
    }
    auto p = ParseProfileJson(*j, file);
    if (!p.ok()) return p.error();
    out.push_back(std::move(p.value()));
    return out;
  }
  auto text = ReadTextFile(s);
  if (!text.ok()) return text.error();
  FioParseOptions o;
  o.ignore_unknown = ignore_unknown;
  o.path = s;
  if (info != nullptr) {
    o.ignored = &info->ignored;
    o.notes = &info->notes;
    o.global_options = &info->global_options;
    o.job_options = &info->job_options;
  }
  return ParseFioJobFile(*text, file, o);
}

}  // namespace tierlab
