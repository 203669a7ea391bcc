#pragma once
// The layout the volume tests of layouts/ run on: a write-back cache of
// 4 KiB lines on `cache_devices` files (16 MiB in all, 8 MiB of cache) over
// one 64 MiB capacity file, destaging only above 20% dirty, so what a test
// writes stays dirty until it drains.

#include <gtest/gtest.h>

#include <string>

#include "layouts/Layout.h"

namespace tierlab::testing {

inline LayoutSpec WriteBackTestLayout(const std::string& name, int cache_devices = 1) {
  const nlohmann::json j = {
      {"name", name},
      {"tiers",
       {{{"name", "cache"},
         {"preset", "ssd-hk4e"},
         {"count", cache_devices},
         {"capacity", std::to_string(16 / cache_devices) + "m"}},
        {{"name", "capacity"}, {"preset", "hdd-7200"}, {"count", 1}, {"capacity", "64m"}}}},
      {"cache",
       {{"tier", "cache"},
        {"write", "writeback"},
        {"line_size", "4k"},
        {"capacity", "8m"},
        {"high_watermark", 20},
        {"low_watermark", 10}}}};
  auto l = ParseLayoutJson(j, "test");
  EXPECT_TRUE(l.ok()) << l.error().message;
  return l.ok() ? *l : LayoutSpec{};
}

}  // namespace tierlab::testing
