#include "conditions/host.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "files/files.hpp"
#include "fingerprint/host.hpp"
#include "image/embedded.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "model/simulation.hpp"
#include "parsers/cachegrind.hpp"
#include "probe/probe_report.hpp"
#include "process/cpus.hpp"
#include "process/process.hpp"
#include "text/text.hpp"

namespace noisefloor::conditions {
namespace {

// The share of a CPU each spinner can expect: 1 / (spinners on its CPU) when pinned,
// min(1, usable CPUs / spinners) when the scheduler places them.
std::vector<double> expected_shares(const model::SpinnerSpec& spec, int usable) {
  std::vector<double> out;
  if (spec.cpus.empty()) {
    const double share = std::min(1.0, static_cast<double>(usable) / std::max(1, spec.count));
    out.assign(static_cast<std::size_t>(spec.count), share);
    return out;
  }
  std::map<int, int> per_cpu;
  for (int i = 0; i < spec.count; ++i) ++per_cpu[spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()]];
  for (int i = 0; i < spec.count; ++i)
    out.push_back(1.0 / per_cpu[spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()]]);
  return out;
}

// Spinners as host processes.
class HostSpinners : public SpinnerBackend {
 public:
  explicit HostSpinners(const model::SpinnerSpec& spec) : set_(spec) {}
  std::vector<int> pids() const override { return set_.pids(); }
  std::vector<std::optional<double>> cpu_seconds() const override { return set_.cpu_seconds(); }
  std::vector<std::size_t> exited() override { return set_.exited(); }
  void stop() override { set_.stop(); }

 private:
  process::SpinnerSet set_;
};

}  // namespace

Spinners::Spinners(const model::Condition& c) : condition_(c.name) {
  if (!c.spinners) return;
  spec_ = *c.spinners;
  set_ = std::make_unique<HostSpinners>(*c.spinners);
  init(process::affinity_cpus());  // where unpinned spinners land
}

Spinners::Spinners(const model::Condition& c, const Start& start, int usable) : condition_(c.name) {
  if (!c.spinners) return;
  spec_ = *c.spinners;
  set_ = start(*c.spinners);
  init(usable);
}

void Spinners::init(int usable) {
  const std::vector<int> pids = set_->pids();
  containers_ = set_->containers();
  const std::vector<double> expected = expected_shares(spec_, usable);
  for (std::size_t i = 0; i < pids.size(); ++i) {
    records::SpinnerLoad load;
    load.pid = pids[i];
    load.cpu_seconds = 0.0;
    load.expected_share = expected[i];
    if (i < containers_.size()) load.container = containers_[i].substr(0, 12);
    load_.push_back(load);
  }
}

Spinners::~Spinners() = default;

Spinners::Snapshot Spinners::snapshot() const { return set_ ? set_->cpu_seconds() : Snapshot{}; }

void Spinners::account(const Snapshot& before, double wall_seconds, int invocation) {
  if (!set_) return;
  const Snapshot after = set_->cpu_seconds();
  for (std::size_t i = 0; i < load_.size() && i < before.size() && i < after.size(); ++i) {
    load_[i].wall_seconds += wall_seconds;
    if (before[i] && after[i] && load_[i].cpu_seconds)
      *load_[i].cpu_seconds += *after[i] - *before[i];
    else
      load_[i].cpu_seconds.reset();
  }
  const std::vector<std::size_t> gone = set_->exited();
  for (const std::size_t i : gone) load_[i].alive = false;
  if (!gone.empty())
    throw RunError(
        fmt::format("condition '{}': spinner {} exited during run {}: the background load was not "
                    "there the whole time",
                    condition_, load_[gone.front()].pid, invocation + 1));
}

