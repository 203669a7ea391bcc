// A user's text inside a one-line error message.

#include <gtest/gtest.h>

#include <string>

#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

TEST(QuotedTextTest, PrintableTextIsQuotedAsIs) {
  EXPECT_EQ(QuotedText("4k-randread"), "'4k-randread'");
  EXPECT_EQ(QuotedText(""), "''");
}

TEST(QuotedTextTest, ControlBytesAndNonAsciiShowAsQuestionMarks) {
  // A newline would break the one-line message; an escape would reach the
  // terminal.
  EXPECT_EQ(QuotedText("4k-r\ndread"), "'4k-r?dread'");
  EXPECT_EQ(QuotedText("a\x1b[2Jb\x7f"), "'a?[2Jb?'");
  EXPECT_EQ(QuotedText("caf\xc3\xa9"),
            "'caf?"
            "?'");  // no trigraph
  EXPECT_EQ(QuotedText(std::string("a\0b", 3)), "'a?b'");
}

TEST(QuotedTextTest, MessagesThatQuoteWithDoubleQuotesKeepThem) {
  EXPECT_EQ(QuotedText("64k\n", '"'), "\"64k?\"");
}

TEST(QuotedTextTest, LongTextIsCutAt64Bytes) {
  const std::string shown(64, 'x');
  EXPECT_EQ(QuotedText(shown), "'" + shown + "'");
  EXPECT_EQ(QuotedText(shown + "y"), "'" + shown + "...'");
}

}  // namespace
}  // namespace tierlab
