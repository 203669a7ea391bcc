#include "bench/trace/ZstdStreambuf.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <bit>
#include <string>

namespace tierlab {
namespace {

class ZstdStreambuf final : public DecompressingStreambuf {
 public:
  ZstdStreambuf(std::streambuf* source, std::size_t buffer_bytes, std::uint64_t memory_limit)
      : DecompressingStreambuf(source, "zstd", buffer_bytes), ds_(ZSTD_createDStream()) {
    const ZSTD_bounds b = ZSTD_dParam_getBounds(ZSTD_d_windowLogMax);
    window_log_ =
        std::clamp(static_cast<int>(std::bit_width(memory_limit)) - 1, b.lowerBound, b.upperBound);
    if (ds_ != nullptr) ZSTD_DCtx_setParameter(ds_, ZSTD_d_windowLogMax, window_log_);
  }
  ~ZstdStreambuf() override { ZSTD_freeDStream(ds_); }

 private:
  std::size_t Decode(char* out, std::size_t n) override {
    if (ds_ == nullptr) Fail("out of memory");
    ZSTD_outBuffer o{out, n, 0};
    while (o.pos == 0) {
      const bool end = in_avail_ == 0 && !FillInput();
      if (end && !in_frame_) return 0;  // the end, after a whole frame
      ZSTD_inBuffer i{in_next_, in_avail_, 0};
      // At the end, a call with no input still flushes what the decoder holds.
      const std::size_t rc = ZSTD_decompressStream(ds_, &o, &i);
      in_next_ += i.pos;
      in_avail_ -= i.pos;
      if (ZSTD_isError(rc)) {
        if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge) {
          Fail("a frame needs a window above the " + MemoryText(std::uint64_t{1} << window_log_) +
               " decoding memory limit");
        }
        Fail(ZSTD_getErrorName(rc));
      }
      in_frame_ = rc != 0;  // 0: a frame ended and everything is flushed
      if (end && o.pos == 0) {
        if (in_frame_) Fail("truncated: the data ends inside a frame");
        return 0;
      }
    }
    return o.pos;
  }

  ZSTD_DStream* ds_;
  int window_log_ = 0;
  bool in_frame_ = false;
};

}  // namespace

std::unique_ptr<DecompressingStreambuf> MakeZstdStreambuf(std::streambuf* source,
                                                          std::size_t buffer_bytes,
                                                          std::uint64_t memory_limit) {
  return std::make_unique<ZstdStreambuf>(source, buffer_bytes, memory_limit);
}

}  // namespace tierlab
