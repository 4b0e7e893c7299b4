// `kernelscope check` as CI runs it, on crates written here: budgets, a baseline blessed and
// then broken by an edit (the finding on the responsible line, in text, GitHub annotations and
// SARIF valid against the 2.1.0 schema), a workspace's package picked by -p, bad input.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "Process.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kManifest = R"([package]
name = "NAME"
version = "0.1.0"
edition = "2021"

[lib]
path = "src/lib.rs"

[package.metadata.kernelscope]
arch = "sm_90"
)";

constexpr const char* kHeader = R"(#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]
use core::arch::nvptx;
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
)";

/// A kernel that keeps everything in registers.
constexpr const char* kGather = R"(#[no_mangle]
pub unsafe extern "ptx-kernel" fn gather(input: *const f32, picks: *const u32, out: *mut f32) {
    let i = (nvptx::_block_idx_x() * nvptx::_block_dim_x() + nvptx::_thread_idx_x()) as usize;
    let pick = *picks.add(i) as usize % 64;
    *out.add(i) = *input.add(i * 64 + pick);
}
)";

/// The same kernel through a per-thread table indexed at run time: local memory, in the
/// kernel's stack frame (ptxas counts it there, not as lmem).
constexpr const char* kGatherLocal = R"(#[no_mangle]
pub unsafe extern "ptx-kernel" fn gather(input: *const f32, picks: *const u32, out: *mut f32) {
    let i = (nvptx::_block_idx_x() * nvptx::_block_dim_x() + nvptx::_thread_idx_x()) as usize;
    let mut table = [0.0f32; 64];
    for k in 0..64 {
        table[k] = *input.add(i * 64 + k);
    }
    let pick = *picks.add(i) as usize % 64;
    *out.add(i) = table[pick];
}
)";

struct Crate {
  fs::path dir;
  Crate(const fs::path& at, const std::string& name, const std::string& body,
        const std::string& extraToml = "") {
    dir = at;
    fs::create_directories(dir / "src");
    std::string toml = kManifest;
    toml.replace(toml.find("NAME"), 4, name);
    std::ofstream(dir / "Cargo.toml") << toml << extraToml;
    write(body);
  }
  void write(const std::string& body) const {
    std::ofstream(dir / "src/lib.rs") << kHeader << body;
  }
  /// `kernelscope check ARGS` run in the crate's directory, as CI runs it.
  ProcessResult check(std::vector<std::string> args, const fs::path& cwd = {}) const {
    ProcessSpec spec;
    spec.argv = {KS_BINARY, "check"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.cwd = cwd.empty() ? dir : cwd;
    spec.timeout = std::chrono::seconds(240);
    return runProcess(spec);
  }
};

/// The 1-based line of `text` in the crate's lib.rs.
uint32_t lineOf(const Crate& c, const std::string& text) {
  const std::string source = readWholeFile(c.dir / "src/lib.rs");
  uint32_t n = 0;
  for (std::string_view line : splitLines(source)) {
    ++n;
    if (line.find(text) != std::string_view::npos) return n;
  }
  return 0;
}

}  // namespace

