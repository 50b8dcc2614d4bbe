// small_vec.h - a vector of pointers that keeps its first few elements inline.
//
// Every launch lists its dependencies and is listed among its predecessor's waiters: one or
// two pointers each, almost always. A std::vector allocates for the first of them, so each
// launch paid two mallocs (and two frees) for lists that fit in a cache line (perf, the
// launch loop of enqueue_rate under tally_icd's no-op driver).
#pragma once
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

namespace tutti {

template <class T, size_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVec holds plain values (pointers)");

 public:
  SmallVec() = default;
  SmallVec(const SmallVec &) = delete;
  SmallVec &operator=(const SmallVec &) = delete;
  SmallVec(SmallVec &&o) noexcept { take(o); }
  SmallVec &operator=(SmallVec &&o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallVec() { release(); }

  void push_back(T v) {
    if (size_ == cap_) grow();
    data_[size_++] = v;
  }
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }

 private:
  bool inline_() const { return data_ == inline_buf_; }
  void grow() {
    size_t cap = cap_ * 2;
    T *d = new T[cap];
    std::memcpy(d, data_, size_ * sizeof(T));
    release();
    data_ = d;
    cap_ = cap;
  }
  void release() {
    if (!inline_()) delete[] data_;
    data_ = inline_buf_;
    cap_ = N;
  }
  // Leaves o empty (inline).
  void take(SmallVec &o) {
    if (o.inline_()) {
      std::memcpy(inline_buf_, o.inline_buf_, o.size_ * sizeof(T));
      data_ = inline_buf_;
      cap_ = N;
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_buf_;
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T inline_buf_[N];
  T *data_ = inline_buf_;
  size_t size_ = 0, cap_ = N;
};

}  // namespace tutti
