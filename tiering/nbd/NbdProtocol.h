#pragma once
// The NBD wire protocol (NetworkBlockDevice/nbd doc/proto.md): constants, the
// messages of the fixed newstyle handshake and of the transmission phase, and
// pure encoders/decoders over byte buffers.
//
// Nothing here does I/O or keeps state between calls, so the decoders can be
// fed arbitrary bytes (tests, libFuzzer). Decoders never throw: they return an
// Expected whose Error says what is wrong with the input. All integers on the
// wire are big-endian.
//
// Scope: fixed newstyle negotiation with NBD_OPT_EXPORT_NAME, NBD_OPT_INFO,
// NBD_OPT_GO, NBD_OPT_LIST, NBD_OPT_ABORT, NBD_OPT_STRUCTURED_REPLY and the
// meta-context options (one context: base:allocation); simple and structured
// replies (chunks OFFSET_DATA, BLOCK_STATUS, ERROR). Extended headers and
// TLS are refused with NBD_REP_ERR_UNSUP, which the spec tells clients to
// expect.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/core/Expected.h"
#include "tiering/core/Status.h"

namespace tierlab::nbd {

using Bytes = std::vector<std::byte>;
using ByteView = std::span<const std::byte>;

// ---- Magic numbers --------------------------------------------------------
inline constexpr std::uint64_t kInitPasswd = 0x4e42444d41474943ull;  // "NBDMAGIC"
inline constexpr std::uint64_t kOptMagic = 0x49484156454f5054ull;    // "IHAVEOPT"
inline constexpr std::uint64_t kOptReplyMagic = 0x3e889045565a9ull;
inline constexpr std::uint32_t kRequestMagic = 0x25609513u;
inline constexpr std::uint32_t kSimpleReplyMagic = 0x67446698u;
inline constexpr std::uint32_t kStructuredReplyMagic = 0x668e33efu;

// ---- Handshake flags (server, 16 bits) and client flags (32 bits) ----------
inline constexpr std::uint16_t kFlagFixedNewstyle = 1u << 0;
inline constexpr std::uint16_t kFlagNoZeroes = 1u << 1;
inline constexpr std::uint32_t kClientFlagFixedNewstyle = 1u << 0;
inline constexpr std::uint32_t kClientFlagNoZeroes = 1u << 1;

// ---- Transmission flags (16 bits) -----------------------------------------
inline constexpr std::uint16_t kTxHasFlags = 1u << 0;
inline constexpr std::uint16_t kTxReadOnly = 1u << 1;
inline constexpr std::uint16_t kTxSendFlush = 1u << 2;
inline constexpr std::uint16_t kTxSendFua = 1u << 3;
inline constexpr std::uint16_t kTxRotational = 1u << 4;
inline constexpr std::uint16_t kTxSendTrim = 1u << 5;
inline constexpr std::uint16_t kTxSendWriteZeroes = 1u << 6;
inline constexpr std::uint16_t kTxSendDf = 1u << 7;
inline constexpr std::uint16_t kTxCanMultiConn = 1u << 8;
inline constexpr std::uint16_t kTxSendCache = 1u << 10;
inline constexpr std::uint16_t kTxSendFastZero = 1u << 11;

// ---- Options --------------------------------------------------------------
inline constexpr std::uint32_t kOptExportName = 1;
inline constexpr std::uint32_t kOptAbort = 2;
inline constexpr std::uint32_t kOptList = 3;
inline constexpr std::uint32_t kOptStartTls = 5;
inline constexpr std::uint32_t kOptInfo = 6;
inline constexpr std::uint32_t kOptGo = 7;
inline constexpr std::uint32_t kOptStructuredReply = 8;
inline constexpr std::uint32_t kOptListMetaContext = 9;
inline constexpr std::uint32_t kOptSetMetaContext = 10;
inline constexpr std::uint32_t kOptExtendedHeaders = 11;

// ---- Option reply types -----------------------------------------------------
inline constexpr std::uint32_t kRepAck = 1;
inline constexpr std::uint32_t kRepServer = 2;
inline constexpr std::uint32_t kRepInfo = 3;
inline constexpr std::uint32_t kRepMetaContext = 4;
inline constexpr std::uint32_t kRepFlagError = 1u << 31;
inline constexpr std::uint32_t kRepErrUnsup = kRepFlagError | 1;
inline constexpr std::uint32_t kRepErrPolicy = kRepFlagError | 2;
inline constexpr std::uint32_t kRepErrInvalid = kRepFlagError | 3;
inline constexpr std::uint32_t kRepErrPlatform = kRepFlagError | 4;
inline constexpr std::uint32_t kRepErrTlsReqd = kRepFlagError | 5;
inline constexpr std::uint32_t kRepErrUnknown = kRepFlagError | 6;
inline constexpr std::uint32_t kRepErrShutdown = kRepFlagError | 7;
inline constexpr std::uint32_t kRepErrBlockSizeReqd = kRepFlagError | 8;
inline constexpr std::uint32_t kRepErrTooBig = kRepFlagError | 9;

// ---- Info types (NBD_REP_INFO payloads) ------------------------------------
inline constexpr std::uint16_t kInfoExport = 0;
inline constexpr std::uint16_t kInfoName = 1;
inline constexpr std::uint16_t kInfoDescription = 2;
inline constexpr std::uint16_t kInfoBlockSize = 3;

// ---- Commands and command flags ---------------------------------------------
inline constexpr std::uint16_t kCmdRead = 0;
inline constexpr std::uint16_t kCmdWrite = 1;
inline constexpr std::uint16_t kCmdDisc = 2;
inline constexpr std::uint16_t kCmdFlush = 3;
inline constexpr std::uint16_t kCmdTrim = 4;
inline constexpr std::uint16_t kCmdCache = 5;
inline constexpr std::uint16_t kCmdWriteZeroes = 6;
inline constexpr std::uint16_t kCmdBlockStatus = 7;

inline constexpr std::uint16_t kCmdFlagFua = 1u << 0;
inline constexpr std::uint16_t kCmdFlagNoHole = 1u << 1;
inline constexpr std::uint16_t kCmdFlagDf = 1u << 2;
inline constexpr std::uint16_t kCmdFlagReqOne = 1u << 3;
inline constexpr std::uint16_t kCmdFlagFastZero = 1u << 4;

// ---- Structured reply chunks: flags, types -----------------------------------
inline constexpr std::uint16_t kReplyFlagDone = 1u << 0;
inline constexpr std::uint16_t kReplyTypeNone = 0;
inline constexpr std::uint16_t kReplyTypeOffsetData = 1;
inline constexpr std::uint16_t kReplyTypeOffsetHole = 2;
inline constexpr std::uint16_t kReplyTypeBlockStatus = 5;
inline constexpr std::uint16_t kReplyTypeError = (1u << 15) | 1;
inline constexpr std::uint16_t kReplyTypeErrorOffset = (1u << 15) | 2;

// ---- Metadata contexts ------------------------------------------------------------
inline constexpr std::string_view kBaseAllocation = "base:allocation";
// base:allocation descriptor flags.
inline constexpr std::uint32_t kStateHole = 1u << 0;
inline constexpr std::uint32_t kStateZero = 1u << 1;

// ---- Error values in replies (fixed by the protocol, not the host's errno) --
inline constexpr std::uint32_t kErrPerm = 1;
inline constexpr std::uint32_t kErrIo = 5;
inline constexpr std::uint32_t kErrNoMem = 12;
inline constexpr std::uint32_t kErrInval = 22;
inline constexpr std::uint32_t kErrNoSpc = 28;
inline constexpr std::uint32_t kErrOverflow = 75;
inline constexpr std::uint32_t kErrNotSup = 95;
inline constexpr std::uint32_t kErrShutdown = 108;

// ---- Sizes ------------------------------------------------------------------
inline constexpr std::size_t kGreetingSize = 18;  // passwd, opt magic, handshake flags
inline constexpr std::size_t kClientFlagsSize = 4;
inline constexpr std::size_t kOptionHeaderSize = 16;  // magic, option, length
inline constexpr std::size_t kOptionReplyHeaderSize = 20;
inline constexpr std::size_t kRequestHeaderSize = 28;
inline constexpr std::size_t kSimpleReplySize = 16;
inline constexpr std::size_t kStructuredReplyHeaderSize = 20;  // magic, flags, type, cookie, length
inline constexpr std::size_t kBlockDescriptorSize = 8;         // length, status flags
inline constexpr std::size_t kExportNameZeroes = 124;
// The spec caps strings (export names, descriptions) at 4096 bytes.
inline constexpr std::size_t kMaxStringLength = 4096;

// The client flags word: only the two defined bits may be set.
Expected<std::uint32_t> ParseClientFlags(ByteView in);

struct OptionHeader {
  std::uint32_t option = 0;
  std::uint32_t length = 0;  // bytes of option data that follow
};
// Needs kOptionHeaderSize bytes; checks the IHAVEOPT magic.
Expected<OptionHeader> ParseOptionHeader(ByteView in);

// Data of NBD_OPT_INFO / NBD_OPT_GO: export name and the info types asked for.
struct InfoRequest {
  std::string name;
  std::vector<std::uint16_t> infos;
};
// `in` is the whole option data; trailing or missing bytes are an error.
Expected<InfoRequest> ParseInfoRequest(ByteView in);

// Data of NBD_OPT_LIST_META_CONTEXT / NBD_OPT_SET_META_CONTEXT: the export
// name and the queries (context names, or a namespace such as "base:").
struct MetaContextRequest {
  std::string name;
  std::vector<std::string> queries;
};
// `in` is the whole option data; lengths must add up exactly, strings are at
// most kMaxStringLength bytes without NUL.
Expected<MetaContextRequest> ParseMetaContextRequest(ByteView in);

// A transmission-phase request header (the "handle" is called cookie in the
// current spec: opaque, echoed in the reply).
struct RequestHeader {
  std::uint16_t flags = 0;
  std::uint16_t type = 0;
  std::uint64_t cookie = 0;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};
// Needs kRequestHeaderSize bytes; checks the request magic.
Expected<RequestHeader> ParseRequestHeader(ByteView in);

// What the server tells clients about its one export, and the limits it
// enforces on requests.
struct ExportInfo {
  std::string name;
  std::string description;
  std::uint64_t size = 0;
  std::uint16_t tx_flags = 0;
  std::uint32_t min_block = 1;  // offsets and lengths must be multiples of it
  std::uint32_t preferred_block = 4096;
  std::uint32_t max_payload = 32u << 20;  // largest READ/WRITE length
};

// What one connection negotiated in its handshake.
struct Session {
  bool structured_replies = false;  // NBD_OPT_STRUCTURED_REPLY acknowledged
  bool base_allocation = false;     // base:allocation selected (NBD_OPT_SET_META_CONTEXT)
};

// Checks a request against the export and the session: returns 0 if it may
// be executed, or the NBD error to reply with. Follows the spec's SHOULDs:
// EINVAL for an unknown command, bad flags, misalignment, an oversized
// payload or a read or trim past the end; ENOSPC for a write or write-zeroes
// past the end. BLOCK_STATUS needs base:allocation selected, a nonzero
// length and a range inside the export, but no alignment (its answer is
// rounded to whole blocks instead); NBD_CMD_FLAG_DF needs structured replies.
std::uint32_t CheckRequest(const RequestHeader& req, const ExportInfo& info,
                           const Session& session = {});
// True if the request carries `length` bytes of data after its header.
inline bool HasPayload(const RequestHeader& req) {
  return req.type == kCmdWrite;
}

// NBD error value for a completion status.
std::uint32_t ToNbdError(Status s);

// ---- Server-side encoders: append one message to `out` ----------------------
void AppendGreeting(Bytes& out, std::uint16_t handshake_flags);
void AppendOptionReply(Bytes& out, std::uint32_t option, std::uint32_t type, ByteView data = {});
// An error reply with a human-readable message as its data.
void AppendOptionError(Bytes& out, std::uint32_t option, std::uint32_t type,
                       std::string_view message);
void AppendServerReply(Bytes& out, std::uint32_t option, std::string_view export_name);
void AppendInfoExport(Bytes& out, std::uint32_t option, std::uint64_t size, std::uint16_t tx_flags);
void AppendInfoBlockSize(Bytes& out, std::uint32_t option, std::uint32_t min_block,
                         std::uint32_t preferred, std::uint32_t max_payload);
// NBD_INFO_NAME or NBD_INFO_DESCRIPTION.
void AppendInfoString(Bytes& out, std::uint32_t option, std::uint16_t info, std::string_view text);
// The reply to NBD_OPT_EXPORT_NAME: size, transmission flags, and 124 zero
// bytes unless both sides agreed on NO_ZEROES.
void AppendExportNameReply(Bytes& out, std::uint64_t size, std::uint16_t tx_flags, bool no_zeroes);
// A simple reply header (16 bytes), written into `out16`.
void EncodeSimpleReply(std::byte* out16, std::uint32_t error, std::uint64_t cookie);
// NBD_REP_META_CONTEXT: a context's id and name.
void AppendMetaContextReply(Bytes& out, std::uint32_t option, std::uint32_t context_id,
                            std::string_view name);
// A structured reply chunk header (kStructuredReplyHeaderSize bytes) into
// `out20`; `length` bytes of payload follow it.
void EncodeChunkHeader(std::byte* out20, std::uint16_t flags, std::uint16_t type,
                       std::uint64_t cookie, std::uint32_t length);
// Chunk header plus the 8-byte offset of an OFFSET_DATA chunk carrying
// `data_length` bytes (28 bytes into `out28`; the data follows).
void EncodeOffsetDataHeader(std::byte* out28, std::uint16_t flags, std::uint64_t cookie,
                            std::uint64_t offset, std::uint32_t data_length);
// A final NBD_REPLY_TYPE_ERROR chunk without a message (26 bytes into `out26`).
void EncodeErrorChunk(std::byte* out26, std::uint32_t error, std::uint64_t cookie);
inline constexpr std::size_t kOffsetDataHeaderSize = kStructuredReplyHeaderSize + 8;
inline constexpr std::size_t kErrorChunkSize = kStructuredReplyHeaderSize + 6;

// ---- Client-side encoders (tests, fuzzing, benchmarks) -----------------------
void AppendClientFlags(Bytes& out, std::uint32_t flags);
void AppendOption(Bytes& out, std::uint32_t option, ByteView data = {});
void AppendInfoRequestData(Bytes& out, std::string_view name, std::span<const std::uint16_t> infos);
void AppendRequest(Bytes& out, const RequestHeader& req);
void AppendMetaContextRequestData(Bytes& out, std::string_view name,
                                  std::span<const std::string> queries);

// ---- Client-side decoders ------------------------------------------------------
struct Greeting {
  std::uint16_t handshake_flags = 0;
};
Expected<Greeting> ParseGreeting(ByteView in);
struct OptionReplyHeader {
  std::uint32_t option = 0;
  std::uint32_t type = 0;
  std::uint32_t length = 0;
};
Expected<OptionReplyHeader> ParseOptionReplyHeader(ByteView in);
struct SimpleReply {
  std::uint32_t error = 0;
  std::uint64_t cookie = 0;
};
Expected<SimpleReply> ParseSimpleReply(ByteView in);
struct ChunkHeader {
  std::uint16_t flags = 0;
  std::uint16_t type = 0;
  std::uint64_t cookie = 0;
  std::uint32_t length = 0;  // payload bytes that follow
};
// Needs kStructuredReplyHeaderSize bytes; checks the structured reply magic.
Expected<ChunkHeader> ParseChunkHeader(ByteView in);

// Big-endian helpers, exposed for tests and for the connection's hot path.
std::uint16_t LoadBe16(const std::byte* p);
std::uint32_t LoadBe32(const std::byte* p);
std::uint64_t LoadBe64(const std::byte* p);
void StoreBe16(std::byte* p, std::uint16_t v);
void StoreBe32(std::byte* p, std::uint32_t v);
void StoreBe64(std::byte* p, std::uint64_t v);

const char* OptionName(std::uint32_t option);
const char* CommandName(std::uint16_t type);

}  // namespace tierlab::nbd
