#pragma once
// A move-only callable with inline storage and no heap allocation.
//
// Completions and engine tasks are created for every simulated I/O, millions
// per second; std::function would allocate for most captures. A capture that
// does not fit fails to compile, so a hot path never silently allocates.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace tierlab {

template <typename Signature, std::size_t Capacity = 48>
class InlineFunction;

template <typename R, typename... Args, std::size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
 public:
  InlineFunction() noexcept = default;
  InlineFunction(std::nullptr_t) noexcept {}

  template <typename F, typename D = std::decay_t<F>,
            typename = std::enable_if_t<!std::is_same_v<D, InlineFunction>>>
  InlineFunction(F&& f) {  // NOLINT(google-explicit-constructor): callable sink
    static_assert(sizeof(D) <= Capacity, "capture too large for InlineFunction");
    static_assert(alignof(D) <= alignof(std::max_align_t));
    static_assert(std::is_nothrow_move_constructible_v<D>);
    ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
    ops_ = &kOpsFor<D>;
  }

  InlineFunction(InlineFunction&& other) noexcept { MoveFrom(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      Reset();
      MoveFrom(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { Reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  R operator()(Args... args) { return ops_->invoke(storage_, std::forward<Args>(args)...); }

  void Reset() noexcept {
    if (ops_ != nullptr) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    R (*invoke)(void*, Args&&...);
    void (*move)(void* dst, void* src) noexcept;  // move-constructs dst, destroys src
    void (*destroy)(void*) noexcept;
  };

  template <typename D>
  static constexpr Ops kOpsFor = {
      [](void* p, Args&&... args) -> R {
        return (*static_cast<D*>(p))(std::forward<Args>(args)...);
      },
      [](void* dst, void* src) noexcept {
        ::new (dst) D(std::move(*static_cast<D*>(src)));
        static_cast<D*>(src)->~D();
      },
      [](void* p) noexcept { static_cast<D*>(p)->~D(); },
  };

  void MoveFrom(InlineFunction& other) noexcept {
    if (other.ops_ != nullptr) {
      other.ops_->move(storage_, other.storage_);
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char storage_[Capacity];
  const Ops* ops_ = nullptr;
};

}  // namespace tierlab
