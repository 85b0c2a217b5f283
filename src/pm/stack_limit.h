#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "pm/function_ref.h"

namespace saturate::pm {

// Bytes of machine stack a deeply recursive computation may still use, measured from `here`
// (an address in the caller's frame) down to the end of the current thread's stack, less a
// safety margin. The thread's stack bounds are looked up once per thread; where the platform
// cannot tell, a conservative 1 MiB is assumed.
size_t usable_stack_bytes(uintptr_t here);

// Runs `work` on a new thread whose stack has `stack_bytes`, waits for it, and returns its
// result or rethrows its exception: a recursion that nears the end of its stack continues on a
// fresh one. Nothing when no such thread can be started.
std::optional<bool> run_on_new_stack(FunctionRef<bool()> work, size_t stack_bytes);

}  // namespace saturate::pm
