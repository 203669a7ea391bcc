#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "tiering/nbd/NbdProtocol.h"

namespace tierlab::nbd {
namespace {

ByteView View(const Bytes& b) {
  return {b.data(), b.size()};
}

TEST(NbdProtocolTest, BigEndianHelpersRoundTrip) {
  std::byte buf[8];
  StoreBe64(buf, 0x0102030405060708ull);
  EXPECT_EQ(std::to_integer<int>(buf[0]), 1);
  EXPECT_EQ(std::to_integer<int>(buf[7]), 8);
  EXPECT_EQ(LoadBe64(buf), 0x0102030405060708ull);
  StoreBe32(buf, 0xdeadbeef);
  EXPECT_EQ(LoadBe32(buf), 0xdeadbeefu);
  StoreBe16(buf, 0xabcd);
  EXPECT_EQ(LoadBe16(buf), 0xabcd);
}

TEST(NbdProtocolTest, GreetingIsNewstyleWithFlags) {
  Bytes b;
  AppendGreeting(b, kFlagFixedNewstyle | kFlagNoZeroes);
  ASSERT_EQ(b.size(), kGreetingSize);
  EXPECT_EQ(std::memcmp(b.data(), "NBDMAGIC", 8), 0);
  EXPECT_EQ(std::memcmp(b.data() + 8, "IHAVEOPT", 8), 0);
  auto g = ParseGreeting(View(b));
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->handshake_flags, kFlagFixedNewstyle | kFlagNoZeroes);
  b[3] = std::byte{0};
  EXPECT_FALSE(ParseGreeting(View(b)).ok());
}

TEST(NbdProtocolTest, ClientFlagsRejectUnknownBits) {
  Bytes b;
  AppendClientFlags(b, kClientFlagFixedNewstyle | kClientFlagNoZeroes);
  auto f = ParseClientFlags(View(b));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, kClientFlagFixedNewstyle | kClientFlagNoZeroes);
  Bytes bad;
  AppendClientFlags(bad, kClientFlagFixedNewstyle | 0x80);
  auto e = ParseClientFlags(View(bad));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("unknown bits"), std::string::npos);
  EXPECT_FALSE(ParseClientFlags(ByteView(bad.data(), 3)).ok());
}

TEST(NbdProtocolTest, OptionHeaderRoundTripAndBadMagic) {
  Bytes b;
  const std::array<std::byte, 3> data{std::byte{1}, std::byte{2}, std::byte{3}};
  AppendOption(b, kOptGo, data);
  ASSERT_EQ(b.size(), kOptionHeaderSize + 3);
  auto h = ParseOptionHeader(View(b));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->option, kOptGo);
  EXPECT_EQ(h->length, 3u);
  EXPECT_FALSE(ParseOptionHeader(ByteView(b.data(), kOptionHeaderSize - 1)).ok());
  b[0] = std::byte{'X'};
  auto e = ParseOptionHeader(View(b));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("bad magic"), std::string::npos);
}

TEST(NbdProtocolTest, InfoRequestRoundTrip) {
  Bytes b;
  const std::array<std::uint16_t, 2> infos{kInfoBlockSize, kInfoName};
  AppendInfoRequestData(b, "vol0", infos);
  auto r = ParseInfoRequest(View(b));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->name, "vol0");
  EXPECT_EQ(r->infos, (std::vector<std::uint16_t>{kInfoBlockSize, kInfoName}));
}

TEST(NbdProtocolTest, InfoRequestRejectsInconsistentLengths) {
  Bytes b;
  const std::array<std::uint16_t, 1> infos{kInfoBlockSize};
  AppendInfoRequestData(b, "vol0", infos);
  // Missing the last byte, one byte too many, a name length past the data.
  EXPECT_FALSE(ParseInfoRequest(ByteView(b.data(), b.size() - 1)).ok());
  Bytes longer = b;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(ParseInfoRequest(View(longer)).ok());
  Bytes bad_name = b;
  StoreBe32(bad_name.data(), 1000);
  EXPECT_FALSE(ParseInfoRequest(View(bad_name)).ok());
  Bytes huge_name = b;
  StoreBe32(huge_name.data(), 0xffffffffu);
  EXPECT_FALSE(ParseInfoRequest(View(huge_name)).ok());
  EXPECT_FALSE(ParseInfoRequest(ByteView{}).ok());
  Bytes nul;
  AppendInfoRequestData(nul, std::string_view("a\0b", 3), {});
  EXPECT_FALSE(ParseInfoRequest(View(nul)).ok());
}

