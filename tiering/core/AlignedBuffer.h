#pragma once
// A heap buffer aligned for O_DIRECT I/O (FileDevice requires read and write
// buffers aligned to its logical block size; 4096 covers every device).
//
// Buffers of kMapFrom bytes and more are mapped from the kernel and unmapped
// when freed. From malloc they would stay in the process: glibc raises its
// mmap threshold after the first large free and serves the next ones from
// the heap, which it returns only when trimmed, so a burst of 32 MiB reads
// through the cache would leave its bounce buffers' pages resident long
// after the reads completed (tests/e2e/nbd_limits.sh caught it).
//
// Ownership: owns its memory; move-only. Contents start zeroed.

#include <cstddef>
#include <utility>

namespace tierlab {

class AlignedBuffer {
 public:
  static constexpr std::size_t kDefaultAlignment = 4096;
  static constexpr std::size_t kMapFrom = 256u << 10;

  AlignedBuffer() = default;
  // `alignment` must be a power of two; the size is rounded up to it.
  explicit AlignedBuffer(std::size_t size, std::size_t alignment = kDefaultAlignment);
  AlignedBuffer(AlignedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        mapped_(std::exchange(o.mapped_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    if (this != &o) {
      Release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      mapped_ = std::exchange(o.mapped_, 0);
    }
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { Release(); }

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void Release() noexcept;

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;  // bytes mapped, or 0 when data_ came from malloc
};

}  // namespace tierlab
