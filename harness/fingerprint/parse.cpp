#include "fingerprint/parse.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::fingerprint {
namespace {

using text::trim;

using nlohmann::json;

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::string_view> split_on(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto at = text.find(sep);
    out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return out;
}

template <typename T>
std::optional<T> to_number(std::string_view s) {
  T value{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains_ci(std::string_view haystack, std::string_view needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

// Implementer and part names from the kernel's arch/arm64/include/asm/cputype.h and
// util-linux lscpu-arm.c; only the common ones: an unknown code is shown as hex.
std::string arm_implementer_name(std::string_view code) {
  static const std::map<std::string, std::string> kNames = {
      {"0x41", "ARM"},       {"0x42", "Broadcom"},  {"0x43", "Cavium"}, {"0x46", "Fujitsu"},
      {"0x48", "HiSilicon"}, {"0x4e", "NVIDIA"},    {"0x50", "APM"},    {"0x51", "Qualcomm"},
      {"0x61", "Apple"},     {"0x6d", "Microsoft"}, {"0xc0", "Ampere"}};
  const auto it = kNames.find(lower(code));
  return it == kNames.end() ? "implementer " + std::string(code) : it->second;
}

std::string arm_part_name(std::string_view implementer, std::string_view part) {
  static const std::map<std::string, std::string> kArmParts = {
      {"0xd03", "Cortex-A53"},  {"0xd04", "Cortex-A35"},  {"0xd05", "Cortex-A55"},  {"0xd07", "Cortex-A57"},
      {"0xd08", "Cortex-A72"},  {"0xd09", "Cortex-A73"},  {"0xd0a", "Cortex-A75"},  {"0xd0b", "Cortex-A76"},
      {"0xd0c", "Neoverse-N1"}, {"0xd0d", "Cortex-A77"},  {"0xd40", "Neoverse-V1"}, {"0xd41", "Cortex-A78"},
      {"0xd44", "Cortex-X1"},   {"0xd46", "Cortex-A510"}, {"0xd47", "Cortex-A710"}, {"0xd48", "Cortex-X2"},
      {"0xd49", "Neoverse-N2"}, {"0xd4f", "Neoverse-V2"}};
  static const std::map<std::string, std::string> kAmpereParts = {{"0xac3", "Ampere-1"},
                                                                  {"0xac4", "Ampere-1a"}};
  const std::string imp = lower(implementer);
  const std::map<std::string, std::string>* table = nullptr;
  if (imp == "0x41") table = &kArmParts;
  if (imp == "0xc0") table = &kAmpereParts;
  if (table != nullptr) {
    const auto it = table->find(lower(part));
    if (it != table->end()) return it->second;
  }
  return "part " + std::string(part);
}

// Go's strconv.Quote output back to text (the subset debug/buildinfo produces).
std::string go_unquote(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::string(s);
  std::string out;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] != '\\' || i + 2 >= s.size()) {
      out += s[i];
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case '\\':
        out += '\\';
        break;
      case '"':
        out += '"';
        break;
      default:
        out += '\\';
        out += e;
    }
  }
  return out;
}

// Splits "key=value" where key and value may be Go-quoted (a quoted key may contain '=').
std::pair<std::string, std::string> split_setting(std::string_view kv) {
  std::size_t eq = std::string_view::npos;
  if (!kv.empty() && kv.front() == '"') {
    for (std::size_t i = 1; i < kv.size(); ++i) {
      if (kv[i] == '\\') {
        ++i;
      } else if (kv[i] == '"') {
        eq = kv.find('=', i + 1);
        break;
      }
    }
  } else {
    eq = kv.find('=');
  }
  if (eq == std::string_view::npos) return {go_unquote(kv), ""};
  return {go_unquote(kv.substr(0, eq)), go_unquote(kv.substr(eq + 1))};
}

}  // namespace

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo info;
  std::map<std::string, std::string> first;  // fields of the first processor block
  bool in_first = true;
  bool seen_processor = false;
  for (const auto line : text::lines(text)) {
    if (trim(line).empty()) {
      if (seen_processor) in_first = false;
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key(trim(line.substr(0, colon)));
    const std::string value(trim(line.substr(colon + 1)));
    if (key == "processor") {
      ++info.logical;
      if (seen_processor) in_first = false;
      seen_processor = true;
      continue;
    }
    // Board-wide lines (arm "Hardware", "Model") come after the last block: keep them too.
    if (in_first || !first.count(key)) first.emplace(key, value);
  }
  auto get = [&](const char* key) {
    const auto it = first.find(key);
    return it == first.end() ? std::string() : it->second;
  };
  info.vendor = get("vendor_id");
  info.model_name = get("model name");
  info.family = get("cpu family");
  info.model = get("model");
  info.stepping = get("stepping");
  info.microcode = get("microcode");
  std::string flags = get("flags");
  if (flags.empty()) flags = get("Features");
  for (const auto f : split_fields(flags)) info.flags.emplace(f);
  info.hypervisor_flag = info.flags.count("hypervisor") > 0;

  const std::string implementer = get("CPU implementer");
  if (!implementer.empty()) {
    const std::string part = get("CPU part");
    const std::string variant = get("CPU variant");
    const std::string revision = get("CPU revision");
    info.arch_hint = "CPU implementer " + implementer + ", CPU part " + part + ", variant " + variant +
                     ", revision " + revision;
    if (info.vendor.empty()) info.vendor = arm_implementer_name(implementer);
    if (info.model_name.empty()) info.model_name = arm_part_name(implementer, part);
    if (info.family.empty()) info.family = get("CPU architecture");
    info.model = part;
    if (info.stepping.empty()) {
      const auto v = variant.rfind("0x", 0) == 0 ? variant.substr(2) : variant;
      info.stepping = "r" + v + "p" + revision;
    }
  }
  return info;
}

