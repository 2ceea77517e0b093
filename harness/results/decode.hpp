// The on-disk schema, read side: the files of a result directory (or a go test -bench file)
// decoded into typed records. Pure (results/load.hpp reads the files). Reads every schema 1
// result noisefloor has written since 0.1.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/gotest.hpp"
#include "records/result.hpp"

namespace noisefloor::results {

// The texts of one result directory's files. `source` is the directory, for messages.
struct ResultFiles {
  std::string source;
  std::string samples_jsonl;
  std::optional<std::string> run_json, fingerprint_json;
  // Results written before run.json recorded the experiment's description, file and comparison
  // settings and the adaptive outcomes kept them only in summary.json: read from there.
  std::optional<std::string> summary_json;
  std::map<std::string, std::string> raw;  // the *.txt files by name without extension (<condition>.txt)
};

// Throws InputError naming the file and line: a malformed sample line (a torn last line is only a
// warning: a crash mid-write), a run.json or fingerprint.json that is not valid, a newer schema.
records::Result decode_result(const ResultFiles& files);

// A plain `go test -bench` output file as one condition named after the file (without extension).
// Throws InputError when it holds no benchmark result line or one that cannot be read.
records::Result decode_gotest_file(const std::string& path, std::string_view text);

// The same, fed in pieces of any size as they are read (a million-line file is never held
// whole): each complete line is decoded as it arrives, straight into the columnar samples.
class GoTestFileDecoder {
 public:
  // `expected_bytes`: the file's size when known; after the first piece the samples reserve
  // room for the rest in proportion (no vector doubles past what the file holds).
  explicit GoTestFileDecoder(const std::string& path, std::uintmax_t expected_bytes = 0);
  void feed(std::string_view bytes);
  records::Result finish();  // throws InputError when no result line arrived

 private:
  void feed_lines(std::string_view bytes);
  void line(std::string_view line);
  records::Result r_;
  std::string pending_;  // an incomplete last line
  bool header_ = true;   // before the first line that starts with "Benchmark"
  std::map<std::string, std::string> config_;
  std::string config_text_;  // of config_, kept current
  // Per key, the value every result so far was printed under, or nullopt once it differed: the
  // constant ones are the file's room facts (fingerprint.gotest); the others tell rows apart.
  std::map<std::string, std::optional<std::string>> seen_;
  std::string seen_text_ = "\x01";  // the configuration seen_ last took in
  std::size_t line_ = 0;
  parsers::ResultFields fields_;
  std::size_t results_ = 0;
  std::uintmax_t expected_ = 0, fed_ = 0;
};

}  // namespace noisefloor::results
