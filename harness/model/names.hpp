// The words of a closed set, listed once per enum: its names(E) pairs each value with its name, and the name
// of a value, the value of a name and the "a, b or c" of a usage message all read that one table.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace noisefloor::model {

// Each enum E of a closed set declares beside it, in its own namespace (found by argument-dependent
// lookup): constexpr std::array<std::pair<E, std::string_view>, N> names(E), its values' words.

template <class E>
constexpr std::string_view name_of(E value) {
  for (const auto& [v, name] : names(E{}))
    if (v == value) return name;
  return "unknown";  // a value outside the table: a cast integer
}

template <class E>
constexpr std::optional<E> from_name(std::string_view name) {
  for (const auto& [v, n] : names(E{}))
    if (n == name) return v;
  return std::nullopt;
}

// A value's word in a table of words other than its names (a sentence's, a JSON field's, a colour):
// `fallback` for a value the table leaves out.
template <class E, std::size_t N>
constexpr std::string_view word_of(E value, const std::array<std::pair<E, std::string_view>, N>& words,
                                   std::string_view fallback) {
  for (const auto& [v, word] : words)
    if (v == value) return word;
  return fallback;
}

// "a, b or c": the names of `values`, for a message that lists what is accepted.
template <class E>
std::string names_list(std::span<const E> values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += name_of(values[i]);
  }
  return out;
}

// How a command prints what it shows (--format). Each command accepts some of them.
enum class PrintFormat { text, markdown, json, csv, summary, gotest, svg, png };

constexpr std::array<std::pair<PrintFormat, std::string_view>, 8> names(PrintFormat) {
  return {{
      {PrintFormat::text, "text"},
      {PrintFormat::markdown, "markdown"},
      {PrintFormat::json, "json"},
      {PrintFormat::csv, "csv"},
      {PrintFormat::summary, "summary"},
      {PrintFormat::gotest, "gotest"},
      {PrintFormat::svg, "svg"},
      {PrintFormat::png, "png"},
  }};
}

// "--format: expected a, b or c, got "x"": what a command says of a format it does not print.
std::string format_problem(std::string_view given, std::span<const PrintFormat> accepted);

}  // namespace noisefloor::model
