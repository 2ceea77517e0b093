// A published table a replay is held against (`reference:` in an experiment): per condition the
// figures a publication printed. Read from the demo's cv-summary.txt, a noisefloor summary.json
// or result directory, or a markdown table (parsers/published.hpp); recorded in run.json so a
// result keeps the reference it was judged against. Pure values.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace noisefloor::model {

struct PublishedRow {
  std::string condition;
  std::string benchmark;  // as published ("" when the table names none)
  std::optional<int> n;
  std::optional<double> mean, stddev, cv_pct, median, min, max;
  friend bool operator==(const PublishedRow&, const PublishedRow&) = default;
};

struct PublishedTable {
  std::string source;               // the experiment's free text: who published it, where
  std::string file;                 // where it was read from, as the experiment names it ("" when inline)
  std::string format;               // "cv-summary", "summary.json", "result", "markdown"
  std::string unit;                 // e.g. "ns/op" when the table says
  std::vector<std::string> header;  // cv-summary.txt's `#` lines
  std::vector<PublishedRow> rows;
  friend bool operator==(const PublishedTable&, const PublishedTable&) = default;
};

}  // namespace noisefloor::model
