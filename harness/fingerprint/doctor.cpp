#include "fingerprint/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <sstream>
#include <utility>

#include "fingerprint/parse.hpp"
#include "model/cpulist.hpp"

namespace noisefloor::fingerprint {
namespace {

using nlohmann::json;

class Doctor {
 public:
  Doctor(const json& host, const std::optional<json>& engine, const std::vector<int>& cpus)
      : host_(host), engine_(engine), experiment_cpus_(cpus) {}

  DoctorReport run() {
    virtualization();
    docker_desktop();
    container();
    load();
    governor();
    turbo();
    smt();
    isolation();
    aslr();
    thp();
    swap();
    power();
    clocksource();
    engine_limits();
    perflock();
    return finish();
  }

 private:
  void add(Level level, std::string topic, std::string message, std::string fix = "") {
    report_.findings.push_back({level, std::move(topic), std::move(message), std::move(fix)});
  }

  // A WARN for a fact that could not be read; returns the value or nullptr.
  const json* need(std::string_view path, const std::string& topic) {
    const json* v = known_value(host_, path);
    if (v == nullptr) {
      add(Level::warn, topic, fmt::format("could not check {}: {}", topic, unknown_reason(host_, path)));
    }
    return v;
  }

  std::optional<int> logical() const {
    const json* v = known_value(host_, "cpu.logical");
    if (v == nullptr || !v->is_number_integer()) return std::nullopt;
    return v->get<int>();
  }

  std::optional<std::vector<int>> online() const {
    const json* v = known_value(host_, "cpu.online");
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return model::parse_cpu_list(v->get<std::string>());
  }

  void virtualization() {
    const json* v = need("virtualization.virtual", "virtualization");
    if (v == nullptr || !v->is_boolean()) return;
    if (!v->get<bool>()) {
      add(Level::ok, "virtualization", "bare metal (no hypervisor found)");
      return;
    }
    const json* h = known_value(host_, "virtualization.hypervisor");
    const std::string name = h != nullptr && h->is_string() ? h->get<std::string>() : "unknown";
    limited_ = true;
    add(Level::warn, "virtualization",
        fmt::format("virtual machine (hypervisor: {}): vCPUs share physical cores with other "
                    "guests and the host controls frequency, so results compare only with runs "
                    "on the same VM type",
                    name));
  }

  void docker_desktop() {
    if (!engine_ || !engine_->is_object()) return;
    auto it = engine_->find("OperatingSystem");
    if (it == engine_->end()) it = engine_->find("os");  // the fingerprint's engine facts
    if (it == engine_->end() || !it->is_string()) return;
    const std::string os = it->get<std::string>();
    if (os.find("Docker Desktop") == std::string::npos) return;
    limited_ = true;
    add(Level::warn, "docker-desktop",
        fmt::format("the docker engine runs in Docker Desktop's VM ('{}'): pinned CPUs are vCPUs "
                    "of that VM and host-side spinners run outside it",
                    os));
  }

  void container() {
    const json* inside_fact = nullptr;
    if (host_.contains("container") && host_["container"].contains("inside"))
      inside_fact = &host_["container"]["inside"];
    const json* v = known_value(host_, "container.inside");
    if (v == nullptr || !v->is_boolean() || !v->get<bool>()) return;
    const std::string evidence =
        inside_fact->contains("evidence") ? inside_fact->at("evidence").dump() : "[]";
    if (inside_fact->contains("note")) {
      add(Level::ok, "container",
          fmt::format("probably not in a container: {} ({})", evidence,
                      inside_fact->at("note").get<std::string>()));
      return;
    }
    add(Level::warn, "container",
        fmt::format("noisefloor runs inside a container ({}): host facts are the container's "
                    "view and its cgroup limits apply to the benchmark",
                    evidence));
  }

