#include "claims/claim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "text/text.hpp"

namespace noisefloor::claims {
namespace {

constexpr std::pair<std::string_view, Function> kFunctions[] = {
    {"cv", Function::cv},     {"rcv", Function::rcv},       {"median", Function::median},
    {"mean", Function::mean}, {"stddev", Function::stddev}, {"min", Function::min},
    {"max", Function::max},   {"n", Function::n},           {"ratio", Function::ratio},
    {"knee", Function::knee}};

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '/' ||
         c == ':';
}

class Parser {
 public:
  Parser(std::string_view text, const Names& names) : s_(text), names_(names) {}

  Claim claim() {
    Claim c;
    c.text = std::string(s_);
    c.lhs = expr();
    skip();
    const std::size_t at = pos_;
    if (word("within")) {
      c.op = Op::within;
      c.rhs = expr();
      skip();
      if (s_.substr(pos_).starts_with("±")) {
        pos_ += std::string_view("±").size();
      } else if (s_.substr(pos_).starts_with("+-")) {
        pos_ += 2;
      } else {
        fail(pos_, "expected ± (or +-) and a percentage after `within A`, e.g. within 2 ± 10%");
      }
      skip();
      const std::size_t n_at = pos_;
      const double tol = number();
      skip();
      if (!eat('%')) fail(pos_, "expected % after the tolerance of `within`, e.g. ± 10%");
      if (!(tol >= 0)) fail(n_at, "the tolerance of `within` must not be negative");
      c.tolerance = tol / 100;
    } else if (eat2("<=")) {
      c.op = Op::le;
    } else if (eat2(">=")) {
      c.op = Op::ge;
    } else if (eat('<')) {
      c.op = Op::lt;
    } else if (eat('>')) {
      c.op = Op::gt;
    } else {
      fail(at, pos_ >= s_.size()
                   ? "expected a comparison (<, <=, >, >= or within) after the expression"
                   : fmt::format("expected a comparison (<, <=, >, >= or within), got {}", rest()));
    }
    if (c.op != Op::within) c.rhs = expr();
    skip();
    if (pos_ < s_.size()) fail(pos_, fmt::format("unexpected {} after the claim", rest()));
    if (calls_ == 0) fail(0, "a claim must name at least one statistic, e.g. cv(noisy)");
    return c;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& message) const { throw ClaimError(at, message); }

