// Distinct values in the order they were first seen, each found again in O(log n).
//
// Tables list their benchmarks, configurations and units in the order the input gave them; a
// vector searched from the front for every new value made those listings quadratic in rows (a
// suite of 10^4 benchmarks took seconds). This keeps the order and finds by key.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

namespace noisefloor::model {

template <typename T>
class FirstSeen {
 public:
  // The value's place in values(), added at the end when new.
  std::size_t add(const T& value) {
    const auto [it, added] = places_.emplace(value, values_.size());
    if (added) values_.push_back(value);
    return it->second;
  }
  std::optional<std::size_t> find(const T& value) const {
    const auto it = places_.find(value);
    if (it == places_.end()) return std::nullopt;
    return it->second;
  }
  bool contains(const T& value) const { return places_.count(value) > 0; }
  const std::vector<T>& values() const { return values_; }
  const T& operator[](std::size_t i) const { return values_[i]; }
  std::size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  auto begin() const { return values_.begin(); }
  auto end() const { return values_.end(); }

 private:
  std::vector<T> values_;
  std::map<T, std::size_t> places_;
};

}  // namespace noisefloor::model
