#include "render/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "text/text.hpp"

namespace noisefloor::render {
namespace {

struct Key {
  std::string condition, row;
  friend bool operator<(const Key& a, const Key& b) {
    return std::tie(a.condition, a.row) < std::tie(b.condition, b.row);
  }
  friend bool operator==(const Key&, const Key&) = default;
};

std::string cell(const analysis::Row* row) {
  if (row == nullptr) return "—";
  const auto& s = row->summary;
  if (s.n == 0) return "—";
  return fmt::format("{} {} {}", text::format_value(s.median), row->unit,
                     s.cv_pct ? fmt::format("{:.1f}%", *s.cv_pct) : std::string("—"));
}


}  // namespace

std::string hosts_side_by_side(const std::vector<HostColumn>& hosts, bool terminal) {
  // Every condition × row any host has, in the first host's order, then the others'.
  std::vector<Key> keys;
  std::vector<std::map<Key, const analysis::Row*>> by_host(hosts.size());
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    if (hosts[h].analysis == nullptr) continue;
    for (const auto& row : hosts[h].analysis->table.rows) {
      const Key k{row.condition, analysis::display_name(row)};
      by_host[h][k] = &row;
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  std::vector<std::string> head = {"condition"};
  for (const auto& h : hosts) head.push_back(h.name);
  std::vector<std::vector<std::string>> lines;
  bool several_rows = false;
  for (const auto& k : keys)
    for (const auto& other : keys)
      if (other.condition == k.condition && other.row != k.row) several_rows = true;
  for (const auto& k : keys) {
    std::string first = k.condition;
    if (several_rows) first += " · " + k.row;
    std::vector<std::string> line = {first};
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      const auto it = by_host[h].find(k);
      std::string c = cell(it == by_host[h].end() ? nullptr : it->second);
      if (std::find(hosts[h].containers.begin(), hosts[h].containers.end(), k.condition) != hosts[h].containers.end())
        c += " †";
      line.push_back(c);
    }
    lines.push_back(line);
  }
  std::string out;
  if (terminal) {
    std::vector<std::size_t> width(head.size(), 0);
    for (std::size_t i = 0; i < head.size(); ++i) width[i] = text::width(head[i]);
    for (const auto& l : lines)
      for (std::size_t i = 0; i < l.size(); ++i) width[i] = std::max(width[i], text::width(l[i]));
    const auto put = [&](const std::vector<std::string>& cells) {
      std::string s;
      for (std::size_t i = 0; i < cells.size(); ++i) s += (i ? "  " : "") + text::pad_right(cells[i], width[i]);
      while (!s.empty() && s.back() == ' ') s.pop_back();
      out += s + "\n";
    };
    put(head);
    for (const auto& l : lines) put(l);
  } else {
    out += "| " + fmt::format("{}", fmt::join(head, " | ")) + " |\n|";
    for (std::size_t i = 0; i < head.size(); ++i) out += i ? "---|" : "---|";
    out += "\n";
    for (const auto& l : lines) out += "| " + fmt::format("{}", fmt::join(l, " | ")) + " |\n";
  }
  out += "each host: median and CV of its own samples (never pooled across hosts)";
  bool any_container = false;
  for (const auto& h : hosts) any_container |= !h.containers.empty();
  if (any_container) out += "; † ran as containers on that host";
  out += "\n";
  for (const auto& h : hosts)
    if (h.status != "complete") out += fmt::format("{}: {}\n", h.name, h.status);
  return out;
}

std::string host_differences(const std::vector<std::string>& names,
                             const std::vector<std::vector<analysis::Difference>>& against_first, bool all) {
  std::map<std::string, std::vector<std::string>> fields;  // field -> "<host> <value>" per host
  std::vector<std::string> order;
  for (std::size_t k = 0; k < against_first.size() && k + 1 < names.size(); ++k)
    for (const auto& d : against_first[k]) {
      if (!all && !d.moves_benchmarks) continue;
      // Which image ran a condition is the run's, not the room's: hosts that run a condition as
      // host processes have none.
      if (d.field.starts_with("engine.images.")) continue;
      auto& v = fields[d.field];
      if (v.empty()) {
        order.push_back(d.field);
        v.push_back(fmt::format("{} {}", names[0], d.a));
      }
      v.push_back(fmt::format("{} {}", names[k + 1], d.b));
    }
  if (order.empty()) return "";
  std::string out = "hosts differ in:\n";
  for (const auto& f : order) out += fmt::format("  {}: {}\n", f, fmt::join(fields[f], " · "));
  return out;
}

}  // namespace noisefloor::render
