#include "parsers/published.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jsonread/parse.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::parsers {
namespace {

[[noreturn]] void fail(std::size_t line, const std::string& what) {
  throw ParseError(fmt::format("line {}: {}", line, what));
}

// A finite number, the whole of `s` ("nan" and "inf" are not published figures).
std::optional<double> number(std::string_view s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The first number in a cell ("24.92 ± 73.4%" → 24.92, "4.75%" → 4.75, "1,024" → 1024);
// nullopt for an empty cell or a dash.
std::optional<double> first_number(std::string_view cell) {
  std::string digits;
  std::size_t i = 0;
  while (i < cell.size() && !(std::isdigit(static_cast<unsigned char>(cell[i])) ||
                              ((cell[i] == '-' || cell[i] == '+' || cell[i] == '.') && i + 1 < cell.size() &&
                               std::isdigit(static_cast<unsigned char>(cell[i + 1])))))
    ++i;
  for (; i < cell.size(); ++i) {
    const char c = cell[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
        ((c == '-' || c == '+') && (digits.empty() || digits.back() == 'e' || digits.back() == 'E')))
      digits += c;
    else if (c == ',' && !digits.empty())
      continue;
    else
      break;
  }
  if (digits.empty()) return std::nullopt;
  return number(digits);
}

// A sample count: a whole number from 0 to 10⁹ (a published n is never larger; anything else is
// not a count, and converting it to int would be undefined).
std::optional<int> count(std::optional<double> v) {
  if (!v || !(*v >= 0 && *v <= 1e9) || *v != std::floor(*v)) return std::nullopt;
  return static_cast<int>(*v);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "## idle" → "idle"
bool section(std::string_view line, std::string& name) {
  if (line.substr(0, 3) != "## ") return false;
  name = std::string(text::trim(line.substr(3)));
  return true;
}

std::vector<std::string> cells(std::string_view line) {
  std::string_view s = text::trim(line);
  if (!s.empty() && s.front() == '|') s.remove_prefix(1);
  if (!s.empty() && s.back() == '|') s.remove_suffix(1);
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (s[i] == '|') {
      out.emplace_back(text::trim(cur));
      cur.clear();
    } else {
      cur += s[i];
    }
  }
  out.emplace_back(text::trim(cur));
  return out;
}

bool separator_row(const std::vector<std::string>& row) {
  for (const auto& c : row)
    for (char ch : c)
      if (ch != '-' && ch != ':' && ch != ' ') return false;
  return true;
}

std::optional<double> json_number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

model::PublishedTable parse_cv_summary(std::string_view text) {
  model::PublishedTable t;
  t.format = "cv-summary";
  std::string condition;
  std::size_t number_of_line = 0;
  for (const std::string_view raw : text::lines(text)) {
    ++number_of_line;
    const std::string_view line = text::trim(raw);
    if (line.empty()) continue;
    if (section(line, condition)) continue;
    if (line.front() == '#') {
      if (condition.empty()) t.header.emplace_back(line);
      continue;
    }
    // A name that is not one plain word is written in quotes (text::line_label).
    const auto quoted = text::quoted_label(line);
    auto f = text::fields(quoted ? quoted->second : line);
    if (quoted) f.insert(f.begin(), quoted->first);
    if (f.front() == "benchmark" && !quoted) {
      // "benchmark runs mean ns/op stddev CV%": the unit follows "mean".
      for (std::size_t i = 0; i + 1 < f.size(); ++i)
        if (f[i] == "mean" && f[i + 1] != "stddev") t.unit = std::string(f[i + 1]);
      continue;
    }
    if (condition.empty()) fail(number_of_line, "a row before any `## <condition>` line");
    if (f.size() != 5)
      fail(number_of_line,
           fmt::format("expected `<benchmark> <runs> <mean> <stddev> <CV%>`, got {} fields", f.size()));
    model::PublishedRow row;
    row.condition = condition;
    row.benchmark = std::string(f[0]);
    const auto runs = count(number(f[1]));
    const auto mean = number(f[2]), stddev = number(f[3]), cv = number(f[4]);
    if (!runs || !mean || !stddev || !cv)
      fail(number_of_line,
           fmt::format("`{}`: runs, mean, stddev and CV% must be numbers (runs a whole one)", line));
    row.n = runs;
    row.mean = mean;
    row.stddev = stddev;
    row.cv_pct = cv;
    t.rows.push_back(row);
  }
  if (t.rows.empty()) throw ParseError("no `## <condition>` block with a row: not a cv-summary.txt");
  return t;
}

model::PublishedTable parse_markdown_table(std::string_view text) {
  model::PublishedTable t;
  t.format = "markdown";
  const auto all = text::lines(text);
  for (std::size_t i = 0; i + 1 < all.size(); ++i) {
    const std::string_view head = text::trim(all[i]);
    if (head.empty() || head.front() != '|') continue;
    const auto header = cells(head);
    if (!separator_row(cells(all[i + 1]))) continue;
    // Columns by their header.
    int condition = -1, benchmark = -1, n = -1, mean = -1, stddev = -1, cv = -1, median = -1, min = -1,
        max = -1;
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string h = lower(header[c]);
      const auto first_word = h.substr(0, h.find(' '));
      const int k = static_cast<int>(c);
      if (first_word == "condition")
        condition = k;
      else if (first_word == "benchmark" || first_word == "name")
        benchmark = k;
      else if (h == "n" || h == "runs" || h == "count")
        n = k;
      else if (first_word == "mean") {
        mean = k;
        if (h.size() > 5) t.unit = std::string(text::trim(std::string_view(header[c]).substr(5)));
      } else if (h == "stddev" || h == "sd" || h == "std dev")
        stddev = k;
      else if (h == "cv" || h == "cv%" || h == "cv %")
        cv = k;
      else if (first_word == "median")
        median = k;
      else if (h == "min")
        min = k;
      else if (h == "max")
        max = k;
    }
    if (condition < 0 || (mean < 0 && cv < 0)) continue;
    for (std::size_t r = i + 2; r < all.size(); ++r) {
      const std::string_view line = text::trim(all[r]);
      if (line.empty() || line.front() != '|') break;
      const auto row_cells = cells(line);
      const auto at = [&](int k) -> std::optional<double> {
        if (k < 0 || static_cast<std::size_t>(k) >= row_cells.size()) return std::nullopt;
        return first_number(row_cells[static_cast<std::size_t>(k)]);
      };
      model::PublishedRow row;
      row.condition = static_cast<std::size_t>(condition) < row_cells.size()
                          ? row_cells[static_cast<std::size_t>(condition)]
                          : "";
      if (row.condition.empty()) fail(r + 1, "a row without a condition");
      if (benchmark >= 0 && static_cast<std::size_t>(benchmark) < row_cells.size())
        row.benchmark = row_cells[static_cast<std::size_t>(benchmark)];
      if (const auto v = at(n)) {
        row.n = count(v);
        if (!row.n) fail(r + 1, fmt::format("n: expected a whole number of samples, got {}", *v));
      }
      row.mean = at(mean);
      row.stddev = at(stddev);
      row.cv_pct = at(cv);
      row.median = at(median);
      row.min = at(min);
      row.max = at(max);
      t.rows.push_back(row);
    }
    if (!t.rows.empty()) return t;
  }
  throw ParseError("no markdown table with a condition column and a mean or CV column");
}

namespace {

// summary.json's table rows; nlohmann throws json::exception for a field of the wrong type.
model::PublishedTable summary_json_table(const nlohmann::json& j) {
  model::PublishedTable t;
  t.format = "summary.json";
  if (!j.is_object() || !j.contains("table") || !j["table"].is_object() || !j["table"].contains("rows") ||
      !j["table"]["rows"].is_array())
    throw ParseError("not a noisefloor summary.json: no table.rows");
  for (const auto& r : j["table"]["rows"]) {
    if (!r.is_object() || !r.contains("summary") || !r["summary"].is_object())
      throw ParseError("summary.json: a table row without a summary");
    model::PublishedRow row;
    row.condition = r.value("condition", "");
    row.benchmark = r.value("name", r.value("benchmark", ""));
    if (row.condition.empty()) throw ParseError("summary.json: a table row without a condition");
    const auto& s = r["summary"];
    if (const auto v = json_number(s, "n")) {
      row.n = count(v);
      if (!row.n)
        throw ParseError(fmt::format("summary.json: a row's n is not a whole number of samples ({})", *v));
    }
    row.mean = json_number(s, "mean");
    row.stddev = json_number(s, "stddev");
    row.cv_pct = json_number(s, "cv_pct");
    row.median = json_number(s, "median");
    row.min = json_number(s, "min");
    row.max = json_number(s, "max");
    if (t.unit.empty()) t.unit = r.value("unit", "");
    t.rows.push_back(row);
  }
  if (t.rows.empty()) throw ParseError("summary.json: the table has no rows");
  return t;
}

}  // namespace

model::PublishedTable parse_summary_json(std::string_view text) {
  nlohmann::json j;
  try {
    j = jsonread::parse_json(text, "the table");
  } catch (const nlohmann::json::exception& e) {  // a parse error, or a number out of range (406)
    throw ParseError(fmt::format("not JSON: {}", e.what()));
  }
  try {
    return summary_json_table(j);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type
    throw ParseError(fmt::format("not a noisefloor summary.json: {}", e.what()));
  }
}

model::PublishedTable parse_published(std::string_view text) {
  const std::string_view body = text::trim(text);
  if (!body.empty() && body.front() == '{') return parse_summary_json(body);
  // A pipe table (a `|` row over a separator row) makes it markdown, headings or not.
  const auto all = text::lines(text);
  for (std::size_t i = 0; i + 1 < all.size(); ++i)
    if (!text::trim(all[i]).empty() && text::trim(all[i]).front() == '|' && separator_row(cells(all[i + 1])))
      return parse_markdown_table(text);
  for (const std::string_view line : all)
    if (line.substr(0, 3) == "## ") return parse_cv_summary(text);
  throw ParseError(
      "not a published table noisefloor reads: expected a cv-summary.txt (`## <condition>` blocks), a "
      "markdown "
      "table or a summary.json");
}

}  // namespace noisefloor::parsers