  void load() {
    const json* v = need("load", "load");
    const auto cpus = logical();
    if (v == nullptr || !cpus || *cpus <= 0) return;
    const double one = v->value("one", 0.0);
    // Runnable right now, not counting the process that is looking (noisefloor itself). The
    // 1-minute average lags by minutes — e.g. behind a run's own spinners — so it alone only warns.
    const int others = std::max(0, v->value("running", 1) - 1);
    const std::string fix = "top -o %CPU   # then stop the busy processes it lists";
    const std::string what = fmt::format("{} other runnable task(s) now, 1-minute load average {:.2f}, on {} logical CPUs",
                                         others, one, *cpus);
    if (others >= *cpus) {
      add(Level::bad, "load", what + ": every CPU is already busy; results would measure the other work", fix);
    } else if (others > 0 || one >= kLoadWarnFraction * *cpus) {
      add(Level::warn, "load",
          what + (others > 0 ? ": other processes compete for the CPUs"
                             : ": the machine was busy within the last minute; let it settle"),
          fix);
    } else {
      add(Level::ok, "load", what);
    }
  }

  void governor() {
    const json* v = need("frequency.governor", "governor");
    if (v == nullptr) return;
    const bool all_performance = v->is_string() && v->get<std::string>() == "performance";
    if (all_performance) {
      add(Level::ok, "governor", "cpufreq governor is performance on every CPU");
      return;
    }
    add(Level::warn, "governor",
        fmt::format("cpufreq governor is {} (not performance): the frequency follows the load, "
                    "so the first iterations run slower than the rest",
                    v->is_string() ? "'" + v->get<std::string>() + "'" : v->dump()),
        "for f in /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do echo performance > "
        "\"$f\"; done   # or: cpupower frequency-set -g performance");
  }

  void turbo() {
    const json* v = need("frequency.turbo", "turbo");
    if (v == nullptr || !v->is_boolean()) return;
    if (!v->get<bool>()) {
      add(Level::ok, "turbo", "turbo/boost is off");
      return;
    }
    const json& fact = host_["frequency"]["turbo"];
    const std::string source = fact.value("source", std::string());
    std::string fix;
    if (source.ends_with("intel_pstate/no_turbo")) {
      fix = "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo";
    } else if (source == "/sys/devices/system/cpu/cpufreq/boost") {
      fix = "echo 0 > /sys/devices/system/cpu/cpufreq/boost";
    } else {
      fix = "for f in /sys/devices/system/cpu/cpufreq/policy*/boost; do echo 0 > \"$f\"; done";
    }
    add(Level::warn, "turbo",
        fmt::format("turbo/boost is on ({}): the clock depends on temperature and on how many "
                    "cores are busy",
                    source),
        fix);
  }

  void smt() {
    const json* v = need("smt.active", "smt");
    if (v == nullptr || !v->is_boolean()) return;
    const json* control = known_value(host_, "smt.control");
    const std::string c =
        control != nullptr && control->is_string() ? control->get<std::string>() : "unknown";
    if (!v->get<bool>()) {
      add(Level::ok, "smt", fmt::format("SMT (hyper-threading) is inactive (control: {})", c));
      return;
    }
    add(Level::warn, "smt",
        fmt::format("SMT (hyper-threading) is active (control: {}): a sibling thread shares the "
                    "core's caches and execution units with the benchmark",
                    c),
        c == "on" ? "echo off > /sys/devices/system/cpu/smt/control" : "");
  }

