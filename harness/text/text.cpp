#include "text/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <ctime>

namespace noisefloor::text {

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

void LineSplitter::feed(std::string_view bytes, const OnLine& on_line) {
  pending_.append(bytes);
  std::size_t start = 0, nl;
  while ((nl = pending_.find('\n', start)) != std::string::npos) {
    std::string_view line(pending_.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (on_line) on_line(line);
    start = nl + 1;
  }
  pending_.erase(0, start);
}

void LineSplitter::finish(const OnLine& on_line) {
  if (!pending_.empty() && on_line) on_line(pending_);
  pending_.clear();
}

std::string quote_tail(std::string_view text, std::size_t count) {
  std::vector<std::string_view> all = lines(text);
  while (!all.empty() && trim(all.back()).empty()) all.pop_back();
  if (all.empty()) return "\n    | (empty)";
  std::string out;
  for (std::size_t i = all.size() > count ? all.size() - count : 0; i < all.size(); ++i) {
    out += "\n    | ";
    out += all[i];
  }
  return out;
}

std::string last_lines(std::string_view text, std::size_t count, std::string_view what) {
  const std::string tail = quote_tail(text, count);
  if (tail == "\n    | (empty)") return "; " + std::string(what) + " was empty";
  return "; last lines of " + std::string(what) + ":" + tail;
}

std::size_t width(std::string_view s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string pad_left(std::string_view s, std::size_t columns) {
  const std::size_t have = width(s);
  return have >= columns ? std::string(s) : std::string(columns - have, ' ') + std::string(s);
}

std::string pad_right(std::string_view s, std::size_t columns) {
  const std::size_t have = width(s);
  return have >= columns ? std::string(s) : std::string(s) + std::string(columns - have, ' ');
}

std::string center(std::string_view s, std::size_t columns) {
  const std::size_t have = width(s);
  if (have >= columns) return std::string(s);
  const std::size_t left = (columns - have) / 2;
  return std::string(left, ' ') + std::string(s) + std::string(columns - have - left, ' ');
}

std::string rstrip(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

namespace {

// The byte offset after the first `columns` code points of s (s.size() when it has fewer).
std::size_t prefix_bytes(std::string_view s, std::size_t columns) {
  std::size_t cols = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (cols == columns) return i;
      ++cols;
    }
  }
  return s.size();
}

}  // namespace

std::string truncate(std::string_view s, std::size_t columns) {
  if (width(s) <= columns || columns == 0) return std::string(s);
  return std::string(s.substr(0, prefix_bytes(s, columns - 1))) + "…";
}

std::string shorten(std::string_view s, std::size_t columns) {
  if (width(s) <= columns || columns < 2) return std::string(s);
  std::string_view kept = s.substr(0, prefix_bytes(s, columns - 1));
  // Inside a word: back off to the space before it, when there is one.
  if (kept.size() < s.size() && s[kept.size()] != ' ') {
    const auto space = kept.rfind(' ');
    if (space != std::string_view::npos && space > 0) kept = kept.substr(0, space);
  }
  return rstrip(std::string(kept)) + "…";
}

std::string wrap(std::string_view text, std::size_t columns, std::string_view first_prefix,
                 std::string_view rest_prefix) {
  std::string out;
  std::string line(first_prefix);
  bool has_word = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto start = text.find_first_not_of(' ', pos);
    if (start == std::string_view::npos) break;
    // A word ends at a space outside double quotes: a quoted name (line_label) is never broken,
    // so no line starts inside one.
    std::size_t end = start;
    for (bool quoted = false; end < text.size() && (quoted || text[end] != ' '); ++end) {
      if (text[end] == '\\' && quoted && end + 1 < text.size() && text[end + 1] == '"')
        ++end;
      else if (text[end] == '"')
        quoted = !quoted;
    }
    const std::string_view word = text.substr(start, end - start);
    pos = end;
    if (has_word && width(line) + 1 + width(word) > columns) {
      out += line + "\n";
      line = std::string(rest_prefix);
      line += word;
    } else {
      if (has_word) line += ' ';
      line += word;
    }
    has_word = true;
  }
  return out + line + "\n";
}

std::string flat_name(std::string_view s) {
  std::string flat(s);
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  return needs_name_escape(flat) ? name_safe(flat) : flat;
}

std::string markdown_text(std::string_view s) {
  const std::string flat = flat_name(s);
  std::string out;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const char c = flat[i], next = i + 1 < flat.size() ? flat[i + 1] : ' ';
    const bool tag = c == '<' && (std::isalpha(static_cast<unsigned char>(next)) || next == '/' ||
                                  next == '!' || next == '?');  // as GitHub's markdown reads raw HTML
    if (c == '\\' || tag || (c == ']' && next == '(')) out += '\\';
    out += c;
  }
  return out;
}

std::string markdown_cell(std::string_view s) {
  const std::string flat = flat_name(s);
  std::string out;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const char c = flat[i];
    if (c == '|' || c == '\\')  // a backslash of the name's is no escape of ours
      out += std::string("\\") + c;
    else if (c == '<' || c == '>')  // GitHub renders <int> as an HTML tag and drops it
      out += std::string("\\") + c;
    else if (c == ']' && i + 1 < flat.size() && flat[i + 1] == '(')  // "[x](javascript:…)": no link
      out += "\\]";
    else
      out += c;
  }
  return out;
}

