#pragma once
// How fast a workload wears a cache's flash: bytes written to the cache
// devices per day of the workload's time, as drive writes per day (DWPD)
// against the devices' capacity, and the life that leaves a drive rated for
// R DWPD over a 5-year warranty (it absorbs 5 x 365 x R full writes).
// docs/ANALYZER.md, "Endurance".

#include <cstdint>

#include "tiering/core/IoRequest.h"

namespace tierlab {

inline constexpr double kWarrantyYears = 5;

struct EnduranceInput {
  std::uint64_t device_write_bytes = 0;  // written to the cache devices
  std::uint64_t host_write_bytes = 0;    // written by the host to the volume
  Nanos duration = 0;                    // the workload's time base
  std::uint64_t device_bytes = 0;        // capacity of the cache devices, all together
  double rated_dwpd = 0;                 // the devices' rating
};

struct EnduranceFigures {
  double bytes_per_day = 0;  // 0 for a zero duration
  double dwpd = 0;           // bytes per day / device capacity
  // kWarrantyYears x rated / dwpd; infinity when nothing is written.
  double life_years = 0;
  double write_amplification = 0;  // device bytes / host bytes (0 without host writes)
};

EnduranceFigures ComputeEndurance(const EnduranceInput& in);

}  // namespace tierlab
