#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

#include "config/experiment_file.hpp"
#include "model/errors.hpp"

using namespace noisefloor;
using config::HostFacts;
using config::parse_experiment;

namespace {

const HostFacts kTwoCpus = [] {
  HostFacts h;
  h.online_cpus = {0, 1};
  return h;
}();

const char* const kGood = R"(name: laptop
description: the demo, replayed
benchmark:
  build: [go, test, -c, -o, bench.test, ./makebuffer]
  command: [./bench.test, -test.run=^$, -test.bench=BenchmarkMakeBuffer_Correct$, -test.benchmem]
  format: gotest
  samples: 20
  warmup: 1
  timeout: 10m
  env: {GOGC: "100"}
conditions:
  - name: idle
  - name: noisy
    spinners: all
  - name: pinned
    spinners: {count: 1, cpus: "1", nice: 5}
    container: {cpuset: "0", cpus: 1, memory: 512m}
cooldown: 2s
)";

// Parses `yaml` and returns the error message, or "" when it is valid.
std::string error_of(const std::string& yaml, const HostFacts& host = kTwoCpus) {
  try {
    parse_experiment(yaml, "x.yaml", host);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string with_benchmark(const std::string& extra) {
  return "name: t\nbenchmark:\n  command: [./b]\n" + extra + "conditions:\n  - name: idle\n";
}

}  // namespace

TEST_CASE("config: the demo experiment is read completely") {
  const model::Experiment e = parse_experiment(kGood, "laptop.yaml", kTwoCpus);
  CHECK(e.name == "laptop");
  CHECK(e.description == "the demo, replayed");
  CHECK(e.benchmark.mark == model::SourceMark{3, 1});  // the key (a gate's annotations), not its map
  CHECK(e.benchmark.build.size() == 6);
  CHECK(e.benchmark.command.at(2) == "-test.bench=BenchmarkMakeBuffer_Correct$");
  CHECK(e.benchmark.format == model::OutputFormat::gotest);
  CHECK(e.benchmark.samples == 20);
  CHECK(e.benchmark.warmup == 1);
  CHECK(e.benchmark.timeout.count() == doctest::Approx(600));
  CHECK(e.benchmark.samples_per_run == 0);  // sequential: one invocation per condition
  CHECK(e.benchmark.env.at("GOGC") == "100");
  REQUIRE(e.conditions.size() == 3);
  CHECK(e.conditions[0].is_idle());
  CHECK(e.conditions[0].mark == model::SourceMark{12, 5});
  REQUIRE(e.conditions[1].spinners);
  CHECK(e.conditions[1].spinners->all);
  CHECK(e.conditions[1].spinners->count == 2);
  CHECK(e.conditions[2].spinners->cpus == std::vector<int>{1});
  CHECK(e.conditions[2].spinners->nice == 5);
  REQUIRE(e.conditions[2].container);
  CHECK(e.conditions[2].container->image == "auto");
  CHECK(e.conditions[2].container->cpuset == "0");
  CHECK(e.conditions[2].container->cpus == 1.0);
  CHECK(e.conditions[2].container->memory == 512LL * 1024 * 1024);
  CHECK(e.conditions[2].container->memory_swap == 512LL * 1024 * 1024);  // no swap by default
  CHECK(e.conditions[2].container->network == "none");
  CHECK(e.conditions[2].container->read_only);
  CHECK(e.conditions[2].container->pids_limit == 1024);  // the default, not asked for by the file
  CHECK_FALSE(e.conditions[2].container->pids_limit_given);
  CHECK(e.schedule == model::Schedule::sequential);
  CHECK(e.cooldown.count() == doctest::Approx(2));
  CHECK(e.source_text == kGood);
}

TEST_CASE("config: interleaved defaults to one sample per run") {
  const model::Experiment e = parse_experiment(
      "name: t\nschedule: interleaved\nbenchmark: {command: [./b]}\n"
      "conditions: [{name: a}, {name: b, affinity: 1, nice: 10}]\n",
      "t.yaml", kTwoCpus);
  CHECK(e.schedule == model::Schedule::interleaved);
  CHECK(e.benchmark.samples_per_run == 1);
  CHECK(e.conditions[1].affinity == std::vector<int>{1});
  CHECK(e.conditions[1].nice == 10);
}

TEST_CASE("config: settle defaults to 1 s; metric wall and cpu name a command's figures") {
  const auto parse = [](const std::string& yaml) { return config::parse_experiment(yaml, "x.yaml", {}); };
  CHECK(parse("name: t\nbenchmark: {command: [./b]}\nconditions: [{name: a}]\n").settle.count() == 1.0);
  CHECK(parse("name: t\nbenchmark: {command: [./b]}\nsettle: 250ms\nconditions: [{name: a}]\n")
            .settle.count() == 0.25);
  CHECK(parse("name: t\nbenchmark: {command: [./b], format: command, metric: cpu}\nconditions: [{name: a}]\n")
            .benchmark.metric == "cpu-sec/op");
  CHECK(
      parse("name: t\nbenchmark: {command: [./b], format: command, metric: wall}\nconditions: [{name: a}]\n")
          .benchmark.metric == "sec/op");
  CHECK(parse("name: t\nbenchmark: {command: [./b], format: command, metric: sys-sec/op}\nconditions: "
              "[{name: a}]\n")
            .benchmark.metric == "sys-sec/op");
  // A counter as the metric: its unit, its key, one result per invocation.
  const auto counted =
      parse("name: t\nbenchmark: {command: [./b], metric: instructions}\nconditions: [{name: a}]\n");
  CHECK(counted.benchmark.metric == "instructions/op");
  CHECK(counted.benchmark.counter == "instructions");
  CHECK(counted.benchmark.samples_per_run == 1);
  const auto clock = parse(
      "name: t\nbenchmark: {command: [./b], format: command, metric: task-clock}\nconditions: "
      "[{name: a}]\n");
  CHECK(clock.benchmark.metric == "task-clock-ns/op");
  CHECK(clock.benchmark.counter == "task_clock_ns");
  CHECK(parse("name: t\nbenchmark: {command: [./b]}\nconditions: [{name: a}]\n").benchmark.counter.empty());
  // The room's noise profile: 1 s unless the file says otherwise.
  CHECK(parse("name: t\nbenchmark: {command: [./b]}\nconditions: [{name: a}]\n").noise_profile.count() ==
        1.0);
  CHECK(parse("name: t\nbenchmark: {command: [./b]}\nnoise_profile: 0s\nconditions: [{name: a}]\n")
            .noise_profile.count() == 0.0);
}

TEST_CASE("config: bad files give file:line:col and what to do") {
  struct Case {
    std::string yaml;
    std::string message;
  };
  const Case cases[] = {
      {"name: t\nbenchmark:\n  comand: [./b]\nconditions: [{name: a}]\n",
       "x.yaml:3:3: unknown key \"comand\" in benchmark (did you mean \"command\"?)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditons: [{name: a}]\n",
       "x.yaml:3:1: unknown key \"conditons\" (did you mean \"conditions\"?)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    spiners: 2\n",
       "x.yaml:5:5: unknown key \"spiners\" in conditions[0] (did you mean \"spinners\"?)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions: [{name: a}]\nzzz: 1\n",
       "x.yaml:4:1: unknown key \"zzz\" (expected one of: name, description, benchmark, conditions, "
       "schedule, cooldown, variants, comparison, settle, claims, hosts, reference, noise_profile)"},
      {with_benchmark("  samples: twenty\n"),
       "x.yaml:4:12: benchmark.samples: expected a whole number of samples ≥ 2 or auto, got \"twenty\""},
      {with_benchmark("  samples: 1\n"),
       "x.yaml:4:12: benchmark.samples: expected a whole number of samples ≥ 2 or auto, got 1"},
      {with_benchmark("  samples: -3\n"),
       "x.yaml:4:12: benchmark.samples: expected a whole number of samples ≥ 2 or auto, got -3"},
      {with_benchmark("  warmup: -1\n"),
       "x.yaml:4:11: benchmark.warmup: expected a whole number ≥ 0, got -1"},
      {"name: t\nbenchmark: {command: ./b --fast}\nconditions: [{name: a}]\n",
       "x.yaml:2:22: benchmark.command: expected a non-empty list of arguments such as [go, test, "
       "-bench, .] (an argv vector: it is never run through a shell)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n  - name: a\n",
       "x.yaml:5:11: conditions[1].name: duplicate condition name \"a\""},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: ../etc\n",
       "x.yaml:4:11: conditions[0].name: \"../etc\" is not safe as a file name (use letters, digits, "
       "'.', '_' and '-', at most 64 characters, not starting with '.' or '-')"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    affinity: \"0-3\"\n",
       "x.yaml:5:15: conditions[0].affinity: CPU 2 is not available on this host (online CPUs: 0,1)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    spinners: {count: 2, cpus: 7}\n",
       "x.yaml:5:32: conditions[0].spinners.cpus: CPU 7 is not available on this host (online CPUs: "
       "0,1)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    spinners: 0\n",
       "x.yaml:5:15: conditions[0].spinners: expected a number of spinners ≥ 1 or all, got 0"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    nice: 40\n",
       "x.yaml:5:11: conditions[0].nice: expected a nice value from -20 to 19, got 40"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions: []\n",
       "x.yaml:3:13: conditions: expected a non-empty list of conditions, e.g. - name: idle"},
      {"benchmark: {command: [./b]}\nconditions: [{name: a}]\n",
       "x.yaml:1:1: missing key \"name\": give the experiment a name, e.g. name: laptop"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - spinners: 1\n",
       "x.yaml:4:5: missing key \"name\" in conditions[0]: every condition needs a unique name"},
      {"name: t\nbenchmark: {command: [./b]}\nschedule: random\nconditions: [{name: a}]\n",
       "x.yaml:3:11: schedule: expected sequential or interleaved, got \"random\""},
      {"name: t\nbenchmark: {command: [./b], format: json}\nconditions: [{name: a}]\n",
       "x.yaml:2:37: benchmark.format: expected gotest, gbench-json or command, got \"json\""},
      {with_benchmark("  timeout: soon\n"),
       "x.yaml:4:12: benchmark.timeout: expected a duration such as 30s, 10m or 1.5s, got \"soon\""},
      {"name: t\nbenchmark: {command: [./b, -test.count=5]}\nconditions: [{name: a}]\n",
       "x.yaml:2:28: benchmark.command: remove \"-test.count=5\": noisefloor sets -test.count from "
       "benchmark.samples"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    container: {memory: 4m}\n",
       "x.yaml:5:25: conditions[0].container.memory: 4194304 bytes is below the engine's minimum of 6m"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    container: {cpuset: \"0\", cpus: "
       "2}\n",
       "x.yaml:5:36: conditions[0].container.cpus: 2 CPUs is more than the 1 CPU(s) in the cpuset (0)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    container: {cpuset: \"5\"}\n",
       "x.yaml:5:25: conditions[0].container.cpuset: CPU 5 is not available on this host (online "
       "CPUs: 0,1)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    container: {memory_swap: 1g}\n",
       "x.yaml:5:30: conditions[0].container.memory_swap: set memory too (memory_swap is memory plus "
       "swap)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    affinity: \"0\"\n    container: "
       "{}\n",
       "x.yaml:5:15: conditions[0].affinity: conflicts with container: pin the container with "
       "container.cpuset instead"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    container: {privileged: true}\n",
       "x.yaml:5:17: unknown key \"privileged\" in conditions[0].container (expected one of: image, "
       "cpuset, cpus, memory, memory_swap, env, network, user, read_only, pids_limit, perf_events)"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions: [{name: a}]\nname: u\n",
       "x.yaml:4:1: duplicate key \"name\""},
      {"name: t\nbenchmark: {command: [./b]\nconditions: [{name: a}]\n",
       "x.yaml:3:1: invalid YAML: end of map flow not found"},
      {"name: t\nschedule: interleaved\nbenchmark: {command: [./b], samples_per_run: all}\nconditions: "
       "[{name: a}]\n",
       "x.yaml:3:46: benchmark.samples_per_run: `all` runs each condition in one block, which defeats "
       "schedule: interleaved; use a number such as 1"},
      {"name: t\nbenchmark: {command: [./b], env: {1X: y}}\nconditions: [{name: a}]\n",
       "x.yaml:2:35: benchmark.env: \"1X\" is not a valid environment variable name"},
      {"name: t\nbenchmark: {command: [./b], metric: cpu}\nconditions: [{name: a}]\n",
       "x.yaml:2:37: benchmark.metric: \"cpu\" is for format: command; name one of the units the benchmark "
       "prints, such as ns/op"},
      {"name: t\nbenchmark: {command: [./b], format: command, metric: ns/op}\nconditions: [{name: a}]\n",
       "x.yaml:2:54: benchmark.metric: a command measures wall or cpu (or sec/op, cpu-sec/op, user-sec/op, "
       "sys-sec/op), counts instructions, cycles, branch-misses, cache-misses or task-clock, or simulates "
       "simulated-instructions, simulated-cycles, simulated-l1-misses or simulated-ll-misses; got \"ns/op\""},
      {"name: t\nbenchmark: {command: [./b], metric: simulated-cycles}\nconditions: [{name: a}]\n",
       "x.yaml:2:37: benchmark.metric: \"simulated-cycles\" runs the benchmark under valgrind, which "
       "noisefloor does not do for go test: valgrind 3.19 stops Go programs at start on some CPUs (RDTSCP, "
       "in runtime.cputicks); measure ns/op, or simulate a C, C++ or Rust benchmark"},
      {"name: t\nbenchmark: {command: [./b], format: command, metric: simulated-instructions}\nconditions: "
       "[{name: "
       "a}, {name: c, container: {cpuset: \"0\"}}]\n",
       "x.yaml:3:46: conditions[1].container: metric: simulated-instructions runs the benchmark under "
       "valgrind on "
       "the host, and no container image has valgrind; drop container: from this condition (pin it with "
       "affinity: instead), or measure wall or cpu"},
      {"name: t\nbenchmark: {command: [./b], metric: instructions, samples_per_run: 3}\nconditions: [{name: "
       "a}]\n",
       "x.yaml:2:68: benchmark.samples_per_run: metric: instructions counts a whole invocation, which must "
       "then "
       "print one result; use 1"},
      {"name: t\nbenchmark: {command: [./b]}\nnoise_profile: 10ms\nconditions: [{name: a}]\n",
       "x.yaml:3:16: noise_profile: at least 100ms, or 0s for none"},
      {"name: t\nbenchmark: {command: [./b]}\nnoise_profile: 2m\nconditions: [{name: a}]\n",
       "x.yaml:3:16: noise_profile: at most 60s (the doctor's is 2s)"},
      {"name: t\nbenchmark: {command: [./b], format: command}\nconditions:\n  - name: a\n    container: "
       "{image: "
       "alpine}\n",
       "x.yaml:5:24: conditions[0].container.image: format: command is timed inside the container by "
       "noisefloor's probe, which only image: auto has; use image: auto (a named image would time Docker's "
       "container lifecycle, not the command)"},
      {"name: t\nbenchmark: {command: [./b]}\nsettle: soon\nconditions: [{name: a}]\n",
       "x.yaml:3:9: settle: expected a duration such as 30s, 10m or 1.5s, got \"soon\""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.yaml);
    CHECK(error_of(c.yaml) == c.message);
  }
}

TEST_CASE("config: durations and sizes") {
  using config::parse_duration;
  using config::parse_size;
  CHECK(parse_duration("1.5s")->count() == doctest::Approx(1.5));
  CHECK(parse_duration("250ms")->count() == doctest::Approx(0.25));
  CHECK(parse_duration("10m")->count() == doctest::Approx(600));
  CHECK(parse_duration("2")->count() == doctest::Approx(2));
  CHECK_FALSE(parse_duration("soon"));
  CHECK_FALSE(parse_duration("-1s"));
  CHECK_FALSE(parse_duration("5 parsecs"));
  CHECK(parse_size("512m") == 536870912);
  CHECK(parse_size("1G") == 1073741824);
  CHECK(parse_size("64k") == 65536);
  CHECK(parse_size("100") == 100);
  CHECK_FALSE(parse_size("lots"));
  CHECK_FALSE(parse_size("5t"));
}

TEST_CASE("config: closest key and safe names") {
  CHECK(config::closest_key("comand", {"command", "format"}) == "command");
  CHECK(config::closest_key("zzz", {"command", "format"}) == "");
  CHECK(config::is_safe_name("idle"));
  CHECK(config::is_safe_name("pinned-cpu0_v1.2"));
  CHECK_FALSE(config::is_safe_name(""));
  CHECK_FALSE(config::is_safe_name(".hidden"));
  CHECK_FALSE(config::is_safe_name("a/b"));
  CHECK_FALSE(config::is_safe_name("a b"));
  CHECK_FALSE(config::is_safe_name(std::string(65, 'a')));
}

TEST_CASE("config: variants, comparison and samples: auto") {
  const model::Experiment e = parse_experiment(R"(name: ratio
benchmark:
  command: [./ratio, --loops]
  format: command
  samples: auto
  precision: 0.5%
  max_samples: 50
variants:
  - {name: once, args: ["1"]}
  - {name: thrice, command: [./ratio, --loops, "3"]}
comparison: {baseline: thrice, aa: false, threshold: 2%}
conditions: [{name: clean}]
)",
                                               "r.yaml", kTwoCpus);
  REQUIRE(e.variants.size() == 2);
  CHECK(e.variants[0].name == "thrice");  // the baseline goes first
  CHECK(e.variants[1].command == std::vector<std::string>{"./ratio", "--loops", "1"});
  CHECK(e.comparison.baseline == "thrice");
  CHECK_FALSE(e.comparison.aa);
  CHECK(e.comparison.threshold == doctest::Approx(0.02));
  REQUIRE(e.adaptive);
  CHECK(e.adaptive->precision == doctest::Approx(0.005));
  CHECK(e.adaptive->max_samples == 50);
  CHECK(e.benchmark.samples_per_run == 1);
}

