#include "tiering/targets/NodeCpu.h"

#include <algorithm>

namespace tierlab {

NodeCpu::NodeCpu(std::string name, NodeCpuSpec spec) : name_(std::move(name)), spec_(spec) {
  for (std::uint32_t i = 0; i < spec_.cores; ++i) free_at_.push(0);
}

Nanos NodeCpu::Run(Nanos now, std::uint64_t bytes, bool write) {
  const Nanos per_io = write && spec_.per_write_io != 0 ? spec_.per_write_io : spec_.per_io;
  const Nanos per_kib = write && spec_.per_write_kib != 0 ? spec_.per_write_kib : spec_.per_kib;
  // Rounded up per KiB started: a 512-byte request costs as a KiB does.
  const Nanos work = per_io + per_kib * static_cast<Nanos>((bytes + 1023) / 1024);
  ++requests_;
  if (free_at_.empty() || work == 0) return now;
  const Nanos start = std::max(now, free_at_.top());
  free_at_.pop();
  free_at_.push(start + work);
  busy_ += work;
  return start + work;
}

}  // namespace tierlab
