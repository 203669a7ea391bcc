#include "tiering/core/AlignedBuffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace tierlab {

AlignedBuffer::AlignedBuffer(std::size_t size, std::size_t alignment) : size_(size) {
  const std::size_t rounded = (size + alignment - 1) / alignment * alignment;
  if (rounded == 0) return;
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (rounded >= kMapFrom && alignment <= page) {
    void* p = ::mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();   // out of memory: as operator new would fail
    data_ = static_cast<std::byte*>(p);  // anonymous pages start zeroed
    mapped_ = rounded;
    return;
  }
  data_ = static_cast<std::byte*>(std::aligned_alloc(alignment, rounded));
  if (data_ == nullptr) std::abort();
  std::memset(data_, 0, rounded);
}

void AlignedBuffer::Release() noexcept {
  if (mapped_ != 0) {
    ::munmap(data_, mapped_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
  size_ = 0;
  mapped_ = 0;
}

}  // namespace tierlab