TEST(NbdProtocolTest, RequestHeaderRoundTrip) {
  RequestHeader in;
  in.flags = kCmdFlagFua;
  in.type = kCmdWrite;
  in.cookie = 0x1122334455667788ull;
  in.offset = 1ull << 40;
  in.length = 65536;
  Bytes b;
  AppendRequest(b, in);
  ASSERT_EQ(b.size(), kRequestHeaderSize);
  auto out = ParseRequestHeader(View(b));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->flags, in.flags);
  EXPECT_EQ(out->type, in.type);
  EXPECT_EQ(out->cookie, in.cookie);
  EXPECT_EQ(out->offset, in.offset);
  EXPECT_EQ(out->length, in.length);
  b[1] = std::byte{0};
  EXPECT_FALSE(ParseRequestHeader(View(b)).ok());
  EXPECT_FALSE(ParseRequestHeader(ByteView(b.data(), 27)).ok());
}

TEST(NbdProtocolTest, SimpleReplyRoundTrip) {
  std::byte buf[kSimpleReplySize];
  EncodeSimpleReply(buf, kErrInval, 42);
  auto r = ParseSimpleReply({buf, sizeof buf});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->error, kErrInval);
  EXPECT_EQ(r->cookie, 42u);
}

TEST(NbdProtocolTest, OptionRepliesHaveTheAdvertisedLengths) {
  Bytes b;
  AppendInfoExport(b, kOptGo, 1ull << 30, kTxHasFlags | kTxSendFlush);
  AppendInfoBlockSize(b, kOptGo, 512, 4096, 32u << 20);
  AppendServerReply(b, kOptList, "vol0");
  AppendOptionError(b, kOptStructuredReply, kRepErrUnsup, "no");
  AppendOptionReply(b, kOptGo, kRepAck);
  std::size_t pos = 0;
  std::vector<OptionReplyHeader> seen;
  while (pos < b.size()) {
    auto h = ParseOptionReplyHeader(ByteView(b.data() + pos, b.size() - pos));
    ASSERT_TRUE(h.ok()) << h.error().message;
    seen.push_back(*h);
    const std::byte* d = b.data() + pos + kOptionReplyHeaderSize;
    if (h->type == kRepInfo && LoadBe16(d) == kInfoExport) {
      EXPECT_EQ(LoadBe64(d + 2), 1ull << 30);
      EXPECT_EQ(LoadBe16(d + 10), kTxHasFlags | kTxSendFlush);
    }
    if (h->type == kRepInfo && LoadBe16(d) == kInfoBlockSize) {
      EXPECT_EQ(LoadBe32(d + 2), 512u);
      EXPECT_EQ(LoadBe32(d + 6), 4096u);
      EXPECT_EQ(LoadBe32(d + 10), 32u << 20);
    }
    pos += kOptionReplyHeaderSize + h->length;
  }
  EXPECT_EQ(pos, b.size());
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0].length, 12u);
  EXPECT_EQ(seen[1].length, 14u);
  EXPECT_EQ(seen[2].type, kRepServer);
  EXPECT_EQ(seen[2].length, 8u);
  EXPECT_EQ(seen[3].type, kRepErrUnsup);
  EXPECT_EQ(seen[4].type, kRepAck);
  EXPECT_EQ(seen[4].length, 0u);
}

TEST(NbdProtocolTest, ExportNameReplyHonoursNoZeroes) {
  Bytes with, without;
  AppendExportNameReply(with, 4096, kTxHasFlags, false);
  AppendExportNameReply(without, 4096, kTxHasFlags, true);
  EXPECT_EQ(with.size(), 10 + kExportNameZeroes);
  EXPECT_EQ(without.size(), 10u);
  EXPECT_EQ(LoadBe64(without.data()), 4096u);
}

ExportInfo TestExport() {
  ExportInfo e;
  e.size = 1 << 20;
  e.min_block = 512;
  e.max_payload = 64 << 10;
  e.tx_flags = kTxHasFlags | kTxSendFlush | kTxSendFua | kTxSendTrim | kTxSendWriteZeroes;
  return e;
}

RequestHeader Req(std::uint16_t type, std::uint64_t offset, std::uint32_t length,
                  std::uint16_t flags = 0) {
  RequestHeader r;
  r.type = type;
  r.offset = offset;
  r.length = length;
  r.flags = flags;
  return r;
}