void Spinners::finish() {
  if (!set_) return;
  set_->stop();
  set_.reset();
  for (const auto& load : load_)
    if (load.starved())
      throw RunError(
          fmt::format("condition '{}': spinner {} got {:.1f}% of a CPU while the benchmark ran (it could "
                      "expect about {:.0f}%): "
                      "the background load was not there{}",
                      condition_, load.pid, 100 * *load.share(), 100 * load.expected_share,
                      spec_.nice ? " (spinners.nice lets the benchmark starve them)" : ""));
}

std::optional<records::SpinnerSetup> Spinners::setup() const {
  if (load_.empty() && !set_) return std::nullopt;
  std::vector<int> pids;
  for (const auto& load : load_) pids.push_back(load.pid);
  records::SpinnerSetup setup{spec_.count, spec_.cpus, pids, spec_.nice, {}};
  for (const auto& id : containers_) setup.containers.push_back(id.substr(0, 12));
  return setup;
}

std::uint64_t random_tag() {
  // 8 bytes from the kernel's generator: a name no other run picks, not a statistic (§3.10's one
  // generator is for figures that must repeat).
  std::uint64_t tag = 0;
  if (::getrandom(&tag, sizeof tag, 0) != static_cast<ssize_t>(sizeof tag))
    tag = static_cast<std::uint64_t>(::getpid()) << 32 ^
          static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return tag;
}

namespace {

// Where cachegrind writes an invocation's counts and its own messages: a directory of this
// process's, removed with the condition (the files are removed as soon as they are read).
class SimulationFiles {
 public:
  SimulationFiles() : dir_("noisefloor-sim", "valgrind's counts") {}
  std::string out(int number) const {
    return (dir_.path() / fmt::format("valgrind-{}.out", number)).string();
  }
  std::string log(int number) const {
    return (dir_.path() / fmt::format("valgrind-{}.log", number)).string();
  }
  // callgrind's dumps of an invocation, out(number).1, .2, …, in the order it wrote them.
  std::vector<std::string> dumps(int number) const {
    const std::string prefix = fmt::format("valgrind-{}.out.", number);
    std::vector<std::pair<long, std::string>> found;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path(), ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string k = name.substr(prefix.size());
      if (!k.empty() && k.find_first_not_of("0123456789") == std::string::npos)
        found.emplace_back(std::stol(k), entry.path().string());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> paths;
    for (auto& [k, path] : found) paths.push_back(std::move(path));
    return paths;
  }

 private:
  files::TempDirectory dir_;
};

std::string take_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return text;
}

// The line of valgrind's log that names an instruction it cannot decode; nullopt when none does.
std::optional<std::string_view> undecodable(std::string_view log) {
  for (const std::string_view line : text::lines(log))
    if (line.find("unhandled instruction bytes") != std::string_view::npos) return text::trim(line);
  return std::nullopt;
}

// valgrind's log of an invocation, read and removed; a RunError when it met an instruction it
// does not decode (Go programs, at start).
std::string valgrind_log(const std::string& condition, const std::string& program,
                         const SimulationFiles& files, int number) {
  std::string log = take_file(files.log(number));
  if (const auto line = undecodable(log))
    throw RunError(fmt::format(
        "condition '{}': valgrind cannot run {}: it met an instruction it does not decode ({}); Go "
        "programs stop so at start on some CPUs (RDTSCP, in runtime.cputicks) with valgrind 3.19: "
        "simulated metrics work for C, C++ and Rust programs, measure wall or cpu for this one",
        condition, program, *line));
  return log;
}

// The counts of an invocation that ran under cachegrind (nullopt when it did not end well: the
// runner reports the benchmark's own failure); a RunError that says why where there are none.
std::optional<model::SimulatedCounts> simulated_counts_of(const std::string& condition,
                                                          const std::string& program,
                                                          const SimulationFiles& files, int number,
                                                          bool ended_well) {
  const std::string log = valgrind_log(condition, program, files, number);
  const std::string counts = take_file(files.out(number));
  if (!ended_well) return std::nullopt;
  try {
    return model::simulated_counts(parsers::parse_cachegrind_out(counts));
  } catch (const ParseError& e) {
    throw RunError(fmt::format("condition '{}': valgrind ran {} but its counts cannot be read: {}", condition,
                               program, e.what()),
                   text::last_lines(log, 5, "valgrind's log"));
  }
}

