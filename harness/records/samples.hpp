// Samples as the reading commands hold them: the same records as records::Sample, stored by
// column, so that a million samples take tens of megabytes, not a gigabyte.
//
// Every string a sample repeats (condition, names, units, variant, pair, configuration) is
// kept once. A series is one (condition, benchmark, name, procs, variant, pair, units, config) in
// arrival order, with
// its values (one row of metrics per sample) and iteration counts; the samples' arrival order is
// one series number each. The bookkeeping (index, warm-up, invocation, repeat, order, time,
// session) is stored only once a sample carries any beyond what a go test file implies (index =
// position among its condition's samples of the same benchmark, everything else at its default).
// A go test sample with three metrics costs 36 bytes; one from samples.jsonl about 80.
//
// Reading yields SampleRef: the fields of a Sample under the same names, as references and
// values (no allocation), with `metrics` a view of (value, unit) pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "model/measurement.hpp"
#include "records/sample.hpp"

namespace noisefloor::records {

// What an input iterator whose reference is a proxy (a view returned by value) declares, for
// std::iterator_traits: MetricsView's and Samples' iterators.
template <class Ref>
struct ProxyInputIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = Ref;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Ref;
};

struct MetricRef {
  double value;
  const std::string& unit;
};

// A sample's metrics: a Sample's vector, or a row of a series.
class MetricsView {
 public:
  MetricsView() = default;
  explicit MetricsView(const std::vector<model::Metric>& metrics)
      : metrics_(metrics.data()), size_(metrics.size()) {}
  MetricsView(const double* values, const std::string* const* units, std::size_t size)
      : values_(values), units_(units), size_(size) {}

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  MetricRef operator[](std::size_t i) const {
    return metrics_ != nullptr ? MetricRef{metrics_[i].value, metrics_[i].unit}
                               : MetricRef{values_[i], *units_[i]};
  }
  MetricRef front() const { return (*this)[0]; }
  std::vector<model::Metric> to_vector() const;

  class iterator : public ProxyInputIterator<MetricRef> {
   public:
    iterator(const MetricsView* view, std::size_t i) : view_(view), i_(i) {}
    MetricRef operator*() const { return (*view_)[i_]; }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++i_;
      return before;
    }
    bool operator==(const iterator& other) const { return i_ == other.i_; }

   private:
    const MetricsView* view_;
    std::size_t i_;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size_}; }

 private:
  const model::Metric* metrics_ = nullptr;
  const double* values_ = nullptr;
  const std::string* const* units_ = nullptr;
  std::size_t size_ = 0;
};

// One sample, read in place: Sample's fields under Sample's names.
struct SampleRef {
  const std::string& condition;
  const std::string& benchmark;
  const std::string& name;
  int procs;
  int index;
  bool warmup;
  int invocation;
  std::int64_t iterations;
  MetricsView metrics;
  const std::string& variant;
  int repeat;
  const std::string& pair;
  model::PairOrder order;
  double elapsed_seconds;
  const std::string& utc;
  int session;
  const std::string& config;
  int block = 0;  // the gate's block (Sample::block)

  SampleRef(const Sample& s);  // NOLINT(google-explicit-constructor): a Sample reads as one
  SampleRef(const std::string& condition, const std::string& benchmark, const std::string& name, int procs,
            int index, bool warmup, int invocation, std::int64_t iterations, MetricsView metrics,
            const std::string& variant, int repeat, const std::string& pair, model::PairOrder order,
            double elapsed_seconds, const std::string& utc, int session, const std::string& config,
            int block = 0);
  Sample sample() const;  // a copy that owns its strings
};

// One series of Samples (see above): what its samples share, read in place.
struct SeriesRef {
  const std::string& condition;
  const std::string& benchmark;
  const std::string& name;
  int procs;
  const std::string& variant;
  const std::string& pair;
  const std::string& config;
  std::size_t size;  // its samples
};

class Samples {
 public:
  Samples() = default;
  Samples(const std::vector<Sample>& samples);  // NOLINT(google-explicit-constructor)
  Samples(std::initializer_list<Sample> samples);
  // A copy rebuilds the views into its own strings; a move keeps them (a deque's elements do not
  // move with it).
  Samples(const Samples& other);
  Samples(Samples&&) noexcept = default;
  Samples& operator=(const Samples& other);
  Samples& operator=(Samples&&) noexcept = default;

  void push_back(const Sample& s);
  // The fast path of a go test file: a sample with the implied bookkeeping (see above), printed
  // under `config` (model/go_config.hpp).
  void push_result(std::string_view condition, std::string_view benchmark, std::string_view name, int procs,
                   std::int64_t iterations, std::span<const double> values,
                   std::span<const std::string_view> units, std::string_view config = {});
  void append(const Samples& other);
  // Gives every condition the name `rename` returns for it.
  void rename_conditions(const std::function<std::string(const std::string&)>& rename);

