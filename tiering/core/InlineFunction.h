#pragma once
// A move-only callable with inline storage and no heap allocation.
//
// Completions and engine tasks are created for every simulated I/O, millions
// per second; std::function would allocate for most captures. A capture that
// does not fit fails to compile, so a hot path never silently allocates.
//
// Most captures are a few pointers or indices (trivially copyable): moving
// one copies the storage and destroying it does nothing, without the indirect
// call through the ops table. A simulated I/O moves its callbacks and engine
// tasks several times, so this is a measurable part of the event loop.

#include <cstddef>
#include <cstring>
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
      if (ops_->destroy != nullptr) ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    R (*invoke)(void*, Args&&...);
    // Null for trivially copyable callables: a move copies the storage.
    void (*move)(void* dst, void* src) noexcept;  // move-constructs dst, destroys src
    // Null for trivially destructible callables.
    void (*destroy)(void*) noexcept;
  };

  template <typename D>
  static constexpr Ops kOpsFor = {
      [](void* p, Args&&... args) -> R {
        return (*static_cast<D*>(p))(std::forward<Args>(args)...);
      },
      std::is_trivially_copyable_v<D> ? nullptr
                                      : +[](void* dst, void* src) noexcept {
                                          ::new (dst) D(std::move(*static_cast<D*>(src)));
                                          static_cast<D*>(src)->~D();
                                        },
      std::is_trivially_destructible_v<D> ? nullptr
                                          : +[](void* p) noexcept { static_cast<D*>(p)->~D(); },
  };

  void MoveFrom(InlineFunction& other) noexcept {
    if (other.ops_ != nullptr) {
      if (other.ops_->move != nullptr) {
        other.ops_->move(storage_, other.storage_);
      } else {
        // The whole buffer, a fixed size the compiler copies inline; the
        // bytes past the callable are never read as a D. Copying those
        // indeterminate bytes as unsigned char is defined, so GCC's
        // maybe-uninitialized warning here is a false positive (clang has no
        // such warning, and would warn about the unknown group).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
        std::memcpy(storage_, other.storage_, Capacity);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
      }
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char storage_[Capacity];
  const Ops* ops_ = nullptr;
};

}  // namespace tierlab
