// The configuration a Go benchmark result was printed under (golang.org/design/14313, keyed as
// golang.org/x/perf/benchfmt keys results): every `key: value` line in force above it — goos,
// goarch, pkg, cpu and any other key. `go test ./...` prints `pkg:` before each package's
// results, so BenchmarkGet-8 of one package is not BenchmarkGet-8 of another: rows are told apart
// by their configuration as well as their name.
//
// One canonical text holds it: the entries sorted by key, one "key: value" per line, joined by
// '\n' ("" when there is none). Two results were printed under the same configuration exactly
// when their texts are equal. Pure.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace noisefloor::model {

using ConfigEntries = std::vector<std::pair<std::string, std::string>>;

// The canonical text of a configuration; a key or value is kept escaped as a name is
// (text::name_safe: a newline inside one is written out, "\\x0a").
std::string config_text(const std::map<std::string, std::string>& config);
std::string config_text(const ConfigEntries& entries);  // any order; a later duplicate key wins
// The entries of a canonical text, sorted by key.
ConfigEntries config_entries(std::string_view text);
// The value of `key` in a canonical text; "" when absent.
std::string config_value(std::string_view text, std::string_view key);
// The canonical text of the entries of `text` whose key is in `keys`.
std::string config_only(std::string_view text, const std::set<std::string>& keys);
// How a row's configuration is shown: "pkg: a" or "pkg: a, note: warm" ("" for none).
std::string config_label(std::string_view text);

}  // namespace noisefloor::model
