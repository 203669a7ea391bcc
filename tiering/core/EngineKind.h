#pragma once
// Which clock a stack runs on: simulated time on device models, or real time
// on files and block devices. One name for it everywhere above the block
// layer ("sim" and "real" in files and on the command line), and one factory.

#include <cstdint>
#include <memory>
#include <string_view>

#include "tiering/core/Engine.h"
#include "tiering/core/Expected.h"

namespace tierlab {

enum class EngineKind : std::uint8_t { kSimulated, kReal };

// "sim" or "real": as results files and matrices spell it.
const char* EngineKindName(EngineKind kind);
// "sim" or "real"; anything else is an input error naming both.
Expected<EngineKind> ParseEngineKind(std::string_view name);

inline EngineKind KindOf(const Engine& engine) {
  return engine.IsSimulated() ? EngineKind::kSimulated : EngineKind::kReal;
}

// A SimEngine or a RealEngine.
std::unique_ptr<Engine> MakeEngine(EngineKind kind);

}  // namespace tierlab