  std::string rest() const {
    std::string r(s_.substr(pos_, 12));
    return text::quote(pos_ + 12 < s_.size() ? r + "…" : r);
  }

  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool eat2(std::string_view two) {
    skip();
    if (s_.substr(pos_).starts_with(two)) {
      pos_ += two.size();
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    skip();
    if (!s_.substr(pos_).starts_with(w)) return false;
    const std::size_t end = pos_ + w.size();
    if (end < s_.size() && name_char(s_[end])) return false;
    pos_ = end;
    return true;
  }
  std::string name() {
    skip();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  double number() {
    skip();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.'))
      ++pos_;
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    double v = 0;
    const auto [end, ec] = std::from_chars(s_.data() + start, s_.data() + pos_, v);
    if (start == pos_ || ec != std::errc() || end != s_.data() + pos_ || !std::isfinite(v))
      fail(start,
           fmt::format("expected a number, got {}",
                       text::quote(std::string(s_.substr(start, std::max<std::size_t>(pos_ - start, 1))))));
    return v;
  }

  Expr expr() {
    Expr left = term();
    while (true) {
      skip();
      const std::size_t at = pos_;
      Expr::Kind kind;
      if (s_.substr(pos_).starts_with("+-")) return left;  // `within A +- B%`
      if (eat('+')) {
        kind = Expr::Kind::add;
      } else if (eat('-')) {
        kind = Expr::Kind::sub;
      } else {
        return left;
      }
      left = binary(kind, std::move(left), term(), at);
    }
  }
  Expr term() {
    Expr left = factor();
    while (true) {
      skip();
      const std::size_t at = pos_;
      if (eat('*')) {
        left = binary(Expr::Kind::mul, std::move(left), factor(), at);
      } else if (eat('/')) {
        left = binary(Expr::Kind::div, std::move(left), factor(), at);
      } else {
        return left;
      }
    }
  }
  static Expr binary(Expr::Kind kind, Expr l, Expr r, std::size_t at) {
    Expr e;
    e.kind = kind;
    e.offset = l.offset;
    (void)at;
    e.left = std::make_unique<Expr>(std::move(l));
    e.right = std::make_unique<Expr>(std::move(r));
    return e;
  }
  Expr factor() {
    skip();
    const std::size_t at = pos_;
    if (pos_ >= s_.size())
      fail(at, "the claim ends where a number or a statistic such as cv(idle) should be");
    if (eat('(')) {
      Expr inner = expr();
      if (!eat(')')) fail(pos_, "expected ) to close the ( at column " + std::to_string(at + 1));
      inner.offset = at;
      return inner;
    }
    if (eat('-')) {
      Expr e;
      e.kind = Expr::Kind::neg;
      e.offset = at;
      e.left = std::make_unique<Expr>(factor());
      return e;
    }
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      Expr e;
      e.offset = at;
      e.value = number();
      if (eat('%')) e.value /= 100;
      return e;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)))
      fail(at, fmt::format("expected a number or a statistic such as cv(idle), got {}", rest()));
    return call(at);
  }
  // The function named at `at`, or an error that names the one meant.
  Function function_at(std::size_t at, const std::string& fn) {
    const auto it = std::find_if(std::begin(kFunctions), std::end(kFunctions),
                                 [&](const auto& f) { return f.first == fn; });
    if (it != std::end(kFunctions)) return it->second;
    std::vector<std::string> known;
    for (const auto& f : kFunctions) known.emplace_back(f.first);
    const std::string near = text::closest(fn, known);
    fail(at, near.empty()
                 ? fmt::format("unknown function {} (expected one of: cv, rcv, median, mean, stddev, min, "
                               "max, n, ratio, knee)",
                               text::quote(fn))
                 : fmt::format("unknown function {} (did you mean {}?)", text::quote(fn), text::quote(near)));
  }
  // A call at `at`: cv(idle), median(noisy[spinners=2], BenchmarkX).
  Expr call(std::size_t at) {
    const std::string fn = name();
    Expr e;
    e.kind = Expr::Kind::call;
    e.function = function_at(at, fn);
    e.offset = at;
    if (!eat('(')) fail(pos_, fmt::format("expected ( after {}, e.g. {}(idle)", fn, fn));
    skip();
    const std::size_t subject_at = pos_;
    e.subject = name();
    if (e.subject.empty())
      fail(subject_at,
           fmt::format("{}() needs {}", fn, e.function == Function::ratio ? "a variant" : "a condition"));
    if (pos_ < s_.size() && s_[pos_] == '[')
      point(e, subject_at);
    else
      check_subject(e, subject_at);
    if (eat(',')) {
      skip();
      const std::size_t b_at = pos_;
      e.benchmark = name();
      if (e.benchmark.empty()) fail(b_at, "expected a benchmark name after the comma");
    }
    if (!eat(')')) fail(pos_, fmt::format("expected ) after {}({}", fn, e.subject));
    ++calls_;
    return e;
  }
  // A sweep's point, noisy[spinners=2]: the condition generated for it.
  void point(Expr& e, std::size_t at) {
    std::string written = e.subject + "[";
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != ']') {
      if (!std::isspace(static_cast<unsigned char>(s_[pos_]))) written += s_[pos_];
      ++pos_;
    }
    if (pos_ == s_.size()) fail(at, fmt::format("expected ] after {}", written));
    ++pos_;
    written += "]";
    if (const auto it = names_.points.find(written); it != names_.points.end()) {
      e.subject = it->second;
      return;
    }
    std::vector<std::string> known;
    for (const auto& [p, condition] : names_.points)
      if (p.starts_with(e.subject + "[")) known.push_back(p);
    if (known.empty())
      fail(at,
           fmt::format("{} is not a sweep: {}[...] names a point of a condition written with {{sweep: ...}}",
                       text::quote(e.subject), e.subject));
    fail(at, fmt::format("no sweep point {} (points: {})", text::quote(written), fmt::join(known, ", ")));
  }
  void check_subject(const Expr& e, std::size_t at) const {
    if (e.function == Function::knee) {
      std::vector<std::string> groups;
      for (const auto& [p, condition] : names_.points) {
        const std::string group = p.substr(0, p.find('['));
        if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
      }
      if (std::find(groups.begin(), groups.end(), e.subject) != groups.end()) return;
      fail(at,
           groups.empty()
               ? std::string("knee() needs a swept condition, and this experiment has none ({sweep: [...]})")
               : fmt::format("knee(): {} is not a swept condition (swept: {})", text::quote(e.subject),
                             fmt::join(groups, ", ")));
    }
    const bool variant = e.function == Function::ratio;
    const auto& list = variant ? names_.variants : names_.conditions;
    if (variant && list.empty()) fail(at - 6, "ratio() is for paired experiments: this one has no variants");
    if (std::find(list.begin(), list.end(), e.subject) != list.end()) return;
    const std::string near = text::closest(e.subject, list);
    const std::string what = variant ? "variant" : "condition";
    fail(at, near.empty() ? fmt::format("unknown {} {} ({}s: {})", what, text::quote(e.subject), what,
                                        fmt::join(list, ", "))
                          : fmt::format("unknown {} {} (did you mean {}?)", what, text::quote(e.subject),
                                        text::quote(near)));
  }

  std::string_view s_;
  const Names& names_;
  std::size_t pos_ = 0;
  int calls_ = 0;
};

void collect(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == Expr::Kind::call) out.push_back(&e);
  if (e.left) collect(*e.left, out);
  if (e.right) collect(*e.right, out);
}

}  // namespace

std::string_view to_string(Function f) {
  for (const auto& [name, fn] : kFunctions)
    if (fn == f) return name;
  return "?";
}

std::string_view to_string(Op op) { return model::name_of(op); }

Claim parse_claim(std::string_view text, const Names& names) { return Parser(text, names).claim(); }

std::vector<const Expr*> calls(const Claim& claim) {
  std::vector<const Expr*> out;
  collect(claim.lhs, out);
  collect(claim.rhs, out);
  return out;
}

}  // namespace noisefloor::claims
