#include "results/load.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "files/files.hpp"
#include "model/errors.hpp"
#include "records/documents.hpp"
#include "results/decode.hpp"

namespace noisefloor::results {
namespace fs = std::filesystem;

namespace {

// What a result directory's files may hold: far above any real run (a million samples of a
// suite is about 0.5 GiB of samples.jsonl), far below what would take the machine's memory.
constexpr std::uintmax_t kSamplesLimit = 4ULL << 30;
constexpr std::uintmax_t kRecordLimit = 256ULL << 20;  // run.json, fingerprint.json, summary.json, a raw .txt

// The file's text: a regular file within `limit` (a result directory is not trusted: a
// samples.jsonl linked to /dev/zero or a FIFO is refused, not read for ever); a file that exists
// but cannot be read is bad input, named.
std::string read_input(const fs::path& file, std::uintmax_t limit = kRecordLimit) {
  return files::read_regular(file, limit, "a result's " + file.filename().string(), true);
}

// A go test file, read in 1 MiB pieces and decoded as it is read: never held whole.
records::Result read_gotest_file(const fs::path& file) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  GoTestFileDecoder decoder(file.string(), ec ? 0 : size);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno)));
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize got = in.gcount();
    if (got > 0) decoder.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  }
  if (in.bad()) throw InputError(fmt::format("{}: read error: {}", file.string(), std::strerror(errno)));
  return decoder.finish();
}

// Where `path` cannot lead to a directory: a dangling link, a loop of links, or nothing.
[[noreturn]] void unreachable(const fs::path& path, const std::error_code& ec) {
  std::error_code link_ec;
  if (fs::is_symlink(path, link_ec)) {
    if (ec == std::errc::too_many_symbolic_link_levels)
      throw InputError(
          fmt::format("{}: a loop of symbolic links (it points, in the end, at itself): point it at "
                      "a run directory",
                      path.string()));
    throw InputError(fmt::format("{}: a symbolic link to {}, which does not exist", path.string(),
                                 fs::read_symlink(path, link_ec).string()));
  }
  if (!ec || ec == std::errc::no_such_file_or_directory)
    throw InputError(
        fmt::format("{}: no such file or directory (expected a results directory or a go test -bench "
                    "output file)",
                    path.string()));
  throw InputError(fmt::format("{}: {}", path.string(), ec.message()));
}

// A run directory's status as its run.json says, or why there is none.
std::string run_status(const fs::path& run) {
  std::error_code ec;
  if (fs::exists(run / "fleet.json", ec)) return "on several hosts";
  if (!fs::exists(run / "run.json", ec)) return "no run.json: killed, or still running";
  try {
    return records::run_status_from_text(read_input(run / "run.json"));
  } catch (const std::exception&) {
    return "damaged run.json";
  }
}

bool is_run_directory(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && (fs::exists(p / "samples.jsonl", ec) || fs::exists(p / "fleet.json", ec));
}