TEST(NbdProtocolTest, CheckRequestAcceptsValidRequests) {
  const ExportInfo e = TestExport();
  EXPECT_EQ(CheckRequest(Req(kCmdRead, 0, 4096), e), 0u);
  EXPECT_EQ(CheckRequest(Req(kCmdWrite, (1 << 20) - 512, 512, kCmdFlagFua), e), 0u);
  EXPECT_EQ(CheckRequest(Req(kCmdFlush, 0, 0), e), 0u);
  EXPECT_EQ(CheckRequest(Req(kCmdTrim, 0, 1 << 20), e), 0u);  // no payload cap for trim
  EXPECT_EQ(CheckRequest(Req(kCmdWriteZeroes, 0, 1 << 20, kCmdFlagNoHole), e), 0u);
}

TEST(NbdProtocolTest, CheckRequestRejectsBadRequestsWithSpecErrors) {
  const ExportInfo e = TestExport();
  EXPECT_EQ(CheckRequest(Req(kCmdRead, 1 << 20, 512), e), kErrInval);  // past the end
  EXPECT_EQ(CheckRequest(Req(kCmdRead, (1 << 20) - 512, 1024), e), kErrInval);
  EXPECT_EQ(CheckRequest(Req(kCmdTrim, 0, (1 << 20) + 512), e), kErrInval);
  EXPECT_EQ(CheckRequest(Req(kCmdWrite, 1 << 20, 512), e), kErrNoSpc);
  EXPECT_EQ(CheckRequest(Req(kCmdRead, ~0ull - 511, 512), e), kErrInval);  // overflow
  EXPECT_EQ(CheckRequest(Req(kCmdRead, 100, 512), e), kErrInval);          // misaligned
  EXPECT_EQ(CheckRequest(Req(kCmdWrite, 0, 100), e), kErrInval);
  EXPECT_EQ(CheckRequest(Req(kCmdRead, 0, 128 << 10), e), kErrInval);  // over max payload
  EXPECT_EQ(CheckRequest(Req(kCmdCache, 0, 512), e), kErrInval);       // not offered
  EXPECT_EQ(CheckRequest(Req(kCmdBlockStatus, 0, 512), e), kErrInval);
  EXPECT_EQ(CheckRequest(Req(99, 0, 512), e), kErrInval);
  EXPECT_EQ(CheckRequest(Req(kCmdRead, 0, 512, kCmdFlagDf), e), kErrInval);  // no structured
  EXPECT_EQ(CheckRequest(Req(kCmdWrite, 0, 512, kCmdFlagFastZero), e), kErrInval);
  ExportInfo no_trim = e;
  no_trim.tx_flags &= static_cast<std::uint16_t>(~kTxSendTrim);
  EXPECT_EQ(CheckRequest(Req(kCmdTrim, 0, 512), no_trim), kErrInval);
  ExportInfo ro = e;
  ro.tx_flags |= kTxReadOnly;
  EXPECT_EQ(CheckRequest(Req(kCmdWrite, 0, 512), ro), kErrPerm);
}

TEST(NbdProtocolTest, CheckRequestBlockStatusAndDfFollowTheSession) {
  const ExportInfo e = TestExport();
  Session structured;
  structured.structured_replies = true;
  Session meta = structured;
  meta.base_allocation = true;
  EXPECT_EQ(CheckRequest(Req(kCmdRead, 0, 512, kCmdFlagDf), e, structured), 0u);
  EXPECT_EQ(CheckRequest(Req(kCmdBlockStatus, 0, 512), e, structured), kErrInval);  // no context
  EXPECT_EQ(CheckRequest(Req(kCmdBlockStatus, 0, 1 << 20), e, meta), 0u);  // no payload cap
  EXPECT_EQ(CheckRequest(Req(kCmdBlockStatus, 100, 7, kCmdFlagReqOne), e, meta), 0u);  // unaligned
  EXPECT_EQ(CheckRequest(Req(kCmdBlockStatus, 0, 0), e, meta), kErrInval);
  EXPECT_EQ(CheckRequest(Req(kCmdBlockStatus, (1 << 20) - 512, 1024), e, meta), kErrInval);
  EXPECT_EQ(CheckRequest(Req(kCmdBlockStatus, 0, 512, kCmdFlagDf), e, meta), kErrInval);
}