TEST_CASE("config: bad variants and comparisons") {
  CHECK(error_of("name: t\nbenchmark: {command: [./b]}\nvariants: [{name: a}]\nconditions: [{name: c}]\n") ==
        "x.yaml:3:11: variants: name a baseline and at least one other variant to compare with it");
  CHECK(error_of("name: t\nbenchmark: {command: [./b]}\nvariants: [{name: a}, {name: a}]\nconditions: "
                 "[{name: c}]\n") == "x.yaml:3:30: variants[1].name: duplicate variant name \"a\"");
  CHECK(error_of("name: t\nbenchmark: {command: [./b]}\nvariants: [{name: a}, {name: b}]\ncomparison: "
                 "{baseline: z}\n"
                 "conditions: [{name: c}]\n") ==
        "x.yaml:4:24: comparison.baseline: no variant named \"z\" (variants: a, b)");
  CHECK(error_of("name: t\nbenchmark: {command: [./b]}\ncomparison: {aa: true}\nconditions: [{name: c}]\n") ==
        "x.yaml:3:13: comparison: only with variants (there is nothing to compare)");
  CHECK(error_of("name: t\nbenchmark: {command: [./b], precision: 1%}\nconditions: [{name: c}]\n") ==
        "x.yaml:2:40: benchmark.precision: only with samples: auto");
  CHECK(error_of("name: t\nbenchmark: {command: [./b], samples: auto, precision: lots}\nconditions: [{name: "
                 "c}]\n") ==
        "x.yaml:2:55: benchmark.precision: expected a percentage such as 1% or 0.5%, got \"lots\"");
}