KernelCmdline parse_cmdline(std::string_view text) {
  KernelCmdline out;
  std::vector<std::string> words;
  std::string word;
  bool quoted = false;
  bool have_word = false;
  for (const char c : text) {
    if (c == '"') {
      quoted = !quoted;
      have_word = true;
    } else if (!quoted && std::isspace(static_cast<unsigned char>(c))) {
      if (have_word) words.push_back(word);
      word.clear();
      have_word = false;
    } else {
      word += c;
      have_word = true;
    }
  }
  if (have_word) words.push_back(word);
  for (const auto& w : words) {
    if (w == "--") break;
    const auto eq = w.find('=');
    if (eq == std::string::npos) {
      out.params[w] = "";
    } else {
      out.params[w.substr(0, eq)] = w.substr(eq + 1);
    }
  }
  auto pick = [&](const char* key) -> std::optional<std::string> {
    const auto it = out.params.find(key);
    if (it == out.params.end()) return std::nullopt;
    return it->second;
  };
  out.isolcpus = pick("isolcpus");
  out.nohz_full = pick("nohz_full");
  out.rcu_nocbs = pick("rcu_nocbs");
  return out;
}

std::string isolcpus_cpu_list(std::string_view value) {
  std::string out;
  for (const auto part : split_on(value, ',')) {
    if (part == "nohz" || part == "domain" || part == "managed_irq") continue;
    if (!out.empty()) out += ',';
    out += part;
  }
  return out;
}

std::map<std::string, std::string> parse_os_release(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const auto raw : text::lines(text)) {
    const auto line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string key(trim(line.substr(0, eq)));
    std::string_view v = trim(line.substr(eq + 1));
    std::string value;
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
      v = v.substr(1, v.size() - 2);
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size() &&
            (v[i + 1] == '"' || v[i + 1] == '\\' || v[i + 1] == '$' || v[i + 1] == '`')) {
          ++i;
        }
        value += v[i];
      }
    } else if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
      value = std::string(v.substr(1, v.size() - 2));
    } else {
      value = std::string(v);
    }
    out[key] = value;
  }
  return out;
}

std::optional<GoVersion> parse_go_version(std::string_view output) {
  const auto fields = split_fields(trim(output));
  if (fields.size() < 3 || fields[0] != "go" || fields[1] != "version" || fields[2].substr(0, 2) != "go")
    return std::nullopt;
  GoVersion v;
  v.version = std::string(fields[2]);
  if (fields.size() >= 4) v.platform = std::string(fields[3]);
  return v;
}

GoBuildInfo parse_go_version_m(std::string_view output) {
  const auto lines = text::lines(output);
  GoBuildInfo info;
  const std::string_view head = lines.empty() ? std::string_view() : lines.front();
  const auto sep = head.rfind(": go");
  if (sep == std::string_view::npos) {
    throw ParseError("go version -m: expected '<file>: go<version>' on the first line, got '" +
                     std::string(trim(head)) + "'");
  }
  info.go_version = std::string(trim(head.substr(sep + 2)));
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty() || line.front() != '\t') continue;
    line.remove_prefix(1);
    const auto tab = line.find('\t');
    const std::string_view kind = line.substr(0, tab);
    const std::string_view rest = tab == std::string_view::npos ? "" : line.substr(tab + 1);
    std::vector<std::string_view> cols;
    for (const auto c : split_on(rest, '\t')) {
      if (!c.empty()) cols.push_back(c);
    }
    if (kind == "path") {
      info.path = std::string(trim(rest));
    } else if (kind == "mod") {
      for (std::size_t c = 0; c < cols.size() && c < 2; ++c) {
        if (c > 0) info.main_module += ' ';
        info.main_module += cols[c];
      }
    } else if (kind == "dep") {
      std::string dep;
      for (std::size_t c = 0; c < cols.size() && c < 2; ++c) {
        if (c > 0) dep += ' ';
        dep += cols[c];
      }
      info.deps.push_back(dep);
    } else if (kind == "=>" && !info.deps.empty()) {
      info.deps.back() += " =>";
      for (std::size_t c = 0; c < cols.size() && c < 2; ++c) {
        info.deps.back() += ' ';
        info.deps.back() += cols[c];
      }
    } else if (kind == "build") {
      auto [key, value] = split_setting(rest);
      info.settings[key] = value;
    }
  }
  return info;
}

