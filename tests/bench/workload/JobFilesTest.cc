// fio's files as regions of one volume (JobFiles.h), and a job's stream over
// them (JobStream.h). Before these, every job of a job file addressed LBA
// 0..size whatever its filename, nrfiles or filesize said: two jobs on two
// files of fio's overwrote each other's blocks in tierlab.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/workload/FioJobFile.h"
#include "bench/workload/JobFiles.h"
#include "bench/workload/JobStream.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

std::vector<Profile> Parse(const std::string& text) {
  auto p = ParseFioJobFile(text, "t.fio", false);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? *p : std::vector<Profile>{};
}

FileLayout Lay(const std::vector<Profile>& ps, std::uint64_t volume = 64 * kMiB) {
  auto l = LayOutFiles(ps, volume, 512);
  EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message);
  return l.ok() ? *l : FileLayout{};
}

TEST(JobFilesTest, AJobFileWithoutFilesAddressesTheVolume) {
  const auto l = Lay(Parse("[a]\nrw=read\nsize=1m\n[b]\nrw=write\nnumjobs=2\n"));
  EXPECT_FALSE(l.uses_files);
  EXPECT_TRUE(l.files.empty());
  EXPECT_TRUE(l.RegionsOf(1, 1).empty());
}

TEST(JobFilesTest, NrfilesSplitsTheSizeIntoFilesNamedAsFioNamesThem) {
  const auto l = Lay(Parse("[a]\nrw=read\nsize=64k\nnrfiles=2\n[b]\nfilesize=32k\nnrfiles=3\n"));
  ASSERT_TRUE(l.uses_files);
  ASSERT_EQ(l.files.size(), 5u);
  // fio's names: job.clone.file; one after another from LBA 0.
  EXPECT_EQ(l.files[0].name, "a.0.0");
  EXPECT_EQ(l.files[1].name, "a.0.1");
  EXPECT_EQ(l.files[4].name, "b.0.2");
  std::uint64_t next = 0;
  for (const JobFile& f : l.files) {
    EXPECT_EQ(f.region.offset, next) << f.name;
    EXPECT_EQ(f.region.length, 32u * 1024) << f.name;
    next += f.region.length;
  }
  EXPECT_EQ(l.RegionsOf(1, 0).size(), 3u);
}

TEST(JobFilesTest, ClonesGetTheirOwnFilesAndANamedFileIsShared) {
  const auto l = Lay(Parse(
      "[global]\nsize=1m\n[a]\nnumjobs=2\nnrfiles=1\n[b]\nfilename=shared\n[c]\nfilename=shared\n"
      "size=2m\n"));
  ASSERT_EQ(l.files.size(), 3u);
  EXPECT_NE(l.RegionsOf(0, 0), l.RegionsOf(0, 1));
  EXPECT_EQ(l.RegionsOf(1, 0), l.RegionsOf(2, 0));
  // The shared file holds the larger of its jobs' regions.
  EXPECT_EQ(l.files[2].name, "shared");
  EXPECT_EQ(l.files[2].region, (FileRegion{2 * kMiB, 2 * kMiB}));
}

TEST(JobFilesTest, ANamedFileWithoutASizeIsTheWholeDevice) {
  const auto l =
      Lay(Parse("[a]\nfilename=/dev/sdb\n[b]\nfilename=/dev/sdb\n[c]\nfilename=f\nsize=1m\n"));
  ASSERT_EQ(l.files.size(), 2u);
  EXPECT_EQ(l.files[0].region, (FileRegion{0, 64 * kMiB}));
  EXPECT_EQ(l.files[1].region, (FileRegion{0, kMiB}));
}

TEST(JobFilesTest, PercentagesOfANamedFileAreOfTheFileAsFioTakesThem) {
  // fio 3.33 on a 16 MiB file: offset=15m size=20% reads 16 x 64k (the size
  // cut at the file's end); offset=99% size=1% bs=4k starts at 16613376
  // (rounded up to the block) and reads 40 blocks. A percentage sizes
  // nothing: the file is the whole device, and the job's region is resolved
  // against it.
  const auto ps = Parse(
      "[global]\nfilename=/dev/sdb\nrw=read\n[past]\nbs=64k\noffset=15m\nsize=20%\n"
      "[end]\nbs=4k\noffset=99%\nsize=1%\n");
  const auto l = Lay(ps, 16 * kMiB);
  ASSERT_EQ(l.files.size(), 1u);
  EXPECT_EQ(l.files[0].region, (FileRegion{0, 16 * kMiB}));
  struct Want {
    std::uint64_t begin, bytes;
  };
  const Want want[] = {{15 * kMiB, kMiB}, {16613376, 40 * 4096}};
  for (std::size_t i = 0; i < 2; ++i) {
    auto s = JobStream::Create(ps[i], 16 * kMiB, 512, 0, l.RegionsOf(i, 0));
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_EQ(s->regions().size(), 1u);
    EXPECT_EQ(s->regions()[0].offset, want[i].begin) << i;
    EXPECT_EQ(s->io_bytes_limit(), want[i].bytes) << i;
  }
}

