// How clean a condition's room was: the label every command prints beside its numbers
// (analysis/labels.hpp derives it; harness/stats/README.md §3.6, §3.12). Pure, and light: the
// records that carry a label include this alone.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "model/names.hpp"

namespace noisefloor::analysis {

// What a condition's label rests on (analysis/labels.hpp decides, render::label_reason_text says
// it): the first reading that applies, with its figures. The basis: none given; its own spinners;
// its threads starved of a CPU; their waits for one, not starved; the load readings taken after
// each block settled; the load when the run started; nothing recorded (UNKNOWN).
struct LabelReason {
  enum class Basis { none, spinners, starved, run_queue, settled_loads, start_load, no_record };
  Basis basis = Basis::none;
  int spinners = 0;             // spinners: how many
  double waited_percent = 0;    // starved, run_queue: % of the time its threads were runnable
  bool for_each_other = false;  // run_queue: the waits were its threads' for each other, with ...
  double beside_s = 0;          // ... this much other work measured beside it
  int bad = 0, settled = 0;     // settled_loads: readings the doctor's rule calls BAD, of how many
  std::string load{};           // settled_loads (the first BAD one), start_load (when BAD): the rule's words
  friend bool operator==(const LabelReason&, const LabelReason&) = default;
};

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
