#include "probe/probe_report.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::probe {
namespace {

constexpr std::string_view kPrefix = "noisefloor-probe: ";
constexpr std::string_view kExecFailed = "exec failed: ";
constexpr std::int64_t kDefaultCfsPeriodUs = 100000;  // Docker's fixed period for NanoCpus
// v1 memory files say "no limit" with PAGE_COUNTER_MAX × page size (9223372036854771712 with
// 4 KiB pages): anything this large is no limit.
constexpr std::int64_t kV1NoLimitThreshold = std::int64_t{1} << 62;

// ---- parsing -------------------------------------------------------------------------------

bool is_unknown(std::string_view value) { return value.substr(0, 7) == "unknown"; }

std::optional<std::int64_t> to_int64(std::string_view text) {
  std::int64_t value = 0;
  if (text.empty()) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> probe_int(const ProbeReport& report, const std::string& key) {
  const auto it = report.values.find(key);
  if (it == report.values.end() || is_unknown(it->second)) return std::nullopt;
  const auto value = to_int64(it->second);
  if (!value) {
    throw ParseError(
        fmt::format("probe: {}: expected an integer or 'unknown (...)', got '{}'", key, it->second));
  }
  return value;
}

// ---- verification ---------------------------------------------------------------------------

// One limit's three views, shown in messages.
struct Check {
  Check(std::string name_in, std::string asked_in) : name(std::move(name_in)), asked(std::move(asked_in)) {}
  std::string name;   // "cpuset"
  std::string asked;  // "\"0\""
  Agreement engine = Agreement::unknown;
  std::string engine_text;  // "\"0\""
  Agreement inside = Agreement::unknown;
  std::string inside_file;  // "cpuset.cpus"
  std::string inside_text;  // "\"0-1\""
};

void report(const Check& c, Verification& out) {
  using Kind = LimitCheck::Kind;
  if (c.engine == Agreement::no || c.inside == Agreement::no)
    out.mismatches.push_back({.kind = Kind::differs,
                              .limit = c.name,
                              .asked = c.asked,
                              .engine_agrees = c.engine,
                              .inside_agrees = c.inside,
                              .engine = c.engine_text,
                              .file = c.inside_file,
                              .inside = c.inside_text});
  if (c.engine == Agreement::unknown)
    out.warnings.push_back({.kind = Kind::engine_unknown, .limit = c.name, .asked = c.asked});
  if (c.inside == Agreement::unknown)
    out.warnings.push_back(
        {.kind = Kind::inside_unknown, .limit = c.name, .asked = c.asked, .file = c.inside_file});
}

std::string quoted(const std::string& s) { return fmt::format("\"{}\"", s); }

// Whole-file names per cgroup version, for messages.
std::string cgroup_file(std::optional<int> version, const char* v1, const char* v2) {
  if (version == 1) return v1;
  if (version == 2) return v2;
  return fmt::format("{} (v1) / {} (v2)", v1, v2);
}

bool is_no_limit(std::int64_t value) { return value < 0 || value >= kV1NoLimitThreshold; }

std::string bytes_text(std::int64_t value, std::optional<int> version) {
  if (value < 0) return version == 2 ? "max (no limit)" : "-1 (no limit)";
  if (value >= kV1NoLimitThreshold) return fmt::format("{} (no limit)", value);
  return std::to_string(value);
}

std::string engine_bytes_text(std::int64_t value) {
  return value < 0 ? "-1 (no limit)" : std::to_string(value);
}

// A byte limit as the kernel stores it: exactly, or rounded down to whole pages.
Agreement compare_bytes(std::int64_t expected, std::int64_t actual, const std::string& name,
                        const std::string& file, Verification& out) {
  if (is_no_limit(expected)) return is_no_limit(actual) ? Agreement::yes : Agreement::no;
  if (actual == expected) return Agreement::yes;
  for (const std::int64_t page : {std::int64_t{4096}, std::int64_t{65536}}) {
    if (actual == expected - expected % page) {
      out.warnings.push_back({.kind = LimitCheck::Kind::pages_rounded,
                              .limit = name,
                              .file = file,
                              .expected = expected,
                              .actual = actual,
                              .page = page});
      return Agreement::yes;
    }
  }
  return Agreement::no;
}

void check_cpuset(const model::ContainerSpec& asked, const Effective& engine, const Effective& inside,
                  Verification& out) {
  if (!asked.cpuset) return;
  const auto wanted = model::parse_cpu_list(*asked.cpuset);
  if (!wanted) {
    out.mismatches.push_back(
        {.kind = LimitCheck::Kind::not_a_cpu_list, .limit = "cpuset", .asked = quoted(*asked.cpuset)});
    return;
  }
  Check c("cpuset", quoted(*asked.cpuset));
  if (engine.cpuset) {
    const auto got = model::parse_cpu_list(*engine.cpuset);
    c.engine = got == wanted ? Agreement::yes : Agreement::no;
    c.engine_text = quoted(*engine.cpuset);
  } else {
    c.engine = Agreement::no;  // CpusetCpus "" is how a discarded cpuset shows in inspect
    c.engine_text = "no cpuset";
  }
  c.inside_file = cgroup_file(inside.cgroup_version, "cpuset.cpus", "cpuset.cpus.effective");
  if (inside.cpuset) {
    const auto got = model::parse_cpu_list(*inside.cpuset);
    c.inside = got == wanted ? Agreement::yes : Agreement::no;
    c.inside_text = quoted(*inside.cpuset);
  }
  report(c, out);
  // The affinity mask is what the scheduler obeys; the cgroup file is what sets it.
  const auto count = static_cast<int>(wanted->size());
  if (inside.nproc && *inside.nproc != count) {
    out.mismatches.push_back({.kind = LimitCheck::Kind::affinity_count,
                              .limit = "cpuset",
                              .asked = quoted(*asked.cpuset),
                              .expected = count,
                              .actual = *inside.nproc});
  } else if (!inside.nproc) {
    out.warnings.push_back(
        {.kind = LimitCheck::Kind::affinity_unknown, .limit = "cpuset", .asked = quoted(*asked.cpuset)});
  }
}

void check_cpus(const model::ContainerSpec& asked, const Effective& engine, const Effective& inside,
                Verification& out) {
  if (!asked.cpus) return;
  const double wanted = *asked.cpus;
  Check c("cpus", fmt::format("{}", wanted));
  const auto agree = [&](std::int64_t quota, std::int64_t period) {
    if (quota < 0 || period <= 0) return Agreement::no;
    return std::fabs(static_cast<double>(quota) / static_cast<double>(period) - wanted) <= 1e-6
               ? Agreement::yes
               : Agreement::no;
  };
  if (engine.cfs_quota_us) {
    if (*engine.cfs_quota_us < 0) {
      c.engine = Agreement::no;
      c.engine_text = "no CPU quota";
    } else {
      const std::int64_t period = engine.cfs_period_us.value_or(kDefaultCfsPeriodUs);
      c.engine = agree(*engine.cfs_quota_us, period);
      c.engine_text = fmt::format("a quota of {} µs per {} µs", *engine.cfs_quota_us, period);
    }
  }
  c.inside_file = cgroup_file(inside.cgroup_version, "cpu.cfs_quota_us/cpu.cfs_period_us", "cpu.max");
  if (inside.cfs_quota_us && inside.cfs_period_us) {
    const std::int64_t quota = *inside.cfs_quota_us, period = *inside.cfs_period_us;
    c.inside = agree(quota, period);
    const std::string no_limit = quota < 0 ? " (no limit)" : "";
    if (inside.cgroup_version == 2) {
      c.inside_text = fmt::format("\"{} {}\"{}", quota < 0 ? "max" : std::to_string(quota), period, no_limit);
    } else {
      c.inside_text = fmt::format("{}/{}{}", quota, period, no_limit);
    }
  }
  report(c, out);
}

void check_memory(const model::ContainerSpec& asked, const Effective& engine, const Effective& inside,
                  Verification& out) {
  if (!asked.memory) return;
  const std::int64_t wanted = *asked.memory;
  Check c("memory", fmt::format("{} bytes", wanted));
  c.inside_file = cgroup_file(inside.cgroup_version, "memory.limit_in_bytes", "memory.max");
  if (engine.memory_limit) {
    c.engine = *engine.memory_limit == wanted ? Agreement::yes : Agreement::no;
    c.engine_text = engine_bytes_text(*engine.memory_limit);
  }
  if (inside.memory_limit) {
    c.inside = compare_bytes(wanted, *inside.memory_limit, c.name, c.inside_file, out);
    c.inside_text = bytes_text(*inside.memory_limit, inside.cgroup_version);
  }
  report(c, out);
}

void check_swap(const model::ContainerSpec& asked, const Effective& engine, const Effective& inside,
                Verification& out) {
  if (!asked.memory_swap && !asked.memory) return;
  // Docker's default when only memory is given: memory + swap = 2 × memory.
  const bool defaulted = !asked.memory_swap;
  const std::int64_t total = asked.memory_swap.value_or(2 * asked.memory.value_or(0));
  const bool unlimited = total < 0;
  Check c("memory_swap", unlimited   ? std::string("-1 (no limit)")
                         : defaulted ? fmt::format("{} bytes (Docker's default, 2 × memory)", total)
                                     : fmt::format("{} bytes", total));
  if (engine.memsw_limit) {
    c.engine =
        (unlimited ? *engine.memsw_limit < 0 : *engine.memsw_limit == total) ? Agreement::yes : Agreement::no;
    c.engine_text = engine_bytes_text(*engine.memsw_limit);
  }

  // Which file the probe read: v1 limits memory+swap, v2 limits swap alone.
  int version = inside.cgroup_version.value_or(0);
  if (version == 0) version = inside.memsw_limit ? 1 : inside.swap_limit ? 2 : 0;
  if (version == 2) {
    c.inside_file = "memory.swap.max";
    if (inside.swap_limit) {
      if (unlimited) {
        c.inside = *inside.swap_limit < 0 ? Agreement::yes : Agreement::no;
      } else if (!asked.memory) {
        out.warnings.push_back(
            {.kind = LimitCheck::Kind::swap_undefined, .limit = c.name, .file = c.inside_file});
        c.inside = Agreement::yes;
      } else {
        c.inside = compare_bytes(total - *asked.memory, *inside.swap_limit, c.name, c.inside_file, out);
      }
      c.inside_text = bytes_text(*inside.swap_limit, 2);
      if (!unlimited && asked.memory) {
        c.inside_text += fmt::format(" (expected {} = memory_swap − memory)", total - *asked.memory);
      }
    }
  } else {
    c.inside_file = cgroup_file(inside.cgroup_version, "memory.memsw.limit_in_bytes", "memory.swap.max");
    if (inside.memsw_limit) {
      c.inside = compare_bytes(unlimited ? -1 : total, *inside.memsw_limit, c.name, c.inside_file, out);
      c.inside_text = bytes_text(*inside.memsw_limit, 1);
    }
  }
  if (c.inside == Agreement::unknown) {
    // Without swap accounting the engine drops the swap limit with a warning: the memory limit
    // still holds, so this is worth saying but not worth failing the run.
    out.warnings.push_back({.kind = LimitCheck::Kind::swap_unreadable,
                            .limit = c.name,
                            .asked = c.asked,
                            .file = c.inside_file});
    c.inside = Agreement::yes;  // already warned; keep report() from warning twice
  }
  report(c, out);
}

void check_pids(const model::ContainerSpec& asked, const Effective& engine, const Effective& inside,
                Verification& out) {
  const std::int64_t wanted = asked.pids_limit > 0 ? asked.pids_limit : -1;  // ≤ 0: no limit
  Check c("pids_limit", wanted < 0 ? std::string("-1 (no limit)") : std::to_string(wanted));
  const auto text = [](std::int64_t v) { return v < 0 ? std::string("max (no limit)") : std::to_string(v); };
  if (engine.pids_max) {
    c.engine = *engine.pids_max == wanted ? Agreement::yes : Agreement::no;
    c.engine_text = *engine.pids_max < 0 ? "-1 (no limit)" : std::to_string(*engine.pids_max);
  }
  c.inside_file = "pids.max";
  if (inside.pids_max) {
    c.inside = *inside.pids_max == wanted ? Agreement::yes : Agreement::no;
    c.inside_text = text(*inside.pids_max);
  }
  report(c, out);
}

}  // namespace

ProbeReport parse_probe_report(std::string_view text, std::string_view tag) {
  ProbeReport report;
  enum class Phase { probe, after_exec, benchmark } phase = Phase::probe;
  const std::string tagged = tag.empty() ? std::string() : fmt::format("noisefloor-probe[{}]: ", tag);
  int line_number = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    const std::string_view line_with_newline =
        text.substr(0, newline == std::string_view::npos ? text.size() : newline + 1);
    text.remove_prefix(line_with_newline.size());
    ++line_number;
    std::string_view line = line_with_newline;
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);

