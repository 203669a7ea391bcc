// fio's json+ bins and terse v3 lines, from a run's JSON.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bench/lab/FioOutput.h"

namespace tierlab {
namespace {

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string f;
  while (std::getline(in, f, ';')) out.push_back(f);
  return out;
}

// Bin keys are fio's: exact below 128 ns, then the midpoint of a bin 1/64
// of its power of two wide (fio printed "2448" for a completion in
// [2432, 2463], and "2480" is the next bin).
TEST(FioOutputTest, BinsAreKeyedByFiosMidpoints) {
  LatencyHistogram h;
  h.Record(100);
  for (int i = 0; i < 3; ++i) h.Record(2440);
  h.Record(2432);
  h.Record(2463);
  h.Record(2464);
  const nlohmann::json bins = ClatBinsJson(h);
  EXPECT_EQ(bins, (nlohmann::json{{"100", 1}, {"2448", 5}, {"2480", 1}}));

  LatencyHistogram empty;
  EXPECT_TRUE(ClatBinsJson(empty).empty());
}

TEST(FioOutputTest, AddClatBinsUsesWhatClatShows) {
  OpMetrics m;
  m.Record(IoOp::kRead, 4096, 5000);
  m.RecordClat(IoOp::kRead, 300);  // open loop: clat differs from lat
  m.Record(IoOp::kWrite, 4096, 7000);
  m.SetWindow(0, kSecond);
  nlohmann::json job = m.ToJson();
  AddClatBins(job, m);
  EXPECT_EQ(job["read"]["clat_ns"]["bins"], (nlohmann::json{{"302", 1}}));  // bin [300, 303]
  ASSERT_EQ(job["write"]["clat_ns"]["bins"].size(), 1u);
  EXPECT_FALSE(job["read"]["lat_ns"].contains("bins"));
  EXPECT_FALSE(job.contains("complete") && job["complete"]["clat_ns"].contains("bins"));
}

nlohmann::json Doc(const OpMetrics& m) {
  nlohmann::json job = m.ToJson();
  AddClatBins(job, m);
  job["jobname"] = "j1";
  job["groupid"] = 0;
  job["error"] = 0;
  return {
      {"jobs", nlohmann::json::array({job})},
      {"disk_util", nlohmann::json::array({{{"name", "nvme0"},
                                            {"read_ios", 7},
                                            {"write_ios", 2},
                                            {"read_merges", 0},
                                            {"write_merges", 0},
                                            {"read_ticks", 0},
                                            {"write_ticks", 0},
                                            {"in_queue", 12},
                                            {"util", 4.5}},
                                           {{"name", "hdd0"}, {"read_ios", 1}, {"util", 100.0}}})}};
}

// Field positions of fio's HOWTO, terse v3: 5 of the job, 41 per direction
// (read, write), 5 CPU, 7 depths, 10 us and 12 ms latency buckets, 9 per disk.
TEST(FioOutputTest, TerseV3HasFiosFieldsInFiosOrder) {
  OpMetrics m;
  m.SetSampleOrigin(0);
  // 1 s: 300 reads of 4 KiB at 3 us in the first 500 ms, 100 at 1.5 ms in
  // the second; one 8 KiB write at 5 s.
  for (int i = 0; i < 300; ++i) m.Record(IoOp::kRead, 4096, 3000, i * kMilli);
  for (int i = 0; i < 100; ++i) m.Record(IoOp::kRead, 4096, 1'500'000, 600 * kMilli + i * kMilli);
  m.Record(IoOp::kWrite, 8192, 5 * kSecond, 900 * kMilli);
  m.SetWindow(0, kSecond);
  const std::string out = FormatTerse(Doc(m));
  ASSERT_EQ(out.back(), '\n');
  ASSERT_EQ(out.find('\n'), out.size() - 1);  // one job, one line
  const auto f = Fields(out.substr(0, out.size() - 1));
  ASSERT_EQ(f.size(), 5u + 2 * 41 + 5 + 7 + 10 + 12 + 2 * 9);
  EXPECT_EQ(f[0], "3");
  EXPECT_EQ(f[1].rfind("tierlab-", 0), 0u);
  EXPECT_EQ(f[2], "j1");
  EXPECT_EQ(f[3], "0");
  EXPECT_EQ(f[4], "0");
  // Read: KiB, KiB/s, IOPS, runtime ms.
  EXPECT_EQ(f[5], "1600");
  EXPECT_EQ(f[6], "1600");
  EXPECT_EQ(f[7], "400");
  EXPECT_EQ(f[8], "1000");
  // slat (0), clat min/max in us.
  EXPECT_EQ(f[9], "0");
  EXPECT_EQ(f[12], "0.000000");
  EXPECT_EQ(f[13], "3");
  EXPECT_EQ(f[14], "1500");
  // 17 of fio's default percentiles, then 3 empty ones.
  EXPECT_EQ(f[17], "1.000000%=3");
  EXPECT_EQ(f[17 + 16], "99.990000%=1499");  // the bin's midpoint, 1499136 ns
  EXPECT_EQ(f[17 + 17], "0%=0");
  EXPECT_EQ(f[17 + 19], "0%=0");
  // lat: min us; bw: min, max, agg %, mean, dev over the 500 ms samples.
  EXPECT_EQ(f[37], "3");
  EXPECT_EQ(f[41], "800");  // 100 I/Os x 4 KiB in 500 ms
  EXPECT_EQ(f[42], "2400");
  EXPECT_EQ(f[43], "100.000000%");
  // Write: 8 KiB.
  EXPECT_EQ(f[46], "8");
  // CPU and depths: absent.
  EXPECT_EQ(f[87], "0.000000%");
  EXPECT_EQ(f[92], "0.0%");
  EXPECT_EQ(f[98], "0.0%");
  // Latency distribution over 401 I/Os: 300 at 3 us (the "4" field), 100 at
  // 1.5 ms (the ms "2" field), 1 at 5 s (>= 2000 ms).
  EXPECT_EQ(f[99], "0.00%");
  EXPECT_EQ(f[100], "74.81%");
  EXPECT_EQ(f[109], "24.94%");
  EXPECT_EQ(f[120], "0.25%");
  // Disks, fio's order and util format.
  EXPECT_EQ(f[121], "nvme0");
  EXPECT_EQ(f[122], "7");
  EXPECT_EQ(f[123], "2");
  EXPECT_EQ(f[128], "12");
  EXPECT_EQ(f[129], "4.50%");
  EXPECT_EQ(f[130], "hdd0");
  EXPECT_EQ(f[138], "100.00%");
}

TEST(FioOutputTest, TerseEmptyDirectionAndEveryJob) {
  OpMetrics m;
  m.Record(IoOp::kRead, 4096, 1000);
  m.SetWindow(0, kSecond);
  nlohmann::json doc = Doc(m);
  doc["disk_util"] = nlohmann::json::array();
  const nlohmann::json first = doc["jobs"][0];
  doc["jobs"].push_back(first);
  doc["jobs"][1]["jobname"] = "j2";
  const std::string out = FormatTerse(doc);
  const std::size_t nl = out.find('\n');
  ASSERT_NE(nl, std::string::npos);
  const auto a = Fields(out.substr(0, nl));
  const auto b = Fields(out.substr(nl + 1, out.size() - nl - 2));
  ASSERT_EQ(a.size(), 121u);
  EXPECT_EQ(b[2], "j2");
  // No writes: zeros, and 20 empty percentiles, as fio prints them.
  EXPECT_EQ(a[46], "0");
  EXPECT_EQ(a[50], "0");
  EXPECT_EQ(a[54], "0");
  for (int i = 58; i < 78; ++i) EXPECT_EQ(a[i], "0%=0") << i;
  // 1 us: the first us field.
  EXPECT_EQ(a[99], "100.00%");
}

}  // namespace
}  // namespace tierlab
