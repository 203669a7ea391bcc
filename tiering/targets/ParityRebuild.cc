// ParityTarget's rebuild: a replacement member reconstructed stripe window
// by stripe window, while foreground I/O goes on (ParityTarget.h).

#include <algorithm>
#include <cstring>

#include "tiering/targets/ParityTarget.h"  // IWYU pragma: associated

namespace tierlab {
namespace {

constexpr std::size_t kMaxMembers = 256;  // GF(2^8)

}  // namespace

Status ParityTarget::Rebuild(std::size_t member, std::unique_ptr<BlockDevice> replacement,
                             RebuildOptions options, std::function<void(Status)> done) {
  if (rebuild_.active || member >= children_.size() || state_[member] != MemberState::kFailed ||
      size_ == 0) {
    return Status::kInvalid;
  }
  if (replacement != nullptr &&
      (replacement->Size() < stripes_ * chunk_ || replacement->BlockSize() == 0 ||
       max_block_size_ % replacement->BlockSize() != 0)) {
    return Status::kInvalid;
  }
  const auto active =
      static_cast<std::size_t>(std::count(state_.begin(), state_.end(), MemberState::kActive));
  if (active < static_cast<std::size_t>(k_)) return Status::kIoError;
  if (replacement != nullptr) {
    retired_.push_back(std::move(children_[member]));
    children_[member] = std::move(replacement);
    RefreshRequiresData();
  }
  state_[member] = MemberState::kRebuilding;
  rebuilt_below_ = 0;
  rebuild_.active = true;
  rebuild_.member = member;
  rebuild_.options = options;
  rebuild_.options.stripes_per_step = std::max<std::uint32_t>(1, options.stripes_per_step);
  // Members that need buffers get them whatever the caller asked.
  rebuild_.options.with_data = options.with_data || RequiresData();
  rebuild_.done = std::move(done);
  rebuild_.window = 0;
  rebuild_.status = Status::kOk;
  engine().Post([this] { RebuildStep(); });  // `done` never runs inside Rebuild()
  return Status::kOk;
}

void ParityTarget::RebuildStep() {
  if (state_[rebuild_.member] != MemberState::kRebuilding) {
    RebuildEnd(Status::kIoError);  // failed again meanwhile
    return;
  }
  if (rebuild_.window >= stripes_) {
    state_[rebuild_.member] = MemberState::kActive;
    RebuildEnd(Status::kOk);
    return;
  }
  rebuild_.count =
      std::min<std::uint64_t>(rebuild_.options.stripes_per_step, stripes_ - rebuild_.window);
  rebuild_.locked = 0;
  RebuildLockNext();
}

void ParityTarget::RebuildLockNext() {
  // In stripe order; the rebuild is the only holder of several locks, so
  // nobody waits for it while holding one it waits for.
  while (rebuild_.locked < rebuild_.count) {
    if (!locks_.Acquire(rebuild_.window + rebuild_.locked, [this] {
          ++rebuild_.locked;
          RebuildLockNext();
        })) {
      return;
    }
    ++rebuild_.locked;
  }
  RebuildRead();
}

void ParityTarget::RebuildRead() {
  // The same k members serve every stripe of the window: only their roles
  // differ from stripe to stripe.
  rebuild_.sources.clear();
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (i != rebuild_.member && state_[i] == MemberState::kActive &&
        static_cast<int>(rebuild_.sources.size()) < k_) {
      rebuild_.sources.push_back(i);
    }
  }
  rebuild_.status = Status::kOk;
  if (static_cast<int>(rebuild_.sources.size()) < k_) {
    rebuild_.status = Status::kIoError;
    engine().Post([this] { RebuildStepDone(); });
    return;
  }
  const std::uint64_t span = rebuild_.count * chunk_;
  const bool with_data = rebuild_.options.with_data;
  if (with_data) {
    // k source slots, the output, and room to decode one stripe.
    const std::size_t need =
        (static_cast<std::size_t>(k_) + 1) * span + static_cast<std::size_t>(k_ + m_) * chunk_;
    if (rebuild_.buffer.size() < need) rebuild_.buffer = AlignedBuffer(need);
  }
  rebuild_.pending = static_cast<std::uint32_t>(k_);
  for (std::size_t i = 0; i < rebuild_.sources.size(); ++i) {
    const std::size_t member = rebuild_.sources[i];
    std::byte* dst = with_data ? rebuild_.buffer.data() + i * span : nullptr;
    children_[member]->Submit({IoOp::kRead, 0, rebuild_.window * chunk_, span, dst},
                              [this, member](Status st) {
                                if (st != Status::kOk) {
                                  MemberError(member, st);
                                  if (rebuild_.status == Status::kOk) rebuild_.status = st;
                                }
                                if (--rebuild_.pending == 0) RebuildReconstruct();
                              });
  }
}