    // "<prefix><key>=<value>" into `values`; returns the key.
    const auto add = [&](std::map<std::string, std::string>& values, std::string_view prefix) {
      const std::string_view body = line.substr(prefix.size());
      const auto equals = body.find('=');
      if (equals == std::string_view::npos || equals == 0) {
        throw ParseError(
            fmt::format("probe: line {}: expected '{}<key>=<value>', got '{}'", line_number, prefix, line));
      }
      std::string key(body.substr(0, equals));
      if (!values.emplace(key, std::string(body.substr(equals + 1))).second) {
        throw ParseError(fmt::format("probe: line {}: key '{}' reported twice", line_number, key));
      }
      return key;
    };
    if (phase != Phase::probe && !tagged.empty() && line.substr(0, tagged.size()) == tagged) {
      add(report.after, tagged);
      continue;
    }
    const bool is_probe_line = line.substr(0, kPrefix.size()) == kPrefix;
    if (phase == Phase::benchmark || !is_probe_line) {
      if (phase == Phase::after_exec) phase = Phase::benchmark;
      report.benchmark_stderr.append(line_with_newline);
      continue;
    }
    const std::string_view body = line.substr(kPrefix.size());
    if (body.substr(0, kExecFailed.size()) == kExecFailed) {
      report.values["exec_failed"] = std::string(body.substr(kExecFailed.size()));
      phase = Phase::benchmark;
      continue;
    }
    if (phase == Phase::after_exec) {  // a probe-looking line from the benchmark itself
      phase = Phase::benchmark;
      report.benchmark_stderr.append(line_with_newline);
      continue;
    }
    if (add(report.values, kPrefix) == "exec") phase = Phase::after_exec;
  }
  return report;
}

