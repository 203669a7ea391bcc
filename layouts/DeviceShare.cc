#include "layouts/DeviceShare.h"

namespace tierlab {

bool DeviceShare::Holds(std::uint64_t offset, std::uint64_t length) const {
  switch (kind) {
    case Kind::kAll: return true;
    case Kind::kRange: return offset < end && offset + length > begin;
    case Kind::kChunks: {
      const std::uint64_t first = offset / chunk;
      const std::uint64_t last = (offset + length - 1) / chunk;
      if (last - first + 1 >= width) return true;
      // The first chunk at or after `first` that is the device's.
      const std::uint64_t ahead = (index + width - first % width) % width;
      return first + ahead <= last;
    }
  }
  return true;
}

DeviceShare ShareOfDevice(const TierSpec& tier, std::uint32_t index,
                          const std::vector<BlockDevice*>& devices, std::uint64_t piece_bytes) {
  DeviceShare s;
  if (devices.size() <= 1) return s;
  if (tier.combine == Combine::kLinear) {
    s.kind = DeviceShare::Kind::kRange;
    for (std::uint32_t d = 0; d < index; ++d) s.begin += devices[d]->Size();
    s.end = s.begin + devices[index]->Size();
    return s;
  }
  if (tier.combine == Combine::kStripe && piece_bytes < devices.size() * tier.chunk) {
    s.kind = DeviceShare::Kind::kChunks;
    s.chunk = tier.chunk;
    s.index = index;
    s.width = static_cast<std::uint32_t>(devices.size());
  }
  return s;
}

}  // namespace tierlab