// A directory that is no result: what it holds, and what to type instead. Two kinds are known:
// an experiment's directory (results/<experiment>) whose runs never completed (no `latest`), and
// the top results directory, whose subdirectories are experiments.
[[noreturn]] void not_a_result(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> runs, experiments;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename() == "latest") continue;
    if (is_run_directory(entry.path())) {
      runs.push_back(entry.path());
      continue;
    }
    if (!entry.is_directory(ec)) continue;
    std::error_code sub_ec;
    for (const auto& inner : fs::directory_iterator(entry.path(), sub_ec))
      if (inner.path().filename() == "latest" || is_run_directory(inner.path())) {
        experiments.push_back(entry.path());
        break;
      }
  }
  std::sort(runs.begin(), runs.end());
  std::sort(experiments.begin(), experiments.end());
  if (!runs.empty()) {
    std::vector<std::string> listed;
    for (std::size_t i = runs.size() > 5 ? runs.size() - 5 : 0; i < runs.size(); ++i)
      listed.push_back(fmt::format("{} ({})", runs[i].filename().string(), run_status(runs[i])));
    throw InputError(
        fmt::format("{}: no run of this experiment completed (no `latest` here); its {} run(s){}: {}: read "
                    "one with `noisefloor "
                    "cv {}`, or finish it with `noisefloor run EXPERIMENT --resume {}` (EXPERIMENT: the file "
                    "it was started with)",
                    dir.string(), runs.size(), runs.size() > 5 ? ", the last 5" : "", fmt::join(listed, ", "),
                    runs.back().string(), runs.back().string()));
  }
  if (!experiments.empty()) {
    std::vector<std::string> listed;
    for (const auto& e : experiments) {
      const bool latest = fs::exists(e / "latest", ec);
      listed.push_back(fmt::format("{}{}", e.filename().string(), latest ? "" : " (no completed run)"));
    }
    fs::path example = experiments.front();
    for (const auto& e : experiments)
      if (fs::exists(e / "latest", ec)) {
        example = e;
        break;
      }
    throw InputError(
        fmt::format("{}: a directory of experiments' results, not one result: it holds {}: give one, "
                    "e.g. `noisefloor cv {}` (its latest run)",
                    dir.string(), fmt::join(listed, ", "), example.string()));
  }
  throw InputError(fmt::format(
      "{}: no samples.jsonl here: not a noisefloor result (or its samples were removed)", dir.string()));
}

}  // namespace

fs::path resolve(const fs::path& path) {
  std::error_code ec;
  if (fs::exists(path / "samples.jsonl", ec) || fs::exists(path / "fleet.json", ec)) return path;
  // `latest` even when it leads nowhere: load() then says why.
  if (fs::is_symlink(path / "latest", ec) || fs::exists(path / "latest", ec)) return path / "latest";
  return path;
}

records::Result load(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) unreachable(path, ec);
  if (fs::is_regular_file(status)) return read_gotest_file(path);
  const fs::path dir = resolve(path);
  const fs::file_status dir_status = fs::status(dir, ec);
  if (ec || !fs::exists(dir_status)) unreachable(dir, ec);
  if (!fs::is_directory(dir_status))
    throw InputError(
        fmt::format("{}: not a results directory (expected results/<experiment>/<run>/ or "
                    "a go test -bench output file)",
                    dir.string()));
  if (!fs::exists(dir / "samples.jsonl", ec) && fs::exists(dir / "fleet.json", ec))
    throw InputError(
        fmt::format("{}: a run on several hosts: give one host's directory ({}/hosts/<host>) or read it "
                    "whole with cv or report",
                    dir.string(), dir.string()));
  if (!fs::exists(dir / "samples.jsonl", ec)) not_a_result(dir);
  ResultFiles f;
  f.source = fs::weakly_canonical(dir, ec).string();
  if (ec) f.source = dir.string();
  f.samples_jsonl = read_input(dir / "samples.jsonl", kSamplesLimit);
  const auto optional_file = [&](const char* name) -> std::optional<std::string> {
    return fs::exists(dir / name, ec) ? std::optional(read_input(dir / name)) : std::nullopt;
  };
  f.run_json = optional_file("run.json");
  f.fingerprint_json = optional_file("fingerprint.json");
  f.summary_json = optional_file("summary.json");
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".txt" && entry.is_regular_file(ec))
      f.raw[entry.path().stem().string()] = read_input(entry.path());
  return decode_result(f);
}

