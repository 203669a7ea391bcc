#include "bench/trace/GzipStreambuf.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <string>

namespace tierlab {
namespace {

class GzipStreambuf final : public DecompressingStreambuf {
 public:
  GzipStreambuf(std::streambuf* source, std::size_t buffer_bytes)
      : DecompressingStreambuf(source, "gzip", buffer_bytes) {
    // 16 + 15: gzip wrapper only, the largest window.
    init_ = inflateInit2(&z_, 16 + MAX_WBITS);
  }
  ~GzipStreambuf() override {
    if (init_ == Z_OK) inflateEnd(&z_);
  }

 private:
  std::size_t Decode(char* out, std::size_t n) override {
    if (init_ != Z_OK) Fail(init_ == Z_MEM_ERROR ? "out of memory" : "cannot start zlib");
    const uInt want = static_cast<uInt>(std::min<std::size_t>(n, UINT_MAX));
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = want;
    while (z_.avail_out == want) {
      if (in_avail_ == 0 && !FillInput()) {
        if (in_member_) Fail("truncated: the data ends inside member " + Member());
        return 0;  // the end, after a whole member
      }
      if (!in_member_ && member_ > 0 && (padding_ || *in_next_ == 0)) {
        // Zeros after a whole member are padding (tape blocks, dd conv=sync),
        // which gzip -d skips too; anything after them is not another member.
        while (in_avail_ > 0 && *in_next_ == 0) {
          ++in_next_;
          --in_avail_;
        }
        padding_ = true;
        if (in_avail_ > 0) {
          Fail("non-zero data after the zero padding that follows member " +
               std::to_string(member_));
        }
        continue;
      }
      z_.next_in = const_cast<Bytef*>(in_next_);
      z_.avail_in = static_cast<uInt>(in_avail_);  // at most the buffer size
      in_member_ = true;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      in_next_ = z_.next_in;
      in_avail_ = z_.avail_in;
      switch (rc) {
        case Z_OK: break;
        case Z_STREAM_END:
          // The next bytes, if any, start another member.
          in_member_ = false;
          ++member_;
          inflateReset(&z_);
          break;
        case Z_BUF_ERROR:
          if (in_avail_ > 0) Fail("member " + Member() + ": no progress");
          break;  // used every input byte: read more
        case Z_NEED_DICT: Fail("member " + Member() + ": needs a preset dictionary");
        case Z_MEM_ERROR: Fail("out of memory");
        default:
          Fail((member_ > 0 ? "member " + Member() + ": " : std::string()) +
               (z_.msg != nullptr ? z_.msg : "corrupt data"));
      }
    }
    return want - z_.avail_out;
  }

  std::string Member() const { return std::to_string(member_ + 1); }

  z_stream z_{};
  int init_ = Z_OK;
  bool in_member_ = false;    // input given to the current member, not yet ended
  bool padding_ = false;      // in the zeros after the last member
  std::uint64_t member_ = 0;  // members ended so far
};

}  // namespace

std::unique_ptr<DecompressingStreambuf> MakeGzipStreambuf(std::streambuf* source,
                                                          std::size_t buffer_bytes) {
  return std::make_unique<GzipStreambuf>(source, buffer_bytes);
}

}  // namespace tierlab
