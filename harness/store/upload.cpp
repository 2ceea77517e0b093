#include "store/upload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "analysis/analysis.hpp"
#include "analysis/judge.hpp"
#include "hash/sha256.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"
#include "model/version.hpp"
#include "render/json.hpp"
#include "render/warnings.hpp"
#include "results/decode.hpp"

namespace noisefloor::store {
namespace {

constexpr const char* kRequired[] = {"samples.jsonl", "run.json", "fingerprint.json", "summary.json"};
constexpr std::size_t kLongestName = 200;           // an experiment, condition or benchmark name, in bytes
constexpr std::size_t kLargestOptional = 8u << 20;  // a report beside the required files, expanded
constexpr double kLargestCv = 1e6;  // a CV in % beyond this is no measurement (and overflows the page's axis)

const ArchiveFile* find(const std::vector<ArchiveFile>& files, std::string_view name) {
  for (const auto& f : files)
    if (f.name == name) return &f;
  return nullptr;
}

// A name the page shows: not empty, at most kLongestName bytes, no control characters (markup is
// let in and escaped where it is shown).
void check_name(std::string_view what, const std::string& name) {
  const bool control = std::any_of(name.begin(), name.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  if (name.empty() || name.size() > kLongestName || control)
    throw UploadError(fmt::format("{} \"{}\" is empty, longer than {} bytes or holds control characters",
                                  what, name.substr(0, 40), kLongestName));
}

// An experiment's name is a path segment of its page: no '/', not only dots ("." or "..").
void check_experiment(const std::string& name) {
  check_name("experiment", name);
  if (name.find('/') != std::string::npos || name.find_first_not_of('.') == std::string::npos)
    throw UploadError(
        fmt::format("experiment \"{}\" holds '/' or is only dots: name it as a directory could be", name));
}

// The files beside the required ones (reports) are kept to be served: at most kLargestOptional each.
void check_sizes(const std::vector<ArchiveFile>& files) {
  for (const auto& f : files)
    if (!required_file(f.name) && f.content.size() > kLargestOptional)
      throw ArchiveError(
          fmt::format("archive entry '{}' is {} bytes, more than a report may be ({}): leave it out", f.name,
                      f.content.size(), kLargestOptional),
          ArchiveError::Kind::too_large);
}

// Every value of every row a number and every summary finite: NaN and infinities are refused.
void check_numbers(const analysis::Table& table) {
  for (const analysis::Row* row : analysis::all_rows(table)) {
    check_name("condition", row->condition);
    check_name("benchmark", row->name);
    if (row->not_numbers > 0)
      throw UploadError(fmt::format("{} / {}: {} values of {} are not numbers", row->condition, row->name,
                                    row->not_numbers, row->unit));
    for (const double v : row->values)
      if (!std::isfinite(v))
        throw UploadError(
            fmt::format("{} / {}: a value of {} is not finite", row->condition, row->name, row->unit));
    if (!std::isfinite(row->summary.mean) || (row->summary.stddev && !std::isfinite(*row->summary.stddev)))
      throw UploadError(fmt::format("{} / {}: its mean or spread is not finite", row->condition, row->name));
    if (row->summary.cv_pct && !(std::abs(*row->summary.cv_pct) <= kLargestCv))
      throw UploadError(fmt::format("{} / {}: a CV of {:g}% is no measurement", row->condition, row->name,
                                    *row->summary.cv_pct));
  }
}

// The run as every reader decodes it (results::decode_result), from the upload's files in memory,
// labelled with its run id as a run directory's name would label it.
records::Result load_files(const std::vector<ArchiveFile>& files) {
  results::ResultFiles r;
  const auto text_of = [&files](std::string_view name) -> std::optional<std::string> {
    const ArchiveFile* f = find(files, name);
    return f ? std::optional(f->content) : std::nullopt;
  };
  r.samples_jsonl = text_of("samples.jsonl").value_or("");
  r.run_json = text_of("run.json");
  r.fingerprint_json = text_of("fingerprint.json");
  r.summary_json = text_of("summary.json");
  for (const auto& f : files)
    if (f.name.ends_with(".txt")) r.raw[f.name.substr(0, f.name.size() - 4)] = f.content;
  try {
    records::Result result = results::decode_result(r);
    if (!result.warnings.empty())
      throw UploadError(
          fmt::format("the run does not load whole: {}", render::run_warning_text(result.warnings.front())));
    if (!result.run) throw UploadError("run.json does not load");
    check_name("run id", result.run->run_id);
    result.source = result.label = result.run->run_id;
    return result;
  } catch (const UploadError&) {
    throw;
  } catch (const Error& err) {
    throw UploadError(fmt::format("the run does not load: {}", err.what()));
  }
}

std::vector<StoredRow> rows_of(const analysis::Table& table) {
  std::vector<StoredRow> rows;
  for (const analysis::Row& r : table.rows)
    rows.push_back({r.condition, analysis::row_name(r.benchmark, r.config_label, r.variant), r.unit,
                    static_cast<std::int64_t>(r.summary.n), r.summary.mean, r.summary.median,
                    r.summary.cv_pct});
  return rows;
}

std::vector<StoredClaim> claims_of(const analysis::Analysis& a, const records::RunRecord& run) {
  if (run.claims.empty()) return {};
  try {
    const analysis::Judgement j =
        analysis::judge(a.table, a.paired, run.claims, run.claims_seed, std::nullopt);
    std::vector<StoredClaim> out;
    for (const auto& c : j.claims) out.push_back({c.run.claim, std::string(model::name_of(c.run.verdict))});
    return out;
  } catch (const Error& err) {
    throw UploadError(fmt::format("a recorded claim does not parse: {}", err.what()));
  }
}

std::string engine_of(const records::Fingerprint& fp) {
  if (!fp.engine) return "none";
  return fmt::format("{} {}", fp.engine->product.empty() ? "engine" : fp.engine->product,
                     fp.engine->server_version);
}

void gate_of(const analysis::Analysis& a, StoredRun& run) {
  if (!a.gate || !a.gate_sides) return;
  run.gate =
      fmt::format("{}..{}", a.gate_sides->base.commit.substr(0, 12), a.gate_sides->head.commit.substr(0, 12));
  run.gate_verdict =
      a.gate->regression() ? records::GateOutcome::regression : records::GateOutcome::no_regression;
}

}  // namespace

bool required_file(const std::string& name) {
  return std::find(std::begin(kRequired), std::end(kRequired), name) != std::end(kRequired);
}

std::string content_id(const std::vector<ArchiveFile>& files) {
  std::vector<const ArchiveFile*> sorted;
  for (const auto& f : files)
    if (required_file(f.name)) sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  hash::Sha256 digest;
  for (const auto* f : sorted) {
    digest.update(fmt::format("{}\n{}\n", f->name, f->content.size()));
    digest.update(f->content);
  }
  return digest.hex();
}

Upload open_upload(std::string archive, const ArchiveLimits& limits) {
  Upload upload{unpack(archive, limits), "", std::move(archive)};
  for (const char* name : kRequired)
    if (!find(upload.files, name))
      throw UploadError(fmt::format("the upload has no {}: publish a finished run's directory", name));
  check_sizes(upload.files);
  upload.id = content_id(upload.files);
  return upload;
}

StoredRun receive(Upload upload, const std::function<void(const std::string&)>& admit) {
  records::Result result = load_files(upload.files);
  const records::RunRecord run = *result.run;
  check_experiment(run.experiment);
  if (admit) admit(run.experiment);  // before the analysis: the costly part
  if (run.status != records::RunStatus::complete)
    throw UploadError(fmt::format("the run is {}: publish a complete run", model::name_of(run.status)));
  StoredRun stored;
  stored.machine = machine_of(result.fingerprint);
  stored.engine = engine_of(result.fingerprint);
  stored.version = result.fingerprint.run ? result.fingerprint.run->noisefloor_version : "unknown";
  const analysis::Analysis a = analysis::analyze({std::move(result)});
  check_numbers(a.table);
  if (render::summary_json(a) != find(upload.files, "summary.json")->content)
    throw UploadError(fmt::format(
        "summary.json is not what its samples give, as noisefloor {} recomputes them: publish the run as "
        "noisefloor wrote it (a run written by another version may need the server's)",
        kVersion));
  stored.id = upload.id;
  stored.experiment = run.experiment;
  stored.run_id = run.run_id;
  stored.started_utc = run.started_utc;
  stored.finished_utc = run.finished_utc;
  stored.status = std::string(model::name_of(run.status));
  stored.rows = rows_of(a.table);
  stored.claims = claims_of(a, run);
  gate_of(a, stored);
  stored.archive = std::move(upload.archive);
  return stored;
}

}  // namespace noisefloor::store
