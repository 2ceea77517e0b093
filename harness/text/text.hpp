// One place for text: trimming and splitting, terminal widths and padding, wrapping, escaping
// for HTML, markdown and CSV, and number, interval and time formatting. Pure; every renderer,
// error message and progress line uses these (nothing else pads, wraps or escapes).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace noisefloor::text {

// What a number that does not exist is shown as (never a fake 0).
inline constexpr const char* kDash = "—";

// ---- strings ----

// Without spaces, tabs, carriage returns and newlines at either end.
constexpr std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// The lines of `text`, split on '\n' with a trailing '\r' removed; a final newline does not
// start another line ("a\nb\n" -> {"a", "b"}, "" -> {}).
std::vector<std::string_view> lines(std::string_view text);
// The fields of `s`, separated by runs of spaces and tabs.
std::vector<std::string_view> fields(std::string_view s);

// The same split for a stream that arrives in pieces: feed() passes every line completed by the
// new bytes to on_line (without its "\n" or "\r\n"), finish() the unterminated last one, if any.
class LineSplitter {
 public:
  using OnLine = std::function<void(std::string_view line)>;
  void feed(std::string_view bytes, const OnLine& on_line);
  void finish(const OnLine& on_line);

 private:
  std::string pending_;
};

// The last `count` non-empty-tailed lines of `text`, each on its own line as "\n    | line", for
// quoting a program's output inside a one-line error ("(empty)" when there is none).
std::string quote_tail(std::string_view text, std::size_t count);

// The clause that ends an error quoting a program's output: "; last lines of <what>:" and the
// quote_tail lines, or "; <what> was empty" (one line) when there is nothing to quote.
std::string last_lines(std::string_view text, std::size_t count, std::string_view what);

// ---- terminal columns ----

// Columns a UTF-8 string takes on a terminal: one per code point (continuation bytes take none).
std::size_t width(std::string_view s);
std::string pad_left(std::string_view s, std::size_t columns);   // right-aligned
std::string pad_right(std::string_view s, std::size_t columns);  // left-aligned
std::string center(std::string_view s, std::size_t columns);
std::string rstrip(std::string s);  // without trailing spaces

// At most `columns` columns, cut at a code point and ending with "…" when cut (labels).
std::string truncate(std::string_view s, std::size_t columns);
// At most `columns` columns, cut at a word boundary when one exists and ending with "…" when
// cut (one-line summaries of sentences).
std::string shorten(std::string_view s, std::size_t columns);

// Word-wraps `text` (words separated by spaces outside double quotes) into lines of at most
// `columns` columns: the first line starts with `first_prefix`, the others with `rest_prefix`; a
// word (or quoted span) longer than a line stays whole. Every line ends with '\n'; empty text gives
// `first_prefix` + "\n".
std::string wrap(std::string_view text, std::size_t columns, std::string_view first_prefix,
                 std::string_view rest_prefix);

// ---- escaping ----

// Element content and double-quoted attributes; control characters but newline and tab, and what
// terminal_safe writes out above 0x7f, written out as it does ("\x1b"): none reaches `cat`.
std::string html_escape(std::string_view s);
// Data for one line of markdown: newlines flattened to spaces, then written out as names are
// (name_safe). markdown_cell, markdown_text and the gate's cells escape markdown on top of it.
std::string flat_name(std::string_view s);
// A table cell: newlines flattened to spaces, every other control character and byte outside UTF-8
// written out as name_safe does, '|', '\\', '<' and '>' escaped, and a ']' before '(' (no name makes a link).
std::string markdown_cell(std::string_view s);
// A line of markdown text that holds data (a note naming benchmarks): newlines flattened, written
// out as name_safe does, and no link, image or HTML tag of its own: a backslash, a ']' before '('
// and a '<' that could open a tag are escaped ("n=1 < 2" stays as written).
std::string markdown_text(std::string_view s);
std::string csv_field(std::string_view s);  // RFC 4180: quoted when it holds , " CR or LF; a text
                                            // beginning = + - @ (a formula) gets a leading '

// ---- numbers ----

