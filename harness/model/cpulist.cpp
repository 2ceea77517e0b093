#include "model/cpulist.hpp"

#include <algorithm>
#include <charconv>

#include "text/text.hpp"

namespace noisefloor::model {
namespace {

using text::trim;

std::optional<int> parse_cpu(std::string_view s) {
  int value = 0;
  if (s.empty() || s.size() > 6) return std::nullopt;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || ptr != s.data() + s.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  text = trim(text);
  std::vector<int> cpus;
  if (text.empty()) return cpus;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    const auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      const auto cpu = parse_cpu(item);
      if (!cpu) return std::nullopt;
      cpus.push_back(*cpu);
    } else {
      const auto lo = parse_cpu(trim(item.substr(0, dash)));
      const auto hi = parse_cpu(trim(item.substr(dash + 1)));
      if (!lo || !hi || *lo > *hi) return std::nullopt;
      for (int c = *lo; c <= *hi; ++c) cpus.push_back(c);
    }
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus_in) {
  std::vector<int> cpus = cpus_in;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += (j == i + 1 ? "," : "-") + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace noisefloor::model
