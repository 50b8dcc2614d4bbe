// thread_annotations.h - Clang thread-safety annotations and the mutex types they can check.
//
// Clang's -Wthread-safety proves, at compile time, that state marked GUARDED_BY(m) is only
// touched with m held and that functions marked REQUIRES(m) are only called so (issue 16:
// the lock each piece of state needs is written down and checked in CI). std::mutex in
// libstdc++ carries no annotations, so locks that guard annotated state are tutti::Mutex.
// Other compilers see empty macros.
#pragma once
#include <mutex>

#if defined(__clang__)
#define TUTTI_TSA(x) __attribute__((x))
#else
#define TUTTI_TSA(x)
#endif

#define CAPABILITY(x) TUTTI_TSA(capability(x))
#define SCOPED_CAPABILITY TUTTI_TSA(scoped_lockable)
#define GUARDED_BY(x) TUTTI_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) TUTTI_TSA(pt_guarded_by(x))
#define REQUIRES(...) TUTTI_TSA(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) TUTTI_TSA(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) TUTTI_TSA(acquire_capability(__VA_ARGS__))
#define RELEASE(...) TUTTI_TSA(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) TUTTI_TSA(try_acquire_capability(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) TUTTI_TSA(assert_capability(x))
#define RETURN_CAPABILITY(x) TUTTI_TSA(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS TUTTI_TSA(no_thread_safety_analysis)

namespace tutti {

// A std::mutex the analysis knows as a capability.
class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { m_.lock(); }
  void unlock() RELEASE() { m_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return m_.try_lock(); }
  // Tells the analysis the caller holds this lock, where callers are not annotated yet
  // (no run-time check: std::mutex cannot say who owns it).
  void assertHeld() const ASSERT_CAPABILITY(this) {}
  // The std::mutex itself, for std::condition_variable, which waits on no other type.
  std::mutex &native() RETURN_CAPABILITY(this) { return m_; }

 private:
  std::mutex m_;
};

// The API lock: the one lock of the runtime (Runtime, ApiLock in runtime.h), which guards
// every virtual object. A process-wide capability declared below the objects, so that
// their fields can be GUARDED_BY it and functions of every layer can REQUIRE it.
// Constant-initialized (std::mutex's constructor is constexpr): usable before main.
inline Mutex apiMutex;

// std::lock_guard / std::unique_lock for Mutex, as the analysis sees them. Lockable, so
// std::condition_variable_any can wait on it.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex &m) ACQUIRE(m) : m_(m) { m_.lock(); }
  ~MutexLock() RELEASE() {
    if (held_) m_.unlock();
  }
  void lock() ACQUIRE() {
    m_.lock();
    held_ = true;
  }
  void unlock() RELEASE() {
    held_ = false;
    m_.unlock();
  }
  MutexLock(const MutexLock &) = delete;
  MutexLock &operator=(const MutexLock &) = delete;

 private:
  Mutex &m_;
  bool held_ = true;
};

}  // namespace tutti