TEST_CASE(
    "check: a baseline blessed, an edit that puts a table in local memory fails on its line") {
  test::requireToolchain();
  TempDir tmp("kernelscope-check-test");
  Crate c(tmp.path() / "kernels", "kernels", kGather);

  auto first = c.check({});
  CHECK(first.exitCode == 0);
  CHECK(first.out.find("no baseline (--bless writes one)") != std::string::npos);
  auto blessed = c.check({"--bless"});
  REQUIRE(blessed.exitCode == 0);
  json baseline = json::parse(readWholeFile(c.dir / "kernelscope-baseline.json"));
  CHECK(baseline["arch"] == "sm_90");
  CHECK(baseline["kernels"]["gather"]["local-memory"] == 0);
  CHECK(baseline["kernels"]["gather"]["registers"].get<int>() > 0);
  CHECK(c.check({}).exitCode == 0);

  // The edit: a per-thread table indexed at run time.
  c.write(kGatherLocal);
  const fs::path sarif = tmp.path() / "check.sarif";
  auto broken = c.check({"--sarif", sarif.string()});
  INFO(broken.out << broken.err);
  CHECK(broken.exitCode == 1);
  const uint32_t tableLine = lineOf(c, "table[k] = ");
  const uint32_t readLine = lineOf(c, "table[pick]");
  const size_t stack = broken.out.find(
      "error[regression/stack]: kernel gather: 256 bytes of stack, was 0 in the baseline (local "
      "memory at lines ");
  REQUIRE(stack != std::string::npos);
  // The lines that read and write the table are named (and the frame's set-up on the fn line).
  const std::string lines = broken.out.substr(stack, broken.out.find('\n', stack) - stack);
  CHECK(lines.find(" " + std::to_string(tableLine)) != std::string::npos);
  CHECK(lines.find(" " + std::to_string(readLine)) != std::string::npos);
  CHECK(broken.out.find("src/lib.rs:" + std::to_string(tableLine) + ":1: error[regression/") !=
        std::string::npos);

  // Every line named, as the text names them: "(local memory at lines 9, 11, 15)".
  std::set<uint32_t> named;
  {
    const size_t at = lines.find("memory at lines ") + std::string_view("memory at lines ").size();
    std::istringstream list(lines.substr(at, lines.find(')', at) - at));
    for (std::string n; std::getline(list, n, ',');) named.insert(std::stoul(n));
  }
  CHECK(named.count(lineOf(c, "fn gather(")) == 1);

  json log = json::parse(readWholeFile(sarif));
  CHECK(log["version"] == "2.1.0");
  bool onTheLine = false;
  for (const json& r : log["runs"][0]["results"])
    if (r["ruleId"] == "regression/stack") {
      const json& loc = r["locations"][0]["physicalLocation"];
      onTheLine = loc["artifactLocation"]["uri"] == "src/lib.rs" &&
                  loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%" &&
                  loc["region"]["startLine"] == tableLine;
      // The other lines named are its related locations, each once, in the same terms.
      std::set<uint32_t> related;
      for (const json& rel : r["relatedLocations"]) {
        const json& at = rel["physicalLocation"];
        CHECK(at["artifactLocation"]["uri"] == "src/lib.rs");
        CHECK(at["artifactLocation"]["uriBaseId"] == "%SRCROOT%");
        CHECK(related.insert(at["region"]["startLine"].get<uint32_t>()).second);
      }
      std::set<uint32_t> others = named;
      others.erase(tableLine);
      CHECK(related == others);
    }
  CHECK(onTheLine);
  ProcessSpec validate;
  validate.argv = {"python3", (test::sourceDir() / "tests/tools/validate_sarif.py").string(),
                   sarif.string()};
  validate.timeout = std::chrono::seconds(180);
  ProcessResult valid = runProcess(validate);
  if (valid.exitCode == 77) {
    MESSAGE("the SARIF schema check was skipped: " << valid.err);
  } else {
    INFO(valid.out << valid.err);
    CHECK(valid.exitCode == 0);
  }

  auto github = c.check({"--format", "github"});
  CHECK(github.exitCode == 1);
  CHECK(github.out.find("::error file=src/lib.rs,line=" + std::to_string(tableLine) +
                        ",title=kernelscope regression/stack::kernel gather: ") !=
        std::string::npos);
  auto asJson = c.check({"--json"});
  json report = json::parse(asJson.out);
  CHECK(report["passed"] == false);
  CHECK(report["kernels"]["gather"]["stack"] == 256);

  // Blessed, the new figures are the baseline: it passes again.
  CHECK(c.check({"--bless"}).exitCode == 0);
  CHECK(c.check({}).exitCode == 0);
}