// The timed loops of an invocation that ran under callgrind, in order (none when it did not end
// well); every dump is read and removed.
std::vector<model::TimedLoop> timed_loops_of(const std::string& condition, const std::string& program,
                                             const SimulationFiles& files, int number, bool ended_well) {
  const std::string log = valgrind_log(condition, program, files, number);
  std::error_code ec;
  std::filesystem::remove(files.out(number), ec);  // what followed the last loop: the reports
  std::vector<model::TimedLoop> loops;
  for (const std::string& path : files.dumps(number)) {
    if (!ended_well) {  // the runner reports the benchmark's own failure: the dumps go unread
      std::filesystem::remove(path, ec);
      continue;
    }
    const std::string dump = take_file(path);
    try {
      const parsers::CallgrindDump d = parsers::parse_callgrind_dump(dump);
      if (d.trigger.find(model::kTimedLoopEnd) != std::string::npos)
        loops.push_back({model::simulated_counts(d.events),
                         dump.find("benchmark::State::PauseTiming()") != std::string::npos});
    } catch (const ParseError& e) {
      throw RunError(fmt::format("condition '{}': valgrind ran {} but its counts cannot be read ({}): {}",
                                 condition, program, path, e.what()),
                     text::last_lines(log, 5, "valgrind's log"));
    }
  }
  return loops;
}

class HostScope : public ConditionScope {
 public:
  HostScope(const model::Condition& c, Launcher launcher)
      : condition_(c), launcher_(std::move(launcher)), spinners_(c) {}

