// InlineFunction keeps a callable's state across moves and destroys it
// exactly once, for trivially copyable captures (copied without the ops
// table) and for captures with their own move and destructor alike.

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "tiering/core/InlineFunction.h"

namespace tierlab {
namespace {

TEST(InlineFunctionTest, TrivialCaptureSurvivesMoves) {
  int sum = 0;
  int a = 3, b = 4;
  InlineFunction<void(int), 48> f = [&sum, a, b](int x) { sum += a * b + x; };
  InlineFunction<void(int), 48> g = std::move(f);
  EXPECT_FALSE(f);
  InlineFunction<void(int), 48> h;
  h = std::move(g);
  ASSERT_TRUE(h);
  h(1);
  EXPECT_EQ(sum, 13);
}

TEST(InlineFunctionTest, NonTrivialCaptureIsMovedAndDestroyedOnce) {
  auto token = std::make_shared<int>(7);
  int seen = 0;
  {
    InlineFunction<void(), 96> f = [&seen, p = token] { seen = *p; };
    EXPECT_EQ(token.use_count(), 2);
    InlineFunction<void(), 96> g = std::move(f);
    EXPECT_EQ(token.use_count(), 2);  // moved, not copied
    InlineFunction<void(), 96> h;
    h = std::move(g);
    EXPECT_EQ(token.use_count(), 2);
    h();
    EXPECT_EQ(seen, 7);
    h = nullptr;
    EXPECT_EQ(token.use_count(), 1);  // assigning empty destroys the capture
    InlineFunction<void(), 96> k = [p = token] { (void)p; };
    EXPECT_EQ(token.use_count(), 2);
  }
  EXPECT_EQ(token.use_count(), 1);
}

TEST(InlineFunctionTest, MoveOnlyCaptureAndReturnValue) {
  InlineFunction<int(int), 48> f = [p = std::make_unique<int>(5)](int x) { return *p + x; };
  InlineFunction<int(int), 48> g = std::move(f);
  EXPECT_EQ(g(2), 7);
}

}  // namespace
}  // namespace tierlab
