#pragma once
// How fast a workload wears a cache's flash: bytes written to the cache
// devices per day of the workload's time, as drive writes per day (DWPD)
// against two capacities, and the life that leaves the drives.
//
// - Against the devices' whole capacity: what an endurance rating is about.
//   A drive rated for R DWPD over a 5-year warranty absorbs 5 x 365 x R
//   writes of its full capacity, wherever on the drive they land (the FTL
//   levels wear over all of its flash), so the life is computed from this.
// - Against the cache partition (the part of each device given to the
//   cache): how often a day the cache itself is overwritten, the figure
//   that carries over to a drive only as big as the partition.
//
// Both count this workload's writes only: anything else on the drives
// shortens the life. docs/ANALYZER.md, "Endurance".

#include <cstdint>

#include "tiering/core/IoRequest.h"

namespace tierlab {

inline constexpr double kWarrantyYears = 5;

struct EnduranceInput {
  std::uint64_t device_write_bytes = 0;  // written to the cache devices
  std::uint64_t host_write_bytes = 0;    // written by the host to the volume
  Nanos duration = 0;                    // the workload's time base
  std::uint64_t device_bytes = 0;        // capacity of the cache devices, all together
  std::uint64_t partition_bytes = 0;     // the part of them given to the cache
  double rated_dwpd = 0;                 // the devices' rating
};

struct EnduranceFigures {
  double bytes_per_day = 0;   // 0 for a zero duration
  double device_dwpd = 0;     // bytes per day / device capacity
  double partition_dwpd = 0;  // bytes per day / partition
  // kWarrantyYears x rated / device_dwpd; infinity when nothing is written.
  double life_years = 0;
  double write_amplification = 0;  // device bytes / host bytes (0 without host writes)
};

EnduranceFigures ComputeEndurance(const EnduranceInput& in);

}  // namespace tierlab
