// An experiment file read (config/experiment_file.hpp): the file itself (one YAML document of
// text), its top-level keys, claims and reference, through the Reader (config/reader.hpp); and the
// module's free functions: durations, sizes, names, pinned CPUs, paths resolved.
#include "config/experiment_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "claims/claim.hpp"
#include "config/reader.hpp"
#include "model/cpulist.hpp"
#include "text/text.hpp"

namespace noisefloor::config {
namespace detail {
namespace {

const std::vector<std::string> kTopKeys = {
    "name",       "description", "benchmark", "conditions", "schedule",  "cooldown",     "variants",
    "comparison", "settle",      "claims",    "hosts",      "reference", "noise_profile"};

const std::vector<std::string> kReferenceKeys = {"file", "table", "source"};

// Where one YAML document's content starts (none for an empty document): parser events only.
class DocumentContent : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> mark;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override {
    note(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnMapEnd() override {}

 private:
  void note(const YAML::Mark& m) {
    if (!mark) mark = m;
  }
};

}  // namespace

void Reader::read_hosts(const YAML::Node& node, model::Experiment& exp) const {
  if (!node.IsSequence() || node.size() == 0)
    fail(node,
         "hosts: expected a non-empty list of Docker context names or endpoints, e.g. hosts: [default, "
         "ssh://user@quiet-box]");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("hosts[{}]", i);
    const std::string host = get_string(node[i], path);
    if (host.empty())
      fail(node[i], fmt::format("{}: empty: give a Docker context name or an endpoint", path));
    if (!seen.insert(host).second) fail(node[i], fmt::format("{}: {} is listed twice", path, quote(host)));
    exp.hosts.push_back({host, mark_of(node[i])});
  }
}

model::Experiment Reader::read(std::string_view text) {
  const YAML::Node root = load(text);
  if (!root.IsMap())
    fail(root, fmt::format("expected a mapping with at least `name`, `benchmark` and `conditions`, got {}",
                           describe(root)));
  check_keys(root, kTopKeys, "");

  model::Experiment exp;
  exp.source_file = file_;
  exp.source_text = std::string(text);
  read_name(root, exp);
  const YAML::Node bench = root["benchmark"];
  if (!bench) fail(root, "missing key \"benchmark\": say what to run (benchmark.command)");
  exp.benchmark = read_benchmark(bench);
  exp.benchmark.mark = key_mark(root, "benchmark");
  read_timing(root, exp);
  if (const YAML::Node h = root["hosts"]) read_hosts(h, exp);

  finish_benchmark(exp, bench);
  exp.adaptive = adaptive_;
  if (const YAML::Node v = root["variants"]) read_variants(v, exp);
  if (const YAML::Node c = root["comparison"]) {
    if (exp.variants.empty()) fail(c, "comparison: only with variants (there is nothing to compare)");
    read_comparison(c, exp);
  }
  // Paired repeats and adaptive stopping decide after every sample: one sample per invocation.
  if (exp.paired() || exp.adaptive) {
    if (const YAML::Node spr = bench["samples_per_run"]; spr && exp.benchmark.samples_per_run != 1)
      fail(spr, "benchmark.samples_per_run: variants and samples: auto take one sample per run; use 1");
    exp.benchmark.samples_per_run = 1;
  }

  const ConditionNodes nodes = read_all_conditions(root, exp);
  check_conditions_fit(exp, nodes);
  resolve_program(bench, exp);
  check_auto_image_variants(root, exp);
  if (const YAML::Node c = root["claims"]) read_claims(c, exp);
  if (const YAML::Node r = root["reference"]) read_reference(r, exp);
  return exp;
}

void Reader::read_name(const YAML::Node& root, model::Experiment& exp) const {
  const YAML::Node name = root["name"];
  if (!name) fail(root, "missing key \"name\": give the experiment a name, e.g. name: laptop");
  exp.name = get_string(name, "name");
  if (!is_safe_name(exp.name))
    fail(name, fmt::format("name: {} is not safe as a directory name (use letters, digits, '.', "
                           "'_' and '-', at most 64 characters, not starting with '.' or '-')",
                           quote(exp.name)));
  if (const YAML::Node d = root["description"]) exp.description = get_string(d, "description");
}

void Reader::read_timing(const YAML::Node& root, model::Experiment& exp) const {
  if (const YAML::Node s = root["schedule"]) {
    exp.schedule = get_word<model::Schedule>(s, "schedule");
  }
  if (const YAML::Node c = root["cooldown"]) exp.cooldown = get_duration(c, "cooldown");
  if (const YAML::Node c = root["settle"]) {
    exp.settle = get_duration(c, "settle");
    exp.settle_set = true;
  }
  if (const YAML::Node c = root["noise_profile"]) {
    exp.noise_profile = get_duration(c, "noise_profile");
    exp.noise_profile_set = true;
    if (exp.noise_profile.count() > 60) fail(c, "noise_profile: at most 60s (the doctor's is 2s)");
    if (exp.noise_profile.count() > 0 && exp.noise_profile.count() < 0.1)
      fail(c, "noise_profile: at least 100ms, or 0s for none");
  }
}

void Reader::read_claims(const YAML::Node& node, model::Experiment& exp) const {
  if (!node.IsSequence() || node.size() == 0)
    fail(node, "claims: expected a non-empty list of claims, e.g. claims: [\"cv(noisy) > 2 * cv(idle)\"]");
  claims::Names names;
  for (const auto& c : exp.conditions) {
    names.conditions.push_back(c.name);
    if (c.sweep) names.points[model::claim_name(*c.sweep)] = c.name;
  }
  for (const auto& v : exp.variants) names.variants.push_back(v.name);
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("claims[{}]", i);
    const std::string text = get_string(node[i], path);
    try {
      claims::parse_claim(text, names);
    } catch (const claims::ClaimError& e) {
      YAML::Mark m = node[i].Mark();
      // A quoted claim starts one column after its quote.
      const bool quoted = node[i].Tag() == "!";
      m.column += static_cast<int>(e.offset()) + (quoted ? 1 : 0);
      fail(m, fmt::format("{}: {}", path, e.what()));
    }
    exp.claims.push_back({text, mark_of(node[i])});
  }
}

void Reader::read_reference(const YAML::Node& node, model::Experiment& exp) const {
  model::ReferenceSpec r;
  r.mark = mark_of(node);
  if (node.IsScalar()) {
    r.file = get_string(node, "reference");
  } else {
    if (!node.IsMap())
      fail(node,
           "reference: expected a file (cv-summary.txt, summary.json, a result directory or a markdown "
           "table), or a mapping with file or table, and source");
    check_keys(node, kReferenceKeys, "reference");
    if (const YAML::Node f = node["file"]) r.file = get_string(f, "reference.file");
    if (const YAML::Node t = node["table"]) r.table = get_string(t, "reference.table");
    if (const YAML::Node s = node["source"]) r.source = get_string(s, "reference.source");
    if (r.file.empty() == r.table.empty())
      fail(node, "reference: give exactly one of file (a published table's path) or table (its text inline)");
  }
  exp.reference = r;
}

YAML::Node Reader::load(std::string_view text) const {
  check_text(text);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));  // the first document
    // A second one, if any: two documents at most are looked at (YAML::LoadAll can loop forever
    // on malformed input: found by fuzzing, tests/fuzz/corpus/experiment/).
    std::istringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    DocumentContent first, second;
    if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second) && second.mark)
      fail(*second.mark,
           "a second YAML document: an experiment file holds one experiment (remove the `---` "
           "line and what follows it, or make it a file of its own)");
  } catch (const YAML::Exception& e) {
    fail(e.mark, fmt::format("invalid YAML: {}", e.msg));
  }
  if ((!root || root.IsNull()) && !only_comments(text))
    fail(at(0, 0), "invalid YAML: no document could be read from the file (check its first lines)");
  if (!root || root.IsNull())
    fail(at(0, 0),
         "the file holds no experiment (it is empty or only comments): expected a mapping with at "
         "least `name`, `benchmark` and `conditions`");
  return root;
}

