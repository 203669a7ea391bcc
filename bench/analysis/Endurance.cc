#include "bench/analysis/Endurance.h"

#include <limits>

namespace tierlab {

EnduranceFigures ComputeEndurance(const EnduranceInput& in) {
  constexpr double kNsPerDay = 86400e9;
  EnduranceFigures f;
  const double days = static_cast<double>(in.duration) / kNsPerDay;
  f.bytes_per_day = days > 0 ? static_cast<double>(in.device_write_bytes) / days : 0;
  auto per = [&](std::uint64_t capacity) {
    return capacity > 0 ? f.bytes_per_day / static_cast<double>(capacity) : 0;
  };
  f.device_dwpd = per(in.device_bytes);
  f.partition_dwpd = per(in.partition_bytes);
  f.life_years = f.device_dwpd > 0 ? kWarrantyYears * in.rated_dwpd / f.device_dwpd
                                   : std::numeric_limits<double>::infinity();
  f.write_amplification = in.host_write_bytes > 0 ? static_cast<double>(in.device_write_bytes) /
                                                        static_cast<double>(in.host_write_bytes)
                                                  : 0;
  return f;
}

}  // namespace tierlab
