#pragma once
// A free list of fixed-type objects for per-request contexts in targets.
//
// A target that splits or wraps a request keeps the parent's completion in a
// context and gives its children a callback that captures only a pointer to
// it (an IoCallback cannot hold another IoCallback by value). Contexts are
// recycled, so the steady state allocates nothing.
//
// Not thread-safe (one engine, one thread). Objects must be released to the
// pool they came from; outstanding objects at destruction are a bug.

#include <memory>
#include <utility>
#include <vector>

namespace tierlab {

template <typename T>
class ObjectPool {
 public:
  ObjectPool() = default;
  ObjectPool(const ObjectPool&) = delete;
  ObjectPool& operator=(const ObjectPool&) = delete;

  // Returns a default-constructed (or recycled and reset) object.
  template <typename... Args>
  T* Acquire(Args&&... args) {
    if (free_.empty()) {
      all_.push_back(std::make_unique<T>(std::forward<Args>(args)...));
      return all_.back().get();
    }
    T* t = free_.back();
    free_.pop_back();
    *t = T(std::forward<Args>(args)...);
    return t;
  }
  // Returns a recycled object as it was released, so its buffers keep their
  // capacity (the caller resets what it uses), or a new default-constructed
  // one: for contexts whose steady state must not allocate at all.
  T* Reuse() {
    if (free_.empty()) {
      all_.push_back(std::make_unique<T>());
      return all_.back().get();
    }
    T* t = free_.back();
    free_.pop_back();
    return t;
  }
  void Release(T* t) { free_.push_back(t); }
  std::size_t outstanding() const { return all_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<T>> all_;
  std::vector<T*> free_;
};

}  // namespace tierlab
