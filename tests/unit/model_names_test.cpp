// The words of closed sets: one table per enum, read both ways.
#include <doctest/doctest.h>

#include "model/names.hpp"

namespace noisefloor::model {

TEST_CASE("names: every print format has one name, read back to itself") {
  for (const auto& [value, name] : names(PrintFormat{})) {
    CHECK(name_of(value) == name);
    CHECK(from_name<PrintFormat>(name) == value);
  }
  CHECK_FALSE(from_name<PrintFormat>("html"));
  CHECK_FALSE(from_name<PrintFormat>("JSON"));  // names are exact
  CHECK(name_of(static_cast<PrintFormat>(99)) == "unknown");
}

TEST_CASE("names: a usage message lists what is accepted, in the order given") {
  constexpr std::array accepted{PrintFormat::markdown, PrintFormat::csv, PrintFormat::json,
                                PrintFormat::gotest, PrintFormat::summary};
  CHECK(format_problem("html", accepted) == "expected markdown, csv, json, gotest or summary, got \"html\"");
  constexpr std::array two{PrintFormat::text, PrintFormat::json};
  CHECK(names_list(std::span<const PrintFormat>(two)) == "text or json");
  CHECK(names_list(std::span<const PrintFormat>(two).first(1)) == "text");
}

}  // namespace noisefloor::model