namespace {

// "-1.5", "+3e-2", "-12.5%": a number as noisefloor writes one (left as it is).
bool plain_number(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  bool digits = false;
  for (; i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); ++i) digits = digits || s[i] != '.';
  if (digits && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  }
  if (i < s.size() && s[i] == '%') ++i;
  return digits && i == s.size();
}

}  // namespace

std::string csv_field(std::string_view s) {
  // A spreadsheet takes a cell that begins with = + - @ (or a tab or CR before one) for a formula:
  // such a text (a benchmark name) gets a leading ' and is quoted, as OWASP advises; numbers stay.
  if (!s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos &&
      !plain_number(s)) {
    std::string out = "\"'";
    for (char c : s) {
      if (c == '"') out += '"';
      out += c;
    }
    return out + "\"";
  }
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string format_value(double v) {
  if (std::isnan(v)) return std::string(kDash);
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 10) return fmt::format("{:.2f}", v);
  if (a >= 1) return fmt::format("{:.3f}", v);
  if (a == 0) return "0";
  return fmt::format("{:.4g}", v);
}

std::string fixed(std::optional<double> v, int decimals) {
  return v && std::isfinite(*v) ? fmt::format("{:.{}f}", *v, decimals) : std::string(kDash);
}

std::string interval(double lo, double hi, int decimals) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return std::string(kDash);
  return interval(fmt::format("{:.{}f}", lo, decimals), fmt::format("{:.{}f}", hi, decimals));
}

std::string interval(std::string_view lo, std::string_view hi) { return fmt::format("[{}, {}]", lo, hi); }

std::string shortest(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); }

std::string clock(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

namespace {

std::tm utc_tm(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}

}  // namespace

std::string utc(std::chrono::system_clock::time_point when) {
  const std::tm tm = utc_tm(when);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000;
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03}Z", buf, ms);
}

std::string utc_compact(std::chrono::system_clock::time_point when) {
  const std::tm tm = utc_tm(when);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string closest(std::string_view key, const std::vector<std::string>& valid) {
  std::string best;
  std::size_t best_distance = 4;
  for (const std::string& candidate : valid) {
    // Levenshtein distance, two rows.
    std::vector<std::size_t> prev(candidate.size() + 1), cur(candidate.size() + 1);
    for (std::size_t j = 0; j <= candidate.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= key.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= candidate.size(); ++j) {
        const std::size_t cost = key[i - 1] == candidate[j - 1] ? 0 : 1;
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      }
      std::swap(prev, cur);
    }
    const std::size_t d = prev[candidate.size()];
    if (d < best_distance && d < std::max<std::size_t>(key.size(), 2)) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

namespace {

// The length of the UTF-8 sequence at s[i] (2 to 4), or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto u = static_cast<unsigned char>(s[i]);
  const std::size_t n = u >= 0xc2 && u <= 0xdf   ? 2
                        : u >= 0xe0 && u <= 0xef ? 3
                        : u >= 0xf0 && u <= 0xf4 ? 4
                                                 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  return n;
}

bool is_c1(std::string_view s, std::size_t i) {
  return static_cast<unsigned char>(s[i]) == 0xc2 && static_cast<unsigned char>(s[i + 1]) <= 0x9f;
}

// The code point of the UTF-8 sequence of `n` bytes at s[i] when it is one a name may not carry as
// it is, 0 for any other:
//  - those that reorder or break the text they sit in without showing themselves: the
//    bidirectional controls of "Trojan Source" (U+061C, U+200E, U+200F, U+202A..U+202E,
//    U+2066..U+2069) and the line and paragraph separators (U+2028, U+2029);
//  - the spaces that are not U+0020 and the invisible or blank ones (U+00A0, U+00AD, U+034F,
//    U+115F, U+1160, U+1680, U+17B4, U+17B5, U+180E, U+2000..U+200B, U+202F, U+205F..U+2064,
//    U+206A..U+206F, U+2800, U+3000, U+3164, U+FEFF, U+FFA0, U+E0000..U+E007F): padding no
//    reader can tell from a space or from nothing, which lines a name up under noisefloor's own
//    columns;
//  - with `mark`, kVerdictMark (U+25B8), which starts noisefloor's own verdict lines: no name can
//    carry it (name_safe), while the terminal shows noisefloor's own (terminal_safe).
char32_t escaped_code_point(std::string_view s, std::size_t i, std::size_t n, bool mark) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (n == 2) {
    const char32_t c = ((b(0) & 0x1f) << 6) + (b(1) & 0x3f);
    return c == 0x061c || c == 0x00a0 || c == 0x00ad || c == 0x034f ? c : 0;
  }
  if (n == 4) {  // the tag characters U+E0000..U+E007F: invisible
    const char32_t c = ((b(0) & 0x07) << 18) + ((b(1) & 0x3f) << 12) + ((b(2) & 0x3f) << 6) + (b(3) & 0x3f);
    return c >= 0xe0000 && c <= 0xe007f ? c : 0;
  }
  if (n != 3) return 0;
  const char32_t c = ((b(0) & 0x0f) << 12) + ((b(1) & 0x3f) << 6) + (b(2) & 0x3f);
  const bool hidden = (c >= 0x2000 && c <= 0x200b) || c == 0x200e || c == 0x200f ||
                      (c >= 0x2028 && c <= 0x202f) || (c >= 0x205f && c <= 0x2064) ||
                      (c >= 0x2066 && c <= 0x206f) || c == 0x1680 || c == 0x3000 || c == 0xfeff;
  // Blanks that print as a space or as nothing: Hangul fillers, Khmer inherent vowels, the
  // Mongolian vowel separator, the braille blank, the halfwidth Hangul filler.
  const bool blank = c == 0x115f || c == 0x1160 || c == 0x17b4 || c == 0x17b5 || c == 0x180e || c == 0x2800 ||
                     c == 0x3164 || c == 0xffa0;
  return hidden || blank || (mark && c == 0x25b8) ? c : 0;
}

// Appends s[i], a byte at or above 0x80, as it is shown: a UTF-8 character as it is, a C1 control
// as "\u0080"…"\u009f", a byte outside UTF-8 (a raw 0x9b is CSI to some terminals) as "\x9b".
// Returns the index of the last byte it took.
std::size_t append_high(std::string& out, std::string_view s, std::size_t i, bool mark) {
  const std::size_t n = utf8_length(s, i);
  if (n == 0) {
    out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
    return i;
  }
  if (n == 2 && is_c1(s, i)) {
    out += fmt::format("\\u{:04x}", static_cast<unsigned char>(s[i + 1]));
  } else if (const char32_t c = escaped_code_point(s, i, n, mark); c != 0) {
    out += c > 0xffff ? fmt::format("\\U{:08x}", static_cast<std::uint32_t>(c))
                      : fmt::format("\\u{:04x}", static_cast<std::uint32_t>(c));
  } else {
    out.append(s.substr(i, n));
  }
  return i + n - 1;
}

}  // namespace