TEST(JobFilesTest, OffsetsAndIncrementsWidenTheFile) {
  const auto l =
      Lay(Parse("[a]\nfilename=f\nsize=1m\noffset=1m\nnumjobs=3\noffset_increment=2m\n"));
  ASSERT_EQ(l.files.size(), 1u);
  EXPECT_EQ(l.files[0].region.length, 1 * kMiB + 1 * kMiB + 2 * 2 * kMiB);
}

// split_size over files: each clone's own files hold its part of size; in a
// file the clones name together, each clone's part lies one part further on.
// filesize is each file's size, as fio's setup_files: a clone does its
// files from its offset (bytes, or a percentage of the file, as fio takes
// it of a file that exists) to their end, and a size percentage is of the
// file, cut there (fio 3.33's write_iolog: offset=8k, 25% or 10% with
// size=50%, over two 32k files; a clone offset_increment further on).
TEST(JobFilesTest, FilesizeSizesTheFileAndTheJobStartsAtItsOffsetInIt) {
  struct Case {
    const char* options;
    std::uint64_t first, last;  // the reads' offsets in a file, in KiB
  };
  for (const Case& c : {Case{"offset=8k\n", 8, 28}, Case{"offset=25%\n", 8, 28},
                        Case{"offset=10%\nsize=50%\n", 4, 16},
                        Case{"offset=4k\nnumjobs=2\noffset_increment=8k\n", 12, 28}}) {
    SCOPED_TRACE(c.options);
    const auto ps =
        Parse(std::string("[a]\nrw=read\nbs=4k\nnrfiles=2\nfilesize=32k\n") + c.options);
    const auto l = Lay(ps);
    const std::uint32_t clone = ps[0].numjobs - 1;  // the last clone's files
    const auto regions = l.RegionsOf(0, clone);
    ASSERT_EQ(regions.size(), 2u);
    EXPECT_EQ(regions[0].length, 32u * 1024);  // the file is filesize, offset or not
    auto s = JobStream::Create(ps[0], 64 * kMiB, 512, clone, regions);
    ASSERT_TRUE(s.ok()) << s.error().message;
    const std::uint64_t reads = 2 * (c.last - c.first + 4) / 4;
    EXPECT_EQ(s->io_bytes_limit(), reads * 4096);
    for (std::uint64_t i = 0; i < reads; ++i) {
      const NextIo io = s->Next();
      const FileRegion& file = regions[i % 2];
      EXPECT_EQ(io.offset, file.offset + (c.first + i / 2 * 4) * 1024) << i;
    }
  }
}

TEST(JobFilesTest, SplitSizeSharesTheSizeAmongTheClonesFiles) {
  const auto own = Lay(Parse("[a]\nnumjobs=2\nnrfiles=2\nsize=4m\nsplit_size\n"));
  ASSERT_EQ(own.files.size(), 4u);
  for (std::size_t f = 0; f < 4; ++f) {
    EXPECT_EQ(own.files[f].region, (FileRegion{f * kMiB, kMiB})) << own.files[f].name;
  }
  EXPECT_EQ(own.files[2].name, "a.1.0");

  const auto ps = Parse("[a]\nfilename=f\nnumjobs=4\nsize=4m\nsplit_size\n");
  const auto shared = Lay(ps);
  ASSERT_EQ(shared.files.size(), 1u);
  EXPECT_EQ(shared.files[0].region, (FileRegion{0, 4 * kMiB}));
  for (std::uint32_t j = 0; j < 4; ++j) {
    const Profile q = ProfileForFile(ps[0], 64 * kMiB, 512, 0, 1, 4 * kMiB);
    auto g = WorkloadGenerator::Create(q, 4 * kMiB, 512, j);
    ASSERT_TRUE(g.ok()) << g.error().message;
    EXPECT_EQ(g->region_begin(), j * kMiB);
    EXPECT_EQ(g->region_end(), (j + 1) * kMiB);
  }

  // A named file no job sizes is the whole device, shared the same way.
  const auto whole = Parse("[a]\nfilename=/dev/sdb\nnumjobs=4\nsplit_size\n");
  ASSERT_EQ(Lay(whole).files[0].region, (FileRegion{0, 64 * kMiB}));
  const Profile q = ProfileForFile(whole[0], 64 * kMiB, 512, 0, 1, 64 * kMiB);
  auto g = WorkloadGenerator::Create(q, 64 * kMiB, 512, 3);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->region_begin(), 48 * kMiB);
  EXPECT_EQ(g->region_end(), 64 * kMiB);
}

