#include "results/decode.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "model/errors.hpp"
#include "model/go_config.hpp"
#include "parsers/gotest.hpp"
#include "records/documents.hpp"
#include "text/text.hpp"

namespace noisefloor::results {
namespace fs = std::filesystem;

records::Result decode_result(const ResultFiles& files) {
  records::Result r;
  const fs::path dir(files.source);
  r.source = files.source;
  r.label = dir.filename().string();
  const std::string samples_file = (dir / "samples.jsonl").string();
  const auto lines = text::lines(files.samples_jsonl);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (text::trim(lines[i]).empty()) continue;
    try {
      r.samples.push_back(records::sample_from_line(lines[i]));
    } catch (const std::exception& e) {
      const bool last = i + 1 == lines.size() && !files.samples_jsonl.ends_with('\n');
      if (last) {  // a line torn by a crash mid-write: everything before it is intact
        r.warnings.push_back({.kind = records::RunWarningKind::torn_last_line,
                              .file = samples_file,
                              .line = static_cast<int>(i + 1)});
        break;
      }
      const auto* bad = dynamic_cast<const records::SampleLineError*>(&e);
      const std::string where = bad && bad->column > 0
                                    ? fmt::format("{}:{}:{}", samples_file, i + 1, bad->column)
                                    : fmt::format("{}:{}", samples_file, i + 1);
      const std::string what = e.what();
      throw InputError(fmt::format(
          "{}: {} (a damaged line: restore the file, or delete the line to read the rest)", where, what));
    }
  }
  if (r.samples.empty())
    r.warnings.push_back({.kind = records::RunWarningKind::no_samples, .file = samples_file});
  if (files.run_json) {
    r.run = records::run_from_text(*files.run_json, (dir / "run.json").string());
    if (files.summary_json) records::fill_from_summary(*r.run, *files.summary_json);
    r.conditions = r.run->conditions;
    r.units = r.run->units;
  }
  if (files.fingerprint_json)
    r.fingerprint =
        records::fingerprint_from_text(*files.fingerprint_json, (dir / "fingerprint.json").string());
  for (const auto& s : r.samples)
    if (std::find(r.conditions.begin(), r.conditions.end(), s.condition) == r.conditions.end())
      r.conditions.push_back(s.condition);
  for (const auto& c : r.conditions)
    if (const auto raw = files.raw.find(c); raw != files.raw.end()) {
      r.gotest_config[c] = parsers::config_lines(raw->second);
      for (auto& [key, value] : r.gotest_config[c])
        key = text::name_safe(key), value = text::name_safe(value);
    }
  return r;
}

GoTestFileDecoder::GoTestFileDecoder(const std::string& path, std::uintmax_t expected_bytes)
    : expected_(expected_bytes) {
  r_.source = path;
  r_.go_test_file = true;
  const std::string condition = fs::path(path).stem().string();
  r_.label = condition;
  r_.conditions.push_back(condition);
}

void GoTestFileDecoder::feed(std::string_view bytes) {
  const bool first = fed_ == 0;
  fed_ += bytes.size();
  feed_lines(bytes);
  if (first && expected_ > fed_)
    r_.samples.grow_like(1.02 * static_cast<double>(expected_) / static_cast<double>(fed_));
}

void GoTestFileDecoder::feed_lines(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      pending_.append(bytes);
      return;
    }
    if (pending_.empty()) {
      line(bytes.substr(0, newline));
    } else {
      pending_.append(bytes.substr(0, newline));
      line(pending_);
      pending_.clear();
    }
    bytes.remove_prefix(newline + 1);
  }
}

void GoTestFileDecoder::line(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  ++line_;
  if (text.starts_with("Benchmark")) header_ = false;
  // The rules of parsers/gotest.hpp: configuration lines anywhere (the last value wins), and the
  // header's `key: value` lines and `# key: value` comments before the first result.
  if (header_)
    if (const auto kv = parsers::config_entry(text.starts_with("# ") ? text.substr(2) : text))
      r_.gotest_config[r_.conditions.front()].emplace_back(text::name_safe(kv->first),
                                                           text::name_safe(kv->second));
  if (parsers::parse_result_fields(text, fields_)) {
    // A name with a control character or a byte outside UTF-8 is kept escaped (text::name_safe).
    std::string escaped;
    if (text::needs_name_escape(fields_.name)) fields_.name = escaped = text::name_safe(fields_.name);
    auto [benchmark, procs] = parsers::split_procs_suffix(fields_.name);
    r_.samples.push_result(r_.conditions.front(), benchmark, fields_.name, procs, fields_.iterations,
                           fields_.values, fields_.units, config_text_);
    if (config_text_ != seen_text_) {
      for (const auto& [key, value] : config_) {
        const auto [it, added] = seen_.emplace(key, value);
        if (!added && it->second && *it->second != value) it->second.reset();
      }
      seen_text_ = config_text_;
    }
    ++results_;
    return;
  }
  if (text.starts_with("Benchmark")) return;  // a line the benchmark printed, not a result
  std::vector<std::string> errors;
  if (text.starts_with('U') && parsers::apply_unit_line(text, r_.units, errors)) {
    for (std::string& e : errors)
      r_.warnings.push_back({.kind = records::RunWarningKind::unit_conflict,
                             .detail = std::move(e),
                             .file = r_.source,
                             .line = static_cast<int>(line_)});
    return;
  }
  if (const auto kv = parsers::config_entry(text)) {
    if (kv->second.empty()) {
      config_.erase(std::string(kv->first));
    } else {
      config_.insert_or_assign(std::string(kv->first), std::string(kv->second));  // escaped by config_text
    }
    config_text_ = model::config_text(config_);
  }
}

records::Result GoTestFileDecoder::finish() {
  if (!pending_.empty()) {
    line(pending_);
    pending_.clear();
  }
  if (results_ == 0)
    throw InputError(
        fmt::format("{}: no benchmark result lines (expected `go test -bench` output)", r_.source));
  // The room facts of the file: the keys every result was printed under with one value (a
  // `go test ./...` file's pkg varies: it tells rows apart, it is no fact of the room).
  for (const auto& [key, value] : seen_)
    if (value) r_.fingerprint.gotest[key] = *value;
  r_.gotest_config.try_emplace(r_.conditions.front());
  return std::move(r_);
}

records::Result decode_gotest_file(const std::string& path, std::string_view content) {
  GoTestFileDecoder decoder(path);
  decoder.feed(content);
  return decoder.finish();
}

}  // namespace noisefloor::results
