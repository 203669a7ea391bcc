#include "layouts/HostCpuSpec.h"

#include <cmath>
#include <string>

#include "layouts/JsonFields.h"
#include "layouts/JsonParse.h"
#include "layouts/PresetFile.h"  // kPresetFilePrefix

namespace tierlab {

namespace {

using json = nlohmann::json;
using F = Field<HostCpuSpec>;

template <Nanos NodeCpuSpec::*member>
void ReadNs(JsonFields& f, std::string_view k, HostCpuSpec& c) {
  c.cpu.*member = f.Int(k, c.cpu.*member, 0, 1'000'000'000);
}

// "stalls": [{"duration_ns": 14000, "per_second": 800}, ...]. Stalls that
// take half the core's time or more are refused: that is not a host a run
// can be modelled on.
void ReadStalls(JsonFields& f, std::string_view k, HostCpuSpec& c) {
  const json* stalls = f.Raw(k);
  if (stalls == nullptr || !f.ok()) return;
  if (!stalls->is_array()) {
    f.Fail(k, "must be an array of {duration_ns, per_second}");
    return;
  }
  c.cpu.stalls.clear();
  double share = 0;
  for (std::size_t i = 0; i < stalls->size(); ++i) {
    JsonFields s = f.Child((*stalls)[i], std::string(k) + "[" + std::to_string(i) + "]");
    s.OnlyKeys({"duration_ns", "per_second"});
    if (s.ok() && !s.Has("duration_ns")) s.Fail("duration_ns", "missing; how long a stall is");
    CpuStall stall;
    stall.duration = s.Int("duration_ns", 0, 1, 1'000'000'000);
    stall.per_second = s.Number("per_second", 0, 0, 1e7);
    if (!s.ok()) {
      f.Adopt(s);
      return;
    }
    share += static_cast<double>(stall.duration) * stall.per_second / 1e9;
    c.cpu.stalls.push_back(stall);
  }
  if (share >= 0.5) {
    f.Fail(k, "take " + std::to_string(std::lround(share * 100)) +
                  "% of the core's time; at most 50%");
  }
}

const F kFields[] = {
    {"cores", "integer 1..1024", "", "cores that run the stack (1: tierlab's engine thread)",
     [](JsonFields& f, std::string_view k, HostCpuSpec& c) {
       c.cpu.cores = static_cast<std::uint32_t>(f.Int(k, c.cpu.cores, 1, 1024));
     },
     [](const HostCpuSpec& c) -> json { return c.cpu.cores; }},
    {"per_io_ns", "integer 0..1e9", "ns", "CPU time per request the volume takes",
     &ReadNs<&NodeCpuSpec::per_io>, [](const HostCpuSpec& c) -> json { return c.cpu.per_io; }},
    {"per_kib_ns", "integer 0..1e9", "ns", "and per KiB the request carries",
     &ReadNs<&NodeCpuSpec::per_kib>, [](const HostCpuSpec& c) -> json { return c.cpu.per_kib; }},
    {"per_write_io_ns", "integer 0..1e9", "ns",
     "a write's per request, where it differs (0: per_io_ns)", &ReadNs<&NodeCpuSpec::per_write_io>,
     [](const HostCpuSpec& c) -> json { return c.cpu.per_write_io; }},
    {"per_write_kib_ns", "integer 0..1e9", "ns",
     "a write's per KiB, where it differs (0: per_kib_ns)", &ReadNs<&NodeCpuSpec::per_write_kib>,
     [](const HostCpuSpec& c) -> json { return c.cpu.per_write_kib; }},
    {"stalls", "array of {duration_ns, per_second}", "",
     "the host taking the core away: per class, how long and how often on each core (none: "
     "never)",
     &ReadStalls,
     [](const HostCpuSpec& c) -> json {
       json a = json::array();
       for (const CpuStall& s : c.cpu.stalls) {
         a.push_back({{"duration_ns", s.duration}, {"per_second", s.per_second}});
       }
       return a;
     },
     true, "none"},
};

// Reads the figures of an object at `f`, which names where they are.
HostCpuSpec ReadFigures(JsonFields& f) {
  HostCpuSpec c;
  ReadFields(std::span<const F>(kFields), f, c);
  if (f.ok() && c.cpu.per_io == 0 && c.cpu.per_write_io == 0 && c.cpu.per_kib == 0 &&
      c.cpu.per_write_kib == 0) {
    f.Fail("per_io_ns", "missing; a CPU needs a cost (per_io_ns, per_kib_ns or a write's)");
  }
  return c;
}

Expected<HostCpuSpec> ReadCpuFile(std::string_view path) {
  auto doc = ReadJsonFile(path);
  if (!doc.ok()) return doc.error();
  const std::string source(path);
  if (!doc->is_object()) return MakeError(source + ": a cpu file is a JSON object");
  JsonFields f(*doc, source, "");
  f.OnlyKeys({"cpu_file", "cpu", "calibration"});
  if (f.ok() && f.Int("cpu_file", 0, 1, 1) != 1) f.Fail("cpu_file", "missing; must be 1");
  const json* cpu = f.Raw("cpu");
  if (f.ok() && (cpu == nullptr || !cpu->is_object())) {
    f.Fail("cpu", "missing; an object with the CPU's figures");
  }
  if (!f.ok()) return f.error();
  JsonFields cf = f.Child(*cpu, "cpu");
  HostCpuSpec c = ReadFigures(cf);
  if (!cf.ok()) return cf.error();
  return c;
}

}  // namespace

std::span<const F> HostCpuFields() {
  return kFields;
}

Expected<HostCpuSpec> ParseHostCpuJson(const json& j, std::string_view source) {
  const std::string where = std::string(source) + ": cpu";
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s.rfind(kPresetFilePrefix, 0) != 0 || s.size() == kPresetFilePrefix.size()) {
      return MakeError(where + ": \"" + s +
                       "\" is not a file; an object of figures, or \"file:PATH\" (tierlab "
                       "calibrate --cpu writes one)");
    }
    auto c = ReadCpuFile(s.substr(kPresetFilePrefix.size()));
    if (!c.ok()) return Error{where + ": " + c.error().message, c.error().kind};
    c->file = s;
    return c;
  }
  if (!j.is_object()) {
    return MakeError(where + ": must be an object of figures or \"file:PATH\"");
  }
  JsonFields f(j, std::string(source), "cpu");
  HostCpuSpec c = ReadFigures(f);
  if (!f.ok()) return f.error();
  return c;
}

json HostCpuToJson(const HostCpuSpec& c) {
  if (!c.file.empty()) return c.file;
  return WriteFields(std::span<const F>(kFields), c);
}

json CpuFileJson(const NodeCpuSpec& cpu, const json& calibration) {
  json j = {{"cpu_file", 1},
            {"cpu", WriteFields(std::span<const F>(kFields), HostCpuSpec{cpu, ""})}};
  if (!calibration.is_null()) j["calibration"] = calibration;
  return j;
}

}  // namespace tierlab