TEST(JobFilesTest, FilesFioWouldCreateNeedASizeAndAllMustFit) {
  auto none = LayOutFiles(Parse("[a]\nnrfiles=2\n"), 64 * kMiB, 512);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "job 'a': nrfiles: the job's files need a size: set size= or filesize=");
  auto big = LayOutFiles(Parse("[a]\nnrfiles=4\nfilesize=20m\n"), 64 * kMiB, 512);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("4 files need 83886080 bytes, the volume has 67108864"),
            std::string::npos)
      << big.error().message;
}

// fio's file_service_type default: one I/O per file in turn, each file
// sequential on its own (fio 3.33's write_iolog of the same job shows
// a.0.0 0, a.0.1 0, a.0.0 4096, ...).
TEST(JobStreamTest, IOsGoRoundRobinOverTheFilesAtTheirOwnOffsets) {
  const auto ps = Parse("[a]\nrw=read\nbs=4k\nsize=64k\nnrfiles=2\n");
  const auto l = Lay(ps);
  auto s = JobStream::Create(ps[0], 64 * kMiB, 512, 0, l.RegionsOf(0, 0));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->io_bytes_limit(), 64u * 1024);
  for (std::uint64_t i = 0; i < 16; ++i) {
    const NextIo io = s->Next();
    EXPECT_EQ(io.offset, (i % 2) * 32 * 1024 + (i / 2) * 4096) << i;
    EXPECT_FALSE(io.wrapped) << i;
  }
  // Both files are at their end: the first is done, then the second, and
  // the pass ends there (the I/O that begins the next is flagged).
  const NextIo last = s->Next();
  EXPECT_TRUE(last.wrapped);
  EXPECT_EQ(last.offset, 32u * 1024);
}

// A file at its end is done for the pass while the others go on, as fio's
// (fio 3.33: bs=12k over two 32k files reads 0 and 12k of each, 4 reads;
// 24k + 12k is past a file's end). A time based job's file starts again at
// once, and the pass is counted when every file has.
TEST(JobStreamTest, AFileAtItsEndIsDoneUntilEveryFileIs) {
  for (const bool time_based : {false, true}) {
    SCOPED_TRACE(time_based);
    const auto ps = Parse(std::string("[a]\nrw=read\nbs=12k\nnrfiles=2\nfilesize=32k\n") +
                          (time_based ? "time_based\nruntime=1\n" : ""));
    const auto l = Lay(ps);
    auto s = JobStream::Create(ps[0], 64 * kMiB, 512, 0, l.RegionsOf(0, 0));
    ASSERT_TRUE(s.ok()) << s.error().message;
    for (const std::uint64_t kib : {0, 32, 12, 44}) {
      const NextIo io = s->Next();
      EXPECT_EQ(io.offset, kib * 1024);
      EXPECT_FALSE(io.wrapped);
    }
    const NextIo fifth = s->Next();
    EXPECT_EQ(fifth.wrapped, !time_based);
    EXPECT_EQ(fifth.offset, time_based ? 0u : 32u * 1024);
  }
}

TEST(JobStreamTest, RandomFilesStayInsideTheirRegionsWithStreamsOfTheirOwn) {
  const auto ps = Parse("[a]\nrw=randread\nbs=4k\nfilesize=1m\nnrfiles=3\nio_size=10m\n");
  const auto l = Lay(ps);
  auto s = JobStream::Create(ps[0], 64 * kMiB, 512, 0, l.RegionsOf(0, 0));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->io_bytes_limit(), 10 * kMiB);  // io_size is the job's, over all its files
  std::map<std::uint64_t, std::vector<std::uint64_t>> in_file;
  for (int i = 0; i < 3000; ++i) {
    const NextIo io = s->Next();
    const std::uint64_t f = io.offset / kMiB;
    ASSERT_LT(f, 3u);
    EXPECT_EQ(f, static_cast<std::uint64_t>(i % 3));
    EXPECT_LE(io.offset + io.length, (f + 1) * kMiB);
    in_file[f].push_back(io.offset % kMiB);
  }
  // Not the same offsets in the same order in every file: each has its own
  // random stream (and its own random map, so each covers all its blocks).
  EXPECT_NE(in_file[0], in_file[1]);
  EXPECT_NE(in_file[1], in_file[2]);
}