MemInfo parse_meminfo(std::string_view text) {
  MemInfo out;
  for (const auto line : text::lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const auto key = line.substr(0, colon);
    const auto fields = split_fields(line.substr(colon + 1));
    if (fields.empty()) continue;
    const auto number = to_number<std::int64_t>(fields[0]);
    if (key == "MemTotal") out.mem_total_kb = number;
    if (key == "SwapTotal") out.swap_total_kb = number;
    if (key == "SwapFree") out.swap_free_kb = number;
  }
  return out;
}

std::optional<LoadAvg> parse_loadavg(std::string_view text) {
  const auto f = split_fields(text);
  if (f.size() < 4) return std::nullopt;
  const auto slash = f[3].find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto one = to_number<double>(f[0]);
  const auto five = to_number<double>(f[1]);
  const auto fifteen = to_number<double>(f[2]);
  const auto running = to_number<int>(f[3].substr(0, slash));
  const auto total = to_number<int>(f[3].substr(slash + 1));
  if (!one || !five || !fifteen || !running || !total) return std::nullopt;
  return LoadAvg{*one, *five, *fifteen, *running, *total};
}

std::string selected_bracket(std::string_view text) {
  const auto open = text.find('[');
  const auto close = text.find(']', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return "";
  return std::string(text.substr(open + 1, close - open - 1));
}

std::optional<std::string> hypervisor_from_dmi(std::string_view sys_vendor, std::string_view product_name) {
  const std::string vendor = lower(trim(sys_vendor));
  const std::string product = lower(trim(product_name));
  if (vendor.empty() && product.empty()) return std::nullopt;
  if (vendor.find("amazon ec2") != std::string::npos) {
    // Bare-metal instances ("c5.metal") report the same vendor but run on no hypervisor.
    if (product.size() >= 6 && product.ends_with(".metal")) return std::nullopt;
    return "Amazon EC2 (Nitro)";
  }
  struct Rule {
    const char* needle;
    bool in_product;
    const char* name;
  };
  static const Rule kRules[] = {
      {"qemu", false, "QEMU"},
      {"kvm", true, "KVM"},
      {"vmware", false, "VMware"},
      {"innotek", false, "VirtualBox"},
      {"virtualbox", true, "VirtualBox"},
      {"xen", false, "Xen"},
      {"google", false, "Google Compute Engine"},
      {"parallels", false, "Parallels"},
      {"bochs", false, "Bochs"},
      {"openstack", true, "OpenStack (KVM)"},
      {"digitalocean", false, "DigitalOcean (KVM)"},
      {"apple virtualization", true, "Apple Virtualization"},
  };
  for (const auto& rule : kRules) {
    if ((rule.in_product ? product : vendor).find(rule.needle) != std::string::npos)
      return std::string(rule.name);
  }
  // Hyper-V: "Microsoft Corporation" / "Virtual Machine" (a Surface is Microsoft too).
  if (vendor.find("microsoft") != std::string::npos && product.find("virtual machine") != std::string::npos)
    return "Hyper-V";
  return std::nullopt;
}

std::optional<std::string> hypervisor_from_clocksources(std::string_view available) {
  for (const auto cs : split_fields(available)) {
    if (cs == "kvm-clock") return "KVM";
    if (cs.starts_with("hyperv_clocksource")) return "Hyper-V";
    if (cs == "xen") return "Xen";
  }
  return std::nullopt;
}

std::optional<std::string> container_from_cgroup(std::string_view text) {
  static const char* kHints[] = {"kubepods", "docker", "containerd", "libpod", "lxc", "crio"};
  for (const auto line : text::lines(text)) {
    // "hierarchy-id:controllers:path": only the path can name a runtime.
    const auto last = line.rfind(':');
    if (last == std::string_view::npos) continue;
    const auto path = line.substr(last + 1);
    for (const char* hint : kHints) {
      if (contains_ci(path, hint)) return std::string(hint);
    }
  }
  return std::nullopt;
}

std::optional<std::string> root_fs_type(std::string_view mountinfo) {
  std::optional<std::string> found;
  for (const auto line : text::lines(mountinfo)) {
    // "id parent major:minor root mount-point options [optional...] - fstype source super"
    const auto f = split_fields(line);
    if (f.size() < 5 || f[4] != "/") continue;
    const auto dash = std::find(f.begin() + 5, f.end(), std::string_view("-"));
    if (dash == f.end() || dash + 1 == f.end()) continue;
    found = std::string(*(dash + 1));  // the last mount on "/" is the visible one
  }
  return found;
}

}  // namespace noisefloor::fingerprint
