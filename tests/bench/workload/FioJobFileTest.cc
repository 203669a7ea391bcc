#include <gtest/gtest.h>

#include "bench/workload/FioJobFile.h"

namespace tierlab {
namespace {

constexpr std::string_view kJob = R"(; a VMFleet-like job
[global]
ioengine=libaio
direct=1
time_based
runtime=30
group_reporting
bs=4k
iodepth = 16
# per-job below

[randread]
rw=randread
numjobs=4

[mixed]
rw=randrw
rwmixread=70
rwmixwrite=40
random_distribution=zipf:1.1

[global]
bs=64k

[seq]
rw=read
name=sequential
)";

TEST(FioJobFileTest, GlobalInheritanceCommentsAndFlags) {
  auto jobs = ParseFioJobFile(kJob, "vmfleet.fio", false);
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 3u);
  const Profile& a = (*jobs)[0];
  EXPECT_EQ(a.name, "randread");
  EXPECT_EQ(a.rw, RwMode::kRandRead);
  EXPECT_EQ(a.bs, 4096u);
  EXPECT_EQ(a.iodepth, 16u);
  EXPECT_EQ(a.numjobs, 4u);
  EXPECT_EQ(a.runtime, 30 * kSecond);
  const Profile& b = (*jobs)[1];
  EXPECT_EQ(b.rw, RwMode::kRandRw);
  EXPECT_EQ(b.rwmixread, 60u);  // the later rwmixwrite=40 wins, as in fio
  EXPECT_EQ(b.numjobs, 1u);     // not inherited from the other job
  EXPECT_EQ(b.random_distribution, RandomDistribution::kZipf);
  EXPECT_EQ(b.bs, 4096u);  // the second [global] only affects later jobs
  const Profile& c = (*jobs)[2];
  EXPECT_EQ(c.name, "sequential");
  EXPECT_EQ(c.bs, 65536u);
  EXPECT_EQ(c.iodepth, 16u);
}

TEST(FioJobFileTest, UnknownOptionNamesItsLineUnlessIgnored) {
  const std::string_view text =
      "[global]\nbs=4k\n\n[job1]\nrw=randwrite\nverify=crc32c\nnumjobs=2\n";
  auto r = ParseFioJobFile(text, "job.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_EQ(r.error().message,
            "job.fio:6: unknown option 'verify' (tierlab does not support it; use --ignore-unknown "
            "to skip it)");
  auto ignored = ParseFioJobFile(text, "job.fio", true);
  ASSERT_TRUE(ignored.ok()) << ignored.error().message;
  ASSERT_EQ(ignored->size(), 1u);
  EXPECT_EQ((*ignored)[0].numjobs, 2u);
  EXPECT_EQ((*ignored)[0].rw, RwMode::kRandWrite);
}

TEST(FioJobFileTest, BadValuesNameFileLineAndOption) {
  auto r = ParseFioJobFile("[j]\r\nrw=randrw\r\nrwmixread=150\r\n", "job.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "job.fio:3: rwmixread: must be 0..100, got 150");

  r = ParseFioJobFile("[j]\nbs=0\n", "job.fio", true);  // ignore_unknown does not hide bad values
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "job.fio:2: bs: must be > 0, got 0");

  r = ParseFioJobFile("[j]\nrw=randread\nrandom_distribution=zipf:abc\n", "job.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "job.fio:3: random_distribution: zipf parameter: expected a number, got 'abc'");

  r = ParseFioJobFile("[j]\nrw=random\n", "job.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("job.fio:2: rw: unknown value 'random' (valid: read,"),
            std::string::npos);

  r = ParseFioJobFile("[j]\nbs=4k,64k\n", "job.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("job.fio:2: bs: per-direction values"), std::string::npos);

  r = ParseFioJobFile("[j]\nbs\n", "job.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "job.fio:2: bs: needs a value");
}

TEST(FioJobFileTest, StructuralErrors) {
  auto r = ParseFioJobFile("bs=4k\n[j]\n", "a.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "a.fio:1: bs: option outside a section");
  r = ParseFioJobFile("[global]\nbs=4k\n", "a.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "a.fio: no job sections (only [global] or empty)");
  r = ParseFioJobFile("[j\nbs=4k\n", "a.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "a.fio:1: malformed section header '[j'");
  r = ParseFioJobFile("[j]\nsize=${SIZE}\n", "a.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("a.fio:2: size: variable expansion"), std::string::npos);
  r = ParseFioJobFile("[j]\nrandom_distribution=zoned:60/10:30/20:10/60\nsize=90%\noffset=20%\n",
                      "a.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("a.fio:1: [j]: size: offset 20% + size 90% exceeds the volume"),
            std::string::npos)
      << r.error().message;
}

TEST(FioJobFileTest, KbBaseChangesLaterSizes) {
  auto r = ParseFioJobFile("[j]\nkb_base=1000\nbs=4k\nsize=1kib\n", "a.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].bs, 4000u);
  EXPECT_EQ((*r)[0].size.bytes, 1024u);
}

TEST(FioJobFileTest, BinaryBytesAreReportedAsBinaryData) {
  auto r =
      ParseFioJobFile(std::string("[job]\nrw=randread\nbs=4k\0\x01\x02\n", 27), "nul.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "nul.fio:3: binary data (byte 0x00 at column 6); a fio job file is text");
  r = ParseFioJobFile("[job]\nrw=\x1b[31mread\n", "esc.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "esc.fio:2: binary data (byte 0x1b at column 4); a fio job file is text");
}

}  // namespace
}  // namespace tierlab
