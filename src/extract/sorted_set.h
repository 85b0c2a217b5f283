#pragma once

#include <algorithm>
#include <iterator>
#include <vector>

namespace saturate::extract {

// `set` becomes its intersection with `other`, both sorted; `scratch` is reused storage, so that
// a loop of intersections allocates once.
template <typename T>
void intersect_with(std::vector<T>& set, const std::vector<T>& other, std::vector<T>& scratch) {
  scratch.clear();
  std::set_intersection(set.begin(), set.end(), other.begin(), other.end(),
                        std::back_inserter(scratch));
  set.swap(scratch);
}

}  // namespace saturate::extract
