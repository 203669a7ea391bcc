#pragma once
// Counters every BlockDevice keeps, device or target alike. They feed the
// per-device and per-tier tables, cache and endurance figures.

#include <cstdint>

#include "tiering/core/IoRequest.h"

namespace tierlab {

struct DeviceStats {
  std::uint64_t read_ops = 0;
  std::uint64_t read_bytes = 0;
  std::uint64_t write_ops = 0;
  std::uint64_t write_bytes = 0;
  std::uint64_t flush_ops = 0;
  std::uint64_t discard_ops = 0;
  std::uint64_t discard_bytes = 0;
  std::uint64_t errors = 0;  // completions with a status other than ok
  // Time with at least one request in flight, and the integral of the number
  // in flight over time (mean queue depth = qd_integral / elapsed).
  Nanos busy_ns = 0;
  double qd_integral_ns = 0;
  std::uint32_t max_queue_depth = 0;

  // Adds another device's counters (used to sum a tier).
  void Add(const DeviceStats& o);
  // Takes away the counters of an earlier snapshot of the same device, to
  // leave what happened since (max_queue_depth stays this one's).
  void Subtract(const DeviceStats& earlier);
};

}  // namespace tierlab