TEST_CASE("config: a gate's sides in the file: ref and worktree") {
  const std::string head = "name: t\nbenchmark: {command: [./b.test]}\nconditions: [{name: c}]\nvariants:\n";
  const auto e = config::parse_experiment(
      head + "  - {name: main, ref: main}\n  - {name: mine, worktree: true}\n", "x.yaml", {});
  REQUIRE(e.variants.size() == 2);
  CHECK(e.variants[0].git == "main");
  CHECK(e.variants[1].git == "");
  CHECK(e.variants[1].command == std::vector<std::string>{"./b.test"});
  CHECK(error_of(head + "  - {name: a, ref: main, args: [-x]}\n  - {name: b, worktree: true}\n") ==
        "x.yaml:5:32: variants[0].args: a side at a git ref runs benchmark.command from its own checkout: "
        "remove args");
  CHECK(error_of(head + "  - {name: a, ref: main}\n  - {name: b, args: [-x]}\n") ==
        "x.yaml:5:3: variants: the gate at git refs compares two sides, the base first: - {name: base, ref: "
        "main} - {name: head, worktree: true}; variants with commands of their own cannot join it");
  CHECK(error_of(head + "  - {name: a, worktree: true}\n  - {name: b, ref: main}\n") ==
        "x.yaml:5:5: variants[0]: the base of a gate is a git ref (ref: main), not the working tree");
  CHECK(error_of(head + "  - {name: a, ref: main}\n  - {name: b, worktree: yes please}\n") ==
        "x.yaml:6:25: variants[1].worktree: only true (the working tree with its uncommitted changes)");
}

