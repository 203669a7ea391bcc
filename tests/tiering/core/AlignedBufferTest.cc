#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "tiering/core/AlignedBuffer.h"

namespace tierlab {
namespace {

std::size_t ResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  std::size_t kib = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> kib;
      return kib << 10;
    }
    status.ignore(1 << 10, '\n');
  }
  return 0;
}

void Touch(AlignedBuffer& b) {
  for (std::size_t i = 0; i < b.size(); i += 4096) b.data()[i] = std::byte{1};
}

TEST(AlignedBufferTest, SmallAndLargeBuffersAreAlignedAndZeroed) {
  for (std::size_t size : {std::size_t{512}, std::size_t{4096}, std::size_t{1} << 20}) {
    AlignedBuffer b(size);
    ASSERT_EQ(b.size(), size);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % AlignedBuffer::kDefaultAlignment, 0u);
    for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(b.data()[i], std::byte{0}) << size << " " << i;
  }
  AlignedBuffer odd(100, 64);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(odd.data()) % 64, 0u);
}

TEST(AlignedBufferTest, MoveTransfersOwnership) {
  AlignedBuffer a(1 << 20);
  a.data()[7] = std::byte{9};
  std::byte* p = a.data();
  AlignedBuffer b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(),
            nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the contract
  AlignedBuffer c(4096);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.data()[7], std::byte{9});
}

// The memory of freed large buffers goes back to the kernel at once, even
// when a buffer allocated later is still live (with malloc the freed ones
// would sit below it in the heap, resident, until someone trims).
TEST(AlignedBufferTest, FreedLargeBuffersLeaveTheProcess) {
  constexpr std::size_t kSize = 8u << 20;
  { AlignedBuffer warm(16u << 20); }  // a large free raises glibc's mmap threshold
  const std::size_t before = ResidentBytes();
  std::vector<AlignedBuffer> burst;
  for (int i = 0; i < 16; ++i) {
    burst.emplace_back(kSize);
    Touch(burst.back());
  }
  AlignedBuffer last(kSize);  // still live while the burst is freed
  Touch(last);
  const std::size_t peak = ResidentBytes();
  ASSERT_GE(peak, before + 16 * kSize);
  burst.clear();
  const std::size_t after = ResidentBytes();
  // Under AddressSanitizer each byte touched has an eighth of a byte of
  // shadow, whose pages stay resident after the memory is unmapped.
  std::size_t shadow = 0;
#if defined(__SANITIZE_ADDRESS__)
  shadow = (peak - before) / 8;
#endif
  EXPECT_LE(after, before + 2 * kSize + shadow)
      << "before " << (before >> 20) << " MiB, peak " << (peak >> 20) << " MiB, after "
      << (after >> 20) << " MiB";
}

}  // namespace
}  // namespace tierlab