std::optional<Fleet> load_fleet(const fs::path& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return std::nullopt;
  const fs::path dir = resolve(path);
  if (!fs::exists(dir / "fleet.json", ec)) return std::nullopt;
  Fleet fleet;
  const std::string text = read_input(dir / "fleet.json");
  try {
    fleet.record = records::fleet_from_text(text);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: {}", (dir / "fleet.json").string(), e.what()));
  }
  for (const auto& h : fleet.record.hosts) {
    if (h.name.find('/') != std::string::npos || h.name == ".." || h.name == ".")
      throw InputError(
          fmt::format("{}: host name \"{}\" is not a directory name", (dir / "fleet.json").string(), h.name));
    const fs::path host_dir = dir / "hosts" / h.name;
    if (!fs::exists(host_dir / "samples.jsonl", ec)) {
      fleet.missing.push_back(h);
      continue;
    }
    records::Result r = load(host_dir);
    r.label = h.name;
    fleet.hosts.push_back(std::move(r));
  }
  return fleet;
}

records::Supersedes superseded_run(const fs::path& path) {
  std::error_code ec;
  const fs::path dir = resolve(path);
  if (!fs::is_directory(dir, ec))
    throw InputError(
        fmt::format("--supersedes {}: not a run directory (results/<experiment>/<run>)", path.string()));
  const fs::path canonical = fs::canonical(dir, ec);
  records::Supersedes out;
  out.path = (ec ? fs::absolute(dir) : canonical).string();
  out.run_id = (ec ? dir : canonical).filename().string();
  if (const auto text = files::try_read_regular(dir / "run.json", kRecordLimit)) {
    try {
      const records::RunRecord run = records::run_from_text(*text, (dir / "run.json").string());
      if (!run.run_id.empty()) out.run_id = run.run_id;
      out.experiment = run.experiment;
    } catch (const std::exception& err) {
      throw InputError(
          fmt::format("--supersedes {}: its run.json does not load ({})", path.string(), err.what()));
    }
  } else if (!fs::exists(dir / "samples.jsonl", ec)) {
    throw InputError(fmt::format(
        "--supersedes {}: not a run directory (no run.json or samples.jsonl): name the run whose figures "
        "this run replaces, results/<experiment>/<run>",
        path.string()));
  }
  if (out.experiment.empty()) out.experiment = (ec ? dir : canonical).parent_path().filename().string();
  return out;
}

std::map<std::string, std::vector<Superseder>> supersessions(const fs::path& root) {
  std::map<std::string, std::vector<Superseder>> out;
  std::error_code ec;
  for (const auto& experiment : fs::directory_iterator(root, ec)) {
    std::error_code inner;
    if (!experiment.is_directory(inner)) continue;
    for (const auto& run : fs::directory_iterator(experiment.path(), inner)) {
      std::error_code e2;
      if (run.path().filename() == "latest" || !run.is_directory(e2)) continue;
      // another run's file, in a tree that may have been downloaded: a FIFO or a link to
      // /dev/zero there must not hang or flood the reading of this one
      const auto text = files::try_read_regular(run.path() / "run.json", kRecordLimit);
      if (!text || text->find("\"supersedes\"") == std::string::npos) continue;
      try {
        const records::RunRecord record = records::run_from_text(*text, (run.path() / "run.json").string());
        if (!record.supersedes || record.supersedes->path.empty()) continue;
        std::error_code e3;
        const fs::path target = fs::canonical(record.supersedes->path, e3);
        if (e3) continue;  // the superseded run is gone
        out[target.string()].push_back(
            {run.path().string(), record.run_id, record.experiment, record.started_utc});
      } catch (const std::exception&) {
        // a run that does not load says nothing about another
      }
    }
  }
  for (auto& [path, list] : out)
    std::sort(list.begin(), list.end(),
              [](const Superseder& a, const Superseder& b) { return a.started_utc < b.started_utc; });
  return out;
}

std::vector<Superseder> superseders(const fs::path& run_dir) {
  std::error_code ec;
  const fs::path me = fs::canonical(run_dir, ec);
  if (ec) return {};
  auto all = supersessions(me.parent_path().parent_path());
  const auto it = all.find(me.string());
  return it == all.end() ? std::vector<Superseder>{} : std::move(it->second);
}

}  // namespace noisefloor::results