  void isolation() {
    const json* v = need("isolation.isolated", "isolation");
    const auto on = online();
    if (!experiment_cpus_.empty() && on) {
      std::vector<int> missing;
      for (const int c : experiment_cpus_) {
        if (!std::binary_search(on->begin(), on->end(), c)) missing.push_back(c);
      }
      if (!missing.empty()) {
        add(Level::bad, "experiment-cpus",
            fmt::format("the experiment pins to CPUs {} but only {} are online",
                        model::format_cpu_list(missing), model::format_cpu_list(*on)));
      }
    }
    if (v == nullptr || !v->is_string()) return;
    const auto isolated = model::parse_cpu_list(v->get<std::string>());
    if (isolated && !isolated->empty()) {
      const std::string list = model::format_cpu_list(*isolated);
      std::vector<int> outside;
      for (const int c : experiment_cpus_) {
        if (!std::binary_search(isolated->begin(), isolated->end(), c)) outside.push_back(c);
      }
      if (!outside.empty()) {
        add(Level::warn, "isolation",
            fmt::format("CPUs {} are isolated but the experiment pins to {}, which are not: "
                        "pin the experiment to the isolated CPUs",
                        list, model::format_cpu_list(outside)),
            fmt::format("taskset -c {} chrt -f 50 <benchmark>", list));
      } else {
        add(Level::ok, "isolation", fmt::format("CPUs {} are isolated from the scheduler", list));
      }
      return;
    }
    // Suggest the experiment's CPUs, else the highest CPU. Never CPU 0: it keeps housekeeping
    // work (timers, unbound kthreads, most IRQs) even when isolated.
    std::vector<int> suggest;
    std::copy_if(experiment_cpus_.begin(), experiment_cpus_.end(), std::back_inserter(suggest),
                 [](int c) { return c != 0; });
    if (suggest.empty() && on && on->size() > 1) suggest = {on->back()};
    const bool pins_cpu0 = !experiment_cpus_.empty() && experiment_cpus_.front() == 0;
    if (suggest.empty()) {
      add(Level::warn, "isolation",
          "no isolated CPUs, and a single CPU cannot be isolated: the benchmark shares it with "
          "every other task");
      return;
    }
    const std::string list = model::format_cpu_list(suggest);
    add(Level::warn, "isolation",
        std::string("no isolated CPUs: the scheduler, timer ticks and RCU callbacks run on the "
                    "benchmark's CPUs") +
            (pins_cpu0 ? fmt::format("; the experiment pins to CPU 0, which keeps housekeeping "
                                     "work even when isolated: pin to {} instead",
                                     list)
                       : ""),
        fmt::format("add \"isolcpus={0} nohz_full={0} rcu_nocbs={0}\" to GRUB_CMDLINE_LINUX in "
                    "/etc/default/grub, run update-grub and reboot; then run the benchmark with "
                    "taskset -c {0} chrt -f 50 <benchmark>",
                    list));
  }

  void aslr() {
    const json* v = need("aslr", "aslr");
    if (v == nullptr || !v->is_number_integer()) return;
    if (v->get<int>() == 0) {
      add(Level::ok, "aslr", "address space layout randomization is off");
      return;
    }
    add(Level::warn, "aslr",
        fmt::format("address space layout randomization is on (randomize_va_space={}): code and "
                    "stack alignment change from run to run",
                    v->get<int>()),
        "setarch -R <benchmark>   # or system-wide: echo 0 > /proc/sys/kernel/randomize_va_space");
  }

  void thp() {
    const json* v = need("thp", "thp");
    if (v == nullptr || !v->is_string()) return;
    if (v->get<std::string>() != "always") {
      add(Level::ok, "thp", fmt::format("transparent huge pages: {}", v->get<std::string>()));
      return;
    }
    add(Level::warn, "thp",
        "transparent huge pages are 'always': khugepaged compaction and huge-page faults add "
        "pauses that depend on memory fragmentation",
        "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled");
  }

  void swap() {
    const json* v = need("memory.swap_used_kb", "swap");
    if (v == nullptr || !v->is_number_integer()) return;
    const auto used = v->get<std::int64_t>();
    if (used <= 0) {
      add(Level::ok, "swap", "no swap in use");
      return;
    }
    add(Level::warn, "swap",
        fmt::format("{} kB of swap in use: pages the benchmark touches may have to come back "
                    "from disk",
                    used),
        "swapoff -a && swapon -a   # needs enough free memory for what is swapped out");
  }

  void power() {
    const json* v = need("power", "power");
    if (v == nullptr || !v->is_string()) return;
    if (v->get<std::string>() == "battery") {
      add(Level::warn, "power", "running on battery: firmware and the kernel lower clocks to save power",
          "plug in the AC adapter");
    } else {
      add(Level::ok, "power", fmt::format("power source: {}", v->get<std::string>()));
    }
  }

  void clocksource() {
    const json* v = need("clocksource", "clocksource");
    if (v == nullptr || !v->is_string()) return;
    const std::string cs = v->get<std::string>();
    if (cs == "hpet" || cs == "acpi_pm") {
      add(Level::warn, "clocksource",
          fmt::format("clocksource is '{}': every clock read is a slow device access, which "
                      "inflates short timings",
                      cs),
          "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource");
    } else {
      add(Level::ok, "clocksource", fmt::format("clocksource: {}", cs));
    }
  }

