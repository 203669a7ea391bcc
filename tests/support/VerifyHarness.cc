#include "tests/support/VerifyHarness.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

#include "tiering/core/SplitMix64.h"

namespace tierlab::testing {
namespace {

struct FreeDeleter {
  void operator()(std::byte* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<std::byte, FreeDeleter>;

Buffer AlignedBuffer(std::uint64_t len) {
  const std::uint64_t rounded = (len + 4095) / 4096 * 4096;
  return Buffer(static_cast<std::byte*>(std::aligned_alloc(4096, rounded)));
}

class Verifier {
 public:
  Verifier(Engine& e, BlockDevice& dev, const VerifyOptions& o)
      : e_(e), dev_(dev), o_(o), rng_(o.seed) {
    align_ = o.align != 0 ? o.align : dev.BlockSize();
    region_ = o.region != 0 ? std::min(o.region, dev.Size()) : dev.Size();
    region_ -= region_ % align_;
    image_.assign(region_, std::byte{0});
    known_.assign(region_ / align_, false);
  }

  VerifyResult Run() {
    if (region_ == 0) {
      r_.first_problem = "device has no usable region";
      ++r_.errors;
      return r_;
    }
    Pump();
    e_.Run();
    if (completed_ != o_.ops && r_.first_problem.empty()) {
      std::ostringstream s;
      s << "engine went idle with " << (o_.ops - completed_) << " ops never completed";
      r_.first_problem = s.str();
      ++r_.errors;
    }
    FinalReadBack();
    return r_;
  }

 private:
  struct Range {
    std::uint64_t start, end;
  };

  bool Overlaps(const IoRequest& q) const {
    if (q.op == IoOp::kFlush) return false;
    return std::any_of(in_flight_.begin(), in_flight_.end(),
                       [&](const Range& r) { return q.offset < r.end && r.start < q.end(); });
  }

  IoRequest Candidate() {
    IoRequest q;
    const double p = std::uniform_real_distribution<double>(0, 1)(rng_);
    q.op = p < o_.read_share                                     ? IoOp::kRead
           : p < o_.read_share + o_.write_share                  ? IoOp::kWrite
           : p < o_.read_share + o_.write_share + o_.flush_share ? IoOp::kFlush
                                                                 : IoOp::kDiscard;
    if (q.op == IoOp::kFlush) return q;
    const std::uint64_t blocks = region_ / align_;
    const std::uint64_t max_blocks =
        std::max<std::uint64_t>(1, std::min(blocks, o_.max_length / align_));
    const std::uint64_t n = std::uniform_int_distribution<std::uint64_t>(1, max_blocks)(rng_);
    const std::uint64_t start = std::uniform_int_distribution<std::uint64_t>(0, blocks - n)(rng_);
    q.offset = start * align_;
    q.length = n * align_;
    if (std::uniform_int_distribution<int>(0, 9)(rng_) == 0) q.flags |= kIoFua;
    return q;
  }

  void Pump() {
    while (issued_ < o_.ops && in_flight_.size() < o_.max_in_flight) {
      if (!has_next_) {
        next_ = Candidate();
        has_next_ = true;
      }
      if (Overlaps(next_)) return;  // wait for a completion
      has_next_ = false;
      Issue(next_);
    }
  }

  void Issue(IoRequest q) {
    ++issued_;
    std::shared_ptr<std::byte> buf;
    if (q.op == IoOp::kRead || q.op == IoOp::kWrite) {
      buf = std::shared_ptr<std::byte>(AlignedBuffer(q.length).release(), std::free);
      q.data = buf.get();
    }
    if (q.op == IoOp::kWrite) {
      const std::uint64_t seq = ++write_seq_;
      for (std::uint64_t w = 0; w < q.length; w += 8) {
        const std::uint64_t v = SplitMix64Hash((q.offset + w) ^ (seq << 40) ^ o_.seed);
        std::memcpy(q.data + w, &v, 8);
      }
    }
    const Range range{q.offset, q.end()};
    if (q.op != IoOp::kFlush) in_flight_.push_back(range);
    auto* ctx = new Pending{q, std::move(buf)};
    dev_.Submit(q, [this, ctx](Status st) { Complete(ctx, st); });
  }

  struct Pending {
    IoRequest q;
    std::shared_ptr<std::byte> buf;
  };

  void Problem(const std::string& what) {
    if (r_.first_problem.empty()) r_.first_problem = what;
  }

  void Complete(Pending* p, Status st) {
    std::unique_ptr<Pending> own(p);
    const IoRequest& q = p->q;
    if (q.op != IoOp::kFlush) {
      auto it = std::find_if(in_flight_.begin(), in_flight_.end(), [&](const Range& r) {
        return r.start == q.offset && r.end == q.end();
      });
      in_flight_.erase(it);
    }
    ++completed_;
    const bool discard_unsupported = q.op == IoOp::kDiscard && st == Status::kNotSupported;
    if (st != Status::kOk && !discard_unsupported) {
      ++r_.errors;
      std::ostringstream s;
      s << ToString(q.op) << " @" << q.offset << "+" << q.length << " failed: " << ToString(st);
      Problem(s.str());
      // A failed write or discard leaves the range undefined: a mirror
      // may have applied it to one copy and not the other.
      if (q.op == IoOp::kWrite || q.op == IoOp::kDiscard) {
        std::fill(known_.begin() + q.offset / align_, known_.begin() + q.end() / align_, false);
      }
    } else {
      switch (q.op) {
        case IoOp::kRead:
          ++r_.reads;
          Check(q.offset, q.length, q.data, "read");
          break;
        case IoOp::kWrite:
          ++r_.writes;
          std::memcpy(image_.data() + q.offset, q.data, q.length);
          std::fill(known_.begin() + q.offset / align_, known_.begin() + q.end() / align_, true);
          break;
        case IoOp::kFlush: ++r_.flushes; break;
        case IoOp::kDiscard:
          ++r_.discards;
          if (!discard_unsupported) {
            std::fill(known_.begin() + q.offset / align_, known_.begin() + q.end() / align_, false);
          }
          break;
      }
    }
    if (o_.on_complete) o_.on_complete(completed_);
    Pump();
  }

  void Check(std::uint64_t off, std::uint64_t len, const std::byte* data, const char* phase) {
    for (std::uint64_t b = 0; b < len; b += align_) {
      if (!known_[(off + b) / align_]) continue;
      if (std::memcmp(data + b, image_.data() + off + b, align_) != 0) {
        ++r_.mismatches;
        std::ostringstream s;
        s << phase << ": block @" << (off + b) << " (" << align_
          << " B) differs from the last write";
        Problem(s.str());
      }
    }
  }

  void FinalReadBack() {
    const std::uint64_t chunk = std::min<std::uint64_t>(region_, 1 << 20);
    Buffer buf = AlignedBuffer(chunk);
    for (std::uint64_t off = 0; off < region_; off += chunk) {
      IoRequest q{IoOp::kRead, 0, off, std::min(chunk, region_ - off), buf.get()};
      Status got = Status::kShutdown;
      bool done = false;
      dev_.Submit(q, [&](Status st) {
        got = st;
        done = true;
      });
      e_.Run();
      if (!done || got != Status::kOk) {
        ++r_.errors;
        Problem("final read-back @" + std::to_string(off) +
                " failed: " + std::string(ToString(got)));
        continue;
      }
      Check(off, q.length, buf.get(), "final read-back");
    }
  }

  Engine& e_;
  BlockDevice& dev_;
  VerifyOptions o_;
  std::mt19937_64 rng_;
  std::uint32_t align_ = 512;
  std::uint64_t region_ = 0;
  std::vector<std::byte> image_;
  std::vector<bool> known_;
  std::vector<Range> in_flight_;
  IoRequest next_;
  bool has_next_ = false;
  std::uint64_t issued_ = 0, completed_ = 0, write_seq_ = 0;
  VerifyResult r_;
};

}  // namespace

VerifyResult RunVerify(Engine& engine, BlockDevice& dev, const VerifyOptions& options) {
  return Verifier(engine, dev, options).Run();
}

}  // namespace tierlab::testing
