#include "tiering/tier/TierConfig.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

Error FieldError(const std::string& field, const std::string& what) {
  return MakeError(field + ": " + what);
}

std::string Str(std::uint64_t v) {
  return std::to_string(v);
}

}  // namespace

std::string_view ToString(TierPlacement p) {
  switch (p) {
    case TierPlacement::kFastFirst: return "fast-first";
    case TierPlacement::kSlowFirst: return "slow-first";
  }
  return "unknown";
}

std::string_view ToString(MigrationSchedule s) {
  switch (s) {
    case MigrationSchedule::kOff: return "off";
    case MigrationSchedule::kContinuous: return "continuous";
    case MigrationSchedule::kPeriodic: return "periodic";
  }
  return "unknown";
}

Expected<TierPlacement> ParseTierPlacement(std::string_view s) {
  if (s == "fast-first") return TierPlacement::kFastFirst;
  if (s == "slow-first") return TierPlacement::kSlowFirst;
  return MakeError("placement: unknown value " + QuotedText(s) +
                   " (valid: fast-first, slow-first)");
}

Expected<MigrationSchedule> ParseMigrationSchedule(std::string_view s) {
  if (s == "off") return MigrationSchedule::kOff;
  if (s == "continuous") return MigrationSchedule::kContinuous;
  if (s == "periodic") return MigrationSchedule::kPeriodic;
  return MakeError("schedule: unknown value " + QuotedText(s) +
                   " (valid: off, continuous, periodic)");
}

std::uint32_t TierBlockSize(const std::vector<TierGeometry>& tiers) {
  std::uint32_t bs = 512;
  for (const auto& t : tiers) bs = std::max(bs, t.block_size);
  return bs;
}

std::uint64_t TierVolumeSize(const TierConfig& c, const std::vector<TierGeometry>& tiers) {
  if (c.volume_size != 0) return c.volume_size;
  std::uint64_t slots = 0;
  for (const auto& t : tiers) slots += TierSlots(t.capacity, c.extent_size);
  const std::uint64_t spare =
      std::min<std::uint64_t>(c.max_migration_ios, slots > 0 ? slots - 1 : 0);
  return (slots - spare) * c.extent_size;
}