// fio's do_io: a random writer without a random map (norandommap, a
// non-uniform distribution, or another blockalign) does io_size in one
// pass of fresh draws; with the map, or reading, each pass repeats the
// first (fio 3.33: 16 writes at 16 drawn offsets for size=16k io_size=64k).
TEST(JobStreamTest, ARandomWriterWithoutAMapDoesIoSizeInOnePass) {
  const std::string job = "[a]\nbs=4k\nsize=16k\nio_size=64k\nrandseed=7\n";
  const auto pass_starts = [](const std::string& text) {
    auto s = JobStream::Create(Parse(text)[0], 64 * kMiB, 512, 0, {});
    EXPECT_TRUE(s.ok()) << s.error().message;
    std::vector<std::uint64_t> offsets;
    int wraps = 0;
    for (int i = 0; i < 16; ++i) {
      const NextIo io = s->Next();
      wraps += io.wrapped ? 1 : 0;
      offsets.push_back(io.offset);
    }
    const bool repeats = std::equal(offsets.begin(), offsets.begin() + 4, offsets.begin() + 4);
    return std::pair(wraps, repeats);
  };
  for (const char* options :
       {"rw=randwrite\nnorandommap\n", "rw=randrw\nnorandommap\n",
        "rw=randwrite\nrandom_distribution=zipf:1.1\n", "rw=randwrite\nbs=4k\nba=2k\n"}) {
    const auto [wraps, repeats] = pass_starts(job + options);
    EXPECT_EQ(wraps, 0) << options;
    EXPECT_FALSE(repeats) << options;
  }
  for (const char* options : {"rw=randwrite\n", "rw=randread\nnorandommap\n"}) {
    const auto [wraps, repeats] = pass_starts(job + options);
    EXPECT_EQ(wraps, 3) << options;
    EXPECT_TRUE(repeats) << options;
  }
}

TEST(JobStreamTest, WithoutFilesTheStreamIsTheGenerators) {
  Profile p;
  p.rw = RwMode::kRandRead;
  auto s = JobStream::Create(p, 64 * kMiB, 512, 0, {});
  auto g = WorkloadGenerator::Create(p, 64 * kMiB, 512, 0);
  ASSERT_TRUE(s.ok() && g.ok());
  for (int i = 0; i < 1000; ++i) {
    const NextIo a = s->Next(), b = g->Next();
    ASSERT_EQ(a.offset, b.offset);
    ASSERT_EQ(a.op, b.op);
  }
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

TEST(JobStreamTest, EachPassRepeatsTheFirstAsFiosDo) {
  // fio 3.33 re-seeds its streams and restarts its positions at every pass
  // (clear_io_state, randrepeat=1): with loops=2, or an io_size of twice
  // the size, its write_iolog shows the second pass's offsets (and, for
  // randrw, directions) in the first pass's order; zoned draws from the
  // re-seeded streams too.
  for (const char* text : {"[a]\nrw=randread\nbs=4k\nsize=64k\nloops=2\n",
                           "[a]\nrw=randrw\nbs=4k\nsize=64k\nio_size=128k\n",
                           "[a]\nrw=randread\nbs=4k\nsize=64k\nloops=2\n"
                           "random_distribution=zoned:50/50:50/50\n",
                           "[a]\nrw=read:-12k\nbs=4k\nsize=64k\nloops=3\n"}) {
    SCOPED_TRACE(text);
    const auto ps = Parse(text);
    auto s = JobStream::Create(ps[0], 64 * kMiB, 512, 0, {});
    ASSERT_TRUE(s.ok()) << s.error().message;
    std::vector<NextIo> first, second;
    for (int i = 0; i < 16; ++i) first.push_back(s->Next());
    for (int i = 0; i < 16; ++i) second.push_back(s->Next());
    EXPECT_TRUE(second[0].wrapped);  // the pass's start, which the runner counts
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(second[i].offset, first[i].offset) << i;
      EXPECT_EQ(second[i].op, first[i].op) << i;
      if (i > 0) {
        EXPECT_FALSE(second[i].wrapped) << i;
      }
    }
  }
  // One pass only: the stream goes on as drawn (a time based job's next
  // pass of the random map, in a new order).
  auto one =
      JobStream::Create(Parse("[a]\nrw=randread\nbs=4k\nsize=64k\n")[0], 64 * kMiB, 512, 0, {});
  ASSERT_TRUE(one.ok());
  std::vector<std::uint64_t> a, b;
  for (int i = 0; i < 16; ++i) a.push_back(one->Next().offset);
  for (int i = 0; i < 16; ++i) b.push_back(one->Next().offset);
  EXPECT_NE(a, b);
}

