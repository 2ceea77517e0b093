// The reader of an experiment file, one class split by what it reads (internal to config/; the
// module's interface is experiment_file.hpp): the typed values of a node with file:line:col in
// every error (reader.cpp), the file and its top-level keys (experiment_file.cpp), the benchmark,
// variants and comparison (read_benchmark.cpp), and the conditions with their sweeps, spinners and
// containers (read_conditions.cpp).
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/experiment_file.hpp"
#include "model/experiment.hpp"
#include "model/names.hpp"
#include "text/text.hpp"

namespace noisefloor::config::detail {

using model::SourceMark;
using text::quote;

// Reads one experiment file; every error carries file:line:col of the offending node.
class Reader {
 public:
  Reader(std::string_view file, const HostFacts& host) : file_(file), host_(host) {}

  [[noreturn]] void fail(const YAML::Mark& mark_in, const std::string& message) const;
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;

  static SourceMark mark_of(const YAML::Node& node);

  // Where `key` of the map `node` is written (its key, not its value).
  static SourceMark key_mark(const YAML::Node& node, std::string_view key);

  // Rejects keys that are not in `valid` (suggesting the closest one) and duplicate keys.
  void check_keys(const YAML::Node& map, const std::vector<std::string>& valid,
                  std::string_view context) const;

  void require_map(const YAML::Node& node, std::string_view path) const;

  std::string get_string(const YAML::Node& node, std::string_view path) const;

  // A whole number in [min, max]; the default max keeps every count within an int, checked
  // before any narrowing, so 4294967298 is an error and never wraps to 2.
  std::int64_t get_int(const YAML::Node& node, std::string_view path, std::int64_t min,
                       std::string_view expectation, std::int64_t max = 1'000'000) const;

  double get_number(const YAML::Node& node, std::string_view path) const;

  // One of E's words (its names table, model/names.hpp); another word fails with the list of them.
  template <class E>
  E get_word(const YAML::Node& node, std::string_view path) const {
    const std::string v = get_string(node, path);
    if (const auto value = model::from_name<E>(v)) return *value;
    std::vector<E> all;
    for (const auto& [value, name] : names(E{})) all.push_back(value);
    fail(node, fmt::format("{}: expected {}, got {}", path, model::names_list<E>(all), quote(v)));
  }

  bool get_bool(const YAML::Node& node, std::string_view path) const;

  int get_nice(const YAML::Node& node, std::string_view path) const;

  std::vector<std::string> get_argv(const YAML::Node& node, std::string_view path) const;

  std::map<std::string, std::string> get_env(const YAML::Node& node, std::string_view path) const;

  // A CPU list as a string ("0-3,5"), a single integer, or a list of integers; each CPU must be
  // online on this host.
  std::vector<int> get_cpus(const YAML::Node& node, std::string_view path) const;

  void check_cpus_online(const YAML::Node& node, std::string_view path, const std::vector<int>& cpus) const;

  // A duration from `min` up to 1,000,000 s (11.6 days): beyond that the clocks' integer
  // arithmetic would overflow.
  model::Seconds get_duration(const YAML::Node& node, std::string_view path,
                              model::Seconds min = model::Seconds(0)) const;

  std::string describe(const YAML::Node& node) const;

  // hosts: [default, ssh://bench@quiet-box, ci-runner]: Docker contexts or endpoints, each once.
  void read_hosts(const YAML::Node& node, model::Experiment& exp) const;

  model::Experiment read(std::string_view text);

  void read_name(const YAML::Node& root, model::Experiment& exp) const;

  // schedule, cooldown, settle and noise_profile.
  void read_timing(const YAML::Node& root, model::Experiment& exp) const;

  // Each condition as written, or each point of its sweeps: the node it was read from and the
  // index of the condition the file wrote (what messages say).
  struct ConditionNodes {
    std::vector<YAML::Node> nodes;
    std::vector<std::size_t> index;
  };

  ConditionNodes read_all_conditions(const YAML::Node& root, model::Experiment& exp);

  // What a container condition can run: the benchmark's format, metric and inputs decide (each rule
  // over every condition, in this order, so the first broken rule is the one reported).
  void check_conditions_fit(const model::Experiment& exp, const ConditionNodes& nodes) const;

  // A program named without a path is the one PATH finds now, as the host would run it, and
  // image: auto is built from that executable: resolved here, or refused before anything runs
  // (unless the build step may make it).
  void resolve_program(const YAML::Node& bench, model::Experiment& exp) const;

  // image: auto holds one executable, benchmark.command's: a variant with another program
  // would silently run the baseline's binary with the variant's arguments.
  void check_auto_image_variants(const YAML::Node& root, const model::Experiment& exp) const;