  std::size_t size() const { return count_; }
  bool any_pair() const;  // whether any sample belongs to a pair (the paired design)
  // The series in the order their first samples came: a question about what samples share (which
  // conditions, variants, configurations there are) asked of them, not of every sample.
  std::vector<SeriesRef> series() const;
  bool empty() const { return count_ == 0; }
  // Reserves room for `factor` times the samples held so far, series by series (a go test file
  // read in pieces: its size over the bytes read so far). Untouched room costs address space,
  // not memory.
  void grow_like(double factor);
  // The i-th sample, found by walking from the first (O(i)): for tests and small sets; a reader
  // of many samples iterates.
  SampleRef operator[](std::size_t i) const;
  SampleRef front() const { return (*this)[0]; }
  SampleRef back() const { return (*this)[size() - 1]; }
  std::vector<Sample> to_vector() const;

  // An input iterator. Its copies share the walk's bookkeeping (how far each series has been read),
  // so that a copy costs O(1), not O(series): the standard algorithms copy iterators at every
  // step (std::find_if's predicate takes one by value). A copy dereferences as what it was copied
  // from; advancing one of two live copies gives it bookkeeping of its own first.
  class const_iterator : public ProxyInputIterator<SampleRef> {
   public:
    const_iterator(const Samples* owner, std::size_t i);
    SampleRef operator*() const;
    const_iterator& operator++();
    const_iterator operator++(int) {
      const_iterator before = *this;
      before.walk_.reset();  // it still reads its sample; advanced, it would replay the walk
      ++*this;
      return before;
    }
    bool operator==(const const_iterator& other) const { return i_ == other.i_; }

   private:
    struct Walk {
      std::vector<std::uint32_t> cursor;              // per series: samples of it passed so far
      std::unordered_map<std::uint64_t, int> counts;  // implied index: (condition, benchmark) -> so far
    };
    const Samples* owner_;
    std::size_t i_;
    std::uint32_t position_ = 0;  // sample i_'s position in its series
    int index_ = 0;               // the implied index of sample i_
    std::shared_ptr<Walk> walk_;
    void settle();  // position_ and index_ of sample i_, counted in walk_
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  friend bool operator==(const Samples& a, const Samples& b);

 private:
  struct Series {
    std::uint32_t condition, benchmark, name, variant, pair, layout, config;
    int procs;
    std::vector<double> values;  // units per sample, row after row
    // One iteration count per sample: 32 bits while every count fits (Go's b.N never exceeds
    // 10^9), 64 from the first that does not.
    std::vector<std::int32_t> narrow;
    std::vector<std::int64_t> wide;
    bool is_wide = false;
    bool fitted = false;  // its vectors were fitted to its samples once (append_row)
    void fit();
    std::int64_t iterations(std::size_t position) const {
      return is_wide ? wide[position] : narrow[position];
    }
    void push_iterations(std::int64_t n);
  };
  struct Bookkeeping {
    int index = 0, invocation = 0, repeat = -1, session = 0, block = 0;
    std::uint32_t utc = 0;  // a string id (0: "")
    double elapsed_seconds = 0;
    bool warmup = false;
    model::PairOrder order = model::PairOrder::none;
  };

  std::uint32_t intern(std::string_view s);       // escaped first where a name would be
  std::uint32_t intern_safe(std::string_view s);  // `s` as it is
  std::uint32_t layout_of(std::span<const std::string_view> units);
  std::uint32_t series_of(std::uint32_t condition, std::uint32_t benchmark, std::uint32_t name, int procs,
                          std::uint32_t variant, std::uint32_t pair, std::uint32_t layout,
                          std::uint32_t config);
  void append_row(std::uint32_t series, std::int64_t iterations, std::span<const double> values);
  int implied_index(std::uint32_t series);  // while pushing: the next implied index of the series' benchmark
  void make_explicit();                     // stores the implied bookkeeping of every sample so far
  SampleRef ref(std::size_t i, std::uint32_t position, int index) const;
  void rebuild_views();  // ids_ and layouts_ from strings_ and layout_ids_

  std::deque<std::string> strings_{std::string()};  // id 0 is ""; a deque keeps references stable
  std::unordered_map<std::string_view, std::uint32_t> ids_{{std::string_view(), 0}};
  std::vector<const std::string*> by_id_{&strings_.front()};  // strings_[id], one lookup away
  const std::string& str(std::uint32_t id) const { return *by_id_[id]; }
  std::vector<std::vector<const std::string*>> layouts_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> layout_ids_;
  std::vector<Series> series_;
  using SeriesKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, int, std::uint32_t, std::uint32_t,
                               std::uint32_t, std::uint32_t>;
  std::map<SeriesKey, std::uint32_t> series_ids_;
  std::size_t count_ = 0;
  std::uint32_t last_appended_ = std::numeric_limits<std::uint32_t>::max();  // the series of the last sample
  std::vector<std::uint32_t> order_;  // series per sample, arrival order; empty while there is one series
  std::uint32_t series_at(std::size_t i) const { return order_.empty() ? 0 : order_[i]; }
  std::vector<Bookkeeping> bookkeeping_;                  // empty while every sample's is implied
  std::unordered_map<std::uint64_t, int> pushed_counts_;  // implied index while pushing
  // push_result's last series, by the texts it was found with: a file's lines mostly repeat them.
  struct LastResult {
    std::string condition, benchmark, name, config;
    int procs = 0;
    std::vector<std::string> units;
    std::uint32_t series = 0;
    int* count = nullptr;  // its entry of pushed_counts_
    bool valid = false;
  };
  LastResult last_;
};

}  // namespace noisefloor::records
