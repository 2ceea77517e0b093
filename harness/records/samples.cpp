#include "records/samples.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "text/text.hpp"

namespace noisefloor::records {
namespace {

std::uint64_t pack(std::uint32_t a, std::uint32_t b) { return (std::uint64_t{a} << 32) | b; }

// Values compare as stored: NaN equals NaN (a counter kept as "not a number").
bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

std::vector<model::Metric> MetricsView::to_vector() const {
  std::vector<model::Metric> out;
  out.reserve(size_);
  for (std::size_t i = 0; i < size_; ++i) {
    const MetricRef m = (*this)[i];
    out.push_back({m.value, m.unit});
  }
  return out;
}

SampleRef::SampleRef(const Sample& s)
    : SampleRef(s.condition, s.benchmark, s.name, s.procs, s.index, s.warmup, s.invocation, s.iterations,
                MetricsView(s.metrics), s.variant, s.repeat, s.pair, s.order, s.elapsed_seconds, s.utc,
                s.session, s.config, s.block) {}

SampleRef::SampleRef(const std::string& condition_, const std::string& benchmark_, const std::string& name_,
                     int procs_, int index_, bool warmup_, int invocation_, std::int64_t iterations_,
                     MetricsView metrics_, const std::string& variant_, int repeat_, const std::string& pair_,
                     model::PairOrder order_, double elapsed_seconds_, const std::string& utc_, int session_,
                     const std::string& config_, int block_)
    : condition(condition_),
      benchmark(benchmark_),
      name(name_),
      procs(procs_),
      index(index_),
      warmup(warmup_),
      invocation(invocation_),
      iterations(iterations_),
      metrics(metrics_),
      variant(variant_),
      repeat(repeat_),
      pair(pair_),
      order(order_),
      elapsed_seconds(elapsed_seconds_),
      utc(utc_),
      session(session_),
      config(config_),
      block(block_) {}

Sample SampleRef::sample() const {
  // In Sample's order (a designated initializer out of it does not compile): every field.
  return {.condition = condition,
          .benchmark = benchmark,
          .name = name,
          .procs = procs,
          .index = index,
          .warmup = warmup,
          .invocation = invocation,
          .iterations = iterations,
          .metrics = metrics.to_vector(),
          .config = config,
          .variant = variant,
          .repeat = repeat,
          .pair = pair,
          .order = order,
          .block = block,
          .elapsed_seconds = elapsed_seconds,
          .utc = utc,
          .session = session};
}

// ---- Samples -------------------------------------------------------------------------------

Samples::Samples(const std::vector<Sample>& samples) {
  for (const auto& s : samples) push_back(s);
}

Samples::Samples(std::initializer_list<Sample> samples) {
  for (const auto& s : samples) push_back(s);
}

Samples::Samples(const Samples& other)
    : strings_(other.strings_),
      layout_ids_(other.layout_ids_),
      series_(other.series_),
      series_ids_(other.series_ids_),
      count_(other.count_),
      order_(other.order_),
      bookkeeping_(other.bookkeeping_),
      pushed_counts_(other.pushed_counts_) {
  rebuild_views();  // last_ stays invalid: its pointer is into other's counts
}

Samples& Samples::operator=(const Samples& other) {
  if (this != &other) *this = Samples(other);
  return *this;
}

void Samples::rebuild_views() {
  ids_.clear();
  by_id_.clear();
  for (std::uint32_t i = 0; i < strings_.size(); ++i) {
    ids_.emplace(strings_[i], i);
    by_id_.push_back(&strings_[i]);
  }
  layouts_.assign(layout_ids_.size(), {});
  for (const auto& [units, id] : layout_ids_) {
    auto& layout = layouts_[id];
    for (const std::uint32_t u : units) layout.push_back(&strings_[u]);
  }
}

std::uint32_t Samples::intern(std::string_view s) {
  // Every string a sample holds (names, units, configuration, time) comes from a file or a
  // benchmark's output: kept escaped as names are (text::name_safe), so that none prints a line, a
  // colour or a verdict of its own wherever it is shown.
  if (text::needs_name_escape(s)) return intern_safe(text::name_safe(s));
  return intern_safe(s);
}

std::uint32_t Samples::intern_safe(std::string_view s) {
  if (const auto it = ids_.find(s); it != ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  strings_.emplace_back(s);
  ids_.emplace(strings_.back(), id);
  by_id_.push_back(&strings_.back());
  return id;
}

std::uint32_t Samples::layout_of(std::span<const std::string_view> units) {
  std::vector<std::uint32_t> ids;
  ids.reserve(units.size());
  for (const auto u : units) ids.push_back(intern(u));
  const auto [it, added] = layout_ids_.emplace(std::move(ids), static_cast<std::uint32_t>(layouts_.size()));
  if (added) {
    std::vector<const std::string*> layout;
    for (const std::uint32_t u : it->first) layout.push_back(&strings_[u]);
    layouts_.push_back(std::move(layout));
  }
  return it->second;
}

std::uint32_t Samples::series_of(std::uint32_t condition, std::uint32_t benchmark, std::uint32_t name,
                                 int procs, std::uint32_t variant, std::uint32_t pair, std::uint32_t layout,
                                 std::uint32_t config) {
  const SeriesKey key{condition, benchmark, name, procs, variant, pair, layout, config};
  const auto [it, added] = series_ids_.emplace(key, static_cast<std::uint32_t>(series_.size()));
  if (added)
    series_.push_back(
        Series{condition, benchmark, name, variant, pair, layout, config, procs, {}, {}, {}, false});
  return it->second;
}

void Samples::append_row(std::uint32_t series, std::int64_t iterations, std::span<const double> values) {
  // The first time another series follows one, the one left behind gives back the room its
  // vectors grew into (up to half of it): in a go test file it is complete by then.
  if (series != last_appended_ && last_appended_ < series_.size() && !series_[last_appended_].fitted) {
    series_[last_appended_].fit();
    series_[last_appended_].fitted = true;
  }
  last_appended_ = series;
  Series& s = series_[series];
  s.values.insert(s.values.end(), values.begin(), values.end());
  s.push_iterations(iterations);
  if (series_.size() > 1) {
    if (order_.empty()) order_.assign(count_, 0);  // until now every sample was series 0's
    order_.push_back(series);
  }
  ++count_;
}

void Samples::Series::push_iterations(std::int64_t n) {
  if (!is_wide &&
      (n > std::numeric_limits<std::int32_t>::max() || n < std::numeric_limits<std::int32_t>::min())) {
    wide.assign(narrow.begin(), narrow.end());
    std::vector<std::int32_t>().swap(narrow);
    is_wide = true;
  }
  if (!is_wide) {
    narrow.push_back(static_cast<std::int32_t>(n));
  } else {
    wide.push_back(n);
  }
}

void Samples::grow_like(double factor) {
  if (!(factor > 1) || count_ == 0) return;
  const auto grown = [factor](std::size_t n) {
    return static_cast<std::size_t>(static_cast<double>(n) * factor) + 16;
  };
  // Only the series still arriving grow: go test prints a benchmark's -count results one after
  // another, so a series seen only early in the piece is complete (room for `factor` times it
  // would be held for nothing: 10^5 benchmarks x 20 took 4 times the memory of their values);
  // in a file of rounds (one result of each benchmark per run) every series recurs.
  std::vector<bool> arriving(series_.size(), order_.empty());
  for (std::size_t i = order_.size() - order_.size() / 4; i < order_.size(); ++i) arriving[order_[i]] = true;
  for (std::size_t k = 0; k < series_.size(); ++k) {
    if (!arriving[k]) continue;
    Series& s = series_[k];
    s.values.reserve(grown(s.values.size()));
    if (!s.is_wide) {
      s.narrow.reserve(grown(s.narrow.size()));
    } else {
      s.wide.reserve(grown(s.wide.size()));
    }
  }
  if (!order_.empty()) order_.reserve(grown(order_.size()));
}

void Samples::Series::fit() {
  values.shrink_to_fit();
  narrow.shrink_to_fit();
  wide.shrink_to_fit();
}

int Samples::implied_index(std::uint32_t series) {
  const Series& s = series_[series];
  return pushed_counts_[pack(s.condition, s.benchmark)]++;
}

void Samples::make_explicit() {
  if (!bookkeeping_.empty() || count_ == 0) return;
  std::vector<Bookkeeping> explicit_;
  explicit_.reserve(count_ + 1);
  for (const SampleRef s : *this) {
    Bookkeeping b;
    b.index = s.index;
    explicit_.push_back(b);
  }
  bookkeeping_ = std::move(explicit_);
}

void Samples::push_back(const Sample& s) {
  last_.valid = false;
  std::vector<std::string_view> unit_names;
  std::vector<double> values;
  unit_names.reserve(s.metrics.size());
  values.reserve(s.metrics.size());
  for (const auto& m : s.metrics) {
    unit_names.push_back(m.unit);
    values.push_back(m.value);
  }
  const std::uint32_t series =
      series_of(intern(s.condition), intern(s.benchmark), intern(s.name), s.procs, intern(s.variant),
                intern(s.pair), layout_of(unit_names), intern_safe(s.config));
  const int implied = implied_index(series);
  const bool plain = s.index == implied && !s.warmup && s.invocation == 0 && s.repeat == -1 &&
                     s.session == 0 && s.block == 0 && s.order == model::PairOrder::none && s.utc.empty() &&
                     s.elapsed_seconds == 0;
  if (!plain || !bookkeeping_.empty()) {
    make_explicit();
    bookkeeping_.push_back({.index = s.index,
                            .invocation = s.invocation,
                            .repeat = s.repeat,
                            .session = s.session,
                            .block = s.block,
                            .utc = intern(s.utc),
                            .elapsed_seconds = s.elapsed_seconds,
                            .warmup = s.warmup,
                            .order = s.order});
  }
  append_row(series, s.iterations, values);
}

bool Samples::any_pair() const {
  return std::any_of(series_.begin(), series_.end(), [](const Series& s) { return s.pair != 0; });
}

std::vector<SeriesRef> Samples::series() const {
  std::vector<SeriesRef> out;
  out.reserve(series_.size());
  for (const Series& s : series_)
    out.push_back({str(s.condition), str(s.benchmark), str(s.name), s.procs, str(s.variant), str(s.pair),
                   str(s.config), s.narrow.size() + s.wide.size()});
  return out;
}

void Samples::push_result(std::string_view condition, std::string_view benchmark, std::string_view name,
                          int procs, std::int64_t iterations, std::span<const double> values,
                          std::span<const std::string_view> units, std::string_view config) {
  const bool same = last_.valid && last_.procs == procs && last_.name == name &&
                    last_.benchmark == benchmark && last_.condition == condition && last_.config == config &&
                    std::equal(units.begin(), units.end(), last_.units.begin(), last_.units.end());
  if (!same) {
    last_.series = series_of(intern(condition), intern(benchmark), intern(name), procs, 0, 0,
                             layout_of(units), intern_safe(config));
    last_.condition = condition;
    last_.config = config;
    last_.benchmark = benchmark;
    last_.name = name;
    last_.procs = procs;
    last_.units.assign(units.begin(), units.end());
    const Series& s = series_[last_.series];
    last_.count = &pushed_counts_[pack(s.condition, s.benchmark)];  // node-based: the address stays
    last_.valid = true;
  }
  const std::uint32_t series = last_.series;
  const int implied = (*last_.count)++;
  if (!bookkeeping_.empty()) {
    Bookkeeping b;
    b.index = implied;
    bookkeeping_.push_back(b);
  }
  append_row(series, iterations, values);
}

void Samples::append(const Samples& other) {
  if (&other == this) {
    const Samples copy(other);
    append(copy);
    return;
  }
  for (const SampleRef s : other) push_back(s.sample());
}

void Samples::rename_conditions(const std::function<std::string(const std::string&)>& rename) {
  last_.valid = false;
  std::map<std::uint32_t, std::uint32_t> renamed;
  for (const Series& s : series_)
    if (!renamed.count(s.condition)) renamed[s.condition] = 0;
  for (auto& [from, to] : renamed) to = intern(rename(strings_[from]));
  series_ids_.clear();
  for (std::uint32_t i = 0; i < series_.size(); ++i) {
    Series& s = series_[i];
    s.condition = renamed[s.condition];
    series_ids_.emplace(
        SeriesKey{s.condition, s.benchmark, s.name, s.procs, s.variant, s.pair, s.layout, s.config}, i);
  }
  // Two conditions renamed to one would merge series; a rename is one to one (a label prefix).
  std::unordered_map<std::uint64_t, int> counts;
  for (auto& [key, count] : pushed_counts_) {
    const auto condition = static_cast<std::uint32_t>(key >> 32);
    const auto benchmark = static_cast<std::uint32_t>(key & 0xffffffffu);
    const auto it = renamed.find(condition);
    counts[pack(it == renamed.end() ? condition : it->second, benchmark)] += count;
  }
  pushed_counts_ = std::move(counts);
}

SampleRef Samples::ref(std::size_t i, std::uint32_t position, int index) const {
  const Series& s = series_[series_at(i)];
  const auto& layout = layouts_[s.layout];
  const MetricsView metrics(s.values.data() + std::size_t{position} * layout.size(), layout.data(),
                            layout.size());
  if (bookkeeping_.empty())
    return SampleRef(str(s.condition), str(s.benchmark), str(s.name), s.procs, index, false, 0,
                     s.iterations(position), metrics, str(s.variant), -1, str(s.pair), model::PairOrder::none,
                     0.0, str(0), 0, str(s.config));
  const Bookkeeping& b = bookkeeping_[i];
  return SampleRef(str(s.condition), str(s.benchmark), str(s.name), s.procs, b.index, b.warmup, b.invocation,
                   s.iterations(position), metrics, str(s.variant), b.repeat, str(s.pair), b.order,
                   b.elapsed_seconds, str(b.utc), b.session, str(s.config), b.block);
}

SampleRef Samples::operator[](std::size_t i) const {
  auto it = begin();
  for (std::size_t k = 0; k < i; ++k) ++it;
  return *it;
}

std::vector<Sample> Samples::to_vector() const {
  std::vector<Sample> out;
  out.reserve(size());
  for (const SampleRef s : *this) out.push_back(s.sample());
  return out;
}

Samples::const_iterator::const_iterator(const Samples* owner, std::size_t i) : owner_(owner), i_(0) {
  if (i >= owner_->size()) {
    i_ = i;
    return;
  }
  walk_ = std::make_shared<Walk>();
  walk_->cursor.assign(owner_->series_.size(), 0);
  settle();
  while (i_ < i) ++*this;
}

void Samples::const_iterator::settle() {
  if (i_ >= owner_->size()) return;
  const Series& s = owner_->series_[owner_->series_at(i_)];
  position_ = walk_->cursor[owner_->series_at(i_)]++;
  if (owner_->bookkeeping_.empty()) index_ = walk_->counts[pack(s.condition, s.benchmark)]++;
}

SampleRef Samples::const_iterator::operator*() const { return owner_->ref(i_, position_, index_); }

Samples::const_iterator& Samples::const_iterator::operator++() {
  if (!walk_) {  // a post-increment's copy: replay the walk to here
    *this = const_iterator(owner_, i_);
  } else if (walk_.use_count() > 1) {
    walk_ = std::make_shared<Walk>(*walk_);
  }
  ++i_;
  settle();
  return *this;
}

bool operator==(const Samples& a, const Samples& b) {
  if (a.size() != b.size()) return false;
  auto i = a.begin();
  auto j = b.begin();
  for (; i != a.end(); ++i, ++j) {
    const SampleRef x = *i, y = *j;
    if (x.condition != y.condition || x.benchmark != y.benchmark || x.name != y.name || x.procs != y.procs ||
        x.index != y.index || x.warmup != y.warmup || x.invocation != y.invocation ||
        x.iterations != y.iterations || x.variant != y.variant || x.repeat != y.repeat || x.pair != y.pair ||
        x.order != y.order || x.elapsed_seconds != y.elapsed_seconds || x.utc != y.utc ||
        x.session != y.session || x.block != y.block || x.config != y.config ||
        x.metrics.size() != y.metrics.size())
      return false;
    for (std::size_t k = 0; k < x.metrics.size(); ++k)
      if (x.metrics[k].unit != y.metrics[k].unit || !same_value(x.metrics[k].value, y.metrics[k].value))
        return false;
  }
  return true;
}

}  // namespace noisefloor::records