TEST_CASE("config: numbers and durations out of range are errors, never wrapped or overflowed") {
  CHECK(error_of(with_benchmark("  samples: 4294967298\n")) ==
        "x.yaml:4:12: benchmark.samples: 4294967298 is too large (at most 100000)");
  CHECK(error_of(with_benchmark("  warmup: 4294967000\n")) ==
        "x.yaml:4:11: benchmark.warmup: 4294967000 is too large (at most 1000000)");
  CHECK(error_of(
            "name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    affinity: [4294967296]\n") ==
        "x.yaml:5:16: conditions[0].affinity: 4294967296 is too large (at most 8191)");
  CHECK(error_of(with_benchmark("  timeout: 10000000h\n")) ==
        "x.yaml:4:12: benchmark.timeout: at most 1000000s (11.6 days)");
  CHECK(error_of(with_benchmark("  timeout: 0.0000001s\n")) ==
        "x.yaml:4:12: benchmark.timeout: expected at least 1ms, got \"0.0000001s\"");
}

TEST_CASE("config: a variant with its own executable cannot share an auto image") {
  CHECK(
      error_of(
          "name: t\nbenchmark: {command: [./x]}\nvariants:\n  - {name: a}\n  - {name: b, command: [./y]}\n"
          "conditions:\n  - name: c\n    container: {cpuset: \"0\"}\n") ==
      "x.yaml:5:5: variants: \"b\" runs \"./y\", but condition \"c\" uses container image: auto, built from "
      "\"./x\": use args (same executable) or a named image that holds both");
  // args keep the same executable: fine
  CHECK(error_of("name: t\nbenchmark: {command: [./x]}\nvariants:\n  - {name: a}\n  - {name: b, args: [-y]}\n"
                 "conditions:\n  - name: c\n    container: {cpuset: \"0\"}\n") == "");
}

