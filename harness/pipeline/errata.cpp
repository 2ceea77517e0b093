// `noisefloor errata`: the figures an old result published, matched to a new one's, and every
// place in the given files (or the git repository's tracked files) that quoted them, corrected.
#include "analysis/errata.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "files/files.hpp"
#include "git/git.hpp"
#include "jsonread/parse.hpp"
#include "model/errors.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/loading.hpp"
#include "render/errata.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;
namespace {

// One side of `errata`: what cv would show of these paths (merged as cv merges them).
analysis::Analysis errata_side(const std::vector<std::string>& paths, const char* option, bool allow) {
  if (paths.empty())
    throw ConfigError(fmt::format(
        "errata: give {} PATH (a result, results/<experiment>, or go test -bench files)", option));
  Loaded loaded = load_all(paths);
  analysis::Analysis a = analysis::analyze(std::move(loaded.results), allow || !loaded.fleets.empty());
  const std::string verdict = loaded.fleets.empty() ? rooms_verdict(a, allow) : "";
  if (!verdict.empty() && !allow)
    throw InputError(
        fmt::format("errata {}: the results come from different rooms ({}): pass "
                    "--allow-different-hosts to merge them anyway",
                    option, text::trim(verdict)));
  return a;
}

// The names both sides use, for the message when they share no figure.
std::string names_of(const std::vector<analysis::Figure>& figures) {
  std::set<std::string> conditions, benchmarks;
  for (const auto& f : figures) conditions.insert(f.condition), benchmarks.insert(f.benchmark);
  return fmt::format("conditions {}; benchmarks {}", fmt::join(conditions, ", "),
                     fmt::join(benchmarks, ", "));
}

// Regular files and every symbolic link whatever it points at (a file, a directory, nothing):
// a link is never followed, and searchable counts each as one left alone.
bool listed_for_search(const fs::path& p) {
  std::error_code e;
  return fs::is_symlink(fs::symlink_status(p, e)) || fs::is_regular_file(p, e);
}

// The git-tracked files under the current directory.
std::vector<fs::path> tracked_files() {
  const git::Output listed = git::run(fs::current_path().string(), {.args = {"ls-files", "-z"}});
  if (listed.exit_code != 0)
    throw ConfigError(fmt::format(
        "errata: {} is not in a git repository (git ls-files: {}): name the files and directories to "
        "search with --in",
        fs::current_path().string(), text::trim(listed.err)));
  std::vector<fs::path> out;
  std::size_t at = 0;
  while (at < listed.out.size()) {
    const std::size_t end = std::min(listed.out.find('\0', at), listed.out.size());
    if (end > at) out.emplace_back(listed.out.substr(at, end - at));
    at = end + 1;
  }
  std::erase_if(out, [](const fs::path& p) { return !listed_for_search(p); });
  return out;
}

// The files under directory `dir`, without hidden entries and result directories (which hold the
// figures themselves), appended to `out`.
void walk(const fs::path& dir, std::vector<fs::path>& out) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    std::error_code e;
    if (!it->is_symlink(e) && it->is_directory(e)) {
      if ((name.size() > 1 && name[0] == '.') || fs::exists(it->path() / "samples.jsonl", e))
        it.disable_recursion_pending();
      continue;
    }
    if (!name.empty() && name[0] != '.' && listed_for_search(it->path())) out.push_back(it->path());
  }
}

// The files to search: `in` (files, and directories walked), or the git-tracked files under the
// current directory.
std::vector<fs::path> files_to_search(const std::vector<std::string>& in) {
  if (in.empty()) return tracked_files();
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& place : in) {
    const fs::path p(place);
    // A place named through a symbolic link (a tracked link to a directory, or the link itself)
    // may lead out of the repository, and --apply would rewrite what lies there: never followed.
    fs::path lexical = fs::absolute(p).lexically_normal();
    if (!lexical.has_filename()) lexical = lexical.parent_path();  // "dir/"
    if (const fs::path real = fs::weakly_canonical(p, ec);
        !ec && fs::exists(fs::symlink_status(p, ec)) && real != lexical)
      throw ConfigError(fmt::format(
          "errata --in {}: goes through a symbolic link (to {}), which errata never follows: name {} "
          "itself if you mean it",
          text::shell_word(place), text::shell_word(real.string()), text::shell_word(real.string())));
    if (fs::is_regular_file(p, ec)) {
      out.push_back(p);
      continue;
    }
    if (fs::exists(fs::symlink_status(p, ec)) && !fs::is_directory(p, ec))  // a FIFO, a device, a socket
      throw ConfigError(fmt::format(
          "errata --in {}: not a regular file or a directory: errata searches files and directories only",
          text::shell_word(place)));
    if (!fs::is_directory(p, ec))
      throw ConfigError(fmt::format("errata --in {}: no such file or directory", text::shell_word(place)));
    walk(p, out);
  }
  return out;
}

// The text errata searches in `file`, counted in `view`; nullopt (counted as why) for a symbolic
// link, which is never followed (it may point out of the repository, and --apply would replace it
// with what it points at), a file over the cap, a binary one, or one that cannot be read.
std::optional<std::string> searchable(const fs::path& file, render::ErrataView& view) {
  std::error_code ec;
  // The file itself a link, or a directory on its way (a tracked docs/d.md under a docs that is now
  // a link out of the repository: --apply would write there).
  const bool linked = fs::is_symlink(fs::symlink_status(file, ec)) ||
                      fs::weakly_canonical(file, ec) != fs::absolute(file).lexically_normal() || ec;
  if (linked) {
    ++view.links;
    return std::nullopt;
  }
  if (fs::is_regular_file(fs::status(file, ec)) &&
      fs::file_size(file, ec) > render::ErrataView::kErrataFileLimit) {
    ++view.too_large;
    return std::nullopt;
  }
  auto content = files::try_read_regular(file, render::ErrataView::kErrataFileLimit, true);
  if (!content) return std::nullopt;
  if (content->find('\0') != std::string::npos) {
    ++view.binary;
    return std::nullopt;
  }
  ++view.searched;
  return content;
}

