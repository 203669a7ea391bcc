#include "layouts/PresetFile.h"

#include <string>

#include "layouts/FieldTable.h"
#include "layouts/InterruptionFields.h"
#include "layouts/JsonFields.h"
#include "layouts/JsonParse.h"
#include "layouts/Layout.h"

namespace tierlab {

namespace {

using json = nlohmann::json;

// The figures a model cannot run without, by type.
Expected<void> CheckComplete(const DevicePreset& p, JsonFields& f) {
  auto need = [&](bool ok, const char* key) {
    if (!ok)
      f.Fail(std::string("model.") + key,
             "missing; a " + std::string(ToString(p.type)) + " model needs it");
  };
  if (p.is_hdd()) {
    need(p.rpm > 0, "rpm");
    need(p.avg_seek_read_ms > 0, "avg_seek_ms");
    need(p.max_transfer_mbps > 0, "max_transfer_mbps");
    need(p.min_transfer_mbps > 0, "min_transfer_mbps");
  } else {
    need(p.read_iops_4k > 0, "read_iops_4k");
    need(p.write_iops_4k > 0, "write_iops_4k");
    need(p.seq_read_mbps > 0, "seq_read_mbps");
    need(p.seq_write_mbps > 0, "seq_write_mbps");
    need(p.read_latency > 0, "read_latency_us");
    need(p.write_latency > 0, "write_latency_us");
  }
  if (!f.ok()) return f.error();
  return {};
}

}  // namespace

Expected<DevicePreset> ReadPresetFile(std::string_view path, std::string name) {
  auto doc = ReadJsonFile(path);
  if (!doc.ok()) return doc.error();
  return ParsePresetFileJson(*doc, path, std::move(name));
}

Expected<DevicePreset> ParsePresetFileJson(const json& doc, std::string_view source_name,
                                           std::string name) {
  const std::string source(source_name);
  if (!doc.is_object()) return MakeError(source + ": a preset file is a JSON object");
  JsonFields f(doc, source, "");
  f.OnlyKeys({"preset_file", "name", "product", "capacity", "model", "calibration"});
  if (f.ok() && f.Int("preset_file", 0, 1, 1) != 1) f.Fail("preset_file", "missing; must be 1");
  DevicePreset p;
  p.name = std::move(name);
  p.product = f.String("product", f.String("name", ""));
  p.capacity_bytes = f.Bytes("capacity", 0);
  if (f.ok() && p.capacity_bytes == 0) f.Fail("capacity", "missing; the device's size in bytes");
  const json* model = f.Raw("model");
  if (f.ok() && (model == nullptr || !model->is_object())) {
    f.Fail("model", "missing; an object with the model's figures");
  }
  if (!f.ok()) return f.error();
  JsonFields mf = f.Child(*model, "model");
  if (!mf.Has("type")) mf.Fail("type", "missing; one of ram, optane, nvme, ssd, hdd");
  if (mf.ok()) ReadFields(ModelFields(), mf, p);
  if (mf.ok()) CheckWriteCliff(p, mf);
  if (!mf.ok()) return mf.error();
  if (p.is_hdd() && !mf.Has("ncq_depth")) p.ncq_depth = 32;  // SATA NCQ's tags
  auto complete = CheckComplete(p, f);
  if (!complete.ok()) return complete.error();
  return p;
}

json PresetFileJson(const DevicePreset& p, const json& calibration) {
  json model{{"type", std::string(ToString(p.type))}};
  if (p.is_hdd()) {
    model["rpm"] = p.rpm;
    model["avg_seek_ms"] = p.avg_seek_read_ms;
    model["track_to_track_ms"] = p.track_to_track_read_ms;
    model["avg_seek_write_ms"] = p.avg_seek_write_ms;
    model["track_to_track_write_ms"] = p.track_to_track_write_ms;
    model["overhead_read_miss_us"] = static_cast<double>(p.overhead_read_miss) / 1e3;
    model["overhead_read_hit_us"] = static_cast<double>(p.overhead_read_hit) / 1e3;
    model["overhead_write_us"] = static_cast<double>(p.overhead_write) / 1e3;
    model["ncq_depth"] = p.ncq_depth;
    model["cache_mib"] = p.cache_mib;
    model["interface_mbps"] = p.interface_mbps;
    model["max_transfer_mbps"] = p.max_transfer_mbps;
    model["min_transfer_mbps"] = p.min_transfer_mbps;
  } else {
    model["read_iops_4k"] = p.read_iops_4k;
    model["write_iops_4k"] = p.write_iops_4k;
    model["seq_read_mbps"] = p.seq_read_mbps;
    model["seq_write_mbps"] = p.seq_write_mbps;
    model["read_latency_us"] = static_cast<double>(p.read_latency) / 1e3;
    model["write_latency_us"] = static_cast<double>(p.write_latency) / 1e3;
    model["service_units"] = p.service_units;
    if (p.has_write_cliff()) {
      model["write_cliff"] = FormatBytes(p.write_cliff_bytes);
      model["steady_write_iops_4k"] = p.steady_write_iops_4k;
      model["steady_seq_write_mbps"] = p.steady_seq_write_mbps;
      model["cliff_recovery_mbps"] = p.cliff_recovery_mbps;
    }
  }
  if (!p.pauses.empty()) {
    model["pauses"] = InterruptionsJson(p.pauses, kDevicePauseKeys);
  }
  if (p.endurance_dwpd > 0) model["endurance_dwpd"] = p.endurance_dwpd;
  json j{{"preset_file", 1},
         {"name", std::string(p.name)},
         {"product", std::string(p.product)},
         {"capacity", FormatBytes(p.capacity_bytes)},
         {"model", std::move(model)}};
  if (!calibration.is_null()) j["calibration"] = calibration;
  return j;
}

}  // namespace tierlab