bool Reader::only_comments(std::string_view text) {
  for (const std::string_view line : text::lines(text)) {
    const std::string_view t = text::trim(line);
    if (!t.empty() && t.front() != '#' && t != "---" && t != "...") return false;
  }
  return true;
}

void Reader::check_text(std::string_view text) const {
  int line = 0, column = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = byte < 0x80           ? 1
                               : (byte >> 5) == 0x6  ? 2
                               : (byte >> 4) == 0xE  ? 3
                               : (byte >> 3) == 0x1E ? 4
                                                     : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (!valid)
      fail(at(line, column),
           fmt::format("invalid UTF-8 (byte 0x{:02x}): an experiment file is UTF-8 text", byte));
    if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7F)
      fail(at(line, column), fmt::format("control character 0x{:02x}: an experiment file is text (is this a "
                                         "binary file?)",
                                         byte));
    if (byte == '\n') {
      ++line;
      column = 0;
    } else {
      ++column;
    }
    i += length;
  }
}

}  // namespace detail

using detail::Reader;

std::optional<model::Seconds> parse_duration(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  std::size_t unit_at = text.size();
  while (unit_at > 0 && std::isalpha(static_cast<unsigned char>(text[unit_at - 1]))) --unit_at;
  const std::string_view number = text.substr(0, unit_at);
  const std::string_view unit = text.substr(unit_at);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc{} || ptr != number.data() + number.size() || value < 0 ||
      !std::isfinite(value))
    return std::nullopt;
  static constexpr std::pair<std::string_view, double> kUnits[] = {{"", 1},      {"s", 1},  {"ms", 1e-3},
                                                                   {"us", 1e-6}, {"m", 60}, {"h", 3600}};
  for (const auto& [name, scale] : kUnits)
    if (unit == name) return model::Seconds(value * scale);
  return std::nullopt;
}

