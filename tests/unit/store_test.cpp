// store/: the machine digest, the keys' text and scopes, and the pages (pure parts of the store).
#include "records/store.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "store/keys.hpp"
#include "store/machine.hpp"
#include "store/page.hpp"
#include "store/turns.hpp"
#include "test_support.hpp"

namespace nf = noisefloor;
using noisefloor::testing::read_data;

namespace {

nf::records::Fingerprint docker_fingerprint() {
  return nlohmann::json::parse(read_data("results/docker-0.1/fingerprint.json"))
      .get<nf::records::Fingerprint>();
}

nf::store::ExperimentPage page_of(const std::vector<double>& medians, const std::string& condition) {
  nf::store::ExperimentPage p;
  p.experiment = "demo";
  nf::store::Machine m = nf::store::machine_of(docker_fingerprint());
  p.machines.push_back(m);
  for (std::size_t i = 0; i < medians.size(); ++i)
    p.points.push_back({"run" + std::to_string(i), m.id, "2026-12-06T00:00:" + std::to_string(10 + i) + "Z",
                        condition, "BenchmarkX-2", "ns/op", "Docker 20.10", 6, medians[i],
                        2.0 + static_cast<double>(i % 3)});
  return p;
}

}  // namespace

TEST_CASE("store machine: the digest reads the documented facts, never the hostname") {
  nf::records::Fingerprint fp = docker_fingerprint();
  const nf::store::Machine a = nf::store::machine_of(fp);
  CHECK(a.id.size() == 16);
  CHECK(a.fact("cpu_model") == "Intel(R) Xeon(R) Processor");
  CHECK(a.fact("logical_cpus") == "2");
  CHECK(a.fact("virtualization") == "KVM");
  CHECK(a.fact("memory_gib") == "24");  // 24683656 kB
  CHECK(a.fact("kernel") == "6.18.44-fc-v769");
  CHECK(a.facts.size() == nf::store::machine_fact_names().size());

  fp.host.document()["hostname"]["value"] = "another-name";
  CHECK(nf::store::machine_of(fp).id == a.id);
  // Another CPU model of the same vendor and count is another machine (conbench#1412).
  fp.host.document()["cpu"]["model_name"]["value"] = "Intel(R) Xeon(R) Platinum 8375C";
  CHECK(nf::store::machine_of(fp).id != a.id);
  fp = docker_fingerprint();
  fp.host.document()["cpu"]["stepping"]["value"] = 2;
  CHECK(nf::store::machine_of(fp).id != a.id);
}

TEST_CASE("store keys: scopes, the key's shape, hashes") {
  using nf::store::Scope;
  CHECK(nf::store::parse_scope("admin") == Scope{Scope::Kind::admin, ""});
  CHECK(nf::store::parse_scope("publish") == Scope{Scope::Kind::publish, ""});
  const auto talk = nf::store::parse_scope("publish:experiment=laptop-trust");
  REQUIRE(talk);
  CHECK(talk->experiment == "laptop-trust");
  CHECK(nf::store::to_string(*talk) == "publish:experiment=laptop-trust");
  CHECK_FALSE(nf::store::parse_scope("publish:experiment="));
  CHECK_FALSE(nf::store::parse_scope("root"));
  CHECK(nf::store::may_publish(*talk, "laptop-trust"));
  CHECK_FALSE(nf::store::may_publish(*talk, "other"));
  CHECK(nf::store::may_publish({Scope::Kind::publish, ""}, "other"));

  const auto a = nf::store::new_key(), b = nf::store::new_key();
  CHECK(a.text != b.text);
  CHECK(nf::store::key_id(a.text) == a.id);
  CHECK(a.hash == nf::store::key_hash(a.text));
  CHECK(a.hash.find(a.text.substr(12)) == std::string::npos);
  CHECK(nf::store::same_hash(a.hash, nf::store::key_hash(a.text)));
  CHECK_FALSE(nf::store::same_hash(a.hash, b.hash));
  CHECK_FALSE(nf::store::key_id("nf_0123abcd"));
  CHECK_FALSE(nf::store::key_id(a.text.substr(0, a.text.size() - 1) + "g"));
}

