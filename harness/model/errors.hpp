// Error types shared by every module. Only cli/ turns them into messages and exit codes.
//
// Messages are lower-case, name where (file:line:col, the request, the condition) and what to do,
// and carry no trailing period.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace noisefloor {

// Base of every error noisefloor reports to a user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // A message that quotes output after its one-line headline (text::last_lines: "; last lines of
  // its output:\n    | ..."): what() is both, and the headline can be added to without parsing.
  Error(const std::string& headline, const std::string& quoted)
      : std::runtime_error(headline + quoted), headline_size_(headline.size()) {}
  std::string_view headline() const { return std::string_view(what()).substr(0, headline_size_); }
  std::string_view quoted() const {
    const std::string_view all = what();
    return headline_size_ < all.size() ? all.substr(headline_size_) : std::string_view();
  }

 private:
  std::size_t headline_size_ = std::string_view::npos;  // npos: no quote, the headline is what()
};

// Bad experiment file or bad usage: exit code 2, nothing is written.
// what() is "file:line:col: message" (1-based line and column).
class ConfigError : public Error {
 public:
  using Error::Error;
};

// A file given to noisefloor to read that is not what it should be: a damaged results directory
// (a file missing, invalid JSON, a newer schema), or a file that is not `go test` output. Exit code
// 2, like a bad experiment file; what() begins with the file it is about.
class InputError : public Error {
 public:
  using Error::Error;
};

// Benchmark output that cannot be read: "run 3 of 'noisy': gotest: ..."
class ParseError : public Error {
 public:
  using Error::Error;
};

// Anything that made a run fail (a benchmark exited non-zero, a timeout, a container problem).
class RunError : public Error {
 public:
  using Error::Error;
};

// Thrown between (or inside) measurements after SIGINT/SIGTERM so RAII guards run: exit code 130.
// what() is "interrupted", or says more (where the samples measured so far are kept).
class Interrupted : public Error {
 public:
  Interrupted() : Error("interrupted") {}
  explicit Interrupted(const std::string& what) : Error(what) {}
};

}  // namespace noisefloor
