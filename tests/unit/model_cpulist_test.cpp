#include <doctest/doctest.h>

#include "model/cpulist.hpp"

using noisefloor::model::format_cpu_list;
using noisefloor::model::parse_cpu_list;

TEST_CASE("cpu list: ranges and singles are expanded, sorted and unique") {
  CHECK(parse_cpu_list("0-3,5") == std::vector<int>{0, 1, 2, 3, 5});
  CHECK(parse_cpu_list(" 7,1-2,2\n") == std::vector<int>{1, 2, 7});
  CHECK(parse_cpu_list("") == std::vector<int>{});
  CHECK(parse_cpu_list("4") == std::vector<int>{4});
}

TEST_CASE("cpu list: malformed lists are rejected") {
  for (const char* bad : {"a-b", "3-1", "1,,2", "-1", "1-", "0x1", "1 2", ","}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_cpu_list(bad).has_value());
  }
}

TEST_CASE("cpu list: canonical text collapses ranges") {
  CHECK(format_cpu_list({0, 1, 2, 3, 5}) == "0-3,5");
  CHECK(format_cpu_list({1, 0}) == "0,1");
  CHECK(format_cpu_list({}) == "");
  CHECK(format_cpu_list({4, 6, 7, 8}) == "4,6-8");
}