// Benchmark values with at least 4 significant figures and no exponent in the usual ranges:
// 1234 -> "1234", 123.4 -> "123.4", 12.34 -> "12.34", 1.234 -> "1.234", 0.01234 -> "0.01234";
// NaN -> "—".
std::string format_value(double value);
// Fixed decimals; "—" for nullopt and a value that is not finite.
std::string fixed(std::optional<double> value, int decimals);
// A confidence interval "[lo, hi]" with fixed decimals; "—" when either end is not finite.
std::string interval(double lo, double hi, int decimals = 4);
// The same brackets around two ends already formatted ("[-1.2%, +0.4%]"): every interval
// noisefloor prints has this one shape.
std::string interval(std::string_view lo, std::string_view hi);
// A number in JSON's shortest round-trip form ("0.1", "12", "1e-09"); "" when not finite.
std::string shortest(double value);

// ---- time ----

// "1:05", "1:02:03" (rounded to whole seconds).
std::string clock(double seconds);
// RFC 3339 UTC with milliseconds: "2026-11-30T05:01:11.123Z".
std::string utc(std::chrono::system_clock::time_point when);
// Compact UTC for names: "20261130T050111Z".
std::string utc_compact(std::chrono::system_clock::time_point when);

// The candidate closest to `word` (Levenshtein distance under 4 and under its length), "" when
// none is close: what "did you mean ...?" suggests.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

// `s` made safe to write to a terminal: noisefloor's own colours (CSI … m, SGR) stay; every other
// escape sequence (ESC ] 52 writes the clipboard on some terminals; cursor moves can hide lines)
// and control character but newline and tab is shown, not obeyed: ESC as "\x1b", C1 controls
// (U+0080–U+009F) as "\u0080". Benchmark names and engine messages reach the screen through it.
std::string terminal_safe(std::string_view s);

// The mark that starts each of noisefloor's own verdict lines on a terminal ("▸ REPRODUCED"):
// name_safe writes it out ("\u25b8"), so a line that carries it is noisefloor's, never a name's.
inline constexpr std::string_view kVerdictMark = "\u25b8";

// A name from data (a benchmark's, a condition's, a variant's) as noisefloor keeps it: every control
// character (newline, tab and ESC included), DEL, C1 control (a raw byte or UTF-8) and byte that is
// not part of UTF-8, bidirectional override (U+202E and its kin), line separator, space other than
// U+0020 (U+00A0 and its kin, the zero-width ones) and kVerdictMark written out ("\x0a",
// "\u009b", "\xff", "\u202e", "\u00a0"), so that no name can start a line, a colour, a hyperlink
// or a verdict of its own wherever it is printed. Other printable UTF-8 is kept as it is.
std::string name_safe(std::string_view s);
// Whether name_safe would change `s` (the readers' fast path: most names need nothing).
bool needs_name_escape(std::string_view s);

// A name where it starts a line of a text table or heading: as it is when it is one plain word
// (it starts with an ASCII letter, digit or "_" and holds no space or double quote), else whole
// in double quotes (\" inside). So a line starts with a plain word or with
// noisefloor's quote, never with a name's own spaces, marks or words ("  ► REPRODUCED …").
std::string line_label(std::string_view name);
// A name where it starts a table row that is never wrapped: as line_label, but spaces inside a
// name that starts with a plain word are kept ("BM_Lookup<std::map<int, int>>/16"): only its
// start could pass for noisefloor's text, and no wrap breaks the row there.
std::string row_label(std::string_view name);
// Where a line starts with a quoted line_label: the name (unquoted) and the rest of the line after
// it; nullopt when the line does not start with `"` or the quote is not closed.
std::optional<std::pair<std::string, std::string_view>> quoted_label(std::string_view line);

// A value as a message quotes it: in double quotes, on one line (line breaks and tabs escaped), at
// most 60 characters (a longer one is cut with "…").
std::string quote(std::string_view s);

// `s` as one word a POSIX shell reads back unchanged: as it is when it holds only letters, digits
// and _ . / : = @ % + , -; else in single quotes ('\'' for a quote); '' for the empty string.
std::string shell_word(std::string_view s);

// "2%", "0.5%" or "2" (a percent; the sign is optional) as a fraction in (0, 1); nullopt for
// anything else (not a number, 0, 100 or more).
std::optional<double> parse_percent(std::string_view text);

}  // namespace noisefloor::text
