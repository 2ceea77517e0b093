// The per-condition table: the kept samples of each condition × benchmark (× variant) and their
// summary statistics (harness/stats/README.md §3.2–3.4). Pure.
#pragma once

#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/accounting.hpp"
#include "analysis/label.hpp"
#include "model/sweep.hpp"
#include "model/units.hpp"
#include "records/samples.hpp"
#include "stats/summary.hpp"

namespace noisefloor::analysis {

// Which row a sample belongs to: its condition, its full name as benchstat keys rows
// ("BenchmarkX-2" and "BenchmarkX-4" (GOMAXPROCS), "BM_X/threads:2" and "BM_X/threads:4" are rows
// of their own), the Go configuration it was printed under (model/go_config.hpp: `go test ./...`
// prints `pkg:` before each package, and BenchmarkGet-8 of package a is not package b's), and its
// variant (paired design). Every reader groups samples by this key, never by a shown name.
struct RowKey {
  std::string condition;
  std::string name;    // as printed, with the -N suffix
  std::string config;  // canonical text, "" for none
  std::string variant;
  friend auto operator<=>(const RowKey&, const RowKey&) = default;
  friend bool operator==(const RowKey&, const RowKey&) = default;
};
RowKey row_key(const records::SampleRef& sample);

// One condition × benchmark (× configuration × variant) × metric: the kept samples (warm-up
// excluded) of one metric.
struct Row {
  std::string condition;
  std::string name;       // as printed, with the -N suffix
  std::string benchmark;  // without the -N suffix
  std::string config;     // the Go configuration of its samples (canonical text, "" for none)
  // The part of `config` that tells this row from others of its table (Table::config_keys),
  // as shown: "pkg: example.com/a" ("" when no key varies).
  std::string config_label;
  std::string variant;         // paired design: which variant ("" otherwise)
  std::string pair;            // paired design: the pair its samples come from (see build_table)
  std::string unit;            // of its metric, as recorded, e.g. "ns/op"
  std::size_t metric = 0;      // position of its metric on the result line (0: the primary one)
  std::vector<int> procs;      // its GOMAXPROCS (threads), one value
  std::vector<double> values;  // in run order
  std::size_t warmup_discarded = 0;
  std::size_t not_numbers = 0;  // values of this metric that were not numbers, left out
  bool exact = false;           // the unit's metadata says assume=exact (model/units.hpp)
  double mode = stats::kNaN;    // exact units: the most frequent value (the lowest of the most frequent)
  // Its condition's benchmark was starved by other work (analysis/accounting.hpp): the band is
  // no better than "do not trust", whatever the CV says.
  bool starved = false;
  stats::Summary summary;  // without modified_z (stats::modified_z_scores of values gives them)
  RowKey key() const { return {condition, name, config, variant}; }
};

// How a row is named everywhere: its full name, the configuration that tells it apart when there
// is one ("BenchmarkGet-8 (pkg: a)"), its variant when there is one ("BenchmarkX-2 [fast]").
std::string row_name(std::string_view name, std::string_view config_label, std::string_view variant = {});
// row_name of a table row.
std::string display_name(const Row& row);
// A row as a note names it, "<condition> / <name>", each name a text::line_label: a wrapped note
// never starts a line inside a name.
std::string note_where(const Row& row);
// The name part of note_where: the row's name (a text::line_label), configuration and variant.
std::string note_name(const Row& row);
// Whether `sample` (warm-up included) is one of the row's.
bool in_row(const Row& row, const records::SampleRef& sample);
// Whether the rows hold each sample, in order: all of them, except that in a paired design each
// (condition, name, config, variant) keeps only the samples of the first pair it ran in.
std::vector<bool> row_samples(const records::Samples& samples);
// The most frequent of ascending values (the lowest of the most frequent): the centre of a unit
// marked `assume=exact`, as benchstat centres it. NaN when empty.
double mode_of_ascending(std::span<const double> ascending);
// The configuration keys that tell rows apart: those whose value (or presence) differs between two
// samples of one condition (a `go test ./...` run's pkg). Keys every sample of a condition shares
// (goos, goarch, cpu) say nothing about a row.
std::set<std::string> distinguishing_keys(const records::Samples& samples);

// What the flags column says about a row; every rendering words these.
struct Flags {
  int outliers = 0;                                // mild or extreme (§3.4)
  bool drift = false, shape = false, few = false;  // few: n < 2
  bool starved = false;
};
Flags flags_of(const Row& row);

struct Table {
  std::vector<std::string> conditions;  // display order
  // The primary metric's rows (what claims, history, plots and the anchor judge), grouped by
  // condition, then benchmark in first-seen order.
  std::vector<Row> rows;
  // Every other metric of the result lines (-benchmem's B/op and allocs/op, MB/s, b.ReportMetric's
  // units, Google Benchmark's counters), shown after their primary row: for each primary row, its
  // other metrics in line order.
  std::vector<Row> other_metrics;
  std::set<std::string> config_keys;  // distinguishing_keys of the samples
  // The GOMAXPROCS values when rows ran under several (GC scheduling differs: compare CVs, not
  // means); empty when they did not, or when "/threads:N" instances tell the rows apart.
  std::vector<int> mixed_procs;
  // What each condition's invocations cost and waited: said under it, after the rows' warnings
  // (render::table_notes).
  std::vector<ConditionAccounting> accounting;
  // How clean each condition's room was (analysis/labels.hpp), by condition: every rendering
  // prints it. Absent for a condition nothing was recorded about.
  struct RoomLabel {
    Label label = Label::unknown;
    LabelReason reason;  // the reading it rests on
  };
  std::map<std::string, RoomLabel> labels;
  // The conditions that are a sweep's points (model/sweep.hpp), by condition.
  std::map<std::string, model::SweepPoint> sweeps;
  // Merged results: a condition renamed "<label>:<condition>" (merged_condition) to tell two
  // sources' conditions apart, by its name: the label of its source.
  std::map<std::string, std::string> merged_sources;
  // The label of a condition, UNKNOWN when none was derived.
  Label label_of(const std::string& condition) const;
};

// Caps the band of every row of `condition` at "do not trust" and marks it starved.
void mark_starved(Table& table, const std::string& condition);

// The rows of `table` in display order: each primary row followed by its other metrics.
std::vector<const Row*> all_rows(const Table& table);

// Groups samples by row_key and metric and summarizes each group. Conditions follow
// `condition_order`, then any others in first-seen order. In a paired design a variant's row holds
// the samples of the first pair it runs in (the baseline runs in every pair, and its A/A copy
// once more: one sample per repeat keeps its row a plain series in run order). `units`: the unit
// metadata (`assume=exact` rows show their mode).
Table build_table(const records::Samples& samples, const std::vector<std::string>& condition_order,
                  const model::UnitMetadata& units = {});

}  // namespace noisefloor::analysis