void ParityTarget::RebuildReconstruct() {
  if (rebuild_.status != Status::kOk) {
    RebuildStepDone();
    return;
  }
  const std::uint64_t span = rebuild_.count * chunk_;
  const bool with_data = rebuild_.options.with_data;
  std::byte* out =
      with_data ? rebuild_.buffer.data() + static_cast<std::size_t>(k_) * span : nullptr;
  if (with_data) {
    std::byte* temp = out + span;
    std::vector<int> roles(static_cast<std::size_t>(k_));
    std::byte* src[kMaxMembers];
    std::byte* data[kMaxMembers];
    std::byte* parity[3];
    std::vector<int> wanted;
    std::byte* wanted_out[kMaxMembers];
    for (std::uint64_t t = 0; t < rebuild_.count; ++t) {
      const std::uint64_t stripe = rebuild_.window + t;
      for (int d = 0; d < k_; ++d) data[d] = nullptr;
      for (std::size_t i = 0; i < roles.size(); ++i) {
        roles[i] = RoleOf(stripe, rebuild_.sources[i]);
        src[i] = rebuild_.buffer.data() + i * span + t * chunk_;
        if (roles[i] < k_) data[roles[i]] = src[i];
      }
      wanted.clear();
      for (int d = 0; d < k_; ++d) {
        if (data[d] != nullptr) continue;
        data[d] = temp + static_cast<std::size_t>(d) * chunk_;
        wanted_out[wanted.size()] = data[d];
        wanted.push_back(d);
      }
      if (!wanted.empty() &&
          !code_.Decode(chunk_, roles, std::span<std::byte* const>(src, roles.size()), wanted,
                        std::span<std::byte* const>(wanted_out, wanted.size()))) {
        rebuild_.status = Status::kIoError;
        RebuildStepDone();
        return;
      }
      const int role = RoleOf(stripe, rebuild_.member);
      std::byte* dst = out + t * chunk_;
      if (role < k_) {
        std::memcpy(dst, data[role], chunk_);
      } else {
        for (int j = 0; j < m_; ++j) parity[j] = temp + static_cast<std::size_t>(k_ + j) * chunk_;
        code_.Encode(chunk_, std::span<std::byte* const>(data, static_cast<std::size_t>(k_)),
                     std::span<std::byte* const>(parity, static_cast<std::size_t>(m_)));
        std::memcpy(dst, parity[role - k_], chunk_);
      }
    }
  }
  rebuild_.pending = 1;
  children_[rebuild_.member]->Submit({IoOp::kWrite, 0, rebuild_.window * chunk_, span, out},
                                     [this](Status st) { RebuildWritten(st); });
}

void ParityTarget::RebuildWritten(Status st) {
  if (st != Status::kOk && rebuild_.status == Status::kOk) rebuild_.status = st;
  if (st == Status::kIoError) FailMember(rebuild_.member);  // the replacement failed
  RebuildStepDone();
}

void ParityTarget::RebuildStepDone() {
  const std::uint64_t first = rebuild_.window;
  const std::uint64_t count = rebuild_.count;
  Status result = rebuild_.status;
  if (result == Status::kOk && state_[rebuild_.member] != MemberState::kRebuilding) {
    result = Status::kIoError;  // failed by hand meanwhile
  }
  // Set before the locks go, so that the ops waiting for them plan with the
  // member as it now is.
  if (result == Status::kOk) {
    rebuilt_below_ = first + count;
    stats_.rebuilt_stripes += count;
  } else if (state_[rebuild_.member] == MemberState::kRebuilding) {
    state_[rebuild_.member] = MemberState::kFailed;
  }
  rebuild_.window += count;
  for (std::uint64_t t = 0; t < count; ++t) locks_.Release(first + t);
  if (result != Status::kOk) {
    RebuildEnd(result);
    return;
  }
  RebuildStep();
}

void ParityTarget::RebuildEnd(Status st) {
  if (st != Status::kOk && state_[rebuild_.member] == MemberState::kRebuilding) {
    state_[rebuild_.member] = MemberState::kFailed;
  }
  if (state_[rebuild_.member] != MemberState::kRebuilding) rebuilt_below_ = 0;
  rebuild_.active = false;
  rebuild_.buffer = AlignedBuffer();
  std::function<void(Status)> done = std::move(rebuild_.done);
  rebuild_.done = nullptr;
  if (done) done(st);
}

}  // namespace tierlab
