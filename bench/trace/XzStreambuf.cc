#include "bench/trace/XzStreambuf.h"

#include <lzma.h>

#include <string>

namespace tierlab {
namespace {

class XzStreambuf final : public DecompressingStreambuf {
 public:
  XzStreambuf(std::streambuf* source, std::size_t buffer_bytes, std::uint64_t memory_limit)
      : DecompressingStreambuf(source, "xz", buffer_bytes), limit_(memory_limit) {
    init_ = lzma_stream_decoder(&s_, memory_limit, LZMA_CONCATENATED);
  }
  ~XzStreambuf() override { lzma_end(&s_); }

 private:
  std::size_t Decode(char* out, std::size_t n) override {
    if (init_ != LZMA_OK) Fail(init_ == LZMA_MEM_ERROR ? "out of memory" : "cannot start liblzma");
    if (done_) return 0;
    s_.next_out = reinterpret_cast<std::uint8_t*>(out);
    s_.avail_out = n;
    while (s_.avail_out == n) {
      if (in_avail_ == 0 && !finishing_) finishing_ = !FillInput();
      s_.next_in = in_next_;
      s_.avail_in = in_avail_;
      // LZMA_FINISH at the source's end: the decoder then tells a complete
      // stream (LZMA_STREAM_END) from a cut one (LZMA_BUF_ERROR).
      const lzma_ret rc = lzma_code(&s_, finishing_ ? LZMA_FINISH : LZMA_RUN);
      in_next_ = s_.next_in;
      in_avail_ = s_.avail_in;
      switch (rc) {
        case LZMA_OK: break;
        case LZMA_STREAM_END: done_ = true; return n - s_.avail_out;
        case LZMA_BUF_ERROR:
          Fail(finishing_ ? "truncated: the data ends inside a stream" : "no progress");
        case LZMA_MEMLIMIT_ERROR:
          Fail("the stream needs " + MemoryText(lzma_memusage(&s_)) + " to decode, above the " +
               MemoryText(limit_) + " decoding memory limit");
        case LZMA_MEM_ERROR: Fail("out of memory");
        case LZMA_FORMAT_ERROR: Fail("not an xz stream");
        case LZMA_OPTIONS_ERROR: Fail("unsupported compression options");
        case LZMA_DATA_ERROR: Fail("compressed data is corrupt");
        default: Fail("liblzma error " + std::to_string(static_cast<int>(rc)));
      }
    }
    return n - s_.avail_out;
  }

  lzma_stream s_ = LZMA_STREAM_INIT;
  lzma_ret init_ = LZMA_OK;
  std::uint64_t limit_;
  bool finishing_ = false;  // the source has ended
  bool done_ = false;       // the last stream ended
};

}  // namespace

std::unique_ptr<DecompressingStreambuf> MakeXzStreambuf(std::streambuf* source,
                                                        std::size_t buffer_bytes,
                                                        std::uint64_t memory_limit) {
  return std::make_unique<XzStreambuf>(source, buffer_bytes, memory_limit);
}

}  // namespace tierlab
