#include <gtest/gtest.h>

#include <random>

#include "policies/NhitAdmission.h"
#include "policies/PinnedAdmission.h"
#include "policies/PolicyRegistry.h"
#include "policies/SeqCutoffAdmission.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kLine = 4096;

AccessInfo Line(std::uint64_t line) {
  return AccessInfo{line * kLine, kLine, line, false, 0};
}

TEST(NhitAdmissionTest, AdmitsOnTheNthMissAndThenForgets) {
  NhitAdmission a(3, 100);
  EXPECT_FALSE(a.Admit(Line(7)));
  EXPECT_FALSE(a.Admit(Line(8)));
  EXPECT_FALSE(a.Admit(Line(7)));
  EXPECT_TRUE(a.Admit(Line(7)));   // third miss on 7
  EXPECT_EQ(a.Tracked(), 1u);      // only 8 left
  EXPECT_FALSE(a.Admit(Line(7)));  // counting starts again after admission
  EXPECT_FALSE(a.Admit(Line(8)));
  EXPECT_TRUE(a.Admit(Line(8)));
}

TEST(NhitAdmissionTest, CountsFallOutOfTheWindow) {
  NhitAdmission a(2, 4);
  EXPECT_FALSE(a.Admit(Line(1)));
  for (std::uint64_t l = 10; l < 14; ++l) EXPECT_FALSE(a.Admit(Line(l)));  // 4 newer lines
  EXPECT_FALSE(a.Admit(Line(1)));  // its first count was forgotten
  EXPECT_TRUE(a.Admit(Line(1)));
  EXPECT_LE(a.Tracked(), 4u);
  // Within the window the count survives.
  EXPECT_FALSE(a.Admit(Line(20)));
  EXPECT_FALSE(a.Admit(Line(21)));
  EXPECT_FALSE(a.Admit(Line(22)));
  EXPECT_TRUE(a.Admit(Line(20)));
}

TEST(NhitAdmissionTest, Specs) {
  auto a = MakeAdmissionPolicy("nhit:2", kLine);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->Name(), "nhit:2:65536");
  auto b = MakeAdmissionPolicy("nhit:1", kLine);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->Admit(Line(5)));
  auto c = MakeAdmissionPolicy("nhit:4:1000", kLine);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->Name(), "nhit:4:1000");
  for (const char* bad : {"nhit", "nhit:", "nhit:0", "nhit:x", "nhit:2:", "nhit:2:0", "nhit:2:5:6",
                          "nhit:-1", "nhit:70000", "nhit:2:999999999999"}) {
    EXPECT_EQ(MakeAdmissionPolicy(bad, kLine), nullptr) << bad;
  }
}

// Issues a request through Observe then Admit, as the cache target does.
bool Request(SeqCutoffAdmission& a, std::uint64_t offset, std::uint64_t length) {
  const AccessInfo info{offset, length, offset / kLine, false, 0};
  a.Observe(info);
  return a.Admit(info);
}

TEST(SeqCutoffAdmissionTest, LongStreamIsCutRandomAdmitted) {
  SeqCutoffAdmission a(1 << 20);  // 1 MiB
  const std::uint64_t io = 128 << 10;
  int admitted = 0;
  for (int i = 0; i < 16; ++i) admitted += Request(a, 1'000'000'000 + i * io, io);
  // 7 requests (896 KiB) admitted; the 8th brings the stream to 1 MiB.
  EXPECT_EQ(admitted, 7);
  EXPECT_EQ(a.StreamBytesEndingAt(1'000'000'000 + 16 * io), 16 * io);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_TRUE(Request(a, (rng() % 1'000'000) * kLine, kLine));
  }
}

TEST(SeqCutoffAdmissionTest, InterleavedStreamsAreTrackedSeparately) {
  SeqCutoffAdmission a(64 << 10);
  const std::uint64_t io = 16 << 10;
  std::vector<bool> s1, s2;
  for (int i = 0; i < 6; ++i) {
    s1.push_back(Request(a, 0 + i * io, io));
    s2.push_back(Request(a, (1ull << 30) + i * io, io));
  }
  const std::vector<bool> expected = {true, true, true, false, false, false};
  EXPECT_EQ(s1, expected);
  EXPECT_EQ(s2, expected);
}

TEST(SeqCutoffAdmissionTest, OldStreamsAreForgottenLru) {
  SeqCutoffAdmission a(32 << 10);
  const std::uint64_t io = 16 << 10;
  EXPECT_TRUE(Request(a, 0, io));
  for (std::uint64_t i = 1; i <= SeqCutoffAdmission::kStreams; ++i) {
    Request(a, i << 30, kLine);  // kStreams other streams push stream 0 out
  }
  EXPECT_TRUE(Request(a, io, io));  // looks like a new stream again
}

TEST(SeqCutoffAdmissionTest, Specs) {
  auto d = MakeAdmissionPolicy("seqcutoff", kLine);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->Name(), "seqcutoff:4194304");
  auto k = MakeAdmissionPolicy("seqcutoff:512k", kLine);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->Name(), "seqcutoff:524288");
  auto off = MakeAdmissionPolicy("seqcutoff:0", kLine);
  ASSERT_NE(off, nullptr);
  for (int i = 0; i < 100; ++i) {
    const AccessInfo info{static_cast<std::uint64_t>(i) << 20, 1 << 20, 0, false, 0};
    off->Observe(info);
    EXPECT_TRUE(off->Admit(info));
  }
  for (const char* bad : {"seqcutoff:", "seqcutoff:abc", "seqcutoff:4q", "seqcutoff:-1"}) {
    EXPECT_EQ(MakeAdmissionPolicy(bad, kLine), nullptr) << bad;
  }
}

TEST(PinnedAdmissionTest, RangesPinLinesAndOthersAreAdmitted) {
  auto a = MakeAdmissionPolicy("pinned:0-8k,1m-1052673", kLine);  // second ends 1 byte into a line
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->Pinned(0));
  EXPECT_TRUE(a->Pinned(1));
  EXPECT_FALSE(a->Pinned(2));
  EXPECT_FALSE(a->Pinned(255));
  EXPECT_TRUE(a->Pinned(256));
  EXPECT_TRUE(a->Pinned(257));  // partial line at the edge
  EXPECT_FALSE(a->Pinned(258));
  EXPECT_TRUE(a->Admit(Line(1)));
  EXPECT_TRUE(a->Admit(Line(1000)));
  EXPECT_EQ(a->Name(), "pinned:0-8k,1m-1052673");
}

TEST(PinnedAdmissionTest, OverlappingRangesMergeAndAllPinsEverything) {
  auto p = PinnedAdmission::FromSpec("12k-20k,0-16k,100k-104k", kLine);
  ASSERT_NE(p, nullptr);
  using R = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  EXPECT_EQ(p->LineRanges(), (R{{0, 5}, {25, 26}}));
  auto all = MakeAdmissionPolicy("pinned:all", kLine);
  ASSERT_NE(all, nullptr);
  EXPECT_TRUE(all->Pinned(0));
  EXPECT_TRUE(all->Pinned(UINT64_MAX));
}

TEST(PinnedAdmissionTest, MalformedSpecs) {
  for (const char* bad : {"pinned", "pinned:", "pinned:5", "pinned:8k-4k", "pinned:4k-4k",
                          "pinned:0-1g,", "pinned:a-b", "pinned:0-1g;2g-3g", "pinned:ALL"}) {
    EXPECT_EQ(MakeAdmissionPolicy(bad, kLine), nullptr) << bad;
  }
}

}  // namespace
}  // namespace tierlab
