#include "layouts/HostCpuSpec.h"

#include <array>
#include <string>

#include "layouts/JsonFields.h"
#include "layouts/JsonParse.h"
#include "layouts/NodeCpuFields.h"
#include "layouts/PresetFile.h"  // kPresetFilePrefix

namespace tierlab {

namespace {

using json = nlohmann::json;
using F = Field<HostCpuSpec>;

constexpr std::array<F, 1> kCoresField = {{
    {"cores", "integer 1..1024", "", "cores that run the stack (1: tierlab's engine thread)",
     [](JsonFields& f, std::string_view k, HostCpuSpec& c) {
       c.cpu.cores = static_cast<std::uint32_t>(f.Int(k, c.cpu.cores, 1, 1024));
     },
     [](const HostCpuSpec& c) -> json { return c.cpu.cores; }},
}};

constexpr auto kFields = JoinFields(kCoresField, CpuCostFields<HostCpuSpec, &HostCpuSpec::cpu>());

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
