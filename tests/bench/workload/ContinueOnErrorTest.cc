#include <gtest/gtest.h>

#include <cerrno>

#include "bench/workload/ContinueOnError.h"

namespace tierlab {
namespace {

ContinueOnError Parsed(std::string_view continue_on, std::string_view ignore = {}) {
  ContinueOnError c;
  EXPECT_TRUE(ParseContinueOnError(continue_on, c).ok()) << continue_on;
  if (!ignore.empty()) {
    EXPECT_TRUE(ParseIgnoreError(ignore, c).ok()) << ignore;
  }
  return c;
}

TEST(ContinueOnErrorTest, FiosDefaultEndsAJobAtItsFirstError) {
  const ContinueOnError none;
  for (ErrorType t : {ErrorType::kRead, ErrorType::kWrite, ErrorType::kVerify}) {
    EXPECT_FALSE(none.Continues(t, EIO));
    EXPECT_FALSE(none.Continues(t, EILSEQ));
  }
}

TEST(ContinueOnErrorTest, EachNameContinuesItsTypesAfterEioAndEilseqOnly) {
  const ContinueOnError io = Parsed("io");
  EXPECT_TRUE(io.Continues(ErrorType::kRead, EIO));
  EXPECT_TRUE(io.Continues(ErrorType::kWrite, EIO));
  EXPECT_FALSE(io.Continues(ErrorType::kVerify, EILSEQ));
  EXPECT_FALSE(io.Continues(ErrorType::kWrite, ENOSPC));  // not a "non-fatal" error
  EXPECT_TRUE(Parsed("verify").Continues(ErrorType::kVerify, EILSEQ));
  EXPECT_FALSE(Parsed("read").Continues(ErrorType::kWrite, EIO));
  EXPECT_TRUE(Parsed("1").Continues(ErrorType::kVerify, EILSEQ));
  EXPECT_EQ(Parsed("0"), ContinueOnError{});
}

TEST(ContinueOnErrorTest, IgnoreErrorReplacesATypesListAndContinuesIt) {
  // enospc-pressure.fio's form: reads keep the default, writes go on after ENOSPC only.
  const ContinueOnError c = Parsed("none", ",ENOSPC");
  EXPECT_FALSE(c.Continues(ErrorType::kRead, EIO));
  EXPECT_TRUE(c.Continues(ErrorType::kWrite, ENOSPC));
  EXPECT_FALSE(c.Continues(ErrorType::kWrite, EIO));
  // Names and numbers (122 is EDQUOT, outside fio's table), negatives as fio.
  const ContinueOnError d = Parsed("none", "EAGAIN,ENOSPC:122,-84");
  EXPECT_TRUE(d.Continues(ErrorType::kRead, EAGAIN));
  EXPECT_TRUE(d.Continues(ErrorType::kWrite, 122));
  EXPECT_TRUE(d.Continues(ErrorType::kVerify, EILSEQ));
}

TEST(ContinueOnErrorTest, ALaterContinueOnErrorSetsEveryTypeAgain) {
  ContinueOnError c = Parsed("none", "EIO,ENOSPC");
  ASSERT_TRUE(ParseContinueOnError("read", c).ok());
  EXPECT_TRUE(c.Continues(ErrorType::kRead, EIO));
  EXPECT_FALSE(c.Continues(ErrorType::kWrite, ENOSPC));
  EXPECT_TRUE(c.ignore[1].empty());  // without effect, so dropped
}

TEST(ContinueOnErrorTest, BadValuesAreRefusedWithTheReason) {
  ContinueOnError c;
  auto a = ParseContinueOnError("sometimes", c);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("valid: none, read"), std::string::npos);
  auto b = ParseIgnoreError("EIO:EWHAT", c);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("unknown error 'EWHAT'"), std::string::npos);
  EXPECT_FALSE(ParseIgnoreError("EIO,EIO,EIO,EIO", c).ok());
  EXPECT_FALSE(ParseIgnoreError("0", c).ok());
}

TEST(ContinueOnErrorTest, TextsReadBackToTheSameValue) {
  for (auto [cont, ignore] : {std::pair{"none", ""},
                              {"all", ""},
                              {"verify", "EIO:ENOSPC"},
                              {"read", ",ENOSPC"},
                              {"none", ",,84:122"},
                              {"io", "EAGAIN,ENOSPC:122"}}) {
    const ContinueOnError c = Parsed(cont, ignore);
    ContinueOnError back;
    ASSERT_TRUE(ParseContinueOnError(ContinueOnErrorText(c), back).ok());
    ASSERT_TRUE(ParseIgnoreError(IgnoreErrorText(c), back).ok());
    EXPECT_EQ(back, c) << cont << " " << ignore << " -> " << ContinueOnErrorText(c) << " "
                       << IgnoreErrorText(c);
  }
}

TEST(ContinueOnErrorTest, TheErrorTypeIsVerifyForEilseqElseTheDirections) {
  EXPECT_EQ(ErrorTypeOf(IoOp::kRead, EIO), ErrorType::kRead);
  EXPECT_EQ(ErrorTypeOf(IoOp::kRead, EILSEQ), ErrorType::kVerify);
  EXPECT_EQ(ErrorTypeOf(IoOp::kDiscard, EIO), ErrorType::kWrite);
  EXPECT_EQ(ErrorTypeOf(IoOp::kFlush, EIO), ErrorType::kWrite);
  EXPECT_EQ(ErrnoName(ENOSPC), "ENOSPC");
  EXPECT_EQ(ErrnoName(84), "84");
}

}  // namespace
}  // namespace tierlab
