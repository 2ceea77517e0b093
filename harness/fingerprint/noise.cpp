#include "fingerprint/noise.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "jsonread/number.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"
#include "stats/summary.hpp"
#include "text/text.hpp"

namespace noisefloor::fingerprint {
namespace {

using nlohmann::json;

double number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    throw ParseError(fmt::format("noise profile: \"{}\" must be a number", key));
  return it->get<double>();
}

std::optional<double> optional_number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) throw ParseError(fmt::format("noise profile: \"{}\" must be a number or null", key));
  return it->get<double>();
}

// "12.3 ms" with 3 significant digits.
std::string figure(double v) { return fmt::format("{:.3g}", v); }

}  // namespace

NoiseProfile summarize_noise(const NoiseReadings& r) {
  if (r.block_seconds.empty()) throw Error("noise profile: no loop block was timed");
  NoiseProfile p;
  p.seconds = r.seconds;
  p.blocks = r.block_seconds.size();
  std::vector<double> blocks = r.block_seconds;
  std::sort(blocks.begin(), blocks.end());
  const double median = stats::median(blocks);
  p.block_median_ms = median * 1e3;
  p.block_worst_ratio = median > 0 ? blocks.back() / median : 0;
  if (blocks.size() >= 2) {
    const double mean = stats::mean(blocks);
    if (mean > 0) p.block_cv_pct = 100 * std::sqrt(stats::sample_variance(blocks, mean)) / mean;
  }
  p.sleeps = r.sleep_seconds.size();
  if (!r.sleep_seconds.empty()) {
    std::vector<double> late;
    late.reserve(r.sleep_seconds.size());
    for (const double s : r.sleep_seconds) late.push_back(std::max(0.0, s - kNoiseSleepSeconds) * 1e6);
    std::sort(late.begin(), late.end());
    p.sleep_late_median_us = stats::median(late);
    p.sleep_late_p99_us = stats::quantile_type7(late, 0.99);
  }
  if (r.run_delay_seconds && r.loop_seconds > 0)
    p.run_delay_pct = 100 * *r.run_delay_seconds / r.loop_seconds;
  p.involuntary_switches = r.involuntary_switches;
  if (r.steal_seconds && r.cpus > 0 && r.seconds > 0)
    p.steal_pct = 100 * *r.steal_seconds / (r.seconds * r.cpus);
  p.unknown = r.unknown;
  return p;
}

NoiseProfile noise_not_measured(NoiseNotTaken why, std::string where) {
  NoiseProfile p;
  p.not_measured = why;
  p.where = std::move(where);
  return p;
}

std::string not_taken_text(const NoiseProfile& p) {
  using enum NoiseNotTaken;
  constexpr std::array<std::pair<NoiseNotTaken, std::string_view>, 3> kWords{{
      {profile_off, "noise_profile: 0s"},
      {option_off, "--noise-profile 0s"},
      {gate,
       "a gate: its A/A and B/B floors measure the room on the benchmark itself (noise_profile: 1s adds the "
       "profile)"},
  }};
  if (p.not_measured == other_machine) return "the profile measures this machine only, not " + p.where;
  if (p.not_measured == said) return p.where;
  return std::string(model::word_of(p.not_measured, kWords, ""));
}

std::vector<std::string> noise_above_limits(const NoiseProfile& p) {
  std::vector<std::string> out;
  if (!p.measured()) return out;
  if (p.block_cv_pct && *p.block_cv_pct > kNoiseCvWarnPct)
    out.push_back(fmt::format("loop CV {:.2f}% > {:g}%", *p.block_cv_pct, kNoiseCvWarnPct));
  if (p.steal_pct && *p.steal_pct > kNoiseStealWarnPct)
    out.push_back(fmt::format("steal {:.2f}% > {:g}%", *p.steal_pct, kNoiseStealWarnPct));
  if (p.run_delay_pct && *p.run_delay_pct > kNoiseRunDelayWarnPct)
    out.push_back(fmt::format("run-queue delay {:.2f}% > {:g}%", *p.run_delay_pct, kNoiseRunDelayWarnPct));
  if (p.sleeps > 0 && p.sleep_late_p99_us > kNoiseSleepLateWarnUs)
    out.push_back(fmt::format("a 1 ms sleep woke {} µs late (p99) > {:g} µs", figure(p.sleep_late_p99_us),
                              kNoiseSleepLateWarnUs));
  return out;
}

std::string noise_line(const NoiseProfile& p) {
  if (!p.measured()) return "not measured: " + not_taken_text(p);
  std::string line =
      p.block_cv_pct ? fmt::format("loop CV {:.2f}%", *p.block_cv_pct) : std::string("loop CV — (one block)");
  line +=
      fmt::format(" ({} ms × {}, worst {:.2f}×)", figure(p.block_median_ms), p.blocks, p.block_worst_ratio);
  if (p.sleeps > 0)
    line += fmt::format(", 1 ms sleep +{} µs late (p99 +{} µs)", figure(p.sleep_late_median_us),
                        figure(p.sleep_late_p99_us));
  line += p.run_delay_pct ? fmt::format(", run-queue delay {:.2f}%", *p.run_delay_pct)
                          : std::string(", run-queue delay unknown");
  line += p.steal_pct ? fmt::format(", steal {:.2f}%", *p.steal_pct) : std::string(", steal unknown");
  line += fmt::format(", over {:.1f} s", p.seconds);
  return line;
}