TEST_CASE("check: budgets from Cargo.toml are limits that --bless does not lift") {
  test::requireToolchain();
  TempDir tmp("kernelscope-check-test");
  Crate c(tmp.path() / "kernels", "kernels", kGatherLocal,
          "\n[package.metadata.kernelscope.budget]\nregisters = 200\nstack = 0\n"
          "[package.metadata.kernelscope.budget.gather]\nmin-occupancy = 100\nblock-size = 1024\n"
          "[package.metadata.kernelscope.budget.other]\nlocal-memory = 1024\nbogus = 1\n");
  auto r = c.check({"--bless"});
  INFO(r.out << r.err);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("error[budget/stack]: kernel gather: 256 bytes of stack, over its budget "
                   "of 0") != std::string::npos);
  CHECK(r.out.find("budget/registers") == std::string::npos);  // within 200
  CHECK(r.err.find("[package.metadata.kernelscope.budget].other: unknown key 'bogus'") !=
        std::string::npos);
}

TEST_CASE("check: a workspace's kernelscope.toml budgets its crates, under the crate's own") {
  test::requireToolchain();
  TempDir tmp("kernelscope-check-test");
  // The crate says nothing of the stack; kernelscope.toml above it does, and a registers limit
  // the crate's own (200) overrides.
  Crate c(tmp.path() / "kernels", "kernels", kGatherLocal,
          "\n[package.metadata.kernelscope.budget]\nregisters = 200\n");
  std::ofstream(tmp.path() / "kernelscope.toml")
      << "arch = \"sm_90\"\n[budget]\nregisters = 1\n[budget.gather]\nstack = 0\n"
         "[budget.other]\nbogus = 1\n";
  auto r = c.check({"--bless"});
  INFO(r.out << r.err);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("error[budget/stack]: kernel gather: 256 bytes of stack, over its budget "
                   "of 0") != std::string::npos);
  CHECK(r.out.find("budget/registers") == std::string::npos);  // the crate's 200, not 1
  CHECK(r.err.find("kernelscope.toml: warning: kernelscope.toml [budget].other: unknown key "
                   "'bogus'") != std::string::npos);

  // Without the crate's own limit, the workspace's holds.
  std::ofstream(c.dir / "Cargo.toml")
      << std::string(kManifest).replace(std::string(kManifest).find("NAME"), 4, "kernels");
  auto w = c.check({"--bless"});
  INFO(w.out << w.err);
  CHECK(w.out.find("error[budget/registers]: kernel gather") != std::string::npos);
}

TEST_CASE("check: -p picks a package of the workspace; bad input is refused clearly") {
  test::requireToolchain();
  TempDir tmp("kernelscope-check-test");
  const fs::path ws = tmp.path() / "ws";
  fs::create_directories(ws);
  std::ofstream(ws / "Cargo.toml") << "[workspace]\nmembers = [\"alpha\", \"beta\"]\n"
                                      "resolver = \"2\"\n";
  Crate alpha(ws / "alpha", "alpha", kGather);
  Crate beta(ws / "beta", "beta", kGatherLocal);
  auto b = beta.check({"-p", "beta", "--json"}, ws);
  INFO(b.out << b.err);
  REQUIRE(b.exitCode == 0);
  CHECK(json::parse(b.out)["crate"] == "beta");
  CHECK(json::parse(b.out)["kernels"]["gather"]["stack"] == 256);
  auto a =
      alpha.check({"--package", "alpha", "--json", "--manifest-path", (ws / "Cargo.toml").string()},
                  tmp.path());
  REQUIRE(a.exitCode == 0);
  CHECK(json::parse(a.out)["kernels"]["gather"]["stack"] == 0);
  auto none = alpha.check({"-p", "gamma"}, ws);
  CHECK(none.exitCode == 2);
  CHECK(none.err.find("no package 'gamma' in the workspace") != std::string::npos);
  CHECK(none.err.find("alpha, beta") != std::string::npos);

  // A damaged baseline is refused whole, with what to do.
  std::ofstream(alpha.dir / "kernelscope-baseline.json") << "{\"kernelscope-baseline\": 1, ";
  auto damaged = alpha.check({});
  CHECK(damaged.exitCode == 2);
  CHECK(damaged.err.find("not a kernelscope baseline (write one with --bless)") !=
        std::string::npos);
  std::ofstream(alpha.dir / "kernelscope-baseline.json")
      << R"({"kernelscope-baseline": 1, "arch": "sm_90", "kernels": {"gather": {"registers": "x"}}})";
  CHECK(alpha.check({}).err.find("registers must be a number") != std::string::npos);
  CHECK(alpha.check({"--format", "xml"}).exitCode == 2);
  CHECK(alpha.check({"--baseline", (tmp.path() / "missing.json").string()}).exitCode == 2);
  CHECK(alpha.check({}, tmp.path()).err.find("no Cargo.toml at or above") != std::string::npos);
}

