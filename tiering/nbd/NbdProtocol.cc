#include "tiering/nbd/NbdProtocol.h"

#include <cstdio>
#include <cstring>

namespace tierlab::nbd {

std::uint16_t LoadBe16(const std::byte* p) {
  return static_cast<std::uint16_t>((std::to_integer<unsigned>(p[0]) << 8) |
                                    std::to_integer<unsigned>(p[1]));
}
std::uint32_t LoadBe32(const std::byte* p) {
  return (std::uint32_t{LoadBe16(p)} << 16) | LoadBe16(p + 2);
}
std::uint64_t LoadBe64(const std::byte* p) {
  return (std::uint64_t{LoadBe32(p)} << 32) | LoadBe32(p + 4);
}
void StoreBe16(std::byte* p, std::uint16_t v) {
  p[0] = static_cast<std::byte>(v >> 8);
  p[1] = static_cast<std::byte>(v);
}
void StoreBe32(std::byte* p, std::uint32_t v) {
  StoreBe16(p, static_cast<std::uint16_t>(v >> 16));
  StoreBe16(p + 2, static_cast<std::uint16_t>(v));
}
void StoreBe64(std::byte* p, std::uint64_t v) {
  StoreBe32(p, static_cast<std::uint32_t>(v >> 32));
  StoreBe32(p + 4, static_cast<std::uint32_t>(v));
}

namespace {

void Put16(Bytes& out, std::uint16_t v) {
  out.resize(out.size() + 2);
  StoreBe16(out.data() + out.size() - 2, v);
}
void Put32(Bytes& out, std::uint32_t v) {
  out.resize(out.size() + 4);
  StoreBe32(out.data() + out.size() - 4, v);
}
void Put64(Bytes& out, std::uint64_t v) {
  out.resize(out.size() + 8);
  StoreBe64(out.data() + out.size() - 8, v);
}
void PutBytes(Bytes& out, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  out.insert(out.end(), b, b + n);
}

Error TooShort(const char* what, std::size_t need, std::size_t got) {
  return MakeError(std::string(what) + ": need " + std::to_string(need) + " bytes, got " +
                   std::to_string(got));
}

std::string Hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Header of one option reply; `length` bytes of data follow.
void PutOptionReplyHeader(Bytes& out, std::uint32_t option, std::uint32_t type,
                          std::uint32_t length) {
  Put64(out, kOptReplyMagic);
  Put32(out, option);
  Put32(out, type);
  Put32(out, length);
}

}  // namespace

Expected<std::uint32_t> ParseClientFlags(ByteView in) {
  if (in.size() < kClientFlagsSize) return TooShort("client flags", kClientFlagsSize, in.size());
  const std::uint32_t flags = LoadBe32(in.data());
  constexpr std::uint32_t kKnown = kClientFlagFixedNewstyle | kClientFlagNoZeroes;
  // The spec makes the server drop a client that sets a flag it did not offer.
  if ((flags & ~kKnown) != 0)
    return MakeError("client flags: unknown bits " + Hex(flags & ~kKnown));
  return flags;
}

Expected<OptionHeader> ParseOptionHeader(ByteView in) {
  if (in.size() < kOptionHeaderSize) return TooShort("option header", kOptionHeaderSize, in.size());
  const std::uint64_t magic = LoadBe64(in.data());
  if (magic != kOptMagic) return MakeError("option header: bad magic " + Hex(magic));
  return OptionHeader{LoadBe32(in.data() + 8), LoadBe32(in.data() + 12)};
}

Expected<InfoRequest> ParseInfoRequest(ByteView in) {
  if (in.size() < 4) return TooShort("info request", 4, in.size());
  const std::uint32_t name_len = LoadBe32(in.data());
  if (name_len > kMaxStringLength) {
    return MakeError("info request: export name length " + std::to_string(name_len) + " over " +
                     std::to_string(kMaxStringLength));
  }
  // 4 (name length) + name + 2 (count) at least.
  if (in.size() < 6ull + name_len) return TooShort("info request", 6ull + name_len, in.size());
  InfoRequest r;
  r.name.assign(reinterpret_cast<const char*>(in.data() + 4), name_len);
  if (r.name.find('\0') != std::string::npos) return MakeError("info request: NUL in export name");
  const std::uint16_t count = LoadBe16(in.data() + 4 + name_len);
  const std::size_t need = 6ull + name_len + 2ull * count;
  if (in.size() != need) {
    return MakeError("info request: length " + std::to_string(in.size()) + " does not match " +
                     std::to_string(need) + " implied by its counts");
  }
  r.infos.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    r.infos.push_back(LoadBe16(in.data() + 6 + name_len + 2 * i));
  return r;
}

Expected<MetaContextRequest> ParseMetaContextRequest(ByteView in) {
  MetaContextRequest r;
  std::size_t pos = 0;
  // One length-prefixed string at `pos`, named `what` in errors.
  auto string_at = [&](const char* what, std::string* out) -> Expected<void> {
    if (in.size() - pos < 4) return TooShort("meta context request", pos + 4, in.size());
    const std::uint32_t len = LoadBe32(in.data() + pos);
    pos += 4;
    if (len > kMaxStringLength) {
      return MakeError(std::string("meta context request: ") + what + " length " +
                       std::to_string(len) + " over " + std::to_string(kMaxStringLength));
    }
    if (in.size() - pos < len) return TooShort("meta context request", pos + len, in.size());
    out->assign(reinterpret_cast<const char*>(in.data() + pos), len);
    pos += len;
    if (out->find('\0') != std::string::npos) {
      return MakeError(std::string("meta context request: NUL in ") + what);
    }
    return {};
  };
  if (auto e = string_at("export name", &r.name); !e) return e.error();
  if (in.size() - pos < 4) return TooShort("meta context request", pos + 4, in.size());
  const std::uint32_t count = LoadBe32(in.data() + pos);
  pos += 4;
  // Each query takes at least its 4-byte length: a count the data cannot
  // hold is refused before anything is reserved for it.
  if (count > (in.size() - pos) / 4) {
    return MakeError("meta context request: " + std::to_string(count) + " queries do not fit in " +
                     std::to_string(in.size() - pos) + " bytes");
  }
  r.queries.resize(count);
  for (std::string& q : r.queries) {
    if (auto e = string_at("query", &q); !e) return e.error();
  }
  if (pos != in.size()) {
    return MakeError("meta context request: " + std::to_string(in.size() - pos) +
                     " bytes after the last query");
  }
  return r;
}

Expected<RequestHeader> ParseRequestHeader(ByteView in) {
  if (in.size() < kRequestHeaderSize) return TooShort("request", kRequestHeaderSize, in.size());
  const std::uint32_t magic = LoadBe32(in.data());
  if (magic != kRequestMagic) return MakeError("request: bad magic " + Hex(magic));
  RequestHeader r;
  r.flags = LoadBe16(in.data() + 4);
  r.type = LoadBe16(in.data() + 6);
  r.cookie = LoadBe64(in.data() + 8);
  r.offset = LoadBe64(in.data() + 16);
  r.length = LoadBe32(in.data() + 24);
  return r;
}

std::uint32_t CheckRequest(const RequestHeader& req, const ExportInfo& info,
                           const Session& session) {
  std::uint16_t allowed_flags = 0;
  bool ranged = true;  // offset/length address the export
  bool writes = false;
  switch (req.type) {
    case kCmdRead:
      allowed_flags = kCmdFlagFua;  // clients are known to set FUA on reads; harmless
      // One data chunk per read: a read never fragments, so DF costs nothing.
      if (session.structured_replies) allowed_flags |= kCmdFlagDf;
      break;
    case kCmdBlockStatus:
      if (!session.base_allocation) return kErrInval;
      if ((req.flags & ~(kCmdFlagFua | kCmdFlagReqOne)) != 0) return kErrInval;
      if ((req.flags & kCmdFlagFua) != 0 && (info.tx_flags & kTxSendFua) == 0) return kErrInval;
      if (req.length == 0 || req.offset > info.size || req.length > info.size - req.offset) {
        return kErrInval;
      }
      return 0;
    case kCmdWrite:
      allowed_flags = kCmdFlagFua;
      writes = true;
      break;
    case kCmdFlush:
    case kCmdDisc:
      allowed_flags = kCmdFlagFua;
      ranged = false;
      break;
    case kCmdTrim:
      if ((info.tx_flags & kTxSendTrim) == 0) return kErrInval;
      allowed_flags = kCmdFlagFua;
      break;
    case kCmdWriteZeroes:
      if ((info.tx_flags & kTxSendWriteZeroes) == 0) return kErrInval;
      allowed_flags = kCmdFlagFua | kCmdFlagNoHole;
      writes = true;
      break;
    default: return kErrInval;
  }
  if ((req.flags & ~allowed_flags) != 0) return kErrInval;
  if ((req.flags & kCmdFlagFua) != 0 && (info.tx_flags & kTxSendFua) == 0) return kErrInval;
  if ((info.tx_flags & kTxReadOnly) != 0 && (writes || req.type == kCmdTrim)) return kErrPerm;
  if (!ranged) return 0;
  if ((req.type == kCmdRead || req.type == kCmdWrite) && req.length > info.max_payload) {
    return kErrInval;
  }
  const std::uint32_t align = info.min_block == 0 ? 1 : info.min_block;
  if (req.offset % align != 0 || req.length % align != 0) return kErrInval;
  if (req.offset > info.size || req.length > info.size - req.offset) {
    return writes ? kErrNoSpc : kErrInval;
  }
  return 0;
}

std::uint32_t ToNbdError(Status s) {
  switch (s) {
    case Status::kOk: return 0;
    case Status::kIoError: return kErrIo;
    case Status::kInvalid: return kErrInval;
    case Status::kNoSpace: return kErrNoSpc;
    case Status::kNotSupported: return kErrNotSup;
    case Status::kShutdown: return kErrShutdown;
  }
  return kErrIo;
}

void AppendGreeting(Bytes& out, std::uint16_t handshake_flags) {
  Put64(out, kInitPasswd);
  Put64(out, kOptMagic);
  Put16(out, handshake_flags);
}

void AppendOptionReply(Bytes& out, std::uint32_t option, std::uint32_t type, ByteView data) {
  PutOptionReplyHeader(out, option, type, static_cast<std::uint32_t>(data.size()));
  PutBytes(out, data.data(), data.size());
}

void AppendOptionError(Bytes& out, std::uint32_t option, std::uint32_t type,
                       std::string_view message) {
  if (message.size() > kMaxStringLength) message = message.substr(0, kMaxStringLength);
  PutOptionReplyHeader(out, option, type, static_cast<std::uint32_t>(message.size()));
  PutBytes(out, message.data(), message.size());
}

void AppendServerReply(Bytes& out, std::uint32_t option, std::string_view export_name) {
  PutOptionReplyHeader(out, option, kRepServer, static_cast<std::uint32_t>(4 + export_name.size()));
  Put32(out, static_cast<std::uint32_t>(export_name.size()));
  PutBytes(out, export_name.data(), export_name.size());
}

void AppendInfoExport(Bytes& out, std::uint32_t option, std::uint64_t size,
                      std::uint16_t tx_flags) {
  PutOptionReplyHeader(out, option, kRepInfo, 12);
  Put16(out, kInfoExport);
  Put64(out, size);
  Put16(out, tx_flags);
}

void AppendInfoBlockSize(Bytes& out, std::uint32_t option, std::uint32_t min_block,
                         std::uint32_t preferred, std::uint32_t max_payload) {
  PutOptionReplyHeader(out, option, kRepInfo, 14);
  Put16(out, kInfoBlockSize);
  Put32(out, min_block);
  Put32(out, preferred);
  Put32(out, max_payload);
}

void AppendInfoString(Bytes& out, std::uint32_t option, std::uint16_t info, std::string_view text) {
  if (text.size() > kMaxStringLength) text = text.substr(0, kMaxStringLength);
  PutOptionReplyHeader(out, option, kRepInfo, static_cast<std::uint32_t>(2 + text.size()));
  Put16(out, info);
  PutBytes(out, text.data(), text.size());
}

void AppendExportNameReply(Bytes& out, std::uint64_t size, std::uint16_t tx_flags, bool no_zeroes) {
  Put64(out, size);
  Put16(out, tx_flags);
  if (!no_zeroes) out.resize(out.size() + kExportNameZeroes, std::byte{0});
}

void EncodeSimpleReply(std::byte* out16, std::uint32_t error, std::uint64_t cookie) {
  StoreBe32(out16, kSimpleReplyMagic);
  StoreBe32(out16 + 4, error);
  StoreBe64(out16 + 8, cookie);
}

void AppendMetaContextReply(Bytes& out, std::uint32_t option, std::uint32_t context_id,
                            std::string_view name) {
  PutOptionReplyHeader(out, option, kRepMetaContext, static_cast<std::uint32_t>(4 + name.size()));
  Put32(out, context_id);
  PutBytes(out, name.data(), name.size());
}

void EncodeChunkHeader(std::byte* out20, std::uint16_t flags, std::uint16_t type,
                       std::uint64_t cookie, std::uint32_t length) {
  StoreBe32(out20, kStructuredReplyMagic);
  StoreBe16(out20 + 4, flags);
  StoreBe16(out20 + 6, type);
  StoreBe64(out20 + 8, cookie);
  StoreBe32(out20 + 16, length);
}

void EncodeOffsetDataHeader(std::byte* out28, std::uint16_t flags, std::uint64_t cookie,
                            std::uint64_t offset, std::uint32_t data_length) {
  EncodeChunkHeader(out28, flags, kReplyTypeOffsetData, cookie, 8 + data_length);
  StoreBe64(out28 + kStructuredReplyHeaderSize, offset);
}

void EncodeErrorChunk(std::byte* out26, std::uint32_t error, std::uint64_t cookie) {
  EncodeChunkHeader(out26, kReplyFlagDone, kReplyTypeError, cookie, 6);
  StoreBe32(out26 + kStructuredReplyHeaderSize, error);
  StoreBe16(out26 + kStructuredReplyHeaderSize + 4, 0);  // no message
}

void AppendClientFlags(Bytes& out, std::uint32_t flags) {
  Put32(out, flags);
}

void AppendOption(Bytes& out, std::uint32_t option, ByteView data) {
  Put64(out, kOptMagic);
  Put32(out, option);
  Put32(out, static_cast<std::uint32_t>(data.size()));
  PutBytes(out, data.data(), data.size());
}

void AppendInfoRequestData(Bytes& out, std::string_view name,
                           std::span<const std::uint16_t> infos) {
  Put32(out, static_cast<std::uint32_t>(name.size()));
  PutBytes(out, name.data(), name.size());
  Put16(out, static_cast<std::uint16_t>(infos.size()));
  for (std::uint16_t i : infos) Put16(out, i);
}

void AppendRequest(Bytes& out, const RequestHeader& req) {
  Put32(out, kRequestMagic);
  Put16(out, req.flags);
  Put16(out, req.type);
  Put64(out, req.cookie);
  Put64(out, req.offset);
  Put32(out, req.length);
}

void AppendMetaContextRequestData(Bytes& out, std::string_view name,
                                  std::span<const std::string> queries) {
  Put32(out, static_cast<std::uint32_t>(name.size()));
  PutBytes(out, name.data(), name.size());
  Put32(out, static_cast<std::uint32_t>(queries.size()));
  for (const std::string& q : queries) {
    Put32(out, static_cast<std::uint32_t>(q.size()));
    PutBytes(out, q.data(), q.size());
  }
}

Expected<Greeting> ParseGreeting(ByteView in) {
  if (in.size() < kGreetingSize) return TooShort("greeting", kGreetingSize, in.size());
  if (LoadBe64(in.data()) != kInitPasswd) return MakeError("greeting: bad NBDMAGIC");
  if (LoadBe64(in.data() + 8) != kOptMagic) return MakeError("greeting: not newstyle");
  return Greeting{LoadBe16(in.data() + 16)};
}

Expected<OptionReplyHeader> ParseOptionReplyHeader(ByteView in) {
  if (in.size() < kOptionReplyHeaderSize) {
    return TooShort("option reply", kOptionReplyHeaderSize, in.size());
  }
  if (LoadBe64(in.data()) != kOptReplyMagic) return MakeError("option reply: bad magic");
  return OptionReplyHeader{LoadBe32(in.data() + 8), LoadBe32(in.data() + 12),
                           LoadBe32(in.data() + 16)};
}

Expected<SimpleReply> ParseSimpleReply(ByteView in) {
  if (in.size() < kSimpleReplySize) return TooShort("simple reply", kSimpleReplySize, in.size());
  if (LoadBe32(in.data()) != kSimpleReplyMagic) return MakeError("simple reply: bad magic");
  return SimpleReply{LoadBe32(in.data() + 4), LoadBe64(in.data() + 8)};
}

Expected<ChunkHeader> ParseChunkHeader(ByteView in) {
  if (in.size() < kStructuredReplyHeaderSize) {
    return TooShort("structured reply", kStructuredReplyHeaderSize, in.size());
  }
  if (LoadBe32(in.data()) != kStructuredReplyMagic) return MakeError("structured reply: bad magic");
  return ChunkHeader{LoadBe16(in.data() + 4), LoadBe16(in.data() + 6), LoadBe64(in.data() + 8),
                     LoadBe32(in.data() + 16)};
}

const char* OptionName(std::uint32_t option) {
  switch (option) {
    case kOptExportName: return "NBD_OPT_EXPORT_NAME";
    case kOptAbort: return "NBD_OPT_ABORT";
    case kOptList: return "NBD_OPT_LIST";
    case kOptStartTls: return "NBD_OPT_STARTTLS";
    case kOptInfo: return "NBD_OPT_INFO";
    case kOptGo: return "NBD_OPT_GO";
    case kOptStructuredReply: return "NBD_OPT_STRUCTURED_REPLY";
    case kOptListMetaContext: return "NBD_OPT_LIST_META_CONTEXT";
    case kOptSetMetaContext: return "NBD_OPT_SET_META_CONTEXT";
    case kOptExtendedHeaders: return "NBD_OPT_EXTENDED_HEADERS";
  }
  return "unknown option";
}

const char* CommandName(std::uint16_t type) {
  switch (type) {
    case kCmdRead: return "NBD_CMD_READ";
    case kCmdWrite: return "NBD_CMD_WRITE";
    case kCmdDisc: return "NBD_CMD_DISC";
    case kCmdFlush: return "NBD_CMD_FLUSH";
    case kCmdTrim: return "NBD_CMD_TRIM";
    case kCmdCache: return "NBD_CMD_CACHE";
    case kCmdWriteZeroes: return "NBD_CMD_WRITE_ZEROES";
    case kCmdBlockStatus: return "NBD_CMD_BLOCK_STATUS";
  }
  return "unknown command";
}

}  // namespace tierlab::nbd