  void engine_limits() {
    if (!engine_ || !engine_->is_object()) return;
    // Docker key, and the key engine_facts (fingerprint/engine.hpp) files it under in "limits".
    static constexpr std::pair<const char*, const char*> kCaps[] = {{"CPUSet", "cpuset"},
                                                                    {"CpuCfsQuota", "cpu_cfs_quota"},
                                                                    {"CpuCfsPeriod", "cpu_cfs_period"},
                                                                    {"MemoryLimit", "memory_limit"},
                                                                    {"SwapLimit", "swap_limit"}};
    const auto limits = engine_->find("limits");
    for (const auto& [cap, snake] : kCaps) {
      const json* v = nullptr;
      if (const auto it = engine_->find(cap); it != engine_->end()) {
        v = &*it;
      } else if (limits != engine_->end() && limits->is_object()) {
        if (const auto lit = limits->find(snake); lit != limits->end()) v = &*lit;
      }
      if (v != nullptr && v->is_boolean() && !v->get<bool>()) {
        add(Level::warn, "engine-limits",
            fmt::format("the docker engine reports {}=false: it silently drops that limit, so "
                        "the pinned container is not limited the way the experiment says",
                        cap));
      }
    }
    auto w = engine_->find("Warnings");
    if (w == engine_->end()) w = engine_->find("warnings");
    if (w != engine_->end() && w->is_array()) {
      for (const auto& msg : *w) {
        if (msg.is_string()) add(Level::warn, "engine-limits", "docker engine: " + msg.get<std::string>());
      }
    }
  }

  void perflock() {
    const json* v = known_value(host_, "tools.perflock");
    if (v == nullptr || !v->is_boolean() || !v->get<bool>()) return;
    add(Level::ok, "perflock",
        "perflock is installed: it serializes benchmarks and can cap the CPU frequency",
        "perflock -governor=70% <benchmark>");
  }

  DoctorReport finish() {
    bool bad = false;
    bool warn = limited_;
    for (const auto& f : report_.findings) {
      if (f.level == Level::ok) continue;
      (f.level == Level::bad ? bad : warn) = true;
      report_.grade_reasons.push_back(f.message);
    }
    report_.grade = bad ? Grade::not_ready : warn ? Grade::limited : Grade::ready;
    return std::move(report_);
  }

