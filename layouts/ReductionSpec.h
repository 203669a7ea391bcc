#pragma once
// The "reduction" section of a layout: inline deduplication and compression
// (DataReductionTarget), read into a ReductionSpec when the layout is read:
//
//   "reduction": {"dedupe": true, "compression": "lz4", "keep_compressed_max": "2k",
//                 "where": "inline", "logical_size": "2t", "cpu_threads": 2}
//
// `where`: "inline" puts it above the cache target (reduced before the
// acknowledgement, as VDO and Nimble do; the cache holds reduced blocks);
// "destage" below it, over the capacity stack (reduced as the cache
// destages, as vSAN's space efficiency does). Without a cache the two are
// the same. Every key, its default and unit: ReductionFields() and
// docs/CONFIG.md.

#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "layouts/FieldTable.h"
#include "tiering/core/Expected.h"
#include "tiering/targets/DataReductionTarget.h"

namespace tierlab {

enum class ReductionPlace : std::uint8_t { kInline, kDestage };

struct ReductionSpec {
  ReductionConfig config;  // cpu: MeasuredCpuCost(compression) when built
  ReductionPlace where = ReductionPlace::kInline;
};

std::span<const Field<ReductionSpec>> ReductionFields();

Expected<ReductionSpec> ParseReductionJson(const nlohmann::json& j, std::string_view source);
// Every key; ParseReductionJson(ReductionToJson(r)) reproduces r.
nlohmann::json ReductionToJson(const ReductionSpec& r);

}  // namespace tierlab
