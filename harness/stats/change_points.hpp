// Change points of a series by E-Divisive means, as Apache Otava (formerly Hunter) computes them
// (harness/stats/README.md §3.18): windowed detection with a t-test for significance, then weak
// points merged away. Pure and deterministic (no permutations).
//
// Ported from Apache Otava (incubating), apache/otava at 1ceb1537 (otava/analysis.py,
// otava/change_point_divisive/), Apache License 2.0; Copyright 2020-2025 The Apache Software
// Foundation. This product includes software developed at The Apache Software Foundation
// (https://www.apache.org/). Its test vectors are in tests/data/otava/ with the licence.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace noisefloor::stats {

// Otava's defaults: a 50-point window, p ≤ 0.001, any magnitude.
struct ChangePointSettings {
  std::size_t window = 50;    // at least 2
  double max_pvalue = 0.001;  // a change point's t-test against its neighbours must reach it
  double min_magnitude = 0;   // and its relative change of the mean must exceed this (0: any but none)
};

// The two segments around a change point: [previous point or 0, index) and [index, next or n).
struct SegmentTest {
  double mean_before = 0, mean_after = 0;
  double std_before = 0, std_after = 0;  // population (ddof 0), as Otava feeds its t-test
  double pvalue = 1;                     // two-sided pooled Student t; NaN when both sides are flat and equal
  // max(|after/before − 1|, |before/after − 1|), a side whose mean is 0 counting 0.
  double magnitude() const;
};

struct ChangePoint {
  std::size_t index = 0;  // the first point of the new segment (never 0)
  SegmentTest test;
};

// The change points of `series`, ascending, each with its test against its final neighbours (Otava
// chooses the same points but can leave a point with the test of a segment since merged away).
// Throws on a value that is not finite.
std::vector<ChangePoint> change_points(std::span<const double> series,
                                       const ChangePointSettings& settings = {});

// The building blocks, for the tests of §3.18. Both hold every pair of x: O(n²) memory in its length
// (change_points calls them on a window at a time).
// The E-Divisive candidate of x[start, end): the split τ (first index of the right part) of the
// first maximum of Q̂(τ, κ) over start < τ < κ ≤ end, τ then κ ascending, and that maximum;
// nullopt when the interval has fewer than 2 points.
struct DivisiveCandidate {
  std::size_t index = 0;
  double qhat = 0;
};
std::optional<DivisiveCandidate> divisive_candidate(std::span<const double> x, std::size_t start,
                                                    std::size_t end);
// E-Divisive on the whole of x without windows or merging: candidates accepted while their t-test
// reaches max_pvalue, the first one that does not ending it.
std::vector<ChangePoint> divisive_detect(std::span<const double> x, double max_pvalue);
// Otava's t-test of left against right (both non-empty).
SegmentTest segment_test(std::span<const double> left, std::span<const double> right);

}  // namespace noisefloor::stats
