#include "tiering/core/EngineKind.h"

#include <string>

#include "tiering/core/RealEngine.h"
#include "tiering/core/SimEngine.h"

namespace tierlab {

const char* EngineKindName(EngineKind kind) {
  return kind == EngineKind::kReal ? "real" : "sim";
}

Expected<EngineKind> ParseEngineKind(std::string_view name) {
  if (name == "sim") return EngineKind::kSimulated;
  if (name == "real") return EngineKind::kReal;
  return Error{"mode: must be sim or real, got '" + std::string(name) + "'", ErrorKind::kInput};
}

std::unique_ptr<Engine> MakeEngine(EngineKind kind) {
  if (kind == EngineKind::kReal) return std::make_unique<RealEngine>();
  return std::make_unique<SimEngine>();
}

}  // namespace tierlab