TEST_CASE("config: hosts are Docker contexts or endpoints, each once, with their positions") {
  const auto e = parse_experiment(with_benchmark("") + "hosts: [default, \"ssh://bench@quiet:2222\", ci]\n",
                                  "x.yaml", kTwoCpus);
  REQUIRE(e.hosts.size() == 3);
  CHECK(e.hosts[0].name == "default");
  CHECK(e.hosts[1].name == "ssh://bench@quiet:2222");
  CHECK(e.hosts[2].name == "ci");
  CHECK(e.hosts[2].mark.line == 6);
  CHECK(e.hosts[2].mark.column == 44);
  CHECK(parse_experiment(with_benchmark(""), "x.yaml", kTwoCpus).hosts.empty());
  CHECK(error_of(with_benchmark("") + "hosts: [a, b, a]\n") ==
        "x.yaml:6:15: hosts[2]: \"a\" is listed twice");
  CHECK(error_of(with_benchmark("") + "hosts: []\n") ==
        "x.yaml:6:8: hosts: expected a non-empty list of Docker context names or endpoints, e.g. hosts: "
        "[default, "
        "ssh://user@quiet-box]");
  CHECK(error_of(with_benchmark("") + "hosts: default\n") ==
        "x.yaml:6:8: hosts: expected a non-empty list of Docker context names or endpoints, e.g. hosts: "
        "[default, "
        "ssh://user@quiet-box]");
  CHECK(error_of(with_benchmark("") + "hosts: [\"\"]\n") ==
        "x.yaml:6:9: hosts[0]: empty: give a Docker context name or an endpoint");
}

