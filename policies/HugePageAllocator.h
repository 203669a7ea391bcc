#pragma once
// A std::allocator replacement for the large flat metadata arrays of a cache
// (line table, policy links): allocations of at least 2 MiB are 2 MiB-aligned
// and the whole 2 MiB pages inside them are marked MADV_HUGEPAGE, so that the
// random accesses of a hit path over millions of lines do not also miss the
// TLB (a page walk per access is expensive, more so in a virtual machine).
// Only virtual space is rounded: the tail beyond the last whole 2 MiB page
// keeps ordinary pages, so resident memory stays what the array needs.
// Smaller allocations, and systems without madvise, use plain operator new.
//
// Threading: stateless, any thread. Failure: throws std::bad_alloc like
// std::allocator (construction time only, never on the I/O path).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tierlab {

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
#if defined(__linux__)
    if (bytes >= kHugePage) {
      void* p = nullptr;
      if (posix_memalign(&p, kHugePage, bytes) != 0) throw std::bad_alloc();
      // Advice only: if the kernel has no huge pages to give, nothing changes.
      madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
      return static_cast<T*>(p);
    }
#endif
    return static_cast<T*>(::operator new(bytes));
  }
  void deallocate(T* p, std::size_t n) {
#if defined(__linux__)
    if (n * sizeof(T) >= kHugePage) {
      std::free(p);
      return;
    }
#endif
    ::operator delete(p);
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace tierlab