Expected<void> ValidateTierConfig(const TierConfig& c, const std::vector<TierGeometry>& tiers) {
  if (tiers.size() < 2 || tiers.size() > kTierMaxTiers) {
    return FieldError("tiers", "need 2.." + Str(kTierMaxTiers) +
                                   " tiers ordered fast to slow, got " + Str(tiers.size()));
  }
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const std::string f = "tiers[" + Str(i) + "]";
    if (tiers[i].capacity == 0) return FieldError(f, "capacity is 0");
    if (tiers[i].block_size == 0 || (tiers[i].block_size & (tiers[i].block_size - 1)) != 0) {
      return FieldError(f, "block size must be a power of two, got " + Str(tiers[i].block_size));
    }
  }
  const std::uint32_t bs = TierBlockSize(tiers);
  if (c.extent_size < kTierMinExtentSize || c.extent_size > kTierMaxExtentSize) {
    return FieldError("extent_size", "must be 1 MiB..256 MiB, got " + Str(c.extent_size));
  }
  if (c.extent_size % bs != 0) {
    return FieldError("extent_size", "must be a multiple of the block size " + Str(bs) + ", got " +
                                         Str(c.extent_size));
  }
  std::uint64_t total_slots = 0;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const std::uint64_t slots = TierSlots(tiers[i].capacity, c.extent_size);
    if (slots == 0) {
      return FieldError(
          "tiers[" + Str(i) + "]",
          "capacity " + Str(tiers[i].capacity) + " holds no whole extent of " + Str(c.extent_size));
    }
    total_slots += slots;
  }
  const std::uint64_t volume = TierVolumeSize(c, tiers);
  if (volume % bs != 0) {
    return FieldError("volume_size",
                      "must be a multiple of the block size " + Str(bs) + ", got " + Str(volume));
  }
  if (volume > total_slots * c.extent_size) {
    return FieldError("volume_size", "must be <= the tiers' capacity in whole extents (" +
                                         Str(total_slots * c.extent_size) + "), got " +
                                         Str(volume));
  }
  const std::uint64_t extents = (volume + c.extent_size - 1) / c.extent_size;
  // Pinned extents per tier, and overlaps between pins of different tiers.
  std::vector<std::uint64_t> pinned(tiers.size(), 0);
  for (std::size_t i = 0; i < c.pins.size(); ++i) {
    const TierPin& p = c.pins[i];
    const std::string f = "pins[" + Str(i) + "]";
    if (p.tier >= tiers.size()) {
      return FieldError(f + ".tier", "must be < " + Str(tiers.size()) + ", got " + Str(p.tier));
    }
    if (p.length == 0) return FieldError(f + ".length", "must be > 0");
    if (p.offset >= volume || p.length > volume - p.offset) {
      return FieldError(f, "range " + Str(p.offset) + "+" + Str(p.length) +
                               " is outside the volume (size " + Str(volume) + ")");
    }
    const std::uint64_t a = p.offset / c.extent_size;
    const std::uint64_t b = (p.offset + p.length - 1) / c.extent_size;
    for (std::size_t j = 0; j < i; ++j) {
      const TierPin& q = c.pins[j];
      const std::uint64_t qa = q.offset / c.extent_size;
      const std::uint64_t qb = (q.offset + q.length - 1) / c.extent_size;
      if (a <= qb && qa <= b && q.tier != p.tier) {
        return FieldError(f, "shares extent " + Str(std::max(a, qa)) + " with pins[" + Str(j) +
                                 "] but pins it to another tier");
      }
    }
  }
  // Count distinct pinned extents per tier (pins of one tier may overlap).
  if (!c.pins.empty()) {
    std::vector<std::uint8_t> owner(extents, 0xFF);
    for (const TierPin& p : c.pins) {
      for (std::uint64_t e = p.offset / c.extent_size;
           e <= (p.offset + p.length - 1) / c.extent_size; ++e) {
        owner[e] = static_cast<std::uint8_t>(p.tier);
      }
    }
    for (std::uint8_t o : owner)
      if (o != 0xFF) ++pinned[o];
    for (std::size_t t = 0; t < tiers.size(); ++t) {
      const std::uint64_t slots = TierSlots(tiers[t].capacity, c.extent_size);
      if (pinned[t] > slots) {
        return FieldError("pins", "pin " + Str(pinned[t]) + " extents to tier " + Str(t) +
                                      ", which holds only " + Str(slots));
      }
    }
  }
  if (c.heat_half_life <= 0) return FieldError("heat_half_life", "must be > 0");
  if (!(c.read_weight >= 0) || !(c.write_weight >= 0) || !std::isfinite(c.read_weight) ||
      !std::isfinite(c.write_weight)) {
    return FieldError("read_weight", "read_weight and write_weight must be finite and >= 0");
  }
  if (c.schedule == MigrationSchedule::kPeriodic && c.period <= 0) {
    return FieldError("period", "must be > 0 with schedule periodic");
  }
  if (c.schedule == MigrationSchedule::kContinuous && c.interval <= 0) {
    return FieldError("interval", "must be > 0 with schedule continuous");
  }
  if (c.max_migration_ios == 0) return FieldError("max_migration_ios", "must be >= 1");
  if (c.migration_io_size == 0 || c.migration_io_size % bs != 0 ||
      c.extent_size % c.migration_io_size != 0) {
    return FieldError("migration_io_size", "must be a multiple of the block size " + Str(bs) +
                                               " that divides extent_size " + Str(c.extent_size) +
                                               ", got " + Str(c.migration_io_size));
  }
  if (c.max_moves_per_pass == 0) return FieldError("max_moves_per_pass", "must be >= 1");
  if (!(c.fill_threshold > 0 && c.fill_threshold <= 1)) {
    return FieldError("fill_threshold", "must be in (0, 1]");
  }
  if (!(c.promote_hysteresis >= 0) || !std::isfinite(c.promote_hysteresis)) {
    return FieldError("promote_hysteresis", "must be finite and >= 0");
  }
  if (!(c.min_promote_heat >= 0) || !std::isfinite(c.min_promote_heat)) {
    return FieldError("min_promote_heat", "must be finite and >= 0");
  }
  return {};
}

}  // namespace tierlab
