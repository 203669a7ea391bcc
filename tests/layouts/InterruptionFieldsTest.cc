// The one reader and writer of stall and pause lists: each spelling reads
// back what it writes, a microsecond figure keeps its fraction to the
// nanosecond, and a bad list leaves what was there.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "layouts/InterruptionFields.h"

namespace tierlab {
namespace {

using json = nlohmann::json;

// Reads `list` as the field "x" of a file "f.json"; the error, or "".
std::string Read(const json& list, const InterruptionKeys& keys, std::vector<Interruption>& out) {
  const json holder = {{"x", list}};
  JsonFields f(holder, "f.json", "");
  ReadInterruptions(f, "x", keys, out);
  return f.ok() ? "" : f.error().message;
}

TEST(InterruptionFieldsTest, EachSpellingReadsBackWhatItWrites) {
  const std::vector<Interruption> list = {{337'512, 1.5}, {29'400, 1'272.123456}};
  for (const InterruptionKeys& keys : {kCpuStallKeys, kDevicePauseKeys}) {
    const json written = InterruptionsJson(list, keys);
    ASSERT_EQ(written.size(), 2u);
    EXPECT_TRUE(written[0].contains(std::string(keys.duration_key))) << written;
    std::vector<Interruption> back;
    ASSERT_EQ(Read(written, keys, back), "");
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].duration, 337'512);
    EXPECT_EQ(back[1].duration, 29'400);
    EXPECT_DOUBLE_EQ(back[0].per_second, 1.5);
    EXPECT_DOUBLE_EQ(back[1].per_second, 1'272.123);  // to a thousandth
  }
  EXPECT_EQ(InterruptionsJson(list, kCpuStallKeys)[0]["duration_ns"], 337'512);
  EXPECT_DOUBLE_EQ(InterruptionsJson(list, kDevicePauseKeys)[0]["duration_us"].get<double>(),
                   337.512);
}

TEST(InterruptionFieldsTest, ABadListNamesItsFieldAndLeavesWhatWasThere) {
  const std::vector<Interruption> before = {{1'000, 2}};
  std::vector<Interruption> out = before;
  EXPECT_EQ(Read(json::array({{{"duration_ns", 1.5}}}), kCpuStallKeys, out),
            "f.json: x[0].duration_ns: must be an integer, got 1.5");
  EXPECT_EQ(Read(json::array({{{"duration_us", 0.5}}}), kDevicePauseKeys, out),
            "f.json: x[0].duration_us: must be 1..1e+07, got 0.5");
  EXPECT_EQ(Read(json::array({{{"per_second", 1}}}), kCpuStallKeys, out),
            "f.json: x[0].duration_ns: missing; how long a stall is");
  EXPECT_EQ(Read(json::array({{{"duration_us", 5}, {"rate", 1}}}), kDevicePauseKeys, out)
                .rfind("f.json: x[0].rate: unknown key", 0),
            0u);
  // Two classes of 1.5 s a second of the core's own time: 60% of the
  // time, the next drawn after the last ends (0.6 s a second is 37.5%).
  std::vector<Interruption> fits;
  EXPECT_EQ(Read(json::array({{{"duration_ns", 100'000}, {"per_second", 3'000}},
                              {{"duration_ns", 300'000}, {"per_second", 1'000}}}),
                 kCpuStallKeys, fits),
            "");
  EXPECT_EQ(fits.size(), 2u);
  EXPECT_EQ(Read(json::array({{{"duration_ns", 100'000}, {"per_second", 9'000}},
                              {{"duration_ns", 300'000}, {"per_second", 2'000}}}),
                 kCpuStallKeys, out),
            "f.json: x: take 60% of the core's time; at most 50%");
  EXPECT_EQ(Read(json("often"), kDevicePauseKeys, out),
            "f.json: x: must be an array of {duration_us, per_second}");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].duration, before[0].duration);

  // An empty list is no interruptions.
  ASSERT_EQ(Read(json::array(), kDevicePauseKeys, out), "");
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace tierlab
