#include "pm/stack_limit.h"

#include <pthread.h>

#include <algorithm>
#include <exception>

namespace saturate::pm {

namespace {

constexpr size_t kFallback = size_t{1} << 20;
constexpr size_t kMargin = size_t{256} << 10;

// The lowest address of this thread's stack (stacks grow down on every platform we build
// for), or 0 when unknown. For the main thread glibc reads /proc/self/maps: do it once.
uintptr_t stack_low_end() {
  uintptr_t low = 0;
#if defined(__linux__)
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
    void* address = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attributes, &address, &size) == 0) {
      low = reinterpret_cast<uintptr_t>(address);
    }
    pthread_attr_destroy(&attributes);
  }
#endif
  return low;
}

struct Job {
  FunctionRef<bool()> work;
  bool result = false;
  std::exception_ptr error;
};

void* run_job(void* argument) {
  auto* job = static_cast<Job*>(argument);
  try {
    job->result = job->work();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

size_t usable_stack_bytes(uintptr_t here) {
  thread_local const uintptr_t low = stack_low_end();
  if (low == 0 || here <= low) return kFallback;
  size_t left = here - low;
  // Keep a margin for whatever runs at the deepest point (error messages, allocations).
  size_t margin = std::max(kMargin, left / 16);
  return left > margin ? left - margin : 0;
}

std::optional<bool> run_on_new_stack(FunctionRef<bool()> work, size_t stack_bytes) {
  Job job{work, false, nullptr};
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) return std::nullopt;
  bool started = pthread_attr_setstacksize(&attributes, stack_bytes) == 0;
  pthread_t thread;
  started = started && pthread_create(&thread, &attributes, run_job, &job) == 0;
  pthread_attr_destroy(&attributes);
  if (!started) return std::nullopt;
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
  return job.result;
}

}  // namespace saturate::pm
