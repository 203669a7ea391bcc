#include "tiering/targets/NicModel.h"

#include <algorithm>
#include <cmath>

namespace tierlab {

namespace {

NicSpec Spec(std::string name, double gbps, double efficiency, double latency_us, double cpu_us) {
  NicSpec s;
  s.name = std::move(name);
  s.line_rate_bps = gbps * 1e9;
  s.efficiency = efficiency;
  s.one_way_latency = static_cast<Nanos>(latency_us * 1e3);
  s.cpu_per_message = static_cast<Nanos>(cpu_us * 1e3);
  return s;
}

}  // namespace

const std::vector<NicSpec>& NicSpec::Catalog() {
  // Payload efficiency, latency and CPU: NicModel.h says where they come from.
  static const std::vector<NicSpec> kCatalog = {
      Spec("1gbe-tcp", 1, 0.94, 30, 15),      Spec("10gbe-tcp", 10, 0.92, 15, 7),
      Spec("25gbe-tcp", 25, 0.93, 10, 7),     Spec("40gbe-tcp", 40, 0.92, 10, 7),
      Spec("100gbe-tcp", 100, 0.92, 8, 7),    Spec("10gbe-rdma", 10, 0.97, 4, 1.5),
      Spec("25gbe-rdma", 25, 0.97, 3, 1.5),   Spec("40gbe-rdma", 40, 0.97, 3, 1.5),
      Spec("100gbe-rdma", 100, 0.97, 3, 1.5),
  };
  return kCatalog;
}

std::optional<NicSpec> NicSpec::Find(std::string_view name) {
  for (const NicSpec& s : Catalog()) {
    if (s.name == name) return s;
  }
  return std::nullopt;
}

Nanos NicModel::WireNs(std::uint64_t bytes) const {
  return static_cast<Nanos>(std::ceil(static_cast<double>(bytes) / spec_.PayloadBytesPerNs()));
}

Nanos NicModel::SendCpu(Nanos now) {
  tx_.cpu_free_at = std::max(now, tx_.cpu_free_at) + spec_.cpu_per_message;
  tx_.cpu_busy += spec_.cpu_per_message;
  ++tx_.messages;
  return tx_.cpu_free_at;
}

Nanos NicModel::Send(Nanos now, std::uint64_t bytes) {
  const Nanos wire = WireNs(bytes);
  tx_.wire_free_at = std::max(now, tx_.wire_free_at) + wire;
  tx_.wire_busy += wire;
  tx_.bytes += bytes;
  return tx_.wire_free_at;
}

Nanos NicModel::Receive(Nanos sent, Nanos latency, std::uint64_t bytes, bool closes) {
  // The bytes arrive as they were sent, one latency later: the first at
  // sent + latency - wire time. The port takes them at its rate from then,
  // or from when it is done with earlier arrivals, whichever is later.
  const Nanos wire = WireNs(bytes);
  const Nanos first = sent + latency - wire;
  rx_.wire_free_at = std::max(first, rx_.wire_free_at) + wire;
  rx_.wire_busy += wire;
  rx_.bytes += bytes;
  if (!closes) return rx_.wire_free_at;
  rx_.cpu_free_at = std::max(rx_.wire_free_at, rx_.cpu_free_at) + spec_.cpu_per_message;
  rx_.cpu_busy += spec_.cpu_per_message;
  ++rx_.messages;
  return rx_.cpu_free_at;
}

}  // namespace tierlab
