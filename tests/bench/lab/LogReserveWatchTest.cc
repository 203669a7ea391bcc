// The log reserve watch: a round in which a log's free segments fall fast
// enough to be spent within 100 rounds is draining; a slow fall, no fall,
// and the first round (nothing to compare) are not.

#include <gtest/gtest.h>

#include <memory>

#include "bench/lab/LogReserveWatch.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kBlock = 4096;

TEST(LogReserveWatchTest, AFastFallInFreeSegmentsIsDraining) {
  SimEngine e;
  LogStructuredOptions o;
  o.segment_bytes = 256 * 1024;  // 63 data slots
  o.usable = 0.8;
  const std::uint32_t segments = 1000;
  LogStructuredTarget log(e, "log", std::make_unique<RamDevice>(e, "nvram", 4 << 20),
                          std::make_unique<RamDevice>(e, "cap", segments * o.segment_bytes), o);
  ASSERT_TRUE(log.config_error().empty()) << log.config_error();
  LogReserveWatch watch({&log});
  std::uint64_t next = 0;
  auto write_segments = [&](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n * log.data_slots(); ++i, ++next) {
      log.Warm({IoOp::kWrite, 0, next * kBlock, kBlock, nullptr});
    }
  };
  write_segments(20);
  watch.Round();
  EXPECT_FALSE(watch.draining());  // the first round sets the baseline
  const std::uint32_t free_before = log.free_segments();
  write_segments(20);  // 20 of about 980: spent within 49 rounds at this pace
  ASSERT_LT(log.free_segments(), free_before);
  watch.Round();
  EXPECT_TRUE(watch.draining());
  watch.Round();
  EXPECT_FALSE(watch.draining());  // nothing taken since
  write_segments(5);               // 5 of about 955: 191 rounds
  watch.Round();
  EXPECT_FALSE(watch.draining());
}

}  // namespace
}  // namespace tierlab