namespace {

// A value of the tagged block: an integer, or nullopt for `unknown (...)` (its reason in `why`).
std::optional<std::int64_t> after_int(const ProbeReport& report, const std::string& key,
                                      std::string* why = nullptr) {
  const auto it = report.after.find(key);
  if (it == report.after.end()) {
    if (why != nullptr && why->empty()) *why = fmt::format("the probe reported no {}", key);
    return std::nullopt;
  }
  if (is_unknown(it->second)) {
    if (why != nullptr && why->empty()) *why = it->second;
    return std::nullopt;
  }
  const auto value = to_int64(it->second);
  if (!value) {
    throw ParseError(
        fmt::format("probe: {}: expected an integer or 'unknown (...)', got '{}'", key, it->second));
  }
  return value;
}

std::int64_t required_int(const ProbeReport& report, const std::string& key) {
  const auto value = after_int(report, key);
  if (!value) throw ParseError(fmt::format("probe: the block after the benchmark has no {}", key));
  return *value;
}

std::optional<double> seconds_or_null(const ProbeReport& report, const std::string& key) {
  if (const auto v = after_int(report, key)) return static_cast<double>(*v) / 1e9;
  return std::nullopt;
}

}  // namespace

std::optional<ProbeRun> probe_run(const ProbeReport& report) {
  const auto end = report.after.find("end");
  if (end == report.after.end() || end->second != "1") return std::nullopt;
  ProbeRun run;
  if (report.after.count("signal")) {
    run.signal = static_cast<int>(required_int(report, "signal"));
  } else {
    run.exit_code = static_cast<int>(required_int(report, "exit"));
  }
  run.usage.wall_seconds = static_cast<double>(required_int(report, "wall_ns")) / 1e9;
  run.usage.user_seconds = static_cast<double>(required_int(report, "user_us")) / 1e6;
  run.usage.system_seconds = static_cast<double>(required_int(report, "sys_us")) / 1e6;
  run.usage.max_rss_kib = required_int(report, "maxrss_kib");
  run.usage.voluntary_switches = required_int(report, "nvcsw");
  run.usage.involuntary_switches = required_int(report, "nivcsw");
  run.usage.minor_faults = after_int(report, "minflt");
  run.usage.major_faults = after_int(report, "majflt");
  std::string why;
  if (const auto v = after_int(report, "cgroup_usage_ns", &why))
    run.cgroup.usage_seconds = static_cast<double>(*v) / 1e9;
  run.cgroup.periods = after_int(report, "cgroup_periods", &why);
  run.cgroup.throttled_periods = after_int(report, "cgroup_throttled", &why);
  if (const auto v = after_int(report, "cgroup_throttled_ns", &why))
    run.cgroup.throttled_seconds = static_cast<double>(*v) / 1e9;
  run.cgroup.unknown = why;
  std::string sched_why;
  if (const auto v = after_int(report, "sched_run_ns", &sched_why))
    run.run_queue.run_seconds = static_cast<double>(*v) / 1e9;
  if (const auto v = after_int(report, "sched_wait_ns", &sched_why))
    run.run_queue.wait_seconds = static_cast<double>(*v) / 1e9;
  run.run_queue.migrations = after_int(report, "sched_migrations");
  run.run_queue.tasks = static_cast<int>(after_int(report, "sched_tasks").value_or(0));
  run.run_queue.reads = static_cast<int>(after_int(report, "sched_reads").value_or(0));
  if (!report.after.count("sched_run_ns")) sched_why = "the probe is older than run-queue accounting";
  run.run_queue.unknown = sched_why;
  std::string busy_why;
  if (const auto v = after_int(report, "cpus_busy_ns", &busy_why))
    run.run_queue.cpus_busy_seconds = static_cast<double>(*v) / 1e9;
  if (!report.after.count("cpus_busy_ns")) busy_why = "the probe is older than busy-time accounting";
  run.run_queue.busy_unknown = busy_why;
  if (report.after.count("steal_ns")) run.run_queue.steal_seconds = seconds_or_null(report, "steal_ns");
  if (report.after.count("oom_kills")) run.oom_kills = after_int(report, "oom_kills");
  if (report.after.count("ctr_task_clock_ns")) {
    model::Counters& c = run.counters.emplace();
    for (const char* key : model::kCounterKeys) {
      std::string why;
      if (const auto v = after_int(report, std::string("ctr_") + key, &why)) {
        c.counts[key] = *v;
      } else {
        // "unknown (<why>)" → <why>
        if (why.rfind("unknown (", 0) == 0 && why.back() == ')') why = why.substr(9, why.size() - 10);
        c.missing[key] = why;
      }
    }
    if (const auto it = report.after.find("ctr_multiplexed"); it != report.after.end())
      c.multiplexed = it->second;
    c.user_only = report.after.count("ctr_user_only") > 0;
  }
  if (const auto noop = report.after.find("noop_ns"); noop != report.after.end()) {
    std::string_view list = noop->second;
    while (!list.empty()) {
      const auto comma = list.find(',');
      const std::string_view item = list.substr(0, comma);
      list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
      if (is_unknown(item)) {
        if (run.noop_unknown.empty()) run.noop_unknown = std::string(item);
        continue;
      }
      const auto ns = to_int64(item);
      if (!ns) throw ParseError(fmt::format("probe: noop_ns: expected integers, got '{}'", noop->second));
      run.noop_seconds.push_back(static_cast<double>(*ns) / 1e9);
    }
  }
  return run;
}

