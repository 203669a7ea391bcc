// fio's per-priority completion latencies and the "prios" array it prints.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/lab/PrioLatencies.h"

namespace tierlab {
namespace {

TEST(PrioLatenciesTest, PrintsEachPriorityWithSamplesInFiosOrderOnceTwoHaveThem) {
  PrioLatencies p;
  p.Declare(0, {0x4004, 0x2000, 0x6005});
  p.Record(0, 0x2000, 100);
  EXPECT_TRUE(p.Json(0).is_null());  // one priority with samples: fio prints none
  p.Record(0, 0x4004, 300);
  p.Record(0, 0x4004, 500);
  const nlohmann::json j = p.Json(0);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["prioclass"], 2);
  EXPECT_EQ(j[0]["prio"], 4);
  EXPECT_EQ(j[0]["clat_ns"]["N"], 2);
  EXPECT_EQ(j[0]["clat_ns"]["max"], 500);
  EXPECT_EQ(j[1]["prioclass"], 1);
  EXPECT_EQ(j[1]["priohint"], 0);
  p.Clear();
  EXPECT_TRUE(p.Json(0).is_null());
  p.Record(1, 0x4018, 1);  // undeclared: added
  p.Record(1, 0x4000, 1);
  EXPECT_EQ(p.Json(1)[0]["priohint"], 3);
}

}  // namespace
}  // namespace tierlab
