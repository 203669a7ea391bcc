#include "layouts/HostCpuSpec.h"

#include <array>
#include <string>

#include "layouts/JsonFields.h"
#include "layouts/JsonParse.h"
#include "layouts/NodeCpuFields.h"
#include "layouts/PresetFile.h"  // kPresetFilePrefix
#include "tiering/core/QuotedText.h"

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

// A file's "reference" object at `f`.
HostCpuReference ReadReference(JsonFields& f) {
  f.OnlyKeys({"region", "dir", "read_ns_per_io", "write_ns_per_io"});
  HostCpuReference r;
  r.region = f.Bytes("region", 0);
  if (f.ok() && r.region < 4096)
    f.Fail("region", "missing or below 4k; the bytes the probe covers");
  r.dir = f.String("dir", "");
  if (f.ok() && r.dir.empty()) f.Fail("dir", "missing; where the probe's RAM files go");
  for (auto [key, v] : {std::pair{"read_ns_per_io", &r.read_ns_per_io},
                        std::pair{"write_ns_per_io", &r.write_ns_per_io}}) {
    *v = f.Number(key, 0, 0, 1e9);
    if (f.ok() && !(*v > 0)) f.Fail(key, "missing; above 0");
  }
  return r;
}

Expected<HostCpuSpec> ReadCpuFile(std::string_view path) {
  auto doc = ReadJsonFile(path);
  if (!doc.ok()) return doc.error();
  const std::string source(path);
  if (!doc->is_object()) return MakeError(source + ": a cpu file is a JSON object");
  JsonFields f(*doc, source, "");
  f.OnlyKeys({"cpu_file", "cpu", "reference", "calibration"});
  if (f.ok() && f.Int("cpu_file", 0, 1, 1) != 1) f.Fail("cpu_file", "missing; must be 1");
  const json* cpu = f.Raw("cpu");
  if (f.ok() && (cpu == nullptr || !cpu->is_object())) {
    f.Fail("cpu", "missing; an object with the CPU's figures");
  }
  if (!f.ok()) return f.error();
  JsonFields cf = f.Child(*cpu, "cpu");
  HostCpuSpec c = ReadFigures(cf);
  if (!cf.ok()) return cf.error();
  if (const json* ref = f.Raw("reference"); ref != nullptr) {
    if (!ref->is_object()) return MakeError(f.Where("reference") + ": must be an object");
    JsonFields rf = f.Child(*ref, "reference");
    c.reference = ReadReference(rf);
    if (!rf.ok()) return rf.error();
  }
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
      return MakeError(where + ": " + QuotedText(s, '"', 256) +
                       " is not a file; an object of figures, or \"file:PATH\" (tierlab "
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

json CpuFileJson(const NodeCpuSpec& cpu, const json& calibration,
                 const std::optional<HostCpuReference>& reference) {
  json j = {{"cpu_file", 1},
            {"cpu", WriteFields(std::span<const F>(kFields), HostCpuSpec{cpu, "", std::nullopt})}};
  if (reference) {
    j["reference"] = {{"region", FormatBytes(reference->region)},
                      {"dir", reference->dir},
                      {"read_ns_per_io", reference->read_ns_per_io},
                      {"write_ns_per_io", reference->write_ns_per_io}};
  }
  if (!calibration.is_null()) j["calibration"] = calibration;
  return j;
}

}  // namespace tierlab
