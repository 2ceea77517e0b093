// How clean a condition's room was: the label every command prints beside its numbers
// (analysis/labels.hpp derives it; harness/stats/README.md §3.6, §3.12). Pure, and light: the
// records that carry a label include this alone.
#pragma once

#include <array>
#include <string_view>
#include <utility>

#include "model/names.hpp"

namespace noisefloor::analysis {

// MEASURED-clean: no load and a doctor grade of ready or limited; CONTENDED-PAIRED: load
// present, paired design; CONTENDED: load present, not paired; UNKNOWN: nothing recorded (a go
// test file).
enum class Label { measured_clean, contended_paired, contended, unknown };
std::string_view to_string(Label label);  // "MEASURED-clean", "CONTENDED-PAIRED", "CONTENDED", "UNKNOWN"

constexpr std::array<std::pair<Label, std::string_view>, 4> names(Label) {
  return {{
      {Label::measured_clean, "MEASURED-clean"},
      {Label::contended_paired, "CONTENDED-PAIRED"},
      {Label::contended, "CONTENDED"},
      {Label::unknown, "UNKNOWN"},
  }};
}

}  // namespace noisefloor::analysis