TEST_CASE("cargo kernelscope: the workspace's package by -p, cargo's flags taken or refused") {
  test::requireToolchain();
  TempDir tmp("kernelscope-cargo-test");
  const fs::path ws = tmp.path() / "ws";
  fs::create_directories(ws);
  std::ofstream(ws / "Cargo.toml") << "[workspace]\nmembers = [\"alpha\", \"beta\"]\n"
                                      "resolver = \"2\"\n";
  Crate alpha(ws / "alpha", "alpha", kGather);
  Crate beta(ws / "beta", "beta",
             std::string(kGather).replace(std::string(kGather).find("fn gather"), 9, "fn gamma"));
  // Cargo finds `cargo-kernelscope` on PATH: the build's link to kernelscope.
  const std::string bin = fs::path(KS_BINARY).parent_path().string();
  ProcessSpec spec;
  spec.cwd = ws;
  spec.timeout = std::chrono::seconds(240);
  spec.env = {{"PATH", bin + ":" + std::string(std::getenv("PATH"))}};
  auto cargoKernelscope = [&](std::vector<std::string> args) {
    spec.argv = {"cargo", "kernelscope"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    ProcessResult r = runProcess(spec);
    if (!r.started) {  // no cargo here: cargo's own way in, the executable it would run
      spec.argv[0] = bin + "/cargo-kernelscope";
      r = runProcess(spec);
    }
    return r;
  };
  auto b = cargoKernelscope({"explain", "-p", "beta", "--stages", "ptx"});
  INFO(b.out << b.err);
  CHECK(b.exitCode == 0);
  CHECK(b.out.find((beta.dir / "src/lib.rs").string()) != std::string::npos);
  CHECK(b.out.find("fn gamma") != std::string::npos);
  CHECK(b.out.find("fn gather") == std::string::npos);
  auto byKernel = cargoKernelscope(
      {"explain", "-p", "alpha", "--kernel", "gather", "--stages", "ptx", "--release"});
  CHECK(byKernel.exitCode == 0);
  CHECK(byKernel.out.find((alpha.dir / "src/lib.rs").string()) != std::string::npos);
  auto check = cargoKernelscope({"check", "-p", "beta", "--json"});
  CHECK(check.exitCode == 0);
  CHECK(json::parse(check.out)["crate"] == "beta");
  for (const char* refused : {"--target-dir", "--features", "--profile"}) {
    CAPTURE(refused);
    auto r = cargoKernelscope({"explain", "-p", "alpha", refused, "x"});
    CHECK(r.exitCode == 2);
    CHECK(r.err.find(std::string(refused) + " is not taken") != std::string::npos);
  }
  auto unknownKernel = cargoKernelscope({"explain", "-p", "alpha", "--kernel", "nope"});
  CHECK(unknownKernel.exitCode == 2);
  CHECK(unknownKernel.err.find("no kernel 'nope' in the crate (its kernels: gather)") !=
        std::string::npos);
}
