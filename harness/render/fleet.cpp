#include "render/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "text/text.hpp"

namespace noisefloor::render {
namespace {

// A row as hosts are matched: its key (condition, full name, configuration, variant); `row` the
// name it is shown by.
struct Key {
  analysis::RowKey key;
  std::string condition, row;
  friend bool operator<(const Key& a, const Key& b) { return a.key < b.key; }
  friend bool operator==(const Key& a, const Key& b) { return a.key == b.key; }
};

std::string cell(const analysis::Row* row) {
  if (row == nullptr) return "—";
  const auto& s = row->summary;
  if (s.n == 0) return "—";
  return fmt::format("{} {} {}", text::format_value(s.median), row->unit,
                     s.cv_pct ? fmt::format("{:.1f}%", *s.cv_pct) : std::string("—"));
}

}  // namespace

SideBySide side_by_side(const std::vector<HostColumn>& hosts) {
  // Every condition × row any host has, in the first host's order, then the others'.
  std::vector<Key> keys;
  std::vector<std::map<Key, const analysis::Row*>> by_host(hosts.size());
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    if (hosts[h].analysis == nullptr) continue;
    for (const auto& row : hosts[h].analysis->table.rows) {
      const Key k{row.key(), row.condition, analysis::display_name(row)};
      by_host[h][k] = &row;
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  SideBySide t;
  t.head = {"condition"};
  for (const auto& h : hosts) t.head.push_back(h.name);
  bool several_rows = false;
  for (const auto& k : keys)
    for (const auto& other : keys)
      if (other.condition == k.condition && other.row != k.row) several_rows = true;
  bool any_container = false;
  for (const auto& k : keys) {
    std::vector<std::string> line = {several_rows ? k.condition + " · " + k.row : k.condition};
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      const auto it = by_host[h].find(k);
      std::string c = cell(it == by_host[h].end() ? nullptr : it->second);
      const auto& in = hosts[h].containers;
      if (std::find(in.begin(), in.end(), k.condition) != in.end()) {
        c += " †";
        any_container = true;
      }
      line.push_back(c);
    }
    t.rows.push_back(line);
  }
  t.legend = "each host: median and CV of its own samples (never pooled across hosts)";
  if (any_container) t.legend += "; † ran as containers on that host";
  for (const auto& h : hosts)
    if (h.status != records::RunStatus::complete)
      t.problems.push_back(
          fmt::format("{}: {}: {}", h.name, records::to_string(h.status), h.error.value_or("")));
  return t;
}

std::string hosts_side_by_side(const std::vector<HostColumn>& hosts, bool terminal) {
  const SideBySide t = side_by_side(hosts);
  std::string out;
  if (terminal) {
    std::vector<std::size_t> width(t.head.size(), 0);
    for (std::size_t i = 0; i < t.head.size(); ++i) width[i] = text::width(t.head[i]);
    for (const auto& l : t.rows)
      for (std::size_t i = 0; i < l.size(); ++i) width[i] = std::max(width[i], text::width(l[i]));
    const auto put = [&](const std::vector<std::string>& cells) {
      std::string line;
      for (std::size_t i = 0; i < cells.size(); ++i)
        line += (i ? "  " : "") + text::pad_right(cells[i], width[i]);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    };
    put(t.head);
    for (const auto& l : t.rows) put(l);
  } else {
    const auto put = [&](const std::vector<std::string>& cells) {
      out += "|";
      for (const auto& c : cells) out += " " + text::markdown_cell(c) + " |";
      out += "\n";
    };
    put(t.head);
    out += "|";
    for (std::size_t i = 0; i < t.head.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& l : t.rows) put(l);
  }
  out += t.legend + "\n";
  for (const auto& p : t.problems) out += p + "\n";
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
