#include "store/machine.hpp"

#include <fmt/format.h>

#include <cmath>

#include "hash/sha256.hpp"

namespace noisefloor::store {
namespace {

// name on the page and in the digest, where the fingerprint holds it.
struct FactSource {
  const char* name;
  const char* path;
};
constexpr FactSource kMachineFacts[] = {
    {"cpu_vendor", "cpu.vendor"},     {"cpu_model", "cpu.model_name"},
    {"cpu_family", "cpu.family"},     {"cpu_model_number", "cpu.model"},
    {"cpu_stepping", "cpu.stepping"}, {"sockets", "cpu.sockets"},
    {"cores", "cpu.cores"},           {"logical_cpus", "cpu.logical"},
    {"kernel", "kernel.release"},
};

// "KVM", "none" on bare metal, "unknown" when the run could not tell.
std::string virtualization(const fingerprint::FactTree& host) {
  if (const auto hypervisor = host.text("virtualization.hypervisor")) return *hypervisor;
  if (const auto virtual_machine = host.flag("virtualization.virtual"))
    return *virtual_machine ? "unknown hypervisor" : "none";
  return "unknown";
}

// Whole GiB, rounded: the kernel's MemTotal moves by a few MiB between boots of one machine.
std::string memory_gib(const fingerprint::FactTree& host) {
  const auto kb = host.number("memory.total_kb");
  if (!kb) return "unknown";
  return fmt::format("{}", std::llround(*kb / (1024.0 * 1024.0)));
}

}  // namespace

const std::vector<std::string>& machine_fact_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& f : kMachineFacts) all.emplace_back(f.name);
    all.emplace_back("virtualization");
    all.emplace_back("memory_gib");
    return all;
  }();
  return names;
}

Machine machine_of(const records::Fingerprint& fingerprint) {
  const fingerprint::FactTree& host = fingerprint.host;
  Machine m;
  for (const auto& f : kMachineFacts) {
    const std::string shown = host.show(f.path);
    m.facts.emplace_back(f.name, shown.empty() ? "unknown" : shown);
  }
  m.facts.emplace_back("virtualization", virtualization(host));
  m.facts.emplace_back("memory_gib", memory_gib(host));
  hash::Sha256 digest;
  for (const auto& [name, value] : m.facts) digest.update(fmt::format("{}={}\n", name, value));
  m.id = digest.hex().substr(0, 16);
  return m;
}

}  // namespace noisefloor::store
