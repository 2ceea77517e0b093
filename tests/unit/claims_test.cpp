#include <doctest/doctest.h>

#include "claims/claim.hpp"

using namespace noisefloor::claims;

namespace {
const Names kDemo{{"idle", "noisy", "pinned"}, {}};
std::string error_of(std::string_view text, const Names& names = kDemo) {
  try {
    parse_claim(text, names);
  } catch (const ClaimError& e) {
    return std::to_string(e.offset()) + ": " + e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("claims: the demo's claims parse into what they say") {
  const Claim c = parse_claim("cv(noisy) > 2 * cv(idle)", kDemo);
  CHECK(c.op == Op::gt);
  CHECK(c.lhs.kind == Expr::Kind::call);
  CHECK(c.lhs.function == Function::cv);
  CHECK(c.lhs.subject == "noisy");
  CHECK(c.rhs.kind == Expr::Kind::mul);
  CHECK(c.rhs.left->value == 2);
  CHECK(c.rhs.right->subject == "idle");
  CHECK(c.rhs.right->offset == 16);
  const Claim p = parse_claim("cv(pinned) <= 10%", kDemo);
  CHECK(p.op == Op::le);
  CHECK(p.rhs.value == doctest::Approx(0.1));
  const Claim r = parse_claim("median(noisy) / median(idle) > 1.5", kDemo);
  CHECK(r.lhs.kind == Expr::Kind::div);
  CHECK(calls(r).size() == 2);
  const Claim w = parse_claim("median(noisy, BenchmarkMakeBuffer_Correct-2) / median(idle) within 2 ± 25%", kDemo);
  CHECK(w.op == Op::within);
  CHECK(w.tolerance == doctest::Approx(0.25));
  CHECK(w.lhs.left->benchmark == "BenchmarkMakeBuffer_Correct-2");
  CHECK(parse_claim("n(idle) >= 20", kDemo).op == Op::ge);
  CHECK(parse_claim("(mean(noisy) - mean(idle)) / stddev(idle) > -1e1 + 3", kDemo).op == Op::gt);
  CHECK(parse_claim("mean(idle) within 1 +- 5%", kDemo).tolerance == doctest::Approx(0.05));
}

TEST_CASE("claims: bad claims say where and what") {
  CHECK(error_of("cvv(noisy) > 1") == "0: unknown function \"cvv\" (did you mean \"cv\"?)");
  CHECK(error_of("cv(nosy) > 1") == "3: unknown condition \"nosy\" (did you mean \"noisy\"?)");
  CHECK(error_of("cv(zzzzzz) > 1") == "3: unknown condition \"zzzzzz\" (the experiment has: idle, noisy, pinned)");
  CHECK(error_of("cv(noisy)") == "9: expected a comparison (<, <=, >, >= or within) after the expression");
  CHECK(error_of("cv(noisy) = 1") == "10: expected a comparison (<, <=, >, >= or within), got \"= 1\"");
  CHECK(error_of("cv(noisy) > ") == "12: the claim ends where a number or a statistic such as cv(idle) should be");
  CHECK(error_of("cv(noisy) > 1 2") == "14: unexpected \"2\" after the claim");
  CHECK(error_of("1 < 2") == "0: a claim must name at least one statistic, e.g. cv(noisy)");
  CHECK(error_of("ratio(fast) > 1") == "0: ratio() is for paired experiments: this one has no variants");
  CHECK(error_of("ratio(fsat) > 1", Names{{"c"}, {"fast", "slow"}}) == "6: unknown variant \"fsat\" (did you mean \"fast\"?)");
  CHECK(error_of("cv(noisy) within 2 10%") == "19: expected ± (or +-) and a percentage after `within A`, e.g. within 2 ± 10%");
  CHECK(error_of("cv(noisy) within 2 ± 10") == "24: expected % after the tolerance of `within`, e.g. ± 10%");
  CHECK(error_of("cv(noisy > 1") == "9: expected ) after cv(noisy");
  CHECK(error_of("cv noisy > 1") == "3: expected ( after cv, e.g. cv(idle)");
}
