// Claims: what an experiment says it demonstrates (`claims:`), as short expressions over
// per-condition statistics, e.g. `cv(noisy) > 2 * cv(idle)`, `cv(pinned) <= 10%`,
// `median(noisy) / median(idle) within 2 ± 25%`. This is the parser; evaluate.hpp judges a
// claim (bootstrap intervals and the verdict). Pure.
//
// Grammar (whitespace is free):
//   claim   := expr op expr | expr "within" expr ("±" | "+-") number "%"
//   op      := "<" | "<=" | ">" | ">="
//   expr    := term (("+" | "-") term)*
//   term    := factor (("*" | "/") factor)*
//   factor  := number ["%"] | call | "(" expr ")" | "-" factor
//   call    := function "(" subject ["," name] ")"
//   subject := name | name "[" setting ("," setting)* "]"      (a sweep's point: noisy[spinners=2])
//   function:= cv | rcv | median | mean | stddev | min | max | n | ratio | knee
// `name` is a condition (and, second, a benchmark as printed), or for ratio() a variant. A number
// with "%" is a fraction of 100: `10%` is 0.1, and cv() and rcv() are fractions too (10% CV is
// 0.1), so `cv(pinned) <= 10%` reads as written. knee(group) is where a sweep's curve bends
// (harness/stats/README.md §3.16): the swept value of its knee point, on a numeric axis.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/names.hpp"

namespace noisefloor::claims {

enum class Function { cv, rcv, median, mean, stddev, min, max, n, ratio, knee };
std::string_view to_string(Function f);

struct Expr {
  enum class Kind { number, call, add, sub, mul, div, neg } kind = Kind::number;
  double value = 0;                // number
  Function function{};             // call
  std::string subject, benchmark;  // call: the condition (or variant) and the benchmark ("" = the first)
  std::size_t offset = 0;          // where it starts in the claim's text
  std::unique_ptr<Expr> left, right;
};

enum class Op { lt, le, gt, ge, within };

constexpr std::array<std::pair<Op, std::string_view>, 5> names(Op) {
  return {{
      {Op::lt, "<"},
      {Op::le, "<="},
      {Op::gt, ">"},
      {Op::ge, ">="},
      {Op::within, "within"},
  }};
}

std::string_view to_string(Op op);

struct Claim {
  std::string text;
  Expr lhs, rhs;
  Op op = Op::lt;
  double tolerance = 0;  // within: the fraction after ±
};

// A claim that does not parse, or names what does not exist: `offset` into the claim's text.
class ClaimError : public std::runtime_error {
 public:
  ClaimError(std::size_t offset, const std::string& message) : std::runtime_error(message), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

// What a claim may name: the experiment's conditions and (paired) variants.
struct Names {
  std::vector<std::string> conditions;
  std::vector<std::string> variants;
  // A sweep's points as a claim may also name them, "noisy[spinners=2]" (model::claim_name, no
  // spaces), and the condition each is.
  std::map<std::string, std::string> points;
};

// Parses and checks one claim. Throws ClaimError (unknown function or name with the closest one
// suggested, a missing operand, trailing text, ratio() without variants, ...).
Claim parse_claim(std::string_view text, const Names& names);

// Every call in the claim, left to right.
std::vector<const Expr*> calls(const Claim& claim);

}  // namespace noisefloor::claims
