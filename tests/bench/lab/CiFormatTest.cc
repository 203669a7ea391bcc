// The confidence interval's JSON shape round-trips (null for none, anything
// else not taken for one), and its text shows the half-width's first
// significant digit.

#include <gtest/gtest.h>

#include "bench/lab/CiFormat.h"

namespace tierlab {
namespace {

TEST(CiFormatTest, JsonRoundTrip) {
  const ConfidenceInterval ci{1200, 12.5, 20};
  const nlohmann::json j = CiToJson(ci, kCiBatchMeans);
  EXPECT_EQ(j["lo"], 1187.5);
  EXPECT_EQ(j["hi"], 1212.5);
  EXPECT_EQ(j["half_width"], 12.5);
  EXPECT_EQ(j["n"], 20);
  EXPECT_EQ(j["method"], "batch_means");
  const ConfidenceInterval back = CiFromJson(j);
  EXPECT_DOUBLE_EQ(back.centre, 1200);
  EXPECT_DOUBLE_EQ(back.half_width, 12.5);
  EXPECT_EQ(back.n, 20u);
  EXPECT_TRUE(CiToJson(ConfidenceInterval{5, 0, 1}, kCiRepeats).is_null());
  for (const nlohmann::json& bad :
       {nlohmann::json(nullptr), nlohmann::json("x"), nlohmann::json{{"lo", 1}},
        nlohmann::json{{"lo", 2}, {"hi", 1}, {"n", 5}},
        nlohmann::json{{"lo", 1}, {"hi", 2}, {"n", 1}},
        nlohmann::json{{"lo", "1"}, {"hi", 2}, {"n", 5}}}) {
    EXPECT_FALSE(CiFromJson(bad).valid()) << bad.dump();
  }
}

TEST(CiFormatTest, TextShowsTheFirstSignificantDigit) {
  EXPECT_EQ(FormatWithCi(1217.3, 11.85, 0), "1217 ± 12");
  EXPECT_EQ(FormatWithCi(3.48, 0.028, 1), "3.48 ± 0.03");
  EXPECT_EQ(FormatWithCi(150.0754, 1.18, 3), "150.075 ± 1.180");
  EXPECT_EQ(FormatWithCi(0.02, 0, 3), "0.020 ± 0.000");
  EXPECT_EQ(FormatWithCi(0.02, 1e-12, 3), "0.020000 ± 0.000000");  // at most 6 decimals
  EXPECT_EQ(FormatWithCi(849.4, -1, 0), "849");                    // no interval
}

}  // namespace
}  // namespace tierlab