std::string noise_brief(const NoiseProfile& p) {
  if (!p.measured()) return text::kDash;
  const auto pct = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}%", *v) : std::string("?");
  };
  return fmt::format("CV {} · steal {} · delay {}", pct(p.block_cv_pct), pct(p.steal_pct),
                     pct(p.run_delay_pct));
}

NoiseChange noise_change(const NoiseProfile& before, const NoiseProfile& after) {
  NoiseChange change;
  if (!before.measured() || !after.measured()) return change;
  using Figure = NoiseChange::Figure;
  struct Reading {
    Figure figure;
    std::optional<double> a, b;
    double limit;
  };
  const Reading readings[] = {
      {Figure::loop_cv, before.block_cv_pct, after.block_cv_pct, kNoiseCvWarnPct},
      {Figure::steal, before.steal_pct, after.steal_pct, kNoiseStealWarnPct},
      {Figure::run_delay, before.run_delay_pct, after.run_delay_pct, kNoiseRunDelayWarnPct}};
  std::vector<NoiseChange::Moved> up, down;
  for (const auto& r : readings) {
    if (!r.a || !r.b) continue;
    if (*r.b > r.limit && *r.b >= 2 * *r.a) up.push_back({r.figure, *r.a, *r.b});
    if (*r.a > r.limit && *r.a >= 2 * *r.b) down.push_back({r.figure, *r.a, *r.b});
  }
  if (!up.empty()) {
    change.direction = NoiseChange::Direction::noisier;
    change.moved = std::move(up);
  } else if (!down.empty()) {
    change.direction = NoiseChange::Direction::quieter;
    change.moved = std::move(down);
  }
  return change;
}

void to_json(json& j, const NoiseProfile& p) {
  if (!p.measured()) {
    j = json{{"not_measured", not_taken_text(p)}};
    if (p.not_measured != NoiseNotTaken::said) j["why"] = model::name_of(p.not_measured);
    if (p.not_measured == NoiseNotTaken::other_machine) j["where"] = p.where;
    return;
  }
  const auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  j = json{{"seconds", p.seconds},
           {"blocks", p.blocks},
           {"block_iterations", kNoiseBlockIterations},
           {"block_median_ms", p.block_median_ms},
           {"block_cv_pct", opt(p.block_cv_pct)},
           {"block_worst_ratio", p.block_worst_ratio},
           {"sleeps", p.sleeps},
           {"sleep_late_median_us", p.sleep_late_median_us},
           {"sleep_late_p99_us", p.sleep_late_p99_us},
           {"run_delay_pct", opt(p.run_delay_pct)},
           {"involuntary_switches", opt(p.involuntary_switches)},
           {"steal_pct", opt(p.steal_pct)},
           {"unknown", p.unknown}};
}

void from_json(const json& j, NoiseProfile& p) {
  p = {};
  if (!j.is_object()) throw ParseError("noise profile: expected an object");
  if (const auto it = j.find("not_measured"); it != j.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      throw ParseError("noise profile: \"not_measured\" must be a reason");
    // By its name when the fingerprint has one that this noisefloor knows, else its words.
    const auto why = j.contains("why") && j.at("why").is_string()
                         ? model::from_name<NoiseNotTaken>(j.at("why").get<std::string>())
                         : std::nullopt;
    if (why) {
      p.not_measured = *why;
      p.where = j.contains("where") && j.at("where").is_string() ? j.at("where").get<std::string>() : "";
    } else {
      p.not_measured = NoiseNotTaken::said;
      p.where = it->get<std::string>();
    }
    return;
  }
  p.seconds = number(j, "seconds");
  p.blocks = jsonread::whole_number<std::size_t>(j, "blocks", 0);
  p.block_median_ms = number(j, "block_median_ms");
  p.block_cv_pct = optional_number(j, "block_cv_pct");
  p.block_worst_ratio = number(j, "block_worst_ratio");
  p.sleeps = jsonread::whole_number<std::size_t>(j, "sleeps", 0);
  p.sleep_late_median_us = number(j, "sleep_late_median_us");
  p.sleep_late_p99_us = number(j, "sleep_late_p99_us");
  p.run_delay_pct = optional_number(j, "run_delay_pct");
  if (const auto it = j.find("involuntary_switches"); it != j.end() && !it->is_null())
    p.involuntary_switches = jsonread::whole_number<std::int64_t>(*it, "noise profile: involuntary_switches");
  p.steal_pct = optional_number(j, "steal_pct");
  if (const auto it = j.find("unknown"); it != j.end()) {
    if (!it->is_array()) throw ParseError("noise profile: \"unknown\" must be a list of reasons");
    for (const auto& u : *it) {
      if (!u.is_string()) throw ParseError("noise profile: \"unknown\" must be a list of reasons");
      p.unknown.push_back(u.get<std::string>());
    }
  }
}

}  // namespace noisefloor::fingerprint
