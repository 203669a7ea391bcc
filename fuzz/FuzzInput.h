#pragma once
// The fuzz input read as a stream of little fields: each Take<T>() takes
// the next sizeof(T) bytes (zeros past the end), so a target can steer what
// it builds from the input whatever its length.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tierlab::fuzz {

class Input {
 public:
  Input(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  template <typename T>
  T Take() {
    T v{};
    const std::size_t k = std::min(sizeof(T), n_ - i_);
    std::memcpy(&v, p_ + i_, k);
    i_ += k;
    return v;
  }
  bool empty() const { return i_ >= n_; }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t i_ = 0;
};

}  // namespace tierlab::fuzz
