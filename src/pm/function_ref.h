#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace saturate::pm {

template <class Signature>
class FunctionRef;

// A non-owning reference to a callable: two pointers, no allocation. The matcher passes its
// continuations this way; a std::function could allocate on every attempt, and a template
// parameter would instantiate a new type per nesting level of a recursive pattern.
template <class Result, class... Args>
class FunctionRef<Result(Args...)> {
 public:
  template <class Callable>
  requires(!std::is_same_v<std::remove_cvref_t<Callable>, FunctionRef> &&
           std::is_invocable_r_v<Result, Callable&, Args...>)
      FunctionRef(Callable&& callable)  // NOLINT(google-explicit-constructor): used like a lambda
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(callable)))),
        call_(&invoke<std::remove_reference_t<Callable>>) {}

  Result operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  template <class Callable>
  static Result invoke(void* object, Args... args) {
    return (*static_cast<Callable*>(object))(std::forward<Args>(args)...);
  }

  void* object_;
  Result (*call_)(void*, Args...);
};

}  // namespace saturate::pm
