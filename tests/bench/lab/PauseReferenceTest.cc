// A device's pauses after each real cell (bench/lab/PauseReference.h): the
// probe runs for real on the file of every tier whose preset has pauses and
// on no other, its entry says what it saw beside what was calibrated, and
// the model's twin holds its devices for what was measured.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>

#include "bench/lab/DevicePauses.h"
#include "bench/lab/PauseReference.h"
#include "layouts/Layout.h"
#include "tests/support/TempDir.h"

namespace tierlab {
namespace {

using json = nlohmann::json;

// A file of `bytes` (sparse: its reads are real reads of holes).
bool MakeFile(const std::string& path, off_t bytes) {
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
  if (fd < 0) return false;
  const bool ok = ::ftruncate(fd, bytes) == 0;
  ::close(fd);
  return ok;
}

json Pauses() {
  return json::array(
      {{{"duration_us", 500}, {"per_second", 2}}, {{"duration_us", 1500}, {"per_second", 0.5}}});
}

// Tiers "fast" (no pauses) and "slow" (pauses), with paths where given.
MatrixCell Cell(const std::string& fast_path, const std::string& slow_path) {
  json fast = {{"name", "fast"}, {"preset", "ram"}, {"capacity", "16m"}};
  json slow = {
      {"name", "slow"}, {"preset", "ram"}, {"capacity", "16m"}, {"model", {{"pauses", Pauses()}}}};
  if (!fast_path.empty()) fast["paths"] = {fast_path};
  if (!slow_path.empty()) slow["paths"] = {slow_path};
  auto l = ParseLayoutJson({{"name", "l"}, {"tiers", {fast, slow}}}, "t");
  EXPECT_TRUE(l.ok()) << l.error().message;
  MatrixCell c;
  c.label = "cell";
  c.layout = std::move(l.value());
  return c;
}

TEST(PauseReferenceTest, TheTierWithPausesIsProbedOnItsFileAndNoOtherIs) {
  testing::TempDir dir;
  const std::string fast = dir.Path("fast.img"), slow = dir.Path("slow.img");
  ASSERT_TRUE(MakeFile(fast, 16 << 20) && MakeFile(slow, 16 << 20));
  json cell = json::object();
  constexpr Nanos kWindow = 100 * kMilli;
  ASSERT_TRUE(MeasureCellPauses(Cell(fast, slow), cell, kWindow).ok());
  ASSERT_TRUE(cell.contains("device_pauses")) << cell;
  const json& list = cell.at("device_pauses");
  ASSERT_EQ(list.size(), 1u) << list;  // "fast" has no pauses: not probed
  const json& e = list.at(0);
  EXPECT_EQ(e["tier"], "slow");
  EXPECT_EQ(e["path"], slow);
  // The probe ran its window (it stops at the first read ending after it).
  EXPECT_GE(e["window_s"].get<double>(), 0.1);
  EXPECT_LT(e["window_s"].get<double>(), 0.5);
  EXPECT_GT(e["median_read_us"].get<double>(), 0);
  // The total is the classes' sum; whatever came, each class is a pause
  // of at least the probe's threshold. Their rates are per second the
  // device was not paused, so x seconds of pauses a second of those are
  // the share x / (1 + x) of the window.
  double sum = 0;
  double seconds = 0;
  for (const json& p : e["pauses"]) {
    EXPECT_GE(p["duration_us"].get<double>(), kPauseThreshold / 1e3 * 0.99) << p;
    EXPECT_GT(p["per_second"].get<double>(), 0) << p;
    sum += p["per_second"].get<double>();
    seconds += p["duration_us"].get<double>() / 1e6 * p["per_second"].get<double>();
  }
  EXPECT_NEAR(e["per_second"].get<double>(), sum, 0.01) << e;
  EXPECT_NEAR(e["share"].get<double>(), seconds / (1 + seconds), 0.01) << e;
  EXPECT_EQ(e["calibrated"], Pauses());

  // Without a path to probe, or without a tier with pauses: nothing.
  json none = json::object();
  ASSERT_TRUE(MeasureCellPauses(Cell(fast, ""), none, kWindow).ok());
  EXPECT_TRUE(none.empty()) << none;
}

TEST(PauseReferenceTest, AFileThatDoesNotOpenIsAnErrorNamingTheTier) {
  testing::TempDir dir;
  const std::string missing = dir.Path("none.img");
  json cell = json::object();
  auto e = MeasureCellPauses(Cell("", missing), cell, 10 * kMilli);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message.rfind("pause reference: tier \"slow\" (" + missing + "): ", 0), 0u)
      << e.error().message;
  EXPECT_TRUE(cell.empty());
}

TEST(PauseReferenceTest, TheModelsTwinHoldsItsDevicesForTheMeasuredPauses) {
  MatrixCell c = Cell("", "");
  const json measured = {
      {"device_pauses",
       {{{"tier", "slow"}, {"pauses", {{{"duration_us", 320.5}, {"per_second", 7.25}}}}}}}};
  ASSERT_TRUE(ApplyCellPauses(c, measured).ok());
  ASSERT_EQ(c.layout.tiers[1].preset.pauses.size(), 1u);
  EXPECT_EQ(c.layout.tiers[1].preset.pauses[0].duration, 320'500);
  EXPECT_DOUBLE_EQ(c.layout.tiers[1].preset.pauses[0].per_second, 7.25);
  EXPECT_TRUE(c.layout.tiers[0].preset.pauses.empty());

  // A device paused most of the time after the cell (20,000 pauses of 1 ms
  // a second of its own time: 95% of the time) is modelled so: a preset
  // file may not say that (at most 90%), a measurement may.
  ASSERT_TRUE(
      ApplyCellPauses(
          c, {{"device_pauses",
               {{{"tier", "slow"}, {"pauses", {{{"duration_us", 1000}, {"per_second", 20000}}}}}}}})
          .ok());
  ASSERT_EQ(c.layout.tiers[1].preset.pauses.size(), 1u);
  EXPECT_DOUBLE_EQ(c.layout.tiers[1].preset.pauses[0].per_second, 20000);

  // A probe that saw none: the model holds for none.
  ASSERT_TRUE(
      ApplyCellPauses(c, {{"device_pauses", {{{"tier", "slow"}, {"pauses", json::array()}}}}})
          .ok());
  EXPECT_TRUE(c.layout.tiers[1].preset.pauses.empty());

  // A twin without a probe: as calibrated.
  MatrixCell as_is = Cell("", "");
  ASSERT_TRUE(ApplyCellPauses(as_is, json::object()).ok());
  EXPECT_EQ(as_is.layout.tiers[1].preset.pauses.size(), 2u);
}

TEST(PauseReferenceTest, AMeasuredEntryThatDoesNotFitTheLayoutIsRefused) {
  const std::string prefix = "cell \"cell\": the measured device_pauses ";
  const std::vector<std::pair<json, std::string>> cases = {
      {json("x"), "is not a list"},
      {json::array({{{"pauses", json::array()}}}), "has an entry without a tier"},
      {json::array({{{"tier", "other"}, {"pauses", json::array()}}}),
       "name a tier \"other\" the layout does not have"},
      {json::array({{{"tier", "slow"}}}), "of \"slow\" have no list"},
      {json::array({{{"tier", "slow"}, {"pauses", nullptr}}}), "of \"slow\" have no list"},
      // The pauses themselves are read as a preset's are (InterruptionFields.h).
      {json::array({{{"tier", "slow"}, {"pauses", 3}}}),
       "of \"slow\": pauses: must be an array of {duration_us, per_second}"},
      {json::array({{{"tier", "slow"}, {"pauses", {{{"duration_us", 0}, {"per_second", 1}}}}}}),
       "of \"slow\": pauses[0].duration_us: must be 1..1e+07, got 0"},
      {json::array({{{"tier", "slow"}, {"pauses", {{{"duration_us", 300}, {"per_second", -1}}}}}}),
       "of \"slow\": pauses[0].per_second: must be 0..1e+06, got -1"},
      {json::array({{{"tier", "slow"}, {"pauses", {{{"per_second", 1}}}}}}),
       "of \"slow\": pauses[0].duration_us: missing; how long a pause is"},
  };
  for (const auto& [entry, why] : cases) {
    MatrixCell c = Cell("", "");
    auto e = ApplyCellPauses(c, {{"device_pauses", entry}});
    ASSERT_FALSE(e.ok()) << entry;
    EXPECT_EQ(e.error().kind, ErrorKind::kInconsistent);
    EXPECT_EQ(e.error().message, prefix + why);
    EXPECT_EQ(c.layout.tiers[1].preset.pauses.size(), 2u) << entry;  // left as it was
  }
}

}  // namespace
}  // namespace tierlab