Effective effective_from_probe(const ProbeReport& report) {
  Effective e;
  if (const auto it = report.values.find("cpuset_cpus");
      it != report.values.end() && !is_unknown(it->second)) {
    if (!model::parse_cpu_list(it->second)) {
      throw ParseError(
          fmt::format("probe: cpuset_cpus: expected a CPU list or 'unknown (...)', got '{}'", it->second));
    }
    e.cpuset = it->second;
  }
  e.cfs_quota_us = probe_int(report, "cfs_quota_us");
  e.cfs_period_us = probe_int(report, "cfs_period_us");
  e.memory_limit = probe_int(report, "memory_limit");
  e.memsw_limit = probe_int(report, "memsw_limit");
  e.swap_limit = probe_int(report, "swap_limit");
  e.pids_max = probe_int(report, "pids_max");
  if (const auto nproc = probe_int(report, "nproc")) e.nproc = static_cast<int>(*nproc);
  if (const auto version = probe_int(report, "cgroup_version")) {
    if (*version != 1 && *version != 2) {
      throw ParseError(fmt::format("probe: cgroup_version: expected 1 or 2, got {}", *version));
    }
    e.cgroup_version = static_cast<int>(*version);
  }
  return e;
}

Effective effective_from_engine(const model::EngineLimits& hc) {
  Effective e;
  e.cpuset = hc.cpuset;
  if (hc.nano_cpus > std::numeric_limits<std::int64_t>::max() / kDefaultCfsPeriodUs)
    throw ParseError(
        fmt::format("inspect: HostConfig.NanoCpus: {} is more CPUs than a machine has", hc.nano_cpus));
  if (hc.nano_cpus > 0) {
    // The daemon's conversion (integer arithmetic, as in Go): quota = NanoCpus × period / 1e9.
    e.cfs_period_us = kDefaultCfsPeriodUs;
    e.cfs_quota_us = hc.nano_cpus * kDefaultCfsPeriodUs / 1000000000;
  } else if (hc.cpu_quota > 0) {
    e.cfs_quota_us = hc.cpu_quota;
    e.cfs_period_us = hc.cpu_period > 0 ? hc.cpu_period : kDefaultCfsPeriodUs;
  } else {
    e.cfs_quota_us = -1;
  }
  e.memory_limit = hc.memory > 0 ? hc.memory : -1;
  if (hc.memory_swap < 0 || (hc.memory_swap == 0 && hc.memory <= 0)) {
    e.memsw_limit = -1;
    e.swap_limit = -1;
  } else if (hc.memory_swap > 0) {
    e.memsw_limit = hc.memory_swap;
    if (hc.memory > 0) e.swap_limit = hc.memory_swap - hc.memory;
  }
  e.pids_max = hc.pids_limit > 0 ? hc.pids_limit : -1;
  return e;
}

