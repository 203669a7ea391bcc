#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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
  const std::string_view text = "[global]\nbs=4k\n\n[job1]\nrw=randwrite\nverify_only\nnumjobs=2\n";
  auto r = ParseFioJobFile(text, "job.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_EQ(r.error().message,
            "job.fio:6: unknown option 'verify_only' (tierlab does not support it; use "
            "--ignore-unknown to skip it)");
  // An option tierlab knows of and refuses says why.
  auto newer = ParseFioJobFile("[p]\nrw=randwrite\nsprandom=1\n", "sp.fio", false);
  ASSERT_FALSE(newer.ok());
  EXPECT_EQ(newer.error().message,
            "sp.fio:3: unknown option 'sprandom' (fio's SanDisk random preconditioning is newer "
            "than fio 3.33, which tierlab follows; use --ignore-unknown to skip it)");
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

  r = ParseFioJobFile("[j]\niodepth=4,8\n", "job.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("job.fio:2: iodepth: per-direction values"), std::string::npos);

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
  r = ParseFioJobFile("[j]\nsize=8*$mb_memory\n", "a.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "a.fio:2: size: fio's reserved keyword $mb_memory is not supported; give the number");
  r = ParseFioJobFile("[j]\ninclude other.fio\n", "a.fio", false);  // text only: no directory
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("a.fio:2: include other.fio: includes need"), std::string::npos);
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

// fio sorts kb_base to the front of its section: sizes written before it
// in the same section follow it too; a job inherits its [global]'s.
TEST(FioJobFileTest, KbBaseAppliesToItsWholeSection) {
  auto r = ParseFioJobFile(
      "[j]\nrw=write\nbs=4k\nsize=1m\nkb_base=1000\n"
      "[global]\nkb_base=1000\n[k]\nbs=8k\n[l]\nbs=8k\nkb_base=1024\n",
      "a.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].bs, 4000u);
  EXPECT_EQ((*r)[0].size.bytes, 1000000u);
  EXPECT_EQ((*r)[1].bs, 8000u);
  EXPECT_EQ((*r)[2].bs, 8192u);
}

// fio: every section whose name starts with "global" is a global section.
TEST(FioJobFileTest, SectionsNamedGlobalSomethingAreGlobal) {
  auto r =
      ParseFioJobFile("[global-settings]\nrw=randwrite\nbs=64k\n[job]\nsize=1m\n", "g.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].name, "job");
  EXPECT_EQ((*r)[0].bs, 65536u);
}

// A synchronous engine runs one I/O at a time whatever iodepth says, as fio
// caps it (with a note); no engine at all keeps the depth, with a note
// that fio's default engine would not.
TEST(FioJobFileTest, SynchronousEnginesCapTheQueueAtOne) {
  std::vector<std::string> notes;
  FioParseOptions o;
  o.notes = &notes;
  auto r = ParseFioJobFile(
      "[global]\nioengine=psync\niodepth=16\n[a]\n[b]\nioengine=libaio\n[c]\nioengine="
      "mmap\niodepth=1\n",
      "s.fio", o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].iodepth, 1u);
  EXPECT_EQ((*r)[1].iodepth, 16u);
  EXPECT_EQ((*r)[2].iodepth, 1u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "s.fio:4: [a]: ioengine=psync is synchronous: iodepth 16 capped at 1, "
            "as fio does");
  notes.clear();
  auto d = ParseFioJobFile("[d]\niodepth=8\n", "d.fio", o);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ((*d)[0].iodepth, 8u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("fio's default (psync) would cap iodepth 8 at 1"), std::string::npos)
      << notes[0];
  // io_submit_mode=offload: fio runs iodepth workers, each at depth one.
  auto f =
      ParseFioJobFile("[f]\nioengine=psync\niodepth=8\nio_submit_mode=offload\n", "f.fio", false);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ((*f)[0].iodepth, 8u);
}

// An empty per-direction field keeps the value set before it, as fio: a
// global bs=16k stays the reads' size under "bs=,8k", and a global
// rate_iops=100 the reads' cap under "rate_iops=,50".
TEST(FioJobFileTest, EmptyDirectionFieldsKeepTheValueSetBefore) {
  auto r = ParseFioJobFile(
      "[global]\nbs=16k\nrate_iops=100\n[j]\nrw=randrw\nbs=,8k\n[k]\nrw=read\nrate_iops=,50\n",
      "e.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].bs_for(IoOp::kRead), 16384u);
  EXPECT_EQ((*r)[0].bs_for(IoOp::kWrite), 8192u);
  EXPECT_EQ((*r)[1].rate_iops, 100u);
  EXPECT_EQ((*r)[1].rate_iops_write, std::optional<std::uint64_t>(50));
}

// fio fills a direction's size range from bs only where bsrange left it
// unset: a bsrange holds whether bs comes before or after it.
TEST(FioJobFileTest, BsDoesNotClearABsrange) {
  for (const char* text : {"[global]\nbsrange=4k-16k\n[j]\nbs=8k\n", "[j]\nbs=8k\nbsrange=4k-16k\n",
                           "[j]\nbsrange=4k-16k\nbs=8k\n"}) {
    auto r = ParseFioJobFile(text, "r.fio", false);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ((*r)[0].bs, 4096u) << text;
    EXPECT_EQ((*r)[0].bs_max[0], 16384u) << text;
  }
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

// fio's strip_blank_end: a line ends at its first ';' or '#', section headers
// included.
TEST(FioJobFileTest, TrailingCommentsAreStripped) {
  auto r = ParseFioJobFile(
      "[j] ; first job\nrw=randwrite ; random\nbs=8k# no space\niodepth = 4 ;; x\n"
      "name=a;b\n",
      "c.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].rw, RwMode::kRandWrite);
  EXPECT_EQ((*r)[0].bs, 8192u);
  EXPECT_EQ((*r)[0].iodepth, 4u);
  EXPECT_EQ((*r)[0].name, "a");
}

TEST(FioJobFileTest, EnvironmentVariablesExpandInValues) {
  ::setenv("TIERLAB_TEST_SIZE", "64m", 1);
  ::setenv("TIERLAB_TEST_DEPTH", "8", 1);
  ::unsetenv("TIERLAB_TEST_UNSET");
  auto r = ParseFioJobFile(
      "[j]\nsize=${TIERLAB_TEST_SIZE}\niodepth=${TIERLAB_TEST_DEPTH}\n"
      "name=x${TIERLAB_TEST_UNSET}y\n",
      "e.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].size.bytes, 64u << 20);
  EXPECT_EQ((*r)[0].iodepth, 8u);
  EXPECT_EQ((*r)[0].name, "xy");  // unset: empty, as fio
  ::unsetenv("TIERLAB_TEST_SIZE");
  r = ParseFioJobFile("[j]\nsize=${TIERLAB_TEST_SIZE}\n", "e.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "e.fio:2: size: expected a size such as 4096, 4k, 64m or 1g, got ''");
}

// zoned: a size that is missing, empty or 0 shares what the others leave
// (fio's zone_split_ddir: equal whole percents).
TEST(FioJobFileTest, ZonedEmptySizesShareTheRest) {
  auto r =
      ParseFioJobFile("[j]\nrw=randread\nrandom_distribution=zoned:50/10:30/:20\n", "z.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::vector<ZoneSpec> want = {{50, 10}, {30, 45}, {20, 45}};
  EXPECT_EQ((*r)[0].zones, want);
  r = ParseFioJobFile("[j]\nrw=randread\nrandom_distribution=zoned:60/0:40/0:0/10\n", "z.fio",
                      false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::vector<ZoneSpec> want2 = {{60, 45}, {40, 45}, {0, 10}};
  EXPECT_EQ((*r)[0].zones, want2);
  r = ParseFioJobFile("[j]\nrw=randread\nrandom_distribution=zoned:60/100:40/\n", "z.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("z.fio:3: random_distribution: zoned: 1 zone(s) without a size"),
            std::string::npos)
      << r.error().message;
}

// fio's bs=READ,WRITE[,TRIM]: a value not ended by a comma applies to the
// directions after it; an empty one is the default (4k).
TEST(FioJobFileTest, PerDirectionBlockSizesAndRates) {
  struct Case {
    const char* bs;
    std::uint64_t read, write;
  };
  for (const Case& c :
       {Case{"8k,32k", 8192, 32768}, Case{",8k", 4096, 8192}, Case{"8k,32k,", 8192, 32768},
        Case{"16k", 16384, 16384}, Case{"8k,,64k", 8192, 4096}}) {
    auto r = ParseFioJobFile(std::string("[j]\nrw=randrw\nbs=") + c.bs + "\n", "b.fio", false);
    ASSERT_TRUE(r.ok()) << c.bs << ": " << r.error().message;
    EXPECT_EQ((*r)[0].bs_for(IoOp::kRead), c.read) << c.bs;
    EXPECT_EQ((*r)[0].bs_for(IoOp::kWrite), c.write) << c.bs;
    // The effective profile reads back to the same.
    auto again = ParseProfileJson(ToJson((*r)[0]), "again");
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(*again, (*r)[0]) << c.bs;
  }
  auto r = ParseFioJobFile("[j]\nbs=4k,8k,16k,32k\n", "b.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("b.fio:2: bs: at most three"), std::string::npos);

  // rate_iops: the cap of the direction the job does.
  r = ParseFioJobFile("[w]\nrw=randwrite\nrate_iops=100,300\n[r]\nrw=read\nrate_iops=,300\n",
                      "r.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].effective_rate_iops(), 300u);
  EXPECT_EQ((*r)[1].effective_rate_iops(), 0u);
  r = ParseFioJobFile("[m]\nrw=randrw\nrate_iops=100,300\n", "r.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("r.fio:1: [m]: rate_iops: separate caps"), std::string::npos)
      << r.error().message;
}

TEST(FioJobFileTest, RwOffsetModifiers) {
  auto r = ParseFioJobFile(
      "[a]\nrw=randread:8\n[b]\nrw=read:-8k\n[c]\nrw=write:4k\n[d]\nrw=randread:8\nrw=randread\n"
      "[e]\nrw=randrw:4\nrw_sequencer=identical\n",
      "m.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].rw_seq_nr, 8u);
  EXPECT_EQ((*r)[1].rw_seq_add, -8192);
  EXPECT_EQ((*r)[2].rw_seq_add, 4096);
  EXPECT_EQ((*r)[3].rw_seq_nr, 1u);  // a later rw= resets the modifier, as fio
  EXPECT_TRUE((*r)[4].rw_sequencer_identical);
  for (const Profile& p : *r) {
    auto again = ParseProfileJson(ToJson(p), "again");
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(*again, p) << p.name;
  }
  EXPECT_EQ(ToJson((*r)[1])["rw"], "read:-8k");
  r = ParseFioJobFile("[a]\nrw=randread:0\n", "m.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("m.fio:2: rw: offset modifier of randread: must be 1.."),
            std::string::npos)
      << r.error().message;
}

class FioIncludeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fioinc-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
  Expected<std::vector<Profile>> Load(const std::string& path) {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    FioParseOptions o;
    o.path = path;
    return ParseFioJobFile(text, std::filesystem::path(path).filename().string(), o);
  }
  std::filesystem::path dir_;
};

TEST_F(FioIncludeTest, IncludedOptionsGoToTheIncludingSection) {
  Write("inc/common.fio", "iodepth=8\ninclude deeper.fio\n");
  Write("inc/deeper.fio", "bs=16k ; from two levels down\n");
  Write("inc/job.fio", "rw=randwrite\n");
  const std::string top =
      Write("top.fio", "[global]\ninclude inc/common.fio\n[a]\ninclude inc/job.fio\n[b]\nbs=4k\n");
  auto r = Load(top);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].iodepth, 8u);
  EXPECT_EQ((*r)[0].bs, 16384u);
  EXPECT_EQ((*r)[0].rw, RwMode::kRandWrite);
  EXPECT_EQ((*r)[1].iodepth, 8u);
  EXPECT_EQ((*r)[1].bs, 4096u);
  EXPECT_EQ((*r)[1].rw, RwMode::kRead);  // job.fio went to [a] only
}

TEST_F(FioIncludeTest, ErrorsNameTheIncludedFileAndLine) {
  Write("bad.fio", "iodepth=4\nrwmixread=200\n");
  auto r = Load(Write("top.fio", "[a]\ninclude bad.fio\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "bad.fio:2: rwmixread: must be 0..100, got 200");

  Write("sect.fio", "[x]\n");
  r = Load(Write("top2.fio", "[a]\ninclude sect.fio\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "sect.fio:1: an included file may not contain sections");

  r = Load(Write("top3.fio", "[a]\ninclude missing.fio\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "top3.fio:2: include missing.fio: cannot open: no such file");
}

TEST_F(FioIncludeTest, CyclesAndDepthAreErrors) {
  Write("sub/one.fio", "bs=4k\ninclude two.fio\n");
  Write("sub/two.fio", "include one.fio\n");
  auto r = Load(Write("cyc.fio", "[a]\ninclude sub/one.fio\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "two.fio:1: include one.fio: include cycle (cyc.fio -> one.fio -> two.fio -> one.fio)");

  for (int i = 0; i <= kMaxIncludeDepth; ++i) {
    Write("d" + std::to_string(i) + ".fio", "include d" + std::to_string(i + 1) + ".fio\n");
  }
  Write("d" + std::to_string(kMaxIncludeDepth + 1) + ".fio", "bs=4k\n");
  r = Load(Write("deep.fio", "[a]\ninclude d0.fio\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("include d16.fio: includes nested more than 16 deep"),
            std::string::npos)
      << r.error().message;
}

TEST(FioJobFileTest, TrimFlushQueueingRateAndRangeOptions) {
  auto r = ParseFioJobFile(
      "[global]\nbs=4k,4k,8k\n[t]\nrw=trimwrite\nfsync=3\nfdatasync=5\nend_fsync\n"
      "fsync_on_close=1\niodepth=8\niodepth_batch_submit=4\niodepth_batch_complete=2\n"
      "iodepth_batch_complete_max=6\niodepth_low=3\n"
      "[b]\nrw=randwrite\nblocksize_range=1k-4k,16k-4k\nblockalign=64k\nrate=,2m\n"
      "rate_min=,1m\nrate_iops_min=10\n",
      "t.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Profile& t = (*r)[0];
  EXPECT_EQ(t.rw, RwMode::kTrimWrite);
  EXPECT_EQ(t.bs_for(IoOp::kDiscard), 8192u);
  EXPECT_EQ(t.fsync, 3u);
  EXPECT_EQ(t.fdatasync, 5u);
  EXPECT_TRUE(t.end_fsync);
  EXPECT_TRUE(t.fsync_on_close);
  EXPECT_EQ(t.iodepth_batch, 4u);
  EXPECT_EQ(t.reap_min(), 2u);
  EXPECT_EQ(t.reap_max(), 6u);
  EXPECT_EQ(t.queue_low(), 3u);
  const Profile& b = (*r)[1];
  EXPECT_EQ(b.bs_for(IoOp::kWrite), 4096u);  // "16k-4k": either order, as fio
  EXPECT_EQ(b.max_bs_for(IoOp::kWrite), 16384u);
  EXPECT_EQ(b.max_bs_for(IoOp::kRead), 4096u);
  EXPECT_EQ(b.ba, 65536u);
  EXPECT_EQ(b.effective_rate(), 2u << 20);
  EXPECT_EQ(b.rate_min[1], 1u << 20);
  EXPECT_EQ(b.rate_iops_min[0], 10u);
  for (const char* bad : {"bsrange=4k", "rw=trimread", "fsync=-1", "iodepth_low=x"}) {
    auto e = ParseFioJobFile(std::string("[j]\n") + bad + "\n", "x.fio", false);
    ASSERT_FALSE(e.ok()) << bad;
    const std::string key(bad, std::string_view(bad).find('='));
    EXPECT_NE(e.error().message.find("x.fio:2: " + key + ": "), std::string::npos)
        << e.error().message;
  }
  // Still refused, with the reason on the line.
  for (const char* no : {"verify_only=1", "blocksize_unaligned=1", "rwmixcycle=2"}) {
    auto e = ParseFioJobFile(std::string("[j]\n") + no + "\n", "x.fio", false);
    ASSERT_FALSE(e.ok()) << no;
    EXPECT_NE(e.error().message.find("x.fio:2: unknown option"), std::string::npos)
        << e.error().message;
  }
}

TEST(FioJobFileTest, IgnoredOptionsAreListedOnce) {
  std::vector<std::string> ignored;
  FioParseOptions o;
  o.ignore_unknown = true;
  o.ignored = &ignored;
  auto r = ParseFioJobFile("[global]\nzonemode=zbd\n[a]\nfoo=1\n[b]\nzonemode=none\n", "i.fio", o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(ignored, (std::vector<std::string>{"zonemode", "foo"}));
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

TEST(FioJobFileStopTest, StopOptionsParse) {
  auto r = ParseFioJobFile(
      "[j]\nruntime=10\ntime_based\nloops=3\nio_limit=5g\nstartdelay=500ms\nnumber_ios=7\n",
      "s.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Profile& p = (*r)[0];
  EXPECT_TRUE(p.time_based);
  EXPECT_EQ(p.loops, 3u);
  EXPECT_TRUE(p.has_io_size);
  EXPECT_EQ(p.io_size, 5ull << 30);
  EXPECT_EQ(p.startdelay, 500 * kMilli);
  r = ParseFioJobFile("[j]\ntime_based\n", "s.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "s.fio:1: [j]: time_based: needs a runtime (tierlab does not run without an end)");
  r = ParseFioJobFile("[j]\nstartdelay=1-5\n", "s.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("s.fio:2: startdelay: fio's random range"), std::string::npos);
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

TEST(FioJobFileSectionsTest, StonewallFilesAndTheirAliasesParse) {
  auto r = ParseFioJobFile(
      "[global]\ndirectory=/mnt\n[a]\nnrfiles=4\nfilesize=1m\n[b]\nstonewall\nfilename=x:y\n"
      "[c]\nwait_for_previous=1\n[d]\nstonewall=0\n",
      "f.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE((*r)[0].stonewall);
  EXPECT_EQ((*r)[0].nrfiles, 4u);
  EXPECT_EQ((*r)[0].filesize, 1u << 20);
  EXPECT_EQ((*r)[0].directory, "/mnt");
  EXPECT_TRUE((*r)[1].stonewall);
  EXPECT_EQ((*r)[1].filename, "x:y");
  EXPECT_TRUE((*r)[2].stonewall);
  EXPECT_FALSE((*r)[3].stonewall);
  // Written back only when set, and read back the same.
  for (const Profile& p : *r) {
    auto back = ParseProfileJson(ToJson(p), "p.json");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, p);
  }
  EXPECT_FALSE(ToJson(Profile{}).contains("stonewall"));
  EXPECT_FALSE(ToJson(Profile{}).contains("nrfiles"));
  r = ParseFioJobFile("[a]\nfilesize=1m-2m\n", "f.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("f.fio:2: filesize: fio's random range"), std::string::npos);
  r = ParseFioJobFile("[a]\nnrfiles=0\n", "f.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "f.fio:2: nrfiles: must be 1..1024, got 0");
}

// Before, ioengine was ignored whatever it named, so fio's HTTP, network
// and CPU jobs ran as block I/O on the volume.
TEST(FioJobFileSectionsTest, OnlyBlockIoEnginesAreAccepted) {
  for (const char* e : {"libaio", "io_uring", "psync", "sync", "nbd"}) {
    auto r = ParseFioJobFile(std::string("[a]\nioengine=") + e + "\n", "e.fio", false);
    EXPECT_TRUE(r.ok()) << e << ": " << r.error().message;
  }
  auto r = ParseFioJobFile("[global]\nioengine=http\n[a]\n", "e.fio", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("e.fio:2: ioengine: 'http' is not a block I/O engine; "
                                    "tierlab runs block I/O on its volume (valid: libaio, ",
                                    0),
            0u)
      << r.error().message;
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

// fio's log options: a NAME or none (the job's name), log_avg_msec in ms,
// log_offset a flag; they survive the profile's JSON.
TEST(FioJobFileTest, LogOptions) {
  auto r = ParseFioJobFile(
      "[a]\nwrite_bw_log=bw\nwrite_lat_log\nlog_avg_msec=250\nlog_offset\n[b]\n", "l.fio", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Profile& a = r->at(0);
  EXPECT_EQ(a.write_bw_log, std::optional<std::string>("bw"));
  EXPECT_EQ(a.write_lat_log, std::optional<std::string>(""));
  EXPECT_FALSE(a.write_iops_log.has_value());
  EXPECT_EQ(a.log_avg_msec, 250u);
  EXPECT_TRUE(a.log_offset);
  auto back = ParseProfileJson(ToJson(a), "x");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, a);
  const Profile& b = r->at(1);
  EXPECT_FALSE(b.write_bw_log || b.write_lat_log || b.log_offset);
  EXPECT_FALSE(ToJson(b).contains("log_avg_msec"));  // defaults add no key

  auto bad = ParseFioJobFile("[a]\nlog_avg_msec=-1\n", "l.fio", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("l.fio:2: log_avg_msec:", 0), 0u) << bad.error().message;
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

TEST(FioJobFileGroupsTest, WaitForFlowAndExitOptionsParseAndBadOnesNameTheLine) {
  auto p = ParseFioJobFile(
      "[a]\nflow=3\nflow_id=2\nflow_sleep=100\nexitall\nexit_what=stonewall\n"
      "[b]\nwait_for=a\nnew_group\nio_submit_mode=offload\nratemin=1m\nthreads=1\n",
      "g.fio", false);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p)[0].flow, 3u);
  EXPECT_EQ((*p)[0].flow_id, 2u);
  EXPECT_EQ((*p)[0].flow_sleep, 100 * kMicro);
  EXPECT_TRUE((*p)[0].exitall);
  EXPECT_EQ((*p)[0].exit_what, ExitWhat::kStonewall);
  EXPECT_EQ((*p)[1].wait_for, "a");
  EXPECT_TRUE((*p)[1].new_group);
  EXPECT_TRUE((*p)[1].io_submit_offload);
  EXPECT_EQ((*p)[1].rate_min[0], 1u << 20);
  struct Bad {
    const char* text;
    const char* error;
  };
  for (const Bad& b : {
           Bad{"[a]\n[b]\nwait_for=c\n", "g.fio:2: [b]: wait_for: no section named 'c' before"},
           Bad{"[b]\nwait_for=b\n", "g.fio:1: [b]: wait_for: a section cannot wait for itself"},
           Bad{"[a]\n[a]\n[b]\nwait_for=a\n", "g.fio:3: [b]: wait_for: several sections"},
           Bad{"[b]\nwait_for=a\n[a]\n", "g.fio:1: [b]: wait_for: no section named 'a'"},
           Bad{"[a]\nexit_what=some\n", "g.fio:2: exit_what: unknown value 'some'"},
           Bad{"[a]\nflow=1001\n", "g.fio:2: flow: "},
           Bad{"[a]\nio_submit_mode=fast\n", "g.fio:2: io_submit_mode: unknown value 'fast'"},
       }) {
    auto e = ParseFioJobFile(b.text, "g.fio", false);
    ASSERT_FALSE(e.ok()) << b.text;
    EXPECT_EQ(e.error().message.rfind(b.error, 0), 0u) << e.error().message;
  }
}

}  // namespace
}  // namespace tierlab
