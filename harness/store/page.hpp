// The store's pages, rendered on the server in the report's style, with no external assets. Pure.
//
// An experiment's page answers what a talk's audience asks of three hundred replays: how each
// condition's CV is spread across machines (a box from the first to the third quartile, the median,
// one mark per machine: the median CV of its runs), whether the talk's claims reproduce (each
// machine's latest verdict, tallied), each machine's runs over time with the change points of its
// medians (E-Divisive means, stats/README.md §3.18), and the gate results per commit. Every name a
// publisher chose is escaped.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "records/store.hpp"
#include "store/keys.hpp"
#include "store/machine.hpp"

namespace noisefloor::store {

// The page's filters (query parameters); "" for any.
struct PageFilter {
  std::string vendor, cores, virtualization, engine;
  friend bool operator==(const PageFilter&, const PageFilter&) = default;
};

struct ExperimentPage {
  std::string experiment;
  PageFilter filter;
  std::vector<Machine> machines;
  std::vector<CvPoint> points;  // by machine, then time
  std::vector<ClaimVerdict> claims;
  std::vector<GateResult> gates;
};

std::string index_page(const std::vector<records::ExperimentCount>& experiments,
                       const std::string& generated_by);
std::string experiment_page(const ExperimentPage& page, const std::string& generated_by);

// Percent-encoding of a path segment or a query value (an experiment's name in its page's path).
std::string url_part(std::string_view s);

// The settings of the change points on the page: Otava's on its TigerBeetle vectors.
inline constexpr std::size_t kPageWindow = 30;
inline constexpr double kPagePvalue = 0.01;
inline constexpr double kPageMagnitude = 0.05;

}  // namespace noisefloor::store