  const json& host_;
  const std::optional<json>& engine_;
  std::vector<int> experiment_cpus_;
  DoctorReport report_{{}, Grade::ready, {}};
  bool limited_ = false;
};

}  // namespace

DoctorReport diagnose(const json& host, const std::optional<json>& engine_info,
                      const std::vector<int>& experiment_cpus) {
  std::vector<int> cpus = experiment_cpus;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return Doctor(host, engine_info, cpus).run();
}

std::string_view to_string(Level level) {
  switch (level) {
    case Level::ok:
      return "OK";
    case Level::warn:
      return "WARN";
    case Level::bad:
      return "BAD";
  }
  return "?";
}

std::string_view to_string(Grade grade) {
  switch (grade) {
    case Grade::ready:
      return "ready";
    case Grade::limited:
      return "limited";
    case Grade::not_ready:
      return "not ready";
  }
  return "?";
}

json doctor_json(const DoctorReport& report) {
  json findings = json::array();
  for (const auto& f : report.findings) {
    findings.push_back({{"level", std::string(to_string(f.level))},
                        {"topic", f.topic},
                        {"message", f.message},
                        {"fix", f.fix}});
  }
  return {{"grade", std::string(to_string(report.grade))},
          {"reasons", report.grade_reasons},
          {"findings", findings}};
}

namespace {

constexpr std::string_view kReset = "\x1b[0m";

std::string_view sgr(Level level) {
  switch (level) {
    case Level::ok:
      return "\x1b[32m";
    case Level::warn:
      return "\x1b[33m";
    case Level::bad:
      return "\x1b[31m";
  }
  return "";
}

std::string_view sgr(Grade grade) {
  switch (grade) {
    case Grade::ready:
      return "\x1b[1;32m";
    case Grade::limited:
      return "\x1b[1;33m";
    case Grade::not_ready:
      return "\x1b[1;31m";
  }
  return "";
}

std::string paint(std::string_view text, std::string_view code, bool color) {
  return color ? fmt::format("{}{}{}", code, text, kReset) : std::string(text);
}

// Word-wraps text into lines of at most width - indent characters (a longer word stays whole),
// each prefixed with indent spaces and ended with '\n'.
std::string wrap(std::string_view text, std::size_t indent, std::size_t width) {
  const std::size_t room = width > indent + 20 ? width - indent : 20;
  std::istringstream words{std::string(text)};
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > room) {
      out += std::string(indent, ' ') + line + '\n';
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || out.empty()) out += std::string(indent, ' ') + line + '\n';
  return out;
}

// text cut at a word boundary to at most `width` characters, "..." at the end, when longer (bytes;
// messages are ASCII). A single word longer than the width is cut inside the word.
std::string cut(std::string text, std::size_t width) {
  if (text.size() <= width) return text;
  const bool inside_word = text[width - 3] != ' ';
  text.resize(width - 3);
  if (inside_word) {
    const auto space = text.rfind(' ');
    if (space != std::string::npos && space > 0) text.resize(space);
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text + "...";
}

}  // namespace

std::string render_doctor(const DoctorReport& report, bool color) {
  constexpr std::size_t kIndent = 6;
  std::string out;
  int counts[3] = {0, 0, 0};
  for (const auto& f : report.findings) {
    ++counts[static_cast<int>(f.level)];
    const std::string_view level = to_string(f.level);
    out += paint(level, sgr(f.level), color) + std::string(kIndent - level.size(), ' ') + f.topic + '\n';
    out += wrap(f.message, kIndent, kRenderWidth);
    if (!f.fix.empty()) out += std::string(kIndent, ' ') + "fix: " + f.fix + '\n';
    out += '\n';
  }
  out +=
      fmt::format("{} {} ({} OK, {} WARN, {} BAD)\n", paint("grade:", "\x1b[1m", color),
                  paint(to_string(report.grade), sgr(report.grade), color), counts[0], counts[1], counts[2]);
  for (const auto& f : report.findings) {
    if (f.level == Level::ok) continue;
    const std::string_view level = to_string(f.level);
    const std::string line = cut(fmt::format("  {} {}: {}", level, f.topic, f.message), kRenderWidth);
    // Colour only the level word; the cut is computed on the plain text.
    out += color ? "  " + paint(level, sgr(f.level), true) + line.substr(2 + level.size()) : line;
    out += '\n';
  }
  return out;
}

namespace {

constexpr std::string_view kGroupOrder[] = {"noisefloor",    "run",    "host",   "toolchain", "env",
                                            "benchmark_env", "engine", "tuning", "doctor"};
constexpr std::size_t kMaxKeyColumn = 40;

std::string plain(const json& v);

// k: v pairs of an object, comma-joined.
std::string pairs(const json& obj) {
  std::string out;
  for (const auto& [k, v] : obj.items()) out += (out.empty() ? "" : ", ") + k + ": " + plain(v);
  return out.empty() ? "(none)" : out;
}

std::string plain(const json& v) {
  if (v.is_string()) return v.get_ref<const std::string&>().empty() ? "(empty)" : v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_null()) return "null";
  if (v.is_object()) return pairs(v);
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v)
      out += (out.empty() ? "" : ", ") + (e.is_object() ? "{" + pairs(e) + "}" : plain(e));
    return out.empty() ? "(none)" : out;
  }
  return v.dump();
}

// "- k=v k=v" for one element of a list of objects.
std::string element(const json& e) {
  if (!e.is_object()) return "- " + plain(e);
  std::string out = "-";
  for (const auto& [k, v] : e.items())
    out += " " + k + "=" + (v.is_object() || v.is_array() ? "{" + plain(v) + "}" : plain(v));
  return out;
}