  InvocationOutput run(const Invocation& inv, const LineCallback& on_line,
                       const Cancelled& cancelled) override {
    if (launcher_.probe.empty())
      throw RunError(
          fmt::format("condition '{}': cannot start the benchmark: {}", condition_.name, launcher_.problem));
    // The probe starts the benchmark as its child, times it, and ends its whole tree with it (or
    // with noisefloor): the same launcher as inside a container.
    const std::string tag = fmt::format("{:016x}", random_tag());
    process::Spec spec;
    spec.argv = {launcher_.probe, "--tag", tag, "--watch-stdin"};
    if (inv.launcher_noops > 0) {
      spec.argv.insert(spec.argv.end(),
                       {"--noop-runs", std::to_string(inv.launcher_noops), "--noop", launcher_.noop});
    }
    if (inv.simulate) spec.argv.push_back("--no-aslr");
    spec.argv.push_back("--");
    const std::string program = process::resolve_program(inv.argv.front());
    if (inv.simulate) {
      if (!simulation_) simulation_.emplace();
      spec.argv.push_back(valgrind());
      for (std::string& o :
           model::valgrind_options(*inv.simulate, simulation_->out(inv.number), simulation_->log(inv.number)))
        spec.argv.push_back(std::move(o));
    }
    spec.argv.push_back(program);
    spec.argv.insert(spec.argv.end(), inv.argv.begin() + 1, inv.argv.end());
    spec.env = inv.simulate ? model::simulated_environment(*inv.simulate, inv.env) : inv.env;
    spec.inherit_env = !inv.simulate;
    spec.workdir = inv.workdir;
    spec.timeout = inv.timeout;
    spec.affinity = condition_.affinity;
    spec.nice = condition_.nice;
    spec.supervised = true;

    const Spinners::Snapshot before = spinners_.snapshot();
    const process::Result r = process::run(spec, on_line, cancelled);
    spinners_.account(before, r.usage.wall_seconds, inv.number);

    const probe::ProbeReport report = probe::parse_probe_report(r.err, tag);
    if (const auto stopped = report.after.find("stopped"); stopped != report.after.end() && !r.timed_out)
      throw RunError(
          fmt::format("condition '{}': the benchmark was stopped from outside ({}): something sent its "
                      "probe (pid {}) a signal",
                      condition_.name, stopped->second, r.pid));
    if (const auto failed = report.values.find("exec_failed"); failed != report.values.end())
      throw RunError(fmt::format("condition '{}': cannot start {}: {}", condition_.name, inv.argv.front(),
                                 failed->second));
    InvocationOutput out{.exit_code = r.exit_code,
                         .signal = r.signal,
                         .timed_out = r.timed_out,
                         .out = r.out,
                         .err = report.benchmark_stderr,
                         .wall_seconds = r.usage.wall_seconds,
                         .accounting = {},
                         .details = {},
                         .simulated = std::nullopt,
                         .simulated_loops = {}};
    if (const auto account = probe::probe_run(report)) {
      out.accounting = records::accounting_of(*account, records::MeasuredBy::host);
      out.exit_code = account->exit_code.value_or(-1);
      out.signal = account->signal;
    }
    if (inv.simulate) {
      if (report.values.count("aslr") == 0)  // the probe says aslr=off once it is
        throw RunError(
            fmt::format("condition '{}': address-space randomization was not turned off for the "
                        "simulated run (the probe did not say aslr=off)",
                        condition_.name));
      const bool ended_well = !out.timed_out && !out.signal && out.exit_code == 0;
      if (*inv.simulate == model::SimulationScope::whole_run)
        out.simulated = simulated_counts_of(condition_.name, program, *simulation_, inv.number, ended_well);
      else
        out.simulated_loops = timed_loops_of(condition_.name, program, *simulation_, inv.number, ended_well);
    }
    if (!r.applied) {
      out.details.affinity_unknown = "the benchmark exited before it could be read back";
      return out;
    }
    // Read back from the probe, whose settings the benchmark inherits: asked must be applied.
    out.details.affinity = r.applied->affinity;
    out.details.nice = r.applied->nice;
    if (!condition_.affinity.empty() && r.applied->affinity != condition_.affinity)
      throw RunError(fmt::format("condition '{}': asked for affinity {}, the benchmark ran on {}",
                                 condition_.name, model::format_cpu_list(condition_.affinity),
                                 model::format_cpu_list(r.applied->affinity)));
    if (condition_.nice && r.applied->nice && *r.applied->nice != *condition_.nice)
      throw RunError(fmt::format("condition '{}': asked for nice {}, the benchmark ran at nice {}",
                                 condition_.name, *condition_.nice, *r.applied->nice));
    return out;
  }

  void finish() override { spinners_.finish(); }

  records::ConditionSetup setup() const override {
    records::ConditionSetup s;
    s.spinners = spinners_.setup();
    s.affinity = condition_.affinity;
    s.nice = condition_.nice;
    return s;
  }

  std::vector<records::SpinnerLoad> spinner_load() const override { return spinners_.load(); }

 private:
  // valgrind, found on PATH once.
  const std::string& valgrind() {
    if (valgrind_.empty()) {
      try {
        valgrind_ = process::resolve_program("valgrind");
      } catch (const RunError&) {
        throw RunError(
            fmt::format("condition '{}': simulated metrics run the benchmark under valgrind, which "
                        "is not on PATH: install it (apt-get install valgrind)",
                        condition_.name));
      }
    }
    return valgrind_;
  }

  model::Condition condition_;
  Launcher launcher_;
  Spinners spinners_;
  std::optional<SimulationFiles> simulation_;
  std::string valgrind_;
};

}  // namespace

std::unique_ptr<ConditionScope> make_host_scope(const model::Condition& condition, const Launcher& launcher) {
  return std::make_unique<HostScope>(condition, launcher);
}

