#include "analysis/rooms.hpp"

#include <algorithm>

namespace noisefloor::analysis {
namespace {

bool matches(std::string_view field, std::string_view pattern) {
  if (pattern.ends_with(".*")) {
    const auto base = pattern.substr(0, pattern.size() - 2);
    return field == base ||
           (field.starts_with(base) && field.size() > base.size() && field[base.size()] == '.');
  }
  return field == pattern;
}

template <std::size_t N>
bool matches_any(std::string_view field, const std::string_view (&patterns)[N]) {
  return std::any_of(std::begin(patterns), std::end(patterns),
                     [&](std::string_view p) { return matches(field, p); });
}

// path or a benchmark-moving field below it (a whole group that changed shape).
bool moves_below(std::string_view path) {
  if (matches_any(path, kBenchmarkMovingFields)) return true;
  return std::any_of(std::begin(kBenchmarkMovingFields), std::end(kBenchmarkMovingFields),
                     [&](std::string_view p) {
                       return p.size() > path.size() && p.starts_with(path) && p[path.size()] == '.';
                     });
}

// path, or a group it lies in, changes on every probe.
bool is_volatile(std::string_view path) {
  for (std::size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.', dot + 1))
    if (matches_any(path.substr(0, dot), kVolatileFields)) return true;
  return matches_any(path, kVolatileFields);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> benchmark_moving_facts(
    const records::Fingerprint& fingerprint) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [path, content] : records::fact_leaves(fingerprint))
    if (!is_volatile(path) && matches_any(path, kBenchmarkMovingFields))
      out.emplace_back(path, std::move(content));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Difference> differences(const records::Fingerprint& fa, const records::Fingerprint& fb) {
  // The comparison is over the fingerprints as recorded, field by field.
  std::vector<Difference> out;
  for (auto& c : records::fact_changes(fa, fb)) {
    if (c.path.empty() || is_volatile(c.path)) continue;
    // An engine fact one run recorded and the other did not (a host-only run never asks the
    // engine) was not needed by one of them: listed, but it does not make the rooms differ. (An
    // absent environment variable is a value: unset.)
    const bool unneeded = c.one_side && c.path.starts_with("engine.");
    const bool moves =
        c.shape ? moves_below(c.path) : !unneeded && matches_any(c.path, kBenchmarkMovingFields);
    out.push_back({std::move(c.path), std::move(c.a), std::move(c.b), moves});
  }
  std::stable_partition(out.begin(), out.end(), [](const Difference& d) { return d.moves_benchmarks; });
  return out;
}

}  // namespace noisefloor::analysis