  // claims: ["cv(noisy) > 2 * cv(idle)", ...]: each parsed and checked against the conditions and
  // variants now, its error pointing into the claim's own text.
  void read_claims(const YAML::Node& node, model::Experiment& exp) const;

  // reference: published/cv-summary.txt, or {file: ..., source: "..."}, or {table: |, source: ...}:
  // the published table the replay is held against. The file is read (and its format checked)
  // by the pipeline before anything runs; its path resolves against the experiment's directory.
  void read_reference(const YAML::Node& node, model::Experiment& exp) const;

  // The file's one YAML document. An empty file, a second document and bytes that are not text
  // are errors with a place (yaml-cpp would ignore the second document and quote a raw byte).
  YAML::Node load(std::string_view text) const;

  // True when every line is blank, a comment, or a document marker (--- or ...).
  static bool only_comments(std::string_view text);

  static YAML::Mark at(int line, int column) {  // 0-based, as YAML::Mark counts
    YAML::Mark mark;
    mark.line = line;
    mark.column = column;
    return mark;
  }

  // Text is UTF-8 without control characters other than tab, line feed and carriage return.
  void check_text(std::string_view text) const;

  model::BenchmarkSpec read_benchmark(const YAML::Node& node);

  // Checks that need the schedule and format together.
  void finish_benchmark(model::Experiment& exp, const YAML::Node& node);

  // benchmark.inputs: relative paths under the working directory, each one that can be read.
  void read_inputs(const YAML::Node& node, model::BenchmarkSpec& b) const;

  double get_percent(const YAML::Node& node, std::string_view path) const;

  void read_variants(const YAML::Node& node, model::Experiment& exp);

  // `ref: REF` or `worktree: true`: a side of the gate, built from its own checkout; never with
  // command or args (it runs benchmark.command there).
  std::optional<std::string> git_side(const YAML::Node& v, const std::string& path) const;

  void read_comparison(const YAML::Node& node, model::Experiment& exp);

  // ---- sweeps ----

  // One `{sweep: ...}` in a condition: where it sits, and its values with their labels (a null
  // value removes the key: `affinity: {sweep: [~, 0]}` is unpinned, then pinned).
  struct Sweep {
    std::vector<std::string> path;  // keys from the condition down to the swept setting
    std::string parameter;          // as shown
    YAML::Node node;                // the `{sweep: ...}` mapping
    std::vector<std::pair<std::string, YAML::Node>> values;
  };

  // The sweeps of a condition, in the file's order (a depth-first walk of its mappings).
  void find_sweeps(const YAML::Node& map, std::vector<std::string>& path, const std::string& where,
                   std::vector<Sweep>& out);

  // {sweep: [0, 1, 2]}, {sweep: 0..4} (whole numbers, either way), {sweep: {label: value, ...}}.
  Sweep read_sweep(const YAML::Node& node, const std::vector<std::string>& path, const std::string& where);

  // The value of a setting on a numeric axis: a number as written, a size in bytes for memory,
  // `all` spinners as the CPUs they meant, no spinners as 0; nullopt otherwise (a category).
  std::optional<double> number_of(const Sweep& s, const std::string& label, const model::Condition& c) const;

  // A condition as written, or one per point of the product of its sweeps (the first sweep
  // varies slowest), each with the node it was read from.
  std::vector<std::pair<YAML::Node, model::Condition>> read_conditions(const YAML::Node& node,
                                                                       std::size_t index);

  // A label as part of a file name: characters other than letters, digits, '.', '_' and '-'
  // become '_'.
  static std::string safe_part(std::string text);

  // Puts `value` at `path` in a cloned condition (a null value removes the key; no spinners, 0,
  // removes `spinners`).
  static void set_at(YAML::Node root, const std::vector<std::string>& path, const YAML::Node& value);

  model::Condition read_condition(const YAML::Node& node, std::size_t index);

  // A condition's args: strings added after the benchmark's command; never the repetition flag
  // noisefloor sets itself.
  std::vector<std::string> read_args(const YAML::Node& node, const std::string& path) const;

  model::SpinnerSpec read_spinners(const YAML::Node& node, const std::string& path);

  model::ContainerSpec read_container(const YAML::Node& node, const std::string& path);

  std::int64_t get_memory(const YAML::Node& node, const std::string& path, bool allow_unlimited) const;

 private:
  std::string file_;
  const HostFacts& host_;
  std::optional<model::Adaptive> adaptive_;
  std::optional<YAML::Mark> fallback_mark_;
};

}  // namespace noisefloor::config::detail