TEST_CASE("config: claims are parsed before anything runs, errors pointing into the claim") {
  const std::string base =
      "name: t\nbenchmark:\n  command: [./b]\nconditions:\n  - name: idle\n  - name: noisy\n";
  const auto e = parse_experiment(base + "claims:\n  - cv(noisy) > 2 * cv(idle)\n  - \"cv(idle) <= 10%\"\n",
                                  "x.yaml", kTwoCpus);
  REQUIRE(e.claims.size() == 2);
  CHECK(e.claims[0].text == "cv(noisy) > 2 * cv(idle)");
  CHECK(e.claims[1].mark.line == 9);
  // plain: the claim starts at column 5; quoted: one column after the quote
  CHECK(error_of(base + "claims:\n  - cv(nosy) > 1\n") ==
        "x.yaml:8:8: claims[0]: unknown condition \"nosy\" (did you mean \"noisy\"?)");
  CHECK(error_of(base + "claims:\n  - \"cvv(noisy) > 1\"\n") ==
        "x.yaml:8:6: claims[0]: unknown function \"cvv\" (did you mean \"cv\"?)");
  CHECK(
      error_of(base + "claims: []\n") ==
      "x.yaml:7:9: claims: expected a non-empty list of claims, e.g. claims: [\"cv(noisy) > 2 * cv(idle)\"]");
}

TEST_CASE("config: reference: a file or an inline table, with its source") {
  const std::string base = "name: t\nbenchmark:\n  command: [./b]\nconditions:\n  - name: idle\n";
  auto e = parse_experiment(base + "reference: published/cv-summary.txt\n", "x.yaml", kTwoCpus);
  REQUIRE(e.reference);
  CHECK(e.reference->file == "published/cv-summary.txt");
  CHECK(e.reference->mark.line == 6);
  e = parse_experiment(
      base + "reference:\n  table: |\n    ## idle\n    BenchmarkX 20 11.46 0.54 4.75\n  source: the talk\n",
      "x.yaml", kTwoCpus);
  REQUIRE(e.reference);
  CHECK(e.reference->table == "## idle\nBenchmarkX 20 11.46 0.54 4.75\n");
  CHECK(e.reference->source == "the talk");
  CHECK(error_of(base + "reference:\n  file: a.txt\n  table: x\n") ==
        "x.yaml:7:3: reference: give exactly one of file (a published table's path) or table (its text "
        "inline)");
  CHECK(error_of(base + "reference: {flie: a.txt}\n") ==
        "x.yaml:6:13: unknown key \"flie\" in reference (did you mean \"file\"?)");
  CHECK(error_of(base + "reference: [a, b]\n") ==
        "x.yaml:6:12: reference: expected a file (cv-summary.txt, summary.json, a result directory or a "
        "markdown "
        "table), or a mapping with file or table, and source");
}

TEST_CASE("config: a workdir that cannot be entered is an error at its place, relative to the file") {
  HostFacts host = kTwoCpus;
  std::vector<std::string> asked;
  host.directory_problem = [&](const std::string& path) -> std::string {
    asked.push_back(path);
    return path == "exp/bench" ? "" : "does not exist";
  };
  const std::string yaml =
      "name: t\nbenchmark:\n  workdir: nope\n  command: [./b]\nconditions:\n  - name: idle\n";
  try {
    parse_experiment(yaml, "exp/x.yaml", host);
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "exp/x.yaml:3:12: benchmark.workdir: \"nope\" (exp/nope) does not exist: give a directory that "
          "exists, "
          "relative to the experiment file's directory");
  }
  CHECK(asked == std::vector<std::string>{"exp/nope"});
  const std::string good =
      "name: t\nbenchmark:\n  workdir: ./bench/\n  command: [./b]\nconditions:\n  - name: idle\n";
  CHECK_NOTHROW(parse_experiment(good, "exp/x.yaml", host));
  // Without the check (pure tests, the fuzzer) nothing is asked.
  CHECK(error_of("name: t\nbenchmark:\n  workdir: nope\n  command: [./b]\nconditions:\n  - name: idle\n") ==
        "");
}

