#pragma once
// The one run of a profile on a layout, both given as JSON, through the
// one run path (RunCell): the run's JSON, or a failed test and an empty
// object where the layout, the profile or the run was refused.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "bench/lab/RunCell.h"
#include "bench/workload/Profile.h"
#include "layouts/Layout.h"

namespace tierlab {

inline nlohmann::json RunOnce(const nlohmann::json& layout, const nlohmann::json& profile) {
  auto l = ParseLayoutJson(layout, "test");
  EXPECT_TRUE(l.ok()) << l.error().message;
  auto p = ParseProfileJson(profile, "test");
  EXPECT_TRUE(p.ok()) << p.error().message;
  if (!l.ok() || !p.ok()) return {};
  auto runs = RunCell(*l, Workload{std::vector<Profile>{*p}}, RunSettings{});
  EXPECT_TRUE(runs.ok()) << runs.error().message;
  return runs.ok() ? (*runs)[0].json : nlohmann::json{};
}

}  // namespace tierlab
