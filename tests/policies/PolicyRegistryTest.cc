#include <gtest/gtest.h>

#include "policies/PolicyRegistry.h"

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