std::optional<std::int64_t> parse_size(std::string_view text) {
  std::size_t unit_at = text.size();
  while (unit_at > 0 && std::isalpha(static_cast<unsigned char>(text[unit_at - 1]))) --unit_at;
  const std::string_view number = text.substr(0, unit_at);
  std::string unit(text.substr(unit_at));
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc{} || ptr != number.data() + number.size() || value < 0)
    return std::nullopt;
  static constexpr std::int64_t kKiB = 1024;
  static constexpr std::pair<std::string_view, std::int64_t> kUnits[] = {{"", 1},
                                                                         {"b", 1},
                                                                         {"k", kKiB},
                                                                         {"kb", kKiB},
                                                                         {"kib", kKiB},
                                                                         {"m", kKiB * kKiB},
                                                                         {"mb", kKiB * kKiB},
                                                                         {"mib", kKiB * kKiB},
                                                                         {"g", kKiB * kKiB * kKiB},
                                                                         {"gb", kKiB * kKiB * kKiB},
                                                                         {"gib", kKiB * kKiB * kKiB}};
  for (const auto& [name, scale] : kUnits)
    if (unit == name)
      return value > (std::int64_t{1} << 62) / scale ? std::nullopt : std::optional(value * scale);
  return std::nullopt;
}

bool is_safe_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string closest_key(std::string_view key, const std::vector<std::string>& valid) {
  return text::closest(key, valid);
}

model::Experiment parse_experiment(std::string_view yaml_text, std::string_view file_name,
                                   const HostFacts& host) {
  Reader reader(file_name, host);
  try {
    return reader.read(yaml_text);
  } catch (const YAML::Exception& e) {  // a yaml-cpp surprise still gets a position
    reader.fail(e.mark, fmt::format("invalid experiment: {}", e.msg));
  }
}

std::vector<int> pinned_cpus(const model::Experiment& e) {
  std::vector<int> cpus;
  for (const auto& c : e.conditions) {
    cpus.insert(cpus.end(), c.affinity.begin(), c.affinity.end());
    if (c.spinners) cpus.insert(cpus.end(), c.spinners->cpus.begin(), c.spinners->cpus.end());
    // Validated when the experiment was loaded: a malformed cpuset cannot get here.
    if (c.container && c.container->cpuset)
      for (int cpu : model::parse_cpu_list(*c.container->cpuset).value_or(std::vector<int>{}))
        cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

void resolve_paths(model::Experiment& e, const std::string& file_dir) {
  const std::filesystem::path base(file_dir);
  e.base_dir = base.string();
  std::filesystem::path workdir = base;
  if (e.benchmark.workdir) workdir = (base / *e.benchmark.workdir).lexically_normal();
  e.benchmark.workdir = workdir.string();
  const auto resolve = [&](std::vector<std::string>& argv) {
    if (argv.empty()) return;
    std::string& program = argv.front();
    if (program.find('/') != std::string::npos && std::filesystem::path(program).is_relative())
      program = (workdir / program).lexically_normal().string();
  };
  resolve(e.benchmark.command);
  resolve(e.benchmark.build);
  if (e.reference && !e.reference->file.empty() && std::filesystem::path(e.reference->file).is_relative())
    e.reference->file = (base / e.reference->file).lexically_normal().string();
  for (auto& v : e.variants) resolve(v.command);
}

}  // namespace noisefloor::config
