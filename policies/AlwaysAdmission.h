#pragma once
// `always`: the null admission policy — every missed line is inserted and
// nothing is pinned. The behaviour of dm-cache/bcache/Open CAS with promotion
// filtering switched off, and the member new admission policies copy.

#include "policies/AdmissionPolicy.h"

namespace tierlab {

class AlwaysAdmission final : public AdmissionPolicy {
 public:
  bool Admit(const AccessInfo& a) override { return true; }
  std::string Name() const override { return "always"; }
};

}  // namespace tierlab