TEST_CASE("store page: markup in names is escaped, a step is marked, quartiles of the machines") {
  std::vector<double> medians(40, 50.0);
  for (std::size_t i = 20; i < 40; ++i) medians[i] = 55.0 + static_cast<double>(i % 2) * 0.1;
  for (std::size_t i = 0; i < 20; ++i) medians[i] += static_cast<double>(i % 2) * 0.1;
  const nf::store::ExperimentPage p = page_of(medians, "<script>alert(1)</script>");
  const std::string html = nf::store::experiment_page(p, "noisefloor test");
  CHECK(html.find("<script>") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  // One machine: its CV is the median of its runs' CVs (2, 3, 4 repeating: 3).
  CHECK(html.find("data-median=\"3\"") != std::string::npos);
  // The step at run 21 (index 20) is drawn, and only it.
  std::size_t marks = 0;
  for (std::size_t at = html.find("class=\"change-point\""); at != std::string::npos;
       at = html.find("class=\"change-point\"", at + 1))
    ++marks;
  CHECK(marks == 1);
  CHECK(html.find("new level from run 21") != std::string::npos);

  nf::store::ExperimentPage filtered = p;
  filtered.filter.vendor = "AuthenticAMD";
  const std::string none = nf::store::experiment_page(filtered, "noisefloor test");
  CHECK(none.find("no run with a CV") != std::string::npos);
  CHECK(none.find("0 machines of 1 (filtered)") != std::string::npos);
}

TEST_CASE("store page: the first page links each experiment, escaped") {
  const std::string html = nf::store::index_page({{"a&b", 3, 2}}, "noisefloor test");
  CHECK(html.find("href=\"/e/a%26b\"") != std::string::npos);
  CHECK(html.find(">a&amp;b<") != std::string::npos);
  CHECK(nf::store::index_page({}, "x").find("Nothing is published yet") != std::string::npos);
}

TEST_CASE("store page: a claim is tallied once per machine, by its latest verdict; gates per commit") {
  nf::store::ExperimentPage p = page_of({50, 51, 50}, "idle");
  nf::store::Machine other = p.machines.front();
  other.id = "0000000000000002";
  p.machines.push_back(other);
  const std::string m1 = p.machines.front().id;
  // In time order: machine 1 reproduced it, then did not; machine 2 reproduced it.
  p.claims = {{"run0", m1, "cv(idle) < 5%", "REPRODUCED"},
              {"run1", m1, "cv(idle) < 5%", "NOT REPRODUCED"},
              {"run9", other.id, "cv(idle) < 5%", "REPRODUCED"}};
  p.gates = {{"run2", m1, "2026-12-06T00:00:12Z", "0123456789ab..ba9876543210",
              nf::records::GateOutcome::regression}};
  const std::string html = nf::store::experiment_page(p, "noisefloor test");
  CHECK(html.find("<td><code>cv(idle) &lt; 5%</code></td><td class=\"num\">1</td><td class=\"num\">1</td><td "
                  "class=\"num\">0</td><td class=\"num\">0</td>") != std::string::npos);
  CHECK(html.find("<td><code>0123456789ab..ba9876543210</code></td>") != std::string::npos);
  CHECK(html.find(">regression</td>") != std::string::npos);

  // Filtered to machine 2's vendor only: its verdict alone.
  nf::store::ExperimentPage only = p;
  only.machines.back().facts[0].second = "AuthenticAMD";
  only.filter.vendor = "AuthenticAMD";
  const std::string filtered = nf::store::experiment_page(only, "noisefloor test");
  CHECK(filtered.find(
            "<td><code>cv(idle) &lt; 5%</code></td><td class=\"num\">1</td><td class=\"num\">0</td>") !=
        std::string::npos);
  CHECK(filtered.find("regression") == std::string::npos);
}

TEST_CASE("store page: an engine chosen keeps its runs only, in the claims, gates and machine count too") {
  nf::store::ExperimentPage p = page_of({50, 51, 50}, "idle");  // machine 1: runs 0-2 in Docker 20.10
  nf::store::Machine host = p.machines.front();
  host.id = "0000000000000002";
  p.machines.push_back(host);
  const std::string m1 = p.machines.front().id;
  p.points.push_back(
      {"run9", host.id, "2026-12-06T00:01:00Z", "idle", "BenchmarkX-2", "ns/op", "none", 6, 40, 9});
  p.claims = {{"run2", m1, "cv(idle) < 5%", "REPRODUCED"},
              {"run9", host.id, "cv(idle) < 5%", "NOT REPRODUCED"}};
  p.gates = {{"run9", host.id, "2026-12-06T00:01:00Z", "0123456789ab..ba9876543210",
              nf::records::GateOutcome::regression}};
  const std::string all = nf::store::experiment_page(p, "noisefloor test");
  CHECK(all.find("<p>2 machines;") != std::string::npos);
  CHECK(all.find(">regression</td>") != std::string::npos);

  p.filter.engine = "Docker 20.10";
  const std::string docker = nf::store::experiment_page(p, "noisefloor test");
  CHECK(docker.find("1 machine of 2 (filtered)") != std::string::npos);
  CHECK(
      docker.find("<td><code>cv(idle) &lt; 5%</code></td><td class=\"num\">1</td><td class=\"num\">0</td>") !=
      std::string::npos);
  CHECK(docker.find("regression") == std::string::npos);
  CHECK(docker.find("id=\"m-0000000000000002\"") == std::string::npos);
  CHECK(docker.find("data-median=\"3\"") != std::string::npos);  // machine 1's CVs: 2, 3, 4
}

TEST_CASE("store turns: two at once, the others in the order they came") {
  nf::store::Turns turns(2);
  std::mutex mutex;
  std::vector<int> order;  // who held a turn, in the order they got it
  auto held = std::make_unique<nf::store::Turns::Turn>(turns);
  auto held2 = std::make_unique<nf::store::Turns::Turn>(turns);
  std::vector<std::thread> line;
  for (int who = 0; who < 4; ++who) {
    line.emplace_back([&, who] {
      const nf::store::Turns::Turn turn(turns);
      const std::lock_guard lock(mutex);
      order.push_back(who);
    });
    // the next one starts once this one waits: their order in line is 0, 1, 2, 3
    while (turns.waiting() < static_cast<std::size_t>(who) + 1) std::this_thread::yield();
  }
  held.reset();  // one turn for the line: 0 takes it and hands it to 1, then 2, then 3
  for (auto& t : line) t.join();
  held2.reset();
  CHECK(order == std::vector<int>{0, 1, 2, 3});
  CHECK(turns.waiting() == 0);
  // All turns given back: two are free at once again.
  const nf::store::Turns::Turn a(turns), b(turns);
  CHECK(turns.waiting() == 0);
}