std::string limit_check_text(const LimitCheck& c) {
  using Kind = LimitCheck::Kind;
  const auto but = [&c](std::string_view what) {
    return fmt::format("{}: asked for {}, but {}", c.limit, c.asked, what);
  };
  const auto cpus = [](std::int64_t n) { return fmt::format("{} CPU{}", n, n == 1 ? "" : "s"); };
  const std::string engine = fmt::format("the engine reports {}", c.engine);
  const std::string inside = fmt::format("inside the container {} is {}", c.file, c.inside);
  switch (c.kind) {
    case Kind::differs:
      if (c.engine_agrees == Agreement::no && c.inside_agrees == Agreement::no)
        return fmt::format("{}: asked for {}, {}, and {}", c.limit, c.asked, engine, inside);
      if (c.engine_agrees == Agreement::yes)
        return fmt::format("{}: asked for {}, {}, but {}", c.limit, c.asked, engine, inside);
      return but(c.engine_agrees == Agreement::no ? engine : inside);
    case Kind::not_a_cpu_list:
      return fmt::format("{}: asked for {}, which is not a CPU list", c.limit, c.asked);
    case Kind::affinity_count:
      return fmt::format("{}: asked for {} ({}), but inside the container the affinity mask holds {}",
                         c.limit, c.asked, cpus(c.expected), cpus(c.actual));
    case Kind::engine_unknown:
      return but("the engine does not report it");
    case Kind::inside_unknown:
      return but(fmt::format(
          "the probe could not read {} inside the container (see the probe's 'unknown' value)", c.file));
    case Kind::pages_rounded:
      return fmt::format(
          "{}: asked for {} bytes; inside the container {} is {}: the kernel rounded it down to "
          "whole {}-byte pages",
          c.limit, c.expected, c.file, c.actual, c.page);
    case Kind::affinity_unknown:
      return but("the probe could not count the CPUs in its affinity mask");
    case Kind::swap_undefined:
      return fmt::format("{}: asked without memory, so the swap part ({}) is undefined", c.limit, c.file);
    case Kind::swap_unreadable:
      return but(fmt::format(
          "{} is not readable inside the container: swap accounting is probably off, so swap is not limited",
          c.file));
    case Kind::no_probe:
      return "a named image runs without noisefloor's probe: limits are checked on the engine side only";
    case Kind::said:
      break;
  }
  return c.asked;
}