TEST(NbdProtocolTest, MetaContextRequestRoundTripAndErrors) {
  const std::vector<std::string> queries{"base:allocation", "", "qemu:dirty-bitmap:b0"};
  Bytes b;
  AppendMetaContextRequestData(b, "vol", queries);
  auto r = ParseMetaContextRequest(View(b));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->name, "vol");
  EXPECT_EQ(r->queries, queries);
  Bytes none;
  AppendMetaContextRequestData(none, "", {});
  ASSERT_TRUE(ParseMetaContextRequest(View(none)).ok());
  EXPECT_TRUE(ParseMetaContextRequest(View(none))->queries.empty());
  // Trailing bytes, a count the data cannot hold, truncation, NUL.
  Bytes extra = b;
  extra.push_back(std::byte{0});
  EXPECT_FALSE(ParseMetaContextRequest(View(extra)).ok());
  Bytes many = none;
  StoreBe32(many.data() + 4, 1000000);
  auto e = ParseMetaContextRequest(View(many));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("do not fit"), std::string::npos) << e.error().message;
  for (std::size_t n = 0; n < b.size(); ++n) {
    EXPECT_FALSE(ParseMetaContextRequest({b.data(), n}).ok()) << n;
  }
  Bytes nul;
  AppendMetaContextRequestData(nul, std::string("a\0b", 3), {});
  EXPECT_FALSE(ParseMetaContextRequest(View(nul)).ok());
}

TEST(NbdProtocolTest, ChunkEncodersMatchTheWireFormat) {
  std::byte h[kOffsetDataHeaderSize];
  EncodeOffsetDataHeader(h, kReplyFlagDone, 0x1122334455667788ull, 4096, 512);
  auto c = ParseChunkHeader({h, kStructuredReplyHeaderSize});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->flags, kReplyFlagDone);
  EXPECT_EQ(c->type, kReplyTypeOffsetData);
  EXPECT_EQ(c->cookie, 0x1122334455667788ull);
  EXPECT_EQ(c->length, 8u + 512);
  EXPECT_EQ(LoadBe64(h + kStructuredReplyHeaderSize), 4096u);
  std::byte err[kErrorChunkSize];
  EncodeErrorChunk(err, kErrIo, 9);
  c = ParseChunkHeader({err, kStructuredReplyHeaderSize});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->type, kReplyTypeError);
  EXPECT_EQ(c->length, 6u);
  EXPECT_EQ(LoadBe32(err + kStructuredReplyHeaderSize), kErrIo);
  EXPECT_EQ(LoadBe16(err + kStructuredReplyHeaderSize + 4), 0u);
  err[0] = std::byte{0};
  EXPECT_FALSE(ParseChunkHeader({err, kStructuredReplyHeaderSize}).ok());
  Bytes m;
  AppendMetaContextReply(m, kOptSetMetaContext, 7, kBaseAllocation);
  auto rh = ParseOptionReplyHeader(View(m));
  ASSERT_TRUE(rh.ok());
  EXPECT_EQ(rh->type, kRepMetaContext);
  EXPECT_EQ(rh->length, 4 + kBaseAllocation.size());
  EXPECT_EQ(LoadBe32(m.data() + kOptionReplyHeaderSize), 7u);
}

TEST(NbdProtocolTest, StatusMapsToProtocolErrorValues) {
  EXPECT_EQ(ToNbdError(Status::kOk), 0u);
  EXPECT_EQ(ToNbdError(Status::kIoError), 5u);
  EXPECT_EQ(ToNbdError(Status::kInvalid), 22u);
  EXPECT_EQ(ToNbdError(Status::kNoSpace), 28u);
  EXPECT_EQ(ToNbdError(Status::kNotSupported), 95u);
  EXPECT_EQ(ToNbdError(Status::kShutdown), 108u);
}

// Every prefix and every single-byte corruption of valid messages parses or
// fails cleanly (no crash, no read past the input: run under ASan).
TEST(NbdProtocolTest, TruncatedAndCorruptedInputNeverCrashes) {
  Bytes info;
  const std::array<std::uint16_t, 2> infos{kInfoBlockSize, kInfoName};
  AppendInfoRequestData(info, "export", infos);
  Bytes req;
  AppendRequest(req, Req(kCmdWrite, 4096, 512));
  for (const Bytes* msg : {&info, &req}) {
    for (std::size_t n = 0; n <= msg->size(); ++n) {
      const ByteView v(msg->data(), n);
      (void)ParseInfoRequest(v);
      (void)ParseMetaContextRequest(v);
      (void)ParseRequestHeader(v);
      (void)ParseOptionHeader(v);
      (void)ParseClientFlags(v);
    }
    for (std::size_t i = 0; i < msg->size(); ++i) {
      Bytes m = *msg;
      m[i] ^= std::byte{0xff};
      (void)ParseInfoRequest(View(m));
      auto r = ParseRequestHeader(View(m));
      if (i < 4) {
        EXPECT_FALSE(r.ok());  // the magic
      }
    }
  }
}

}  // namespace
}  // namespace tierlab::nbd
