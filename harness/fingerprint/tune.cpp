#include "fingerprint/tune.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

#include "files/files.hpp"
#include "fingerprint/parse.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::fingerprint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kNoTurbo = "/sys/devices/system/cpu/intel_pstate/no_turbo";
constexpr const char* kBoost = "/sys/devices/system/cpu/cpufreq/boost";
constexpr const char* kAslr = "/proc/sys/kernel/randomize_va_space";
constexpr const char* kThp = "/sys/kernel/mm/transparent_hugepage/enabled";
constexpr const char* kSmt = "/sys/devices/system/cpu/smt/control";

using files::under;

std::optional<std::string> read_trimmed(const fs::path& root, std::string_view abs) {
  const auto text = files::try_read(under(root, abs));
  return text ? std::optional(std::string(text::trim(*text))) : std::nullopt;
}

bool exists(const fs::path& root, std::string_view abs) {
  std::error_code ec;
  return fs::exists(under(root, abs), ec);
}

std::string why(const fs::path& root, std::string_view abs) {
  return (exists(root, abs) ? "cannot read " : "missing ") + std::string(abs);
}

// Writes value + "\n" like `echo value > file`: an existing file only (never created), one
// write(2), whose error is what sysfs reports (EINVAL, EBUSY, EPERM). "" on success.
std::string write_value(const fs::path& root, std::string_view abs, const std::string& value) {
  const fs::path p = under(root, abs);
  const int fd = ::open(p.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return fmt::format("cannot open {} for writing: {}", abs, std::strerror(errno));
  const std::string line = value + "\n";
  const ssize_t n = ::write(fd, line.data(), line.size());
  const int write_errno = errno;
  const int closed = ::close(fd);
  if (n < 0) return fmt::format("cannot write '{}' to {}: {}", value, abs, std::strerror(write_errno));
  if (static_cast<size_t>(n) != line.size()) return fmt::format("short write of '{}' to {}", value, abs);
  if (closed != 0) return fmt::format("cannot write '{}' to {}: {}", value, abs, std::strerror(errno));
  return "";
}

// Numbered entries "<prefix><n>" of the directory abs, sorted by n.
std::vector<int> numbered(const fs::path& root, std::string_view abs, std::string_view prefix) {
  std::vector<int> out;
  std::error_code ec;
  for (fs::directory_iterator it(under(root, abs), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) continue;
    if (digits.size() > 6) continue;
    out.push_back(std::stoi(digits));
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Planner {
 public:
  Planner(fs::path root, const std::vector<int>& cpus) : root_(std::move(root)), cpus_(cpus) {
    std::sort(cpus_.begin(), cpus_.end());
    cpus_.erase(std::unique(cpus_.begin(), cpus_.end()), cpus_.end());
  }

  TunePlan run() {
    governor();
    turbo();
    aslr();
    thp();
    smt();
    return std::move(plan_);
  }

 private:
  void change(const char* setting, std::string file, std::string before, std::string after) {
    plan_.changes.push_back({setting, std::move(file), std::move(before), std::move(after)});
  }
  void note(const char* setting, std::string reason) {
    plan_.unchanged.push_back({setting, std::move(reason)});
  }

  void governor() {
    // One file per policy; cpuN/cpufreq is a link to a policy, so policies avoid duplicates.
    std::vector<std::string> files;
    const std::string policy_dir = std::string(kCpuDir) + "/cpufreq";
    for (const int p : numbered(root_, policy_dir, "policy")) {
      const std::string dir = fmt::format("{}/policy{}", policy_dir, p);
      if (exists(root_, dir + "/scaling_governor")) files.push_back(dir);
    }
    if (files.empty()) {
      for (const int c : numbered(root_, kCpuDir, "cpu")) {
        const std::string dir = fmt::format("{}/cpu{}/cpufreq", kCpuDir, c);
        if (exists(root_, dir + "/scaling_governor")) files.push_back(dir);
      }
    }
    if (files.empty()) {
      note("governor",
           fmt::format("no cpufreq scaling_governor under {} (no cpufreq driver; usual in VMs)", policy_dir));
      return;
    }
    std::set<std::string> already;
    for (const std::string& dir : files) {
      const std::string file = dir + "/scaling_governor";
      const auto current = read_trimmed(root_, file);
      if (!current) {
        note("governor", why(root_, file));
        continue;
      }
      if (*current == "performance") {
        already.insert(dir);
        continue;
      }
      if (const auto available = read_trimmed(root_, dir + "/scaling_available_governors")) {
        std::istringstream words(*available);
        const std::set<std::string> names{std::istream_iterator<std::string>(words), {}};
        if (!names.count("performance")) {
          note("governor", fmt::format("{} offers no performance governor (available: {})", dir, *available));
          continue;
        }
      }
      change("governor", file, *current, "performance");
    }
    if (already.size() == files.size()) note("governor", "already performance on every policy");
  }

  void turbo() {
    if (const auto v = read_trimmed(root_, kNoTurbo)) {
      if (*v == "1") return note("turbo", fmt::format("already off ({} is 1)", kNoTurbo));
      if (*v != "0") return note("turbo", fmt::format("unexpected '{}' in {}", *v, kNoTurbo));
      return change("turbo", kNoTurbo, *v, "1");
    }
    if (const auto v = read_trimmed(root_, kBoost)) {
      if (*v == "0") return note("turbo", fmt::format("already off ({} is 0)", kBoost));
      if (*v != "1") return note("turbo", fmt::format("unexpected '{}' in {}", *v, kBoost));
      return change("turbo", kBoost, *v, "0");
    }
    bool any = false, on = false;
    const std::string policy_dir = std::string(kCpuDir) + "/cpufreq";
    for (const int p : numbered(root_, policy_dir, "policy")) {
      const std::string file = fmt::format("{}/policy{}/boost", policy_dir, p);
      const auto v = read_trimmed(root_, file);
      if (!v) continue;
      any = true;
      if (*v == "1") {
        on = true;
        change("turbo", file, *v, "0");
      } else if (*v != "0") {
        note("turbo", fmt::format("unexpected '{}' in {}", *v, file));
      }
    }
    if (!any) {
      note("turbo",
           fmt::format("no turbo control found ({}, {}, {}/policy*/boost)", kNoTurbo, kBoost, policy_dir));
    } else if (!on) {
      note("turbo", "already off on every policy");
    }
  }

  void aslr() {
    const auto v = read_trimmed(root_, kAslr);
    if (!v) return note("aslr", why(root_, kAslr));
    if (*v == "0") return note("aslr", "already off (randomize_va_space is 0)");
    if (*v != "1" && *v != "2") return note("aslr", fmt::format("unexpected '{}' in {}", *v, kAslr));
    change("aslr", kAslr, *v, "0");
  }

  void thp() {
    const auto v = read_trimmed(root_, kThp);
    if (!v) return note("thp", why(root_, kThp));
    std::string mode = selected_bracket(*v);
    if (mode.empty()) mode = *v;
    if (mode != "always") return note("thp", fmt::format("already '{}' (only 'always' is changed)", mode));
    change("thp", kThp, mode, "madvise");
  }

  void smt() {
    const auto control = read_trimmed(root_, kSmt);
    if (!control) return note("smt", why(root_, kSmt));
    if (*control != "on") return note("smt", fmt::format("control is '{}' (only 'on' is changed)", *control));
    if (!cpus_.empty()) {
      const std::string online_file = std::string(kCpuDir) + "/online";
      const auto online_text = read_trimmed(root_, online_file);
      const auto online = online_text ? model::parse_cpu_list(*online_text) : std::nullopt;
      if (!online) {
        return note("smt", fmt::format("stays on: cannot tell which CPUs SMT off would take offline ({})",
                                       why(root_, online_file)));
      }
      std::vector<int> lost, primaries;
      std::map<int, int> primary_of;
      for (const int c : *online) {
        const std::string file = fmt::format("{}/cpu{}/topology/thread_siblings_list", kCpuDir, c);
        const auto text = read_trimmed(root_, file);
        const auto siblings = text ? model::parse_cpu_list(*text) : std::nullopt;
        if (!siblings || siblings->empty()) {
          return note("smt", fmt::format("stays on: cannot tell which CPUs SMT off would take offline ({})",
                                         text ? "malformed " + file : why(root_, file)));
        }
        primary_of[c] = siblings->front();
        if (siblings->front() == c) primaries.push_back(c);
      }
      for (const int c : cpus_) {
        const auto it = primary_of.find(c);
        if (it != primary_of.end() && it->second != c) lost.push_back(c);
      }
      if (!lost.empty()) {
        std::vector<std::string> pairs;
        for (const int c : lost) pairs.push_back(fmt::format("{} (sibling of {})", c, primary_of[c]));
        return note("smt", fmt::format("stays on: SMT off would take the experiment's CPU {} offline; pin "
                                       "the experiment to first threads of cores ({}) to allow it",
                                       fmt::join(pairs, ", "), model::format_cpu_list(primaries)));
      }
    }
    change("smt", kSmt, *control, "off");
  }

  fs::path root_;
  std::vector<int> cpus_;
  TunePlan plan_;
};

void write_state(const fs::path& path, const TuneState& state) {
  files::write_atomic(path, json(state).dump(2) + "\n");
}

// The files and values apply_tuning writes; restore refuses anything else.
bool allowed(const TuneChange& c) {
  static const std::regex governor_file(
      R"(/sys/devices/system/cpu/(cpufreq/policy\d+|cpu\d+/cpufreq)/scaling_governor)");
  static const std::regex governor_value(R"([a-z0-9_]{1,32})");
  static const std::regex boost_file(R"(/sys/devices/system/cpu/cpufreq/policy\d+/boost)");
  auto in = [](const std::string& v, std::initializer_list<const char*> set) {
    return std::any_of(set.begin(), set.end(), [&](const char* s) { return v == s; });
  };
  if (c.setting == "governor") {
    return std::regex_match(c.file, governor_file) && std::regex_match(c.before, governor_value);
  }
  if (c.setting == "turbo") {
    return (c.file == kNoTurbo || c.file == kBoost || std::regex_match(c.file, boost_file)) &&
           in(c.before, {"0", "1"});
  }
  if (c.setting == "aslr") return c.file == kAslr && in(c.before, {"0", "1", "2"});
  if (c.setting == "thp") return c.file == kThp && in(c.before, {"always", "madvise", "never"});
  if (c.setting == "smt") return c.file == kSmt && in(c.before, {"on", "off"});
  return false;
}

}  // namespace

TunePlan plan_tuning(const fs::path& root, const std::vector<int>& experiment_cpus) {
  return Planner(root, experiment_cpus).run();
}

TuneResult apply_tuning(const fs::path& root, const fs::path& state_path,
                        const std::vector<int>& experiment_cpus) {
  std::error_code ec;
  if (fs::exists(state_path, ec) || fs::is_symlink(state_path, ec)) {
    throw RunError(
        fmt::format("tuning is already applied (the previous values are saved in {}): run 'noisefloor doctor "
                    "--restore' first, so the saved values stay the untuned ones",
                    state_path.string()));
  }
  TunePlan plan = plan_tuning(root, experiment_cpus);
  TuneResult result;
  result.unchanged = std::move(plan.unchanged);
  if (plan.changes.empty()) return result;

  std::vector<int> cpus = experiment_cpus;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  const std::string cpu_text = model::format_cpu_list(cpus);
  const std::string when = text::utc(std::chrono::system_clock::now());
  write_state(state_path, {when, false, cpu_text, plan.changes});  // before any change

  for (const auto& c : plan.changes) {
    const std::string error = write_value(root, c.file, c.after);
    if (error.empty()) {
      result.applied.push_back(c);
    } else {
      result.unchanged.push_back({c.setting, "write failed: " + error});
    }
  }
  if (result.applied.empty()) {
    fs::remove(state_path, ec);
  } else {
    write_state(state_path, {when, true, cpu_text, result.applied});
  }
  return result;
}

RestoreResult restore_tuning(const fs::path& root, const fs::path& state_path) {
  std::error_code ec;
  if (!fs::exists(state_path, ec)) {
    throw RunError(fmt::format("nothing to restore: no {} (tuning was not applied, or was already restored)",
                               state_path.string()));
  }
  const std::string text = files::read(state_path);
  TuneState state;
  try {
    state = json::parse(text).get<TuneState>();
  } catch (const json::exception& e) {
    throw RunError(
        fmt::format("{} is not a noisefloor tuning state file: {}", state_path.string(), e.what()));
  }
  const std::vector<TuneChange>& changes = state.changes;
  for (const auto& c : changes) {
    if (!allowed(c)) {
      throw RunError(
          fmt::format("{} asks to write '{}' to '{}' ({}), which noisefloor never changes: "
                      "restore by hand and remove the file",
                      state_path.string(), c.before, c.file, c.setting));
    }
  }
  RestoreResult result;
  std::vector<TuneChange> remaining;
  for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
    const std::string error = write_value(root, it->file, it->before);
    if (error.empty()) {
      result.restored.push_back(*it);
    } else {
      result.failed.push_back({it->setting, error});
      remaining.insert(remaining.begin(), *it);
    }
  }
  if (remaining.empty()) {
    if (!fs::remove(state_path, ec) && ec) {
      throw RunError(
          fmt::format("restored every value but cannot remove {}: {}", state_path.string(), ec.message()));
    }
  } else {
    write_state(state_path, {state.applied_utc, true, state.experiment_cpus, remaining});
  }
  return result;
}

TuningStatus tuning_state(const fs::path& state_path) {
  std::error_code ec;
  if (!fs::exists(state_path, ec)) {
    if (ec) return {std::nullopt, fmt::format("cannot check {}: {}", state_path.string(), ec.message())};
    return {};
  }
  const auto text = files::try_read(state_path);
  if (!text) return {std::nullopt, fmt::format("cannot read {}", state_path.string())};
  json state;
  try {
    state = json::parse(*text);
  } catch (const json::exception& e) {
    return {std::nullopt, fmt::format("{} is not valid JSON: {}", state_path.string(), e.what())};
  }
  if (!state.is_object() || !state.contains("changes"))
    return {std::nullopt, fmt::format("{} has no \"changes\"", state_path.string())};
  try {
    return {state.get<TuneState>(), ""};
  } catch (const json::exception& e) {
    return {std::nullopt,
            fmt::format("{} is not a noisefloor tuning state file: {}", state_path.string(), e.what())};
  }
}

}  // namespace noisefloor::fingerprint