std::vector<std::string> limit_check_texts(const std::vector<LimitCheck>& checks) {
  std::vector<std::string> out;
  out.reserve(checks.size());
  for (const LimitCheck& c : checks) out.push_back(limit_check_text(c));
  return out;
}

Verification verify_limits(const model::ContainerSpec& asked, const Effective& engine,
                           const Effective& inside) {
  Verification out;
  check_cpuset(asked, engine, inside, out);
  check_cpus(asked, engine, inside, out);
  check_memory(asked, engine, inside, out);
  check_swap(asked, engine, inside, out);
  check_pids(asked, engine, inside, out);
  return out;
}

namespace {

// A path of the machine's facts as nf-probe --facts reads them: absolute, under /proc or /sys,
// every component a plain name (no "", ".", ".."), printable ASCII, bounded. Whatever else a
// doctored output holds (a path meant to climb out of the tree it is laid out in) is refused.
std::optional<std::string> fact_path_problem(std::string_view path) {
  if (path.size() > kFactPathLimit) return "a path longer than 4096 bytes";
  if (!path.starts_with("/proc/") && !path.starts_with("/sys/")) return "a path outside /proc and /sys";
  for (const char c : path)
    if (static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7e)
      return "a path with a space, a control or a non-ASCII byte";
  std::string_view rest = path.substr(1);
  while (true) {
    const std::size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return "a path with an empty, '.' or '..' component";
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return std::nullopt;
}

}  // namespace

FactDump parse_fact_dump(std::string_view out) {
  FactDump dump;
  std::size_t at = 0;
  const auto fail = [&](std::string_view why) {
    return ParseError(fmt::format("the fingerprint probe's output is malformed at byte {}: {}", at, why));
  };
  if (out.size() > kFactDumpLimit) throw fail("more than 17 MiB (the probe sends at most 16 MiB of files)");
  std::size_t entries = 0;
  const auto checked = [&](std::string_view path) {
    if (const auto problem = fact_path_problem(path))
      throw fail(fmt::format("{}: {}", *problem, text::quote(path)));
    if (++entries > kFactEntryLimit) throw fail("more than 100000 files and directories");
    return std::string(path);
  };
  while (at < out.size()) {
    const std::size_t eol = out.find('\n', at);
    if (eol == std::string_view::npos) throw fail("an unterminated line");
    const std::string_view line = out.substr(at, eol - at);
    if (line.starts_with("dir /")) {
      dump.dirs.push_back(checked(line.substr(4)));
      at = eol + 1;
      continue;
    }
    if (!line.starts_with("file /")) throw fail("expected `file <path> <size>` or `dir <path>`");
    const std::size_t space = line.rfind(' ');
    if (space <= 5) throw fail("a file line without a size");
    std::size_t size = 0;
    const std::string_view digits = line.substr(space + 1);
    if (digits.empty() || digits.size() > 9) throw fail("a bad file size");
    for (const char c : digits) {
      if (c < '0' || c > '9') throw fail("a bad file size");
      size = size * 10 + static_cast<std::size_t>(c - '0');
    }
    const std::string path = checked(line.substr(5, space - 5));
    if (size > kFactFileLimit)
      throw fail(fmt::format("{} is larger than 256 KiB (the probe sends no larger file)", path));
    if (size > out.size() - (eol + 1) || out.size() - (eol + 1) - size < 1 || out[eol + 1 + size] != '\n')
      throw fail(fmt::format("the content of {} is cut short", path));
    dump.files[path] = std::string(out.substr(eol + 1, size));
    at = eol + 1 + size + 1;
  }
  return dump;
}

}  // namespace noisefloor::probe
