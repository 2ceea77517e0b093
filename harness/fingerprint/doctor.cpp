#include "fingerprint/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "fingerprint/parse.hpp"
#include "jsonread/number.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"

namespace noisefloor::fingerprint {
namespace {

using nlohmann::json;

class Doctor {
 public:
  Doctor(const json& host, const std::optional<EngineFacts>& engine, const std::vector<int>& cpus,
         const std::optional<NoiseProfile>& noise)
      : host_(host), engine_(engine), experiment_cpus_(cpus), noise_(noise) {}

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
    noise();
    counters();
    engine_limits();
    perflock();
    return finish();
  }

 private:
  void add(Level level, Topic topic, std::string message, std::string fix = "") {
    report_.findings.push_back({level, topic, std::move(message), std::move(fix)});
  }

  // A WARN for a fact that could not be read; returns the value or nullptr.
  const json* need(std::string_view path, Topic topic) {
    const json* v = known_value(host_, path);
    if (v == nullptr) {
      add(Level::warn, topic,
          fmt::format("could not check {}: {}", to_string(topic), unknown_reason(host_, path)));
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
    const json* v = need("virtualization.virtual", Topic::virtualization);
    if (v == nullptr || !v->is_boolean()) return;
    if (!v->get<bool>()) {
      add(Level::ok, Topic::virtualization, "bare metal (no hypervisor found)");
      return;
    }
    const json* h = known_value(host_, "virtualization.hypervisor");
    const std::string name = h != nullptr && h->is_string() ? h->get<std::string>() : "unknown";
    limited_ = true;
    add(Level::warn, Topic::virtualization,
        fmt::format("virtual machine (hypervisor: {}): vCPUs share physical cores with other "
                    "guests and the host controls frequency, so results compare only with runs "
                    "on the same VM type",
                    name));
  }

  void docker_desktop() {
    if (!engine_) return;
    const std::string& os = engine_->os;
    if (os.find("Docker Desktop") == std::string::npos) return;
    limited_ = true;
    add(Level::warn, Topic::docker_desktop,
        fmt::format("the docker engine runs in Docker Desktop's VM ('{}'): pinned CPUs are vCPUs "
                    "of that VM and host-side spinners run outside it",
                    os));
  }

  void container() {
    const json* inside_fact = nullptr;
    if (host_.contains("container") && host_["container"].contains("inside"))
      inside_fact = &host_["container"]["inside"];
    const json* v = known_value(host_, "container.inside");
    if (v == nullptr || !v->is_boolean()) return;
    const std::string evidence =
        inside_fact->contains("evidence") ? inside_fact->at("evidence").dump() : "[]";
    if (!v->get<bool>()) {
      // The fingerprint's "no", with its weak evidence when there is some.
      if (inside_fact->contains("note"))
        add(Level::ok, Topic::container,
            fmt::format("not in a container: {}", inside_fact->at("note").get<std::string>()));
      return;
    }
    add(Level::warn, Topic::container,
        fmt::format("noisefloor runs inside a container ({}): host facts are the container's "
                    "view and its cgroup limits apply to the benchmark",
                    evidence));
  }

  void load() {
    const json* v = need("load", Topic::load);
    const auto cpus = logical();
    if (v == nullptr || !cpus || *cpus <= 0) return;
    LoadAverage load;
    load.one = v->value("one", 0.0);
    load.running = jsonread::whole_number<int>(*v, "running", 1);
    const LoadJudgement j = judge_load(load, *cpus);
    const std::string fix = "top -o %CPU   # then stop the busy processes it lists";
    if (j.level == Level::bad) {
      add(Level::bad, Topic::load,
          j.what + ": every CPU is already busy; results would measure the other work", fix);
    } else if (j.level == Level::warn) {
      add(Level::warn, Topic::load,
          j.what + (j.others > 0 ? ": other processes compete for the CPUs"
                                 : ": the machine was busy within the last minute; let it settle"),
          fix);
    } else {
      add(Level::ok, Topic::load, j.what);
    }
  }

  void governor() {
    const json* v = need("frequency.governor", Topic::governor);
    if (v == nullptr) return;
    const bool all_performance = v->is_string() && v->get<std::string>() == "performance";
    if (all_performance) {
      add(Level::ok, Topic::governor, "cpufreq governor is performance on every CPU");
      return;
    }
    add(Level::warn, Topic::governor,
        fmt::format("cpufreq governor is {} (not performance): the frequency follows the load, "
                    "so the first iterations run slower than the rest",
                    v->is_string() ? "'" + v->get<std::string>() + "'" : v->dump()),
        "for f in /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do echo performance > "
        "\"$f\"; done   # or: cpupower frequency-set -g performance");
  }

  void turbo() {
    const json* v = need("frequency.turbo", Topic::turbo);
    if (v == nullptr || !v->is_boolean()) return;
    if (!v->get<bool>()) {
      add(Level::ok, Topic::turbo, "turbo/boost is off");
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
    add(Level::warn, Topic::turbo,
        fmt::format("turbo/boost is on ({}): the clock depends on temperature and on how many "
                    "cores are busy",
                    source),
        fix);
  }

  void smt() {
    const json* v = need("smt.active", Topic::smt);
    if (v == nullptr || !v->is_boolean()) return;
    const json* control = known_value(host_, "smt.control");
    const std::string c =
        control != nullptr && control->is_string() ? control->get<std::string>() : "unknown";
    if (!v->get<bool>()) {
      add(Level::ok, Topic::smt, fmt::format("SMT (hyper-threading) is inactive (control: {})", c));
      return;
    }
    add(Level::warn, Topic::smt,
        fmt::format("SMT (hyper-threading) is active (control: {}): a sibling thread shares the "
                    "core's caches and execution units with the benchmark",
                    c),
        c == "on" ? "echo off > /sys/devices/system/cpu/smt/control" : "");
  }

  void isolation() {
    const json* v = need("isolation.isolated", Topic::isolation);
    const auto on = online();
    if (!experiment_cpus_.empty() && on) {
      std::vector<int> missing;
      for (const int c : experiment_cpus_) {
        if (!std::binary_search(on->begin(), on->end(), c)) missing.push_back(c);
      }
      if (!missing.empty()) {
        add(Level::bad, Topic::experiment_cpus,
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
        add(Level::warn, Topic::isolation,
            fmt::format("CPUs {} are isolated but the experiment pins to {}, which are not: "
                        "pin the experiment to the isolated CPUs",
                        list, model::format_cpu_list(outside)),
            fmt::format("taskset -c {} chrt -f 50 <benchmark>", list));
      } else {
        add(Level::ok, Topic::isolation, fmt::format("CPUs {} are isolated from the scheduler", list));
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
      add(Level::warn, Topic::isolation,
          "no isolated CPUs, and a single CPU cannot be isolated: the benchmark shares it with "
          "every other task");
      return;
    }
    const std::string list = model::format_cpu_list(suggest);
    add(Level::warn, Topic::isolation,
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
    const json* v = need("aslr", Topic::aslr);
    if (v == nullptr || !v->is_number_integer()) return;
    if (v->get<int>() == 0) {
      add(Level::ok, Topic::aslr, "address space layout randomization is off");
      return;
    }
    add(Level::warn, Topic::aslr,
        fmt::format("address space layout randomization is on (randomize_va_space={}): code and "
                    "stack alignment change from run to run",
                    v->get<int>()),
        "setarch -R <benchmark>   # or system-wide: echo 0 > /proc/sys/kernel/randomize_va_space");
  }

  void thp() {
    const json* v = need("thp", Topic::thp);
    if (v == nullptr || !v->is_string()) return;
    if (v->get<std::string>() != "always") {
      add(Level::ok, Topic::thp, fmt::format("transparent huge pages: {}", v->get<std::string>()));
      return;
    }
    add(Level::warn, Topic::thp,
        "transparent huge pages are 'always': khugepaged compaction and huge-page faults add "
        "pauses that depend on memory fragmentation",
        "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled");
  }

  void swap() {
    const json* v = need("memory.swap_used_kb", Topic::swap);
    if (v == nullptr || !v->is_number_integer()) return;
    const auto used = v->get<std::int64_t>();
    if (used <= 0) {
      add(Level::ok, Topic::swap, "no swap in use");
      return;
    }
    add(Level::warn, Topic::swap,
        fmt::format("{} kB of swap in use: pages the benchmark touches may have to come back "
                    "from disk",
                    used),
        "swapoff -a && swapon -a   # needs enough free memory for what is swapped out");
  }

  void power() {
    const json* v = need("power", Topic::power);
    if (v == nullptr || !v->is_string()) return;
    if (v->get<std::string>() == "battery") {
      add(Level::warn, Topic::power, "running on battery: firmware and the kernel lower clocks to save power",
          "plug in the AC adapter");
    } else {
      add(Level::ok, Topic::power, fmt::format("power source: {}", v->get<std::string>()));
    }
  }

  void clocksource() {
    const json* v = need("clocksource", Topic::clocksource);
    if (v == nullptr || !v->is_string()) return;
    const std::string cs = v->get<std::string>();
    if (cs == "hpet" || cs == "acpi_pm") {
      add(Level::warn, Topic::clocksource,
          fmt::format("clocksource is '{}': every clock read is a slow device access, which "
                      "inflates short timings",
                      cs),
          "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource");
    } else {
      add(Level::ok, Topic::clocksource, fmt::format("clocksource: {}", cs));
    }
  }

  // What the probe can count (README: Why the numbers moved). Absent in older fingerprints: no word.
  void noise() {
    if (!noise_ || !noise_->measured()) return;
    const std::vector<std::string> above = noise_above_limits(*noise_);
    if (above.empty()) {
      add(Level::ok, Topic::noise, "quiet: " + noise_line(*noise_));
      return;
    }
    std::string what;
    for (const auto& a : above) what += (what.empty() ? "" : "; ") + a;
    add(Level::warn, Topic::noise,
        fmt::format("{}: a benchmark here is unlikely to vary less. Measured: {}", what, noise_line(*noise_)),
        "stop other work on this machine (see \"load\"), or measure on a quieter one (run --host)");
  }

  void counters() {
    const json* pmu = known_value(host_, "perf.pmu");
    if (pmu == nullptr || !pmu->is_boolean()) return;
    const json* paranoid = known_value(host_, "perf.paranoid");
    const int level = paranoid != nullptr && paranoid->is_number_integer() ? paranoid->get<int>() : 0;
    if (level > 2) {
      add(Level::warn, Topic::counters,
          fmt::format("kernel.perf_event_paranoid is {}: without root or CAP_PERFMON no counter can be "
                      "read, and the diagnosis under the table has the scheduler's figures only",
                      level),
          "sysctl kernel.perf_event_paranoid=2");
    } else if (!pmu->get<bool>()) {
      add(Level::ok, Topic::counters,
          "software counters only: no PMU driver (Performance Events: no PMU driver, software events "
          "only), so instructions, cycles, branch and cache misses are not counted; a virtual machine "
          "needs a virtual PMU for them");
    } else {
      add(Level::ok, Topic::counters, "hardware and software counters (a CPU PMU driver is loaded)");
    }
  }

  void engine_limits() {
    if (!engine_) return;
    const std::string engine =
        engine_->product.empty() ? "the docker engine" : "the " + engine_->product + " engine";
    // Podman says in its libpod info which cgroup controllers its containers get (its /info
    // claims every limit): one finding that says which limits it would drop, and why.
    if (engine_->cgroup_controllers) {
      const auto& have = *engine_->cgroup_controllers;
      std::vector<std::string> missing;
      for (const char* c : {"cpuset", "cpu", "memory", "pids"})
        if (std::find(have.begin(), have.end(), c) == have.end()) missing.push_back(c);
      if (!missing.empty())
        add(Level::warn, Topic::engine_limits,
            fmt::format(
                "{} {}gives its containers no {} cgroup controller (cgroup v{}): it accepts those "
                "limits and applies none, so noisefloor refuses container conditions that ask for them; "
                "run Podman rootful, or on cgroup v2 delegate the controllers to the user",
                engine, engine_->rootless ? "is rootless and " : "", fmt::join(missing, ", "),
                engine_->cgroup_version.empty() ? "?" : engine_->cgroup_version),
            "sudo podman system service --time=0 unix:///run/podman/podman.sock");
      for (const auto& msg : engine_->warnings) add(Level::warn, Topic::engine_limits, engine + ": " + msg);
      return;
    }
    const EngineLimits& l = engine_->limits;
    const std::pair<const char*, std::optional<bool>> caps[] = {{"CPUSet", l.cpuset},
                                                                {"CpuCfsQuota", l.cpu_cfs_quota},
                                                                {"CpuCfsPeriod", l.cpu_cfs_period},
                                                                {"MemoryLimit", l.memory_limit},
                                                                {"SwapLimit", l.swap_limit}};
    for (const auto& [cap, value] : caps) {
      if (value && !*value) {
        add(Level::warn, Topic::engine_limits,
            fmt::format("{} reports {}=false: it silently drops that limit, so "
                        "the pinned container is not limited the way the experiment says",
                        engine, cap));
      }
    }
    for (const auto& msg : engine_->warnings)
      add(Level::warn, Topic::engine_limits,
          (engine_->product.empty() ? "docker engine" : engine_->product + " engine") + ": " + msg);
  }

  void perflock() {
    const json* v = known_value(host_, "tools.perflock");
    if (v == nullptr || !v->is_boolean() || !v->get<bool>()) return;
    add(Level::ok, Topic::perflock,
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
  const std::optional<EngineFacts>& engine_;
  std::vector<int> experiment_cpus_;
  const std::optional<NoiseProfile>& noise_;
  DoctorReport report_{{}, Grade::ready, {}};
  bool limited_ = false;
};

}  // namespace

LoadJudgement judge_load(const LoadAverage& load, double cpus) {
  LoadJudgement j;
  j.others = std::max(0, load.running - 1);
  j.what = fmt::format("{} other runnable task(s) now, 1-minute load average {:.2f}, on {:g} logical CPUs",
                       j.others, load.one, cpus);
  if (cpus > 0 && j.others >= cpus)
    j.level = Level::bad;
  else if (j.others > 0 || load.one >= kLoadWarnFraction * cpus)
    j.level = Level::warn;
  return j;
}

DoctorReport diagnose(const FactTree& host, const std::optional<EngineFacts>& engine,
                      const std::vector<int>& experiment_cpus, const std::optional<NoiseProfile>& noise) {
  std::vector<int> cpus = experiment_cpus;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return Doctor(host.document(), engine, cpus, noise).run();
}

std::string_view to_string(Level level) { return model::name_of(level); }

std::string_view to_string(Grade grade) { return model::name_of(grade); }

std::string_view to_string(Topic topic) { return model::name_of(topic); }

std::string_view topic_name(const Finding& f) {
  return f.topic == Topic::other ? std::string_view(f.other_topic) : to_string(f.topic);
}

void to_json(json& j, const DoctorReport& report) {
  json findings = json::array();
  for (const auto& f : report.findings) {
    findings.push_back({{"level", std::string(to_string(f.level))},
                        {"topic", std::string(topic_name(f))},
                        {"message", f.message},
                        {"fix", f.fix}});
  }
  j = {{"grade", std::string(to_string(report.grade))},
       {"reasons", report.grade_reasons},
       {"findings", findings}};
}

namespace {

template <typename E>
E parse_name(const std::string& text, const char* what) {
  if (const auto v = model::from_name<E>(text)) return *v;
  throw ParseError(fmt::format("doctor: unknown {} \"{}\"", what, text));
}

}  // namespace

void from_json(const json& j, DoctorReport& report) {
  report = {};
  try {
    report.grade = parse_name<Grade>(j.at("grade").get<std::string>(), "grade");
    report.grade_reasons = j.value("reasons", std::vector<std::string>{});
    for (const auto& f : j.value("findings", json::array())) {
      const std::string topic = f.at("topic").get<std::string>();
      const std::optional<Topic> known = model::from_name<Topic>(topic);
      report.findings.push_back({parse_name<Level>(f.at("level").get<std::string>(), "level"),
                                 known.value_or(Topic::other), f.value("message", ""), f.value("fix", ""),
                                 known ? "" : topic});
    }
  } catch (const json::exception& e) {
    throw ParseError(fmt::format("doctor: {}", e.what()));
  }
}

}  // namespace noisefloor::fingerprint
