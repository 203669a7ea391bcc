// libFuzzer target for the small value parsers behind command-line options
// and configuration fields: byte sizes, fio sizes and times, numbers,
// shards, diff thresholds, NBD endpoints, replacement and admission policy
// specs, tier placement and schedule names, fio patterns. The first byte
// picks the parser (modulo their count), the rest is the text. Checks:
// every error is one non-empty line of bounded length; an accepted value
// that has a canonical form (FormatBytes, FormatFioSize, FormatFioTime,
// FormatDouble, Shard::ToString, the policies' own text, ToString of a
// placement or schedule) reads back to the same value; an accepted policy
// spec builds a policy. See fuzz/README.md.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench/lab/Matrix.h"
#include "bench/report/MatrixDiff.h"
#include "bench/workload/FioPattern.h"
#include "bench/workload/FioUnits.h"
#include "fuzz/OneLineError.h"
#include "layouts/JsonFields.h"
#include "policies/NhitAdmission.h"
#include "policies/PolicyRegistry.h"
#include "tiering/nbd/NbdServer.h"
#include "tiering/tier/TierConfig.h"

namespace {

using tierlab::fuzz::Accepted;

void Require(bool ok) {
  if (!ok) std::abort();
}

void BytesText(std::string_view text) {
  auto v = tierlab::ParseBytesText(text);
  if (!Accepted(v)) return;
  auto again = tierlab::ParseBytesText(tierlab::FormatBytes(*v));
  Require(again.ok() && *again == *v);
}

void FioSize(std::string_view text, int kb_base) {
  auto v = tierlab::ParseFioSize(text, kb_base);
  if (!Accepted(v)) return;
  auto again = tierlab::ParseFioSize(tierlab::FormatFioSize(*v));
  Require(again.ok() && *again == *v);
}

void FioTime(std::string_view text, tierlab::Nanos unit) {
  auto v = tierlab::ParseFioTime(text, unit);
  if (!Accepted(v)) return;
  Require(*v >= 0);
  auto again = tierlab::ParseFioTime(tierlab::FormatFioTime(*v), tierlab::kSecond);
  Require(again.ok() && *again == *v);
}

void Numbers(std::string_view text) {
  (void)Accepted(tierlab::ParseUnsigned(text));
  auto d = tierlab::ParseDouble(text);
  if (!Accepted(d)) return;
  Require(std::isfinite(*d));
  auto again = tierlab::ParseDouble(tierlab::FormatDouble(*d));
  Require(again.ok() && *again == *d);
}

void ShardText(std::string_view text) {
  auto s = tierlab::ParseShard(text);
  if (!Accepted(s)) return;
  Require(s->index >= 1 && s->index <= s->count);
  auto again = tierlab::ParseShard(s->ToString());
  Require(again.ok() && again->index == s->index && again->count == s->count);
}

void Threshold(std::string_view text) {
  auto t = tierlab::ParseThreshold(text);
  if (Accepted(t)) Require(std::isfinite(*t) && *t >= 0);
}

void Endpoint(std::string_view text) {
  auto e = tierlab::ParseNbdEndpoint(text);
  if (!Accepted(e)) return;
  using Kind = tierlab::NbdEndpoint::Kind;
  Require(e->kind == Kind::kUnix ? !e->path.empty() : !e->host.empty());
}

void Replacement(std::string_view text) {
  auto spec = tierlab::ParseReplacementSpec(text);
  if (!Accepted(spec)) return;
  Require(spec->make(16, 1) != nullptr);
  auto again = tierlab::ParseReplacementSpec(spec->text);
  Require(again.ok() && again->text == spec->text);
}

void Admission(std::string_view text) {
  auto spec = tierlab::ParseAdmissionSpec(text);
  if (!Accepted(spec)) return;
  // An nhit window's tables are sized by it (2^26 lines: gigabytes, as
  // documented), so the large ones are read but not built here.
  const std::string_view t = spec->text;
  const auto nhit =
      t.starts_with("nhit:") ? tierlab::NhitAdmission::ParseParams(t.substr(5)) : std::nullopt;
  Require(!t.starts_with("nhit:") || nhit.has_value());
  if (!nhit || nhit->window <= (std::size_t{1} << 20)) Require(spec->make(4096) != nullptr);
  auto again = tierlab::ParseAdmissionSpec(spec->text);
  Require(again.ok() && again->text == spec->text);
}

void TierNames(std::string_view text) {
  auto p = tierlab::ParseTierPlacement(text);
  if (Accepted(p)) {
    auto again = tierlab::ParseTierPlacement(tierlab::ToString(*p));
    Require(again.ok() && *again == *p);
  }
  auto s = tierlab::ParseMigrationSchedule(text);
  if (Accepted(s)) {
    auto again = tierlab::ParseMigrationSchedule(tierlab::ToString(*s));
    Require(again.ok() && *again == *s);
  }
}

void Pattern(std::string_view text) {
  for (bool offsets : {false, true}) {
    auto p = tierlab::ParseFioPattern(text, offsets);
    if (Accepted(p)) Require(!p->bytes.empty() && p->bytes.size() <= 512);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 13) {
    case 0: BytesText(text); break;
    case 1: FioSize(text, 1024); break;
    case 2: FioSize(text, 1000); break;
    case 3: FioTime(text, tierlab::kSecond); break;
    case 4: FioTime(text, tierlab::kMicro); break;
    case 5: Numbers(text); break;
    case 6: ShardText(text); break;
    case 7: Threshold(text); break;
    case 8: Endpoint(text); break;
    case 9: Replacement(text); break;
    case 10: Admission(text); break;
    case 11: TierNames(text); break;
    default: Pattern(text); break;
  }
  return 0;
}