// fio's zipf, pareto and normal offsets come from the file's own state,
// which a pass does not re-seed: the second pass goes on drawing (fio 3.33,
// loops=4 over 32k: no pass repeats the one before), while the directions,
// re-seeded, repeat.
TEST(JobStreamTest, ZipfParetoAndNormalOffsetsGoOnFromPassToPass) {
  for (const char* dist : {"zipf:1.2", "pareto:0.5", "normal:20"}) {
    SCOPED_TRACE(dist);
    auto s = JobStream::Create(
        Parse(std::string("[a]\nrw=randrw\nbs=4k\nsize=64k\nloops=2\nrandom_distribution=") + dist +
              "\n")[0],
        64 * kMiB, 512, 0, {});
    ASSERT_TRUE(s.ok()) << s.error().message;
    std::vector<NextIo> first, second;
    for (int i = 0; i < 16; ++i) first.push_back(s->Next());
    for (int i = 0; i < 16; ++i) second.push_back(s->Next());
    EXPECT_TRUE(second[0].wrapped);
    bool same_offsets = true;
    for (int i = 0; i < 16; ++i) {
      same_offsets &= second[i].offset == first[i].offset;
      EXPECT_EQ(second[i].op, first[i].op) << i;
    }
    EXPECT_FALSE(same_offsets);
  }
}

TEST(JobStreamTest, NumberIosIsTheJobsOverAllItsFiles) {
  for (const char* job : {"[a]\nfilename=f\nsize=1m\nnumber_ios=100\nloops=2\n",
                          "[a]\nnrfiles=3\nsize=3m\nnumber_ios=100\nloops=2\n"}) {
    const auto ps = Parse(job);
    const auto l = Lay(ps);
    auto s = JobStream::Create(ps[0], 64 * kMiB, 512, 0, l.RegionsOf(0, 0));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->io_count_limit(), 200u) << job;
  }
}

TEST(JobStreamTest, WithFilesizeTheSizeStillCapsTheJobsBytes) {
  // fio 3.33's bytes for the same jobs (filesize=256k, rw=read, bs=4k):
  // the smaller of size and the files together, x loops.
  struct Case {
    const char* job;
    std::uint64_t bytes;
  };
  for (const Case& c :
       {Case{"nrfiles=2\nsize=1m\n", 512 * 1024}, Case{"nrfiles=2\nsize=100k\n", 100 * 1024},
        Case{"nrfiles=1\nsize=100k\n", 100 * 1024}, Case{"nrfiles=1\nsize=1m\n", 256 * 1024},
        Case{"nrfiles=2\nsize=100k\nloops=2\n", 200 * 1024},
        Case{"nrfiles=2\nsize=1m\nio_size=128k\n", 128 * 1024},
        // A percentage is of each file, in whole blocks.
        Case{"nrfiles=2\nsize=50%\n", 256 * 1024}, Case{"nrfiles=1\nsize=30%\n", 19 * 4096}}) {
    const auto ps = Parse(std::string("[a]\nrw=read\nfilesize=256k\n") + c.job);
    const auto l = Lay(ps);
    auto s = JobStream::Create(ps[0], 64 * kMiB, 512, 0, l.RegionsOf(0, 0));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->io_bytes_limit(), c.bytes) << c.job;
  }
}

TEST(JobStreamTest, TrimwriteOverFilesTrimsAndWritesEveryByte) {
  // fio's trimwrite: twice the job's bytes, over one file or several.
  for (const char* files : {"directory=d\n", "nrfiles=2\n"}) {
    const auto ps = Parse(std::string("[a]\nrw=trimwrite\nsize=64k\n") + files);
    const auto l = Lay(ps);
    auto s = JobStream::Create(ps[0], 64 * kMiB, 512, 0, l.RegionsOf(0, 0));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->io_bytes_limit(), 128u * 1024) << files;
  }
}

}  // namespace
}  // namespace tierlab