// Whether a corrected file still parses as its syntax requires ("" when it does, else why not).
std::string parse_problem(analysis::Syntax syntax, const std::string& text) {
  try {
    if (syntax == analysis::Syntax::yaml) {
      const std::vector<YAML::Node> documents = YAML::LoadAll(text);
      (void)documents;
    }
  } catch (const std::exception& err) {
    return fmt::format("the corrected {} would not parse ({}): correct it by hand", model::name_of(syntax),
                       text::trim(err.what()));
  }
  if (syntax == analysis::Syntax::json)
    if (const std::string why = jsonread::json_problem(text); !why.empty())
      return fmt::format("the corrected {} would not parse ({}): correct it by hand", model::name_of(syntax),
                         text::trim(why));
  return "";
}

std::string shown_path(const fs::path& p) {
  std::error_code ec;
  const fs::path rel = fs::relative(p, fs::current_path(), ec);
  if (!ec && !rel.empty() && rel.native().rfind("..", 0) != 0) return rel.string();
  return p.string();
}

}  // namespace

Output errata(const ErrataOptions& o) {
  require_format(o.format, kErrataFormats);
  const analysis::Analysis old_side = errata_side(o.old_paths, "--old", o.allow_different_hosts);
  const analysis::Analysis new_side = errata_side(o.new_paths, "--new", o.allow_different_hosts);
  const std::vector<analysis::Figure> old_figures = analysis::published_figures(old_side);
  std::vector<analysis::Figure> new_figures = analysis::published_figures(new_side);
  render::ErrataView view;
  // old.txt against new.txt (each go test file a condition named after it), or two one-condition
  // runs: one condition a side is the same condition, whatever its name.
  if (old_side.conditions.size() == 1 && new_side.conditions.size() == 1 &&
      old_side.conditions.front() != new_side.conditions.front()) {
    for (auto& f : new_figures) f.condition = old_side.conditions.front();
    view.notes.push_back(fmt::format("each side has one condition: {} (old) is matched with {} (new)",
                                     old_side.conditions.front(), new_side.conditions.front()));
  }
  view.corrections = analysis::match_figures(old_figures, new_figures);
  if (view.corrections.empty())
    throw ConfigError(fmt::format(
        "errata: --old and --new share no figure (old: {}; new: {}): figures are matched by condition, "
        "benchmark and statistic, so give the run that replaced the old one",
        names_of(old_figures), names_of(new_figures)));
  view.shared = view.corrections.size();
  view.old_sources = o.old_paths;
  view.new_sources = o.new_paths;
  view.in = o.in;
  view.old_title = old_side.title();
  view.new_title = new_side.title();
  view.applied = o.apply;
  view.date = o.date.empty() ? text::utc(std::chrono::system_clock::now()).substr(0, 10) : o.date;
  view.see = o.see.empty() ? fmt::format("{}", fmt::join(o.new_paths, " + ")) : o.see;
  if (!old_side.sources.empty() && !new_side.sources.empty())
    for (const auto& d :
         analysis::differences(old_side.sources.front().fingerprint, new_side.sources.front().fingerprint))
      if (d.moves_benchmarks) view.room_differences.push_back(fmt::format("{}: {} vs {}", d.field, d.a, d.b));

  // Never the results themselves: their files hold the figures.
  std::vector<fs::path> sources;
  for (const auto* side : {&old_side, &new_side})
    for (const auto& r : side->sources) {
      std::error_code ec;
      sources.push_back(fs::weakly_canonical(r.source, ec));
    }
  for (const fs::path& file : files_to_search(o.in)) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(file, ec);
    if (std::any_of(sources.begin(), sources.end(), [&](const fs::path& s) {
          const std::string c = canonical.string(), r = s.string();
          return c == r || (c.size() > r.size() && c.compare(0, r.size(), r) == 0 && c[r.size()] == '/');
        }))
      continue;
    const auto content = searchable(file, view);
    if (!content) continue;
    render::QuotingFile quoting;
    quoting.path = shown_path(file);
    quoting.syntax = analysis::syntax_of(file.filename().string());
    quoting.hits = analysis::find_quotations(*content, view.corrections, quoting.syntax);
    if (quoting.hits.empty()) continue;
    if (o.apply && std::any_of(quoting.hits.begin(), quoting.hits.end(), [](const analysis::Hit& h) {
          return h.certainty == analysis::Certainty::certain;
        })) {
      const std::string corrected =
          analysis::apply_corrections(*content, quoting.hits, quoting.syntax, view.date, view.see);
      quoting.left_as_is = parse_problem(quoting.syntax, corrected);
      if (quoting.left_as_is.empty()) {
        const fs::perms mode = fs::status(file, ec).permissions();  // a script stays executable
        files::write_atomic(file, corrected);
        if (!ec) fs::permissions(file, mode, ec);
        quoting.changed = true;
      }
    }
    view.files.push_back(std::move(quoting));
  }
  Output out;
  switch (o.format) {
    case model::PrintFormat::markdown:
      out.out = render::errata_markdown(view);
      break;
    case model::PrintFormat::json:
      out.out = render::errata_json(view);
      break;
    default:
      out.out = render::errata_text(view, o.width);
  }
  return out;
}

}  // namespace noisefloor::pipeline