TEST_CASE("config: a sweep expands into one condition per point, named and placed") {
  const auto e = parse_experiment(R"(name: t
benchmark: {command: [./b]}
conditions:
  - name: idle
  - name: noisy
    spinners: {sweep: [0, 1, all]}
  - name: grid
    affinity: "1"
    spinners: {count: {sweep: 2..1}, cpus: {sweep: {other: "0", same: "1"}}}
  - name: capped
    container:
      cpus: {sweep: [1.0, 0.5]}
      memory: {sweep: [64m, ~]}
      env: {GOMAXPROCS: {sweep: [1, 2]}}
claims:
  - cv(noisy[spinners=all]) > 2 * cv(noisy[spinners=0])
  - cv(grid[count=2, cpus=same]) > cv(grid.count-1.cpus-other)
)",
                                  "x.yaml", kTwoCpus);
  std::vector<std::string> names;
  for (const auto& c : e.conditions) names.push_back(c.name);
  CHECK(names == std::vector<std::string>{
                     "idle", "noisy.spinners-0", "noisy.spinners-1", "noisy.spinners-all",
                     "grid.count-2.cpus-other", "grid.count-2.cpus-same", "grid.count-1.cpus-other",
                     "grid.count-1.cpus-same", "capped.cpus-1.0.memory-64m.GOMAXPROCS-1",
                     "capped.cpus-1.0.memory-64m.GOMAXPROCS-2", "capped.cpus-1.0.memory-none.GOMAXPROCS-1",
                     "capped.cpus-1.0.memory-none.GOMAXPROCS-2", "capped.cpus-0.5.memory-64m.GOMAXPROCS-1",
                     "capped.cpus-0.5.memory-64m.GOMAXPROCS-2", "capped.cpus-0.5.memory-none.GOMAXPROCS-1",
                     "capped.cpus-0.5.memory-none.GOMAXPROCS-2"});
  CHECK_FALSE(e.conditions[0].sweep);
  // spinners: 0 in a sweep is no spinners; all is every CPU, 2 on the axis.
  CHECK_FALSE(e.conditions[1].spinners);
  CHECK(e.conditions[2].spinners->count == 1);
  CHECK(e.conditions[3].spinners->count == 2);
  const auto& all = *e.conditions[3].sweep;
  CHECK(all.group == "noisy");
  CHECK(all.index == 2);
  REQUIRE(all.settings.size() == 1);
  CHECK(all.settings[0] == model::SweepSetting{"spinners", "all", 2.0});
  CHECK(e.conditions[1].sweep->settings[0].number == 0.0);
  // The product: the first sweep varies slowest; the condition's other keys stay in every point.
  const auto& g = e.conditions[5];
  CHECK(g.affinity == std::vector<int>{1});
  CHECK(g.spinners->count == 2);
  CHECK(g.spinners->cpus == std::vector<int>{1});
  CHECK(g.sweep->settings[1] == model::SweepSetting{"cpus", "same", std::nullopt});
  CHECK(g.mark == model::SourceMark{7, 5});
  // A null value removes the key (no memory limit, so no swap limit either); sizes are bytes on the axis.
  const auto& k = e.conditions[10];
  CHECK(k.container->cpus == 1.0);
  CHECK_FALSE(k.container->memory);
  CHECK(k.container->env == std::map<std::string, std::string>{{"GOMAXPROCS", "1"}});
  CHECK(e.conditions[8].container->memory == 64 * 1024 * 1024);
  CHECK(e.conditions[8].sweep->settings[1].number == 64.0 * 1024 * 1024);
  CHECK_FALSE(k.sweep->settings[1].number);
  CHECK(model::claim_name(*k.sweep) == "capped[cpus=1.0,memory=none,GOMAXPROCS=1]");
  CHECK(model::settings_text(*k.sweep) == "cpus=1.0, memory=none, GOMAXPROCS=1");
  CHECK(e.claims.size() == 2);
}

TEST_CASE("config: a pids_limit the file sets is marked as asked for") {
  const model::Experiment e = parse_experiment(
      "name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: a\n    container: {pids_limit: 64}\n",
      "t.yaml", kTwoCpus);
  REQUIRE(e.conditions[0].container);
  CHECK(e.conditions[0].container->pids_limit == 64);
  CHECK(e.conditions[0].container->pids_limit_given);
}

