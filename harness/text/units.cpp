#include "text/units.hpp"

#include <fmt/format.h>

#include <cmath>

namespace noisefloor::text {
namespace {

struct Factor {
  double factor;
  const char* prefix;
  double t100, t10, t1;
};

std::vector<Factor> si_factors() {
  std::vector<Factor> out;
  int exp = 12;
  for (const char* p : {"T", "G", "M", "k", "", "m", "µ", "n"}) {
    out.push_back({std::pow(10.0, exp), p, std::stod(fmt::format("99.995e{}", exp)),
                   std::stod(fmt::format("9.9995e{}", exp)), std::stod(fmt::format(".99995e{}", exp))});
    exp -= 3;
  }
  return out;
}

std::vector<Factor> iec_factors() {
  std::vector<Factor> out;
  int exp = 40;
  for (const char* p : {"Ti", "Gi", "Mi", "Ki", ""}) {
    const double f = std::ldexp(1.0, exp);
    out.push_back({f, p, 99.995 * f, 9.9995 * f, 0.99995 * f});
    exp -= 10;
  }
  return out;
}

struct Scaler {
  int prec = 3;
  double factor = 1;
  std::string prefix;
  std::string format(double v) const {
    if (std::isnan(v)) return "?";
    return fmt::format("{:.{}f}{}", v / factor, prec, prefix);
  }
};

bool binary_class(const std::string& unit) {
  for (const auto& t : unit_tokens(unit))
    if (!t.denominator && (t.text == "B" || t.text == "MB" || t.text == "bytes")) return true;
  return false;
}

Scaler common_scale(const std::vector<double>& values, bool binary) {
  double min = 0;
  for (double v : values) {
    v = std::fabs(v);
    if (std::isfinite(v) && v != 0 && (min == 0 || v < min)) min = v;
  }
  if (min == 0) return {3, 1, ""};
  static const std::vector<Factor> kSi = si_factors();
  static const std::vector<Factor> kIec = iec_factors();
  const auto& factors = binary ? kIec : kSi;
  for (const auto& f : factors) {
    if (min >= f.t100) return {1, f.factor, f.prefix};
    if (min >= f.t10) return {2, f.factor, f.prefix};
    if (min >= f.t1) return {3, f.factor, f.prefix};
  }
  // Below the smallest prefix: more digits after the point (up to 10).
  const Factor& f = factors.back();
  const double v = min / f.factor;
  for (int i = 0; i < 8; ++i) {
    const double thresh = std::stod(fmt::format("9.9995e{}", -1 - i));
    if (v >= thresh || i == 7) return {i + 3, f.factor, f.prefix};
  }
  return {10, f.factor, f.prefix};
}

}  // namespace

std::vector<UnitToken> unit_tokens(std::string_view unit) {
  std::vector<UnitToken> out;
  bool denominator = false;
  std::size_t i = 0;
  const auto separator = [](char c) { return c == '*' || c == '/' || c == '-' || c == ' ' || c == '\t'; };
  while (i < unit.size()) {
    const char c = unit[i];
    if (separator(c)) {
      if (c == '*') denominator = false;
      if (c == '/') denominator = true;
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < unit.size() && !separator(unit[i])) ++i;
    out.push_back({std::string(unit.substr(start, i - start)), denominator, start});
  }
  return out;
}

std::pair<std::string, double> tidy_unit(const std::string& unit) {
  if (unit == "ns/op") return {"sec/op", 1e-9};
  if (unit == "MB/s") return {"B/s", 1e6};
  if (unit == "B/op" || unit == "allocs/op") return {unit, 1.0};
  if (unit.find("ns") == std::string::npos && unit.find("MB") == std::string::npos) return {unit, 1.0};
  std::string tidied = unit;
  double factor = 1;
  const auto tokens = unit_tokens(unit);
  // From the last token back, so earlier offsets stay right.
  for (auto t = tokens.rbegin(); t != tokens.rend(); ++t) {
    if (t->denominator) continue;
    if (t->text == "ns") {
      tidied.replace(t->position, 2, "sec");
      factor /= 1e9;
    } else if (t->text == "MB") {
      tidied.replace(t->position, 2, "B");
      factor *= 1e6;
    }
  }
  return {tidied, factor};
}

std::vector<std::string> scale_values(const std::vector<double>& tidied, const std::string& tidied_unit) {
  const Scaler s = common_scale(tidied, binary_class(tidied_unit));
  std::vector<std::string> out;
  for (double v : tidied) out.push_back(s.format(v));
  return out;
}

}  // namespace noisefloor::text
