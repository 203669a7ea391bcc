#include <gtest/gtest.h>

#include "policies/NhitAdmission.h"
#include "policies/PolicyRegistry.h"
#include "policies/S3FifoPolicy.h"

namespace tierlab {
namespace {

TEST(PolicyRegistryTest, EveryListedReplacementPolicyIsConstructible) {
  const auto names = ReplacementPolicyNames();
  EXPECT_FALSE(names.empty());
  for (const std::string& n : names) {
    auto p = MakeReplacementPolicy(n, 16);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(p->Name(), n);
    EXPECT_EQ(p->Size(), 0u);
  }
  EXPECT_EQ(MakeReplacementPolicy("nope", 16), nullptr);
  EXPECT_EQ(MakeReplacementPolicy("LRU", 16), nullptr);  // names are exact
}

TEST(PolicyRegistryTest, AdmissionSpecs) {
  auto always = MakeAdmissionPolicy("always", 4096);
  ASSERT_NE(always, nullptr);
  EXPECT_EQ(always->Name(), "always");
  EXPECT_TRUE(always->Admit(AccessInfo{}));
  EXPECT_FALSE(always->Pinned(0));
  EXPECT_EQ(MakeAdmissionPolicy("always:1", 4096), nullptr);
  EXPECT_EQ(MakeAdmissionPolicy("", 4096), nullptr);
  EXPECT_EQ(MakeAdmissionPolicy("always", 0), nullptr);
  for (const std::string& n : AdmissionPolicyNames()) EXPECT_FALSE(n.empty());
}

TEST(PolicyRegistryTest, DestageOrders) {
  for (const std::string& n : DestageOrderNames()) {
    auto d = MakeDestageOrder(n);
    ASSERT_NE(d, nullptr) << n;
    EXPECT_EQ(d->Name(), n);
    EXPECT_EQ(d->OldestDirtyNs(), -1);
  }
  EXPECT_EQ(MakeDestageOrder("elevator"), nullptr);
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

TEST(PolicyRegistryTest, SpecsSayWhyTheyAreBad) {
  auto unknown = ParseReplacementSpec("mru");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message.rfind("unknown \"mru\"; known: lru, fifo, clock", 0), 0u)
      << unknown.error().message;
  auto param = ParseReplacementSpec("lru:x=1");
  ASSERT_FALSE(param.ok());
  EXPECT_EQ(param.error().message, "lru: takes no parameters, got \"x=1\"");
  auto key = ParseReplacementSpec("s3fifo:small=0.2");
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.error().message,
            "s3fifo: unknown parameter \"small\"; known: small_size_ratio, ghost_size_ratio, "
            "move_to_main_threshold");
  auto range = ParseReplacementSpec("s3fifo:small_size_ratio=1.5");
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.error().message,
            "s3fifo: parameter \"small_size_ratio=1.5\": small_size_ratio must be a number > 0 "
            "and < 1");
  auto nhit = ParseAdmissionSpec("nhit:0");
  ASSERT_FALSE(nhit.ok());
  EXPECT_EQ(nhit.error().message.rfind("bad spec \"nhit:0\"; expected nhit:N[:WINDOW]", 0), 0u)
      << nhit.error().message;
  // The largest window is read without building its tables (about 2 GiB;
  // ValueTextFuzz ran out of memory parsing one), the next one refused.
  EXPECT_TRUE(ParseAdmissionSpec("nhit:2:67108864").ok());
  EXPECT_FALSE(ParseAdmissionSpec("nhit:2:67108865").ok());
  const auto p = NhitAdmission::ParseParams("3:1000");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->n, 3u);
  EXPECT_EQ(p->window, 1000u);
  auto ok = ParseReplacementSpec("s3fifo:small_size_ratio=0.2,move_to_main_threshold=1");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->text, "s3fifo:small_size_ratio=0.2,move_to_main_threshold=1");
  EXPECT_NE(ok->make(16, 1), nullptr);
}

// S's oldest line, touched once: with libCacheSim's default threshold 2 it is
// the victim; with move_to_main_threshold=1 it moves to M and the next one goes.
TEST(PolicyRegistryTest, S3FifoTakesItsParameters) {
  for (const auto& [spec, victim] :
       {std::pair<const char*, Slot>{"s3fifo", 0}, {"s3fifo:move_to_main_threshold=1", 1}}) {
    auto s = ParseReplacementSpec(spec);
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto p = s->make(10, 1);
    for (Slot i = 0; i < 10; ++i) p->Insert(i, 100 + i);
    p->Touch(0);
    EXPECT_EQ(p->Evict(), std::optional<Slot>(victim)) << spec;
  }
}

}  // namespace
}  // namespace tierlab
