#include "tiering/devices/ModelDevice.h"

#include "tiering/devices/HddModel.h"
#include "tiering/devices/SsdModel.h"

namespace tierlab {

std::unique_ptr<BlockDevice> MakeModelDevice(Engine& engine, const DevicePreset& preset,
                                             std::string name, const ModelOptions& options) {
  if (preset.is_hdd()) return std::make_unique<HddModel>(engine, std::move(name), preset, options);
  return std::make_unique<SsdModel>(engine, std::move(name), preset, options);
}

}  // namespace tierlab
