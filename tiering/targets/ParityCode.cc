#include "tiering/targets/ParityCode.h"

#include <isa-l/erasure_code.h>

#include <array>

namespace tierlab {
namespace {

constexpr int kMaxBlocks = 256;  // k + m in GF(2^8)

// ISA-L takes arrays of non-const unsigned char pointers.
using PtrArray = std::array<unsigned char*, kMaxBlocks>;

PtrArray Ptrs(std::span<std::byte* const> v) {
  PtrArray a{};
  for (std::size_t i = 0; i < v.size() && i < a.size(); ++i) {
    a[i] = reinterpret_cast<unsigned char*>(v[i]);
  }
  return a;
}

}  // namespace

ParityCode::ParityCode(int k, int m) : k_(k), m_(m) {
  if (k < 1 || m < 1 || m > 3 || k + m > kMaxBlocks) return;
  const auto rows = static_cast<std::size_t>(k) + static_cast<std::size_t>(m);
  const auto cols = static_cast<std::size_t>(k);
  matrix_.resize(rows * cols);
  if (m <= 2) {
    gf_gen_rs_matrix(matrix_.data(), k + m, k);
  } else {
    gf_gen_cauchy1_matrix(matrix_.data(), k + m, k);
  }
  encode_tables_.resize(32 * cols * static_cast<std::size_t>(m));
  ec_init_tables(k, m, matrix_.data() + cols * cols, encode_tables_.data());
  valid_ = true;
}

void ParityCode::Encode(std::size_t len, std::span<std::byte* const> data,
                        std::span<std::byte* const> parity) const {
  PtrArray d = Ptrs(data);
  PtrArray p = Ptrs(parity);
  ec_encode_data(static_cast<int>(len), k_, m_, const_cast<unsigned char*>(encode_tables_.data()),
                 d.data(), p.data());
}

void ParityCode::Update(std::size_t len, int d, const std::byte* delta,
                        std::span<std::byte* const> parity) const {
  PtrArray p = Ptrs(parity);
  // ISA-L multiplies `delta` by column d of the parity rows and XORs the
  // products into the parities: the linearity RMW relies on.
  ec_encode_data_update(static_cast<int>(len), k_, m_, d,
                        const_cast<unsigned char*>(encode_tables_.data()),
                        reinterpret_cast<unsigned char*>(const_cast<std::byte*>(delta)), p.data());
}

bool ParityCode::Decode(std::size_t len, std::span<const int> sources,
                        std::span<std::byte* const> src, std::span<const int> wanted,
                        std::span<std::byte* const> out) const {
  if (!valid_ || sources.size() != static_cast<std::size_t>(k_) || src.size() != sources.size() ||
      wanted.size() != out.size() || wanted.empty()) {
    return false;
  }
  // The rows of the generator that produced the sources: the data is their
  // inverse times the sources.
  const std::size_t k = static_cast<std::size_t>(k_);
  std::vector<unsigned char> rows(k * k);
  for (std::size_t i = 0; i < k; ++i) {
    const int role = sources[i];
    if (role < 0 || role >= k_ + m_) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (sources[j] == role) return false;
    }
    for (std::size_t c = 0; c < k; ++c) rows[i * k + c] = matrix_[role * k + c];
  }
  std::vector<unsigned char> inverse(k * k);
  if (gf_invert_matrix(rows.data(), inverse.data(), k_) != 0) return false;
  std::vector<unsigned char> decode(wanted.size() * k);
  for (std::size_t w = 0; w < wanted.size(); ++w) {
    if (wanted[w] < 0 || wanted[w] >= k_) return false;
    for (std::size_t c = 0; c < k; ++c) decode[w * k + c] = inverse[wanted[w] * k + c];
  }
  std::vector<unsigned char> tables(32 * k * wanted.size());
  ec_init_tables(k_, static_cast<int>(wanted.size()), decode.data(), tables.data());
  PtrArray s = Ptrs(src);
  PtrArray o = Ptrs(out);
  ec_encode_data(static_cast<int>(len), k_, static_cast<int>(wanted.size()), tables.data(),
                 s.data(), o.data());
  return true;
}

}  // namespace tierlab