// An embedded program in an anonymous memory file, executed as /proc/<pid>/fd/N: nothing is
// written to disk, so nothing can be left behind, whatever ends noisefloor.
class MemoryProgram {
 public:
  MemoryProgram(const char* name, std::string_view bytes) {
    fd_ = ::memfd_create(name, MFD_CLOEXEC);
    if (fd_ < 0) {
      problem_ = fmt::format("memfd_create: {}", std::strerror(errno));
      return;
    }
    std::size_t written = 0;
    while (written < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        problem_ = fmt::format("writing {}: {}", name, std::strerror(errno));
        return;
      }
      written += static_cast<std::size_t>(n);
    }
    // By noisefloor's pid, not "self": the probe executes the no-op without holding its fd.
    path_ = fmt::format("/proc/{}/fd/{}", ::getpid(), fd_);
  }
  MemoryProgram(const MemoryProgram&) = delete;
  MemoryProgram& operator=(const MemoryProgram&) = delete;
  ~MemoryProgram() {
    if (fd_ >= 0) ::close(fd_);
  }
  const std::string& path() const { return path_; }  // empty when it could not be made
  const std::string& problem() const { return problem_; }

 private:
  int fd_ = -1;
  std::string path_, problem_;
};

struct HostEnvironment::Programs {
  MemoryProgram probe{"noisefloor-probe", image::embedded_probe()};
  MemoryProgram noop{"noisefloor-noop", image::embedded_noop()};
  Launcher launcher() const {
    return {probe.path(), noop.path(), probe.problem().empty() ? noop.problem() : probe.problem()};
  }
};

HostEnvironment::HostEnvironment(ContainerScopeFactory containers)
    : containers_(std::move(containers)), programs_(std::make_unique<Programs>()) {}

HostEnvironment::~HostEnvironment() = default;

std::unique_ptr<ConditionScope> HostEnvironment::enter(const model::Condition& condition) {
  if (condition.container) {
    if (!containers_)
      throw RunError(
          fmt::format("condition '{}': container conditions need the Docker engine", condition.name));
    return containers_(condition);
  }
  return make_host_scope(condition, programs_->launcher());
}

fingerprint::LoadReading HostEnvironment::load() { return fingerprint::probe_load(); }

SimulationCost measure_simulation_cost(const Cancelled& cancelled) {
  constexpr const char* kRounds = "20000000";  // about 20 ms of arithmetic on a desktop core
  SimulationCost cost;
  std::string valgrind;
  try {
    valgrind = process::resolve_program("valgrind");
  } catch (const RunError&) {
    cost.problem = "valgrind is not on PATH (apt-get install valgrind)";
    return cost;
  }
  const MemoryProgram probe{"noisefloor-probe", image::embedded_probe()};
  if (probe.path().empty()) {
    cost.problem = probe.problem();
    return cost;
  }
  process::Spec spec;
  spec.timeout = std::chrono::seconds(120);
  spec.argv = {valgrind, "--version"};
  const process::Result version = process::run(spec, nullptr, cancelled);
  cost.valgrind = std::string(text::trim(version.out));
  for (int i = 0; i < 3; ++i) {
    spec.argv = {probe.path(), "--burn", kRounds};
    const process::Result r = process::run(spec, nullptr, cancelled);
    if (r.exit_code != 0) {
      cost.problem = fmt::format("the probe's workload failed (exit {})", r.exit_code);
      return cost;
    }
    cost.native_seconds = i == 0 ? r.usage.wall_seconds : std::min(cost.native_seconds, r.usage.wall_seconds);
  }
  spec.argv = {valgrind};
  for (std::string& o : model::valgrind_options(model::SimulationScope::whole_run, "/dev/null", "/dev/null"))
    spec.argv.push_back(std::move(o));
  spec.argv.insert(spec.argv.end(), {probe.path(), "--burn", kRounds});
  const process::Result r = process::run(spec, nullptr, cancelled);
  if (r.exit_code != 0) {
    cost.problem = fmt::format("valgrind could not run the probe's workload (exit {}): {}", r.exit_code,
                               text::last_lines(r.err, 2, "its stderr"));
    return cost;
  }
  cost.simulated_seconds = r.usage.wall_seconds;
  return cost;
}

}  // namespace noisefloor::conditions
