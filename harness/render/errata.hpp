// What `noisefloor errata` shows: where the superseded figures were quoted (text), the erratum to
// paste into a pull request or a status file (markdown), or both as one JSON document. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/errata.hpp"

namespace noisefloor::render {

// One searched file with quotations of an old figure.
struct QuotingFile {
  std::string path;  // as shown: relative to where errata ran, or as --in named it
  analysis::Syntax syntax = analysis::Syntax::text;
  std::vector<analysis::Hit> hits;
  bool changed = false;    // --apply rewrote its certain hits
  std::string left_as_is;  // --apply did not write it: why ("the corrected YAML would not parse: ...")
};

struct ErrataView {
  std::vector<std::string> old_sources, new_sources;  // the paths as given
  std::vector<std::string> in;                        // --in as given (empty: the git-tracked files)
  std::string old_title, new_title;                   // the experiments' names
  std::vector<analysis::Correction> corrections;      // the figures that changed
  std::size_t shared = 0;                             // figures both sides publish
  std::vector<QuotingFile> files;                     // the files with quotations, in search order
  std::size_t searched = 0, binary = 0;               // files read; files skipped as binary
  // symbolic links left alone (never followed: one may point out of the repository), and files
  // over the size errata reads
  std::size_t links = 0, too_large = 0;
  static constexpr std::uintmax_t kErrataFileLimit = 64ULL << 20;
  std::vector<std::string> room_differences;  // "field: old vs new" (fields that move benchmarks)
  std::vector<std::string> notes;             // how the sides were matched, when it needs saying
  std::string date, see;
  bool applied = false;  // --apply
};

std::string errata_text(const ErrataView& view, std::size_t width = 80);
// The erratum: what was wrong and why (labels, rooms), the corrected figures with their CIs, the
// places that quoted the old ones.
std::string errata_markdown(const ErrataView& view);
std::string errata_json(const ErrataView& view);

// A figure as noisefloor's own tables print it: "1.6712×", "18.88%", "34.97 ns/op".
std::string figure_value(const analysis::Figure& f);

}  // namespace noisefloor::render