TEST_CASE("config: a bad sweep, or a bad point, is refused at the sweep with the point named") {
  const auto sweep = [](const std::string& condition) {
    return "name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: s\n" + condition;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {sweep("    container: {cpus: {sweep: [1, 0]}}\n"),
       "x.yaml:5:35: conditions[0].container.cpus: expected at least 0.01 CPUs, got 0 (in the sweep point "
       "s[cpus=0])"},
      {sweep("    container: {cpuset: {sweep: [\"0\", \"0-3\"]}}\n"),
       "x.yaml:5:39: conditions[0].container.cpuset: CPU 2 is not available on this host (online CPUs: 0,1) "
       "(in "
       "the sweep point s[cpuset=0-3])"},
      // A range's values have no place of their own: the sweep's is given.
      {sweep("    spinners: {sweep: 4095..4097}\n"),
       "x.yaml:5:15: conditions[0].spinners: 4097 is too large (at most 4096) (in the sweep point "
       "s[spinners=4097])"},
      {sweep("    spinners: {sweep: []}\n"), "x.yaml:5:23: conditions[0].spinners.sweep: no values to sweep"},
      {sweep("    spinners: {sweep: 1-3}\n"),
       "x.yaml:5:23: conditions[0].spinners.sweep: expected a list of values ([0, 1, 2]), a range of whole "
       "numbers (0..4) or labelled values ({a: ..., b: ...}), got \"1-3\""},
      {sweep("    spinners: {sweep: [1, 2, 1]}\n"),
       "x.yaml:5:30: conditions[0].spinners: the value \"1\" is swept twice"},
      {sweep("    spinners: {sweep: [1], count: 2}\n"),
       "x.yaml:5:15: conditions[0].spinners: a sweep is a mapping with one key, sweep (e.g. {sweep: [0, 1, "
       "2]})"},
      {sweep("    container: {sweep: [~, {cpuset: \"0\"}]}\n"),
       "x.yaml:5:28: conditions[0].container: a mapping in a sweep needs a label: write {sweep: {label: "
       "value, "
       "...}}"},
      {sweep("    spinners: {sweep: 0..2000}\n"),
       "x.yaml:5:23: conditions[0].spinners.sweep: \"0..2000\" has more than 1000 values"},
      // the distance of the widest range overflows a long: refused at once, not looped over
      {sweep("    spinners: {sweep: -9223372036854775808..9223372036854775807}\n"),
       "x.yaml:5:23: conditions[0].spinners.sweep: \"-9223372036854775808..9223372036854775807\" has more "
       "than "
       "1000 values"},
      {sweep("    spinners: {sweep: 9223372036854775807..-9223372036854775808}\n"),
       "x.yaml:5:23: conditions[0].spinners.sweep: \"9223372036854775807..-9223372036854775808\" has more "
       "than "
       "1000 values"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: s.spinners-1\n  - name: s\n    "
       "spinners: "
       "{sweep: [1]}\n",
       "x.yaml:5:5: conditions[1].name: duplicate condition name \"s.spinners-1\" (generated for the sweep "
       "point "
       "s[spinners=1])"},
      {"name: t\nbenchmark: {command: [./b]}\nconditions:\n  - name: s\n    spinners: {sweep: [1, "
       "2]}\nclaims: "
       "[\"cv(s[spinners=3]) > 1\"]\n",
       "x.yaml:6:14: claims[0]: no sweep point \"s[spinners=3]\" (points: s[spinners=1], s[spinners=2])"},
  };
  for (const auto& [yaml, want] : cases) {
    const auto captured_yaml = yaml;  // clang 14 cannot capture a structured binding
    CAPTURE(captured_yaml);
    CHECK(error_of(yaml) == want);
  }
}

TEST_CASE("config: sweeps that make too many conditions together are refused as they accumulate") {
  // The adversarial re-test of issue 42: 1000 conditions of 1000 values each were expanded to a
  // million before the total was checked (3 GB, 20 s). Refused at the second condition now.
  std::string yaml = "name: t\nbenchmark: {command: [./b]}\nconditions:\n";
  for (int i = 0; i < 1000; ++i) yaml += fmt::format("  - name: c{}\n    env: {{X: {{sweep: 0..999}}}}\n", i);
  CHECK(
      error_of(yaml) ==
      "x.yaml:6:5: conditions: more than 1000 conditions after the sweeps are expanded (conditions[0] to [1] "
      "make 2000): sweep fewer values");
}

TEST_CASE("config: a condition's args and env, swept like any setting") {
  const auto e = parse_experiment(R"(name: t
benchmark: {command: [./b.test, -test.bench=.], env: {GOGC: "100", GOMAXPROCS: "8"}}
conditions:
  - name: procs
    env: {GOMAXPROCS: {sweep: [1, 2, 4]}}
  - name: cpu
    args: {sweep: {one: [-test.cpu=1], two: [-test.cpu=2]}}
)",
                                  "x.yaml", kTwoCpus);
  REQUIRE(e.conditions.size() == 5);
  CHECK(e.conditions[0].name == "procs.GOMAXPROCS-1");
  CHECK(e.conditions[0].env == std::map<std::string, std::string>{{"GOMAXPROCS", "1"}});
  CHECK(e.conditions[2].sweep->settings[0].number == 4.0);
  CHECK(e.conditions[4].name == "cpu.args-two");
  CHECK(e.conditions[4].args == std::vector<std::string>{"-test.cpu=2"});
  CHECK(error_of("name: t\nbenchmark: {command: [./b.test]}\nconditions:\n  - name: a\n    args: "
                 "[-test.count=3]\n") ==
        "x.yaml:5:12: conditions[0].args: remove \"-test.count=3\": noisefloor sets the repetitions from "
        "benchmark.samples");
  CHECK(error_of("name: t\nbenchmark: {command: [./b.test]}\nconditions:\n  - name: a\n    args: -v\n") ==
        "x.yaml:5:11: conditions[0].args: expected a list of arguments such as [-test.cpu=2] (added after "
        "benchmark.command; never run through a shell)");
}
