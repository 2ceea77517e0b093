#include "cli/version.hpp"
#include "cli/fingerprint_view.hpp"

#include <sys/utsname.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "fingerprint/host.hpp"
#include "fingerprint/parse.hpp"
#include "fingerprint/tune.hpp"
#include "hash/sha256.hpp"


namespace noisefloor::cli {
namespace fs = std::filesystem;
using nlohmann::json;

std::string fact(const json& fp, std::string_view pointer) {
  try {
    const json& node = fp.at(json::json_pointer(std::string(pointer)));
    const json& v = node.is_object() && node.contains("value") ? node["value"] : node;
    if (v.is_null()) return "unknown";
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
  } catch (const json::exception&) {
    return "unknown";
  }
}

const std::vector<std::pair<std::string, std::string>>& key_facts() {
  static const std::vector<std::pair<std::string, std::string>> facts = {
      {"host", "/host/hostname"},
      {"cpu", "/host/cpu/model_name"},
      {"logical-cpus", "/host/cpu/logical"},
      {"kernel", "/host/kernel/release"},
      {"os", "/host/os/pretty_name"},
      {"platform", "/host/uname"},
      {"virtual", "/host/virtualization/hypervisor"},
      {"go-version", "/toolchain/go/version"},
      {"binary-sha256", "/toolchain/binary/sha256"},
      {"command-line", "/run/command_line"},
  };
  return facts;
}

json collect_fingerprint(const model::Experiment& e, const std::string& command_line, const std::string& started) {
  json fp = json::object();
  fp["schema_version"] = 1;
  fp["run"] = {{"started_utc", started},
               {"command_line", command_line},
               {"experiment_file", fs::absolute(e.source_file).string()},
               {"experiment_sha256", hash::sha256_hex(e.source_text)},
               {"noisefloor_version", kVersion},
               {"noisefloor_commit", kCommit},
               // Interleaving is a fixed round-robin and pairs alternate ABBA: nothing is random,
               // so there is no seed to record.
               {"schedule", e.schedule == model::Schedule::sequential ? "sequential" : "interleaved"},
               {"order", e.schedule == model::Schedule::sequential
                             ? "each condition's samples together, conditions in file order"
                             : "round-robin over conditions in file order (deterministic: no random seed)"},
               {"paired_order", e.paired() ? "ABBA counterbalanced over the kept repeats (deterministic)" : ""}};
  fp["host"] = fingerprint::probe_host();
  struct utsname u {};
  if (::uname(&u) == 0) {
    fp["host"]["uname"] = fingerprint::known(fmt::format("{} {} {}", u.sysname, u.release, u.machine));
  } else {
    fp["host"]["uname"] = fingerprint::unknown("uname(2) failed");
  }
  std::optional<fs::path> binary;
  if (!e.benchmark.command.empty() && e.benchmark.command.front().find('/') != std::string::npos &&
      fs::exists(e.benchmark.command.front()))
    binary = e.benchmark.command.front();
  const bool native = e.benchmark.format != model::OutputFormat::gotest;
  fp["toolchain"] = fingerprint::probe_toolchain(binary, e.base_dir.empty() ? std::nullopt : std::optional<fs::path>(e.base_dir), native);
  fp["env"] = fingerprint::probe_env(
      [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        return v ? std::optional<std::string>(v) : std::nullopt;
      },
      fingerprint::environment_names());
  fp["benchmark_env"] = e.benchmark.env;
  fp["tuning"] = fingerprint::tuning_state(fingerprint::kTuneStatePath);  // null: nothing applied
  fp["host"]["one_line"] = fingerprint::known(fmt::format(
      "{} · {} · {} CPUs · {} · {}", fact(fp, "/host/hostname"), fact(fp, "/host/cpu/model_name"),
      fact(fp, "/host/cpu/logical"), fact(fp, "/host/uname"), fact(fp, "/host/os/pretty_name")));
  return fp;
}

std::string render_key_facts(const json& fp) {
  std::string out;
  out += fmt::format("host:       {} ({}, {} logical CPUs, {})\n", fact(fp, "/host/hostname"),
                     fact(fp, "/host/cpu/model_name"), fact(fp, "/host/cpu/logical"),
                     fact(fp, "/host/virtualization/hypervisor") == "none"
                         ? "bare metal"
                         : "virtual: " + fact(fp, "/host/virtualization/hypervisor"));
  out += fmt::format("system:     {} · {}\n", fact(fp, "/host/uname"), fact(fp, "/host/os/pretty_name"));
  out += fmt::format("toolchain:  {} · noisefloor {} ({})\n", fact(fp, "/toolchain/go/version"),
                     fact(fp, "/run/noisefloor_version"), fact(fp, "/run/noisefloor_commit"));
  if (fp.contains("doctor")) {
    int warn = 0, bad = 0;
    std::string why;
    for (const auto& f : fp["doctor"].value("findings", nlohmann::json::array())) {
      const std::string level = f.value("level", "");
      if (level == "WARN") ++warn;
      if (level != "BAD") continue;
      ++bad;
      std::string msg = f.value("message", "");
      if (msg.size() > 90) msg = msg.substr(0, msg.rfind(' ', 87)) + " …";
      why += fmt::format("\n            BAD {}: {}", f.value("topic", ""), msg);
    }
    out += fmt::format("doctor:     {} ({} BAD, {} WARN: `noisefloor doctor` explains and fixes){}\n",
                       fact(fp, "/doctor/grade"), bad, warn, why);
  }
  return out;
}

}  // namespace noisefloor::cli