bool list_of_objects(const json& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_object(); });
}

struct Line {
  std::size_t depth;
  std::string key;
  std::optional<std::string> value;  // nullopt: a heading
};

void walk(const std::string& key, const json& node, std::size_t depth, std::vector<Line>& lines);

void value_lines(const std::string& key, const json& v, std::string suffix, std::size_t depth,
                 std::vector<Line>& lines) {
  if (list_of_objects(v)) {
    lines.push_back(
        {depth, key, suffix.empty() ? std::nullopt : std::optional<std::string>(suffix.substr(1))});
    for (const auto& e : v) lines.push_back({depth + 1, element(e), std::nullopt});
    return;
  }
  lines.push_back({depth, key, plain(v) + suffix});
}

void walk(const std::string& key, const json& node, std::size_t depth, std::vector<Line>& lines) {
  if (is_fact(node)) {
    if (node["value"].is_null()) {
      lines.push_back(
          {depth, key, "unknown (" + node.value("unknown", std::string("no reason given")) + ")"});
      return;
    }
    std::string suffix;
    if (const auto it = node.find("evidence"); it != node.end() && it->is_array() && !it->empty()) {
      std::string ev;
      for (const auto& e : *it) ev += (ev.empty() ? "" : "; ") + plain(e);
      suffix += " (evidence: " + ev + ")";
    }
    if (const auto it = node.find("note"); it != node.end() && it->is_string())
      suffix += " (" + it->get<std::string>() + ")";
    value_lines(key, node["value"], suffix, depth, lines);
    return;
  }
  if (node.is_object()) {
    if (node.empty()) {
      lines.push_back({depth, key, "(none)"});
      return;
    }
    lines.push_back({depth, key, std::nullopt});
    for (const auto& [k, v] : node.items()) walk(k, v, depth + 1, lines);
    return;
  }
  value_lines(key, node, "", depth, lines);
}

}  // namespace

std::string render_fingerprint(const json& fp) {
  std::vector<std::string> order;
  for (const std::string_view g : kGroupOrder) {
    if (fp.is_object() && fp.contains(std::string(g))) order.emplace_back(g);
  }
  if (fp.is_object()) {
    for (const auto& [k, v] : fp.items()) {
      if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
    }
  }
  std::vector<Line> lines;
  for (const std::string& group : order) {
    const json& node = fp[group];
    if (group == "engine" && is_fact(node) && node["value"].is_null()) {
      lines.push_back({0, group, std::nullopt});
      lines.push_back(
          {1, "no engine: " + node.value("unknown", std::string("no reason given")), std::nullopt});
    } else if (group == "tuning" && node.is_null()) {
      lines.push_back({0, group, "none applied"});
    } else if (group == "tuning" && node.is_object() && node.contains("changes") &&
               node["changes"].is_array()) {
      lines.push_back({0, group, std::nullopt});
      for (const auto& [k, v] : node.items()) {
        if (k != "changes") walk(k, v, 1, lines);
      }
      lines.push_back({1, "changes", std::to_string(node["changes"].size())});
      for (const auto& c : node["changes"]) {
        const auto s = [&](const char* key) {
          return c.is_object() ? c.value(key, std::string("?")) : std::string("?");
        };
        lines.push_back({2,
                         fmt::format("- {}: {}: {} -> {}", s("setting"), s("file"), s("before"), s("after")),
                         std::nullopt});
      }
    } else {
      walk(group, node, 0, lines);
    }
  }
  std::size_t column = 0;
  for (const auto& l : lines) {
    const std::size_t end = 2 * l.depth + l.key.size();
    if (l.value && end <= kMaxKeyColumn) column = std::max(column, end);
  }
  column += 2;
  std::string out;
  for (const auto& l : lines) {
    if (l.depth == 0 && !out.empty()) out += '\n';  // a blank line between top-level groups
    std::string text = std::string(2 * l.depth, ' ') + l.key;
    if (l.value) {
      text += std::string(text.size() < column ? column - text.size() : 2, ' ') + *l.value;
    }
    out += text + '\n';
  }
  return out;
}

}  // namespace noisefloor::fingerprint