bool needs_name_escape(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x20 || u == 0x7f) return true;
    if (u < 0x80) continue;
    const std::size_t n = utf8_length(s, i);
    if (n == 0 || (n == 2 && is_c1(s, i)) || escaped_code_point(s, i, n, true) != 0) return true;
    i += n - 1;
  }
  return false;
}

std::string name_safe(std::string_view s) {
  if (!needs_name_escape(s)) return std::string(s);
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
      continue;
    }
    if (u < 0x80) {
      out += s[i];
    } else {
      i = append_high(out, s, i, true);
    }
  }
  return out;
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {  // a page is read with `cat` too: no C1 control or stray byte reaches it raw
      i = append_high(out, s, i, false);
      continue;
    }
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u == 0x1b && i + 1 < s.size() && s[i + 1] == '[') {
      // SGR only: ESC [ digits and semicolons m.
      std::size_t j = i + 2;
      while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
      if (j < s.size() && s[j] == 'm') {
        out.append(s.substr(i, j + 1 - i));
        i = j;
        continue;
      }
    }
    if (u >= 0x80) {
      i = append_high(out, s, i, false);
    } else if ((u < 0x20 && u != '\n' && u != '\t') || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += s[i];
    }
  }
  return out;
}

namespace {
std::string label(std::string_view name, std::string_view refused) {
  const auto word_start = [](unsigned char c) { return std::isalnum(c) != 0 || c == '_'; };
  const bool plain = !name.empty() && static_cast<unsigned char>(name[0]) < 0x80 &&
                     word_start(static_cast<unsigned char>(name[0])) &&
                     name.find_first_of(refused) == std::string_view::npos;
  if (plain) return std::string(name);
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::string line_label(std::string_view name) { return label(name, " \""); }
std::string row_label(std::string_view name) { return label(name, "\""); }

std::optional<std::pair<std::string, std::string_view>> quoted_label(std::string_view line) {
  if (line.empty() || line.front() != '"') return std::nullopt;
  std::string name;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '"') return std::pair{std::move(name), line.substr(i + 1)};
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '"') ++i;
    name += line[i];
  }
  return std::nullopt;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  std::size_t shown = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (shown++ == 60) {
      out += "…";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t')
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
    else if (u < 0x20 || u == 0x7f)  // a control character (ESC starts a terminal's escape sequences)
      out += fmt::format("\\x{:02x}", u);
    else if (u >= 0x80)  // a character as a name shows it: a C1 control, hidden space or ▸ written out
      i = append_high(out, s, i, true);
    else
      out += c;
  }
  return out + "\"";
}

std::string shell_word(std::string_view s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(s);
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::optional<double> parse_percent(std::string_view text) {
  if (!text.empty() && text.back() == '%') text.remove_suffix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size() || !(value > 0) || value >= 100)
    return std::nullopt;
  return value / 100;
}

}  // namespace noisefloor::text
