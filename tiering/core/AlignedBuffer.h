#pragma once
// A heap buffer aligned for O_DIRECT I/O (FileDevice requires read and write
// buffers aligned to its logical block size; 4096 covers every device).
//
// Ownership: owns its memory; move-only. Contents start zeroed.

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace tierlab {

class AlignedBuffer {
 public:
  static constexpr std::size_t kDefaultAlignment = 4096;

  AlignedBuffer() = default;
  // `alignment` must be a power of two; the size is rounded up to it.
  explicit AlignedBuffer(std::size_t size, std::size_t alignment = kDefaultAlignment)
      : size_(size) {
    const std::size_t rounded = (size + alignment - 1) / alignment * alignment;
    if (rounded > 0) {
      data_ = static_cast<std::byte*>(std::aligned_alloc(alignment, rounded));
      if (data_ == nullptr) std::abort();  // out of memory: as operator new would fail
      std::memset(data_, 0, rounded);
    }
  }
  AlignedBuffer(AlignedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace tierlab
