#include "bench/analysis/Endurance.h"

#include <limits>

namespace tierlab {

EnduranceFigures ComputeEndurance(const EnduranceInput& in) {
  constexpr double kNsPerDay = 86400e9;
  EnduranceFigures f;
  const double days = static_cast<double>(in.duration) / kNsPerDay;
  f.bytes_per_day = days > 0 ? static_cast<double>(in.device_write_bytes) / days : 0;
  f.dwpd = in.device_bytes > 0 ? f.bytes_per_day / static_cast<double>(in.device_bytes) : 0;
  f.life_years = f.dwpd > 0 ? kWarrantyYears * in.rated_dwpd / f.dwpd
                            : std::numeric_limits<double>::infinity();
  f.write_amplification = in.host_write_bytes > 0 ? static_cast<double>(in.device_write_bytes) /
                                                        static_cast<double>(in.host_write_bytes)
                                                  : 0;
  return f;
}

}  // namespace tierlab
