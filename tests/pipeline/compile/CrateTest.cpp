// Kernel crates: modules, path dependencies, files changed on disk or unsaved, crate
// settings, and every target GPU from sm_70 to sm_90.
#include <doctest/doctest.h>

#include <fstream>
#include <thread>

#include "Compile.h"
#include "Crate.h"
#include "Files.h"
#include "TestSupport.h"
#include "Trust.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

fs::path crateDir() { return test::sourceDir() / "examples/crate"; }
fs::path utilDir() { return test::sourceDir() / "examples/crate-util"; }

CompileInput onDisk(const fs::path& file) { return {file, std::nullopt, {}}; }

/// A copy of the example crate and its dependency, to edit on disk.
struct CrateCopy {
  TempDir dir{"kernelscope-crate-test"};
  CrateCopy() {
    fs::copy(crateDir(), dir.path() / "crate", fs::copy_options::recursive);
    fs::copy(utilDir(), dir.path() / "crate-util", fs::copy_options::recursive);
  }
  fs::path file(const std::string& rel) const { return dir.path() / rel; }
  void write(const std::string& rel, const std::string& text) const {
    std::ofstream(file(rel), std::ios::binary) << text;
    // A different size or time is what makes a cached Cargo.toml stale; sources are always read.
  }
};

}  // namespace

TEST_CASE("a file's crate: Cargo.toml, the library root, path dependencies, settings") {
  test::requireToolchain();
  std::string problem;
  auto pkg = findCrate(test::toolchain(), crateDir() / "src/math.rs", &problem);
  INFO(problem);
  REQUIRE(pkg);
  CHECK(pkg->crateName == "scaled_kernels");
  CHECK(pkg->libRoot == crateDir() / "src/lib.rs");
  REQUIRE(pkg->pathDependencies.size() == 1);
  CHECK(pkg->pathDependencies[0].externName == "crate_util");
  CHECK(pkg->pathDependencies[0].path == utilDir());
  CHECK(pkg->settings.arch == "sm_90");
  CHECK(pkg->settings.optLevel == 3);
  CHECK(pkg->settings.problems.empty());

  // Standalone kernels (no Cargo.toml above them) stay standalone.
  CHECK_FALSE(findCrate(test::toolchain(), test::sourceDir() / "examples/saxpy.rs"));
}

TEST_CASE("a line in a submodule maps to its instructions, in every stage") {
  test::requireToolchain();
  test::Fixture math(crateDir() / "src/math.rs");
  const CompileResult& r = test::compiled(math.path);
  REQUIRE(r.succeeded);
  CHECK(r.crateManifest == crateDir() / "Cargo.toml");
  CHECK(test::containsFile(r.sourceFiles, crateDir() / "src/lib.rs"));
  CHECK(test::containsFile(r.sourceFiles, crateDir() / "src/math.rs"));
  CHECK(test::containsFile(r.sourceFiles, utilDir() / "src/lib.rs"));

  uint32_t square = math.lineOf("v * v");
  auto ptx = test::instructionsFor(r, Stage::Ptx, math.path.string(), square);
  INFO(r.stage(Stage::Ptx)->artifact->text());
  CHECK(test::anyContains(ptx, "mul.rn.f32"));
  CHECK(
      test::anyContains(test::instructionsFor(r, Stage::Sass, math.path.string(), square), "FMUL"));
  CHECK_FALSE(test::instructionsFor(r, Stage::LlvmIr, math.path.string(), square).empty());
  CHECK(test::anyContains(
      test::instructionsFor(r, Stage::Ptx, math.path.string(), math.lineOf("let scaled = a * x;")),
      "mul.rn.f32"));

  // The kernels are the crate's, with their definitions in lib.rs.
  REQUIRE(r.kernels.size() == 2);
  for (const auto& k : r.kernels) {
    CHECK(k.definition.file == (crateDir() / "src/lib.rs").string());
    CHECK(k.resources);
  }
}

TEST_CASE("path dependency code maps to its own file") {
  test::requireToolchain();
  test::Fixture util(utilDir() / "src/lib.rs");
  const CompileResult& r = test::compiled(crateDir() / "src/lib.rs");
  REQUIRE(r.succeeded);
  CHECK(r.lineMap->isUserFile((utilDir() / "src/lib.rs").string()));
  auto index =
      test::instructionsFor(r, Stage::Ptx, util.path.string(), util.lineOf("_block_idx_x()"));
  CHECK(test::anyContains(index, "%ctaid.x"));
  CHECK_FALSE(
      test::instructionsFor(r, Stage::Sass, util.path.string(), util.lineOf("_block_idx_x()"))
          .empty());
}

TEST_CASE("a module edited on disk, or unsaved in the editor, changes the crate's result") {
  test::requireToolchain();
  CrateCopy copy;
  fs::path lib = copy.file("crate/src/lib.rs"), math = copy.file("crate/src/math.rs");
  std::string mathText = readWholeFile(math);
  auto squareMuls = [&](const CompileResult& r) {
    test::Fixture f(math);
    return test::instructionsFor(r, Stage::Ptx, math.string(), f.lineOf("v * v")).size();
  };
  CompileResult before = compileWithDefaults(test::toolchain(), {lib, std::nullopt, {}}, {});
  REQUIRE(before.succeeded);
  size_t n = squareMuls(before);
  CHECK(n >= 1);

  // On disk (not open): the next compile of lib.rs reads the new math.rs.
  std::string cubed = mathText;
  cubed.replace(cubed.find("v * v"), 5, "v * v * v");
  copy.write("crate/src/math.rs", cubed);
  CompileResult after = compileWithDefaults(test::toolchain(), {lib, std::nullopt, {}}, {});
  REQUIRE(after.succeeded);
  CHECK(squareMuls(after) > n);

  // Unsaved (open in an editor): an overlay wins over the disk, and locations still name
  // the real file.
  std::string broken = mathText;
  broken.replace(broken.find("v * v"), 5, "v * undefined_name");
  CompileResult unsaved =
      compileWithDefaults(test::toolchain(), {lib, std::nullopt, {{math, broken}}}, {});
  CHECK_FALSE(unsaved.succeeded);
  bool named = false;
  for (const auto& d : unsaved.diagnostics)
    if (d.severity == Severity::Error && d.range && d.range->file == math.string()) named = true;
  CHECK(named);

  // A dependency's unsaved text reaches the crate too.
  fs::path util = copy.file("crate-util/src/lib.rs");
  std::string utilText = readWholeFile(util);
  std::string utilBroken = utilText;
  utilBroken.replace(utilBroken.find("lo\n"), 2, "lo_missing");
  CompileResult dep =
      compileWithDefaults(test::toolchain(), {math, std::nullopt, {{util, utilBroken}}}, {});
  CHECK_FALSE(dep.succeeded);
  bool inDep = false;
  for (const auto& d : dep.diagnostics)
    if (d.severity == Severity::Error && d.range && d.range->file == util.string()) inDep = true;
  CHECK(inDep);
}

TEST_CASE("crate settings: bad values are reported, rustc-flags are passed") {
  test::requireToolchain();
  CrateCopy copy;
  std::string toml = readWholeFile(copy.file("crate/Cargo.toml"));
  toml.replace(toml.find("arch = \"sm_90\""), 14, "arch = \"sm_42\"");
  toml.replace(toml.find("rustc-flags = []"), 16,
               "rustc-flags = [\"--cfg\", \"kernelscope_test\"]");
  copy.write("crate/Cargo.toml", toml);
  auto pkg = findCrate(test::toolchain(), copy.file("crate/src/lib.rs"));
  REQUIRE(pkg);
  CHECK_FALSE(pkg->settings.arch);
  REQUIRE(pkg->settings.problems.size() == 1);
  CHECK(pkg->settings.problems[0].find("sm_42") != std::string::npos);
  CHECK(pkg->settings.rustcFlags == std::vector<std::string>{"--cfg", "kernelscope_test"});

  // Flags that set the codegen units are refused whole: kernelscope shows one unit's code.
  toml = readWholeFile(copy.file("crate/Cargo.toml"));
  toml.replace(toml.find("rustc-flags = ["), 15, "rustc-flags = [\"-Ccodegen-units=16\", ");
  copy.write("crate/Cargo.toml", toml);
  pkg = findCrate(test::toolchain(), copy.file("crate/src/lib.rs"));
  REQUIRE(pkg);
  CHECK(pkg->settings.rustcFlags.empty());
  REQUIRE(pkg->settings.problems.size() == 2);
  CHECK(pkg->settings.problems[1].starts_with(
      "rustc-flags must not set the codegen units (-Ccodegen-units=16)"));
}

TEST_CASE("every target GPU from sm_70 to sm_90 compiles against the one core") {
  test::requireToolchain();
  // rustc 1.96 accepts a `core` built without -Ctarget-cpu under a kernel built for any
  // sm_XX: one sysroot serves every arch (see docs/toolchains.md).
  for (std::string arch : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}) {
    CAPTURE(arch);
    CompileOptions o;
    o.arch = arch;
    CompileResult r =
        compileWithDefaults(test::toolchain(), {crateDir() / "src/math.rs", std::nullopt, {}}, o);
    REQUIRE(r.succeeded);
    CHECK(r.stage(Stage::Ptx)->artifact->text().find(".target " + arch) != std::string::npos);
    REQUIRE(r.stage(Stage::Sass)->available);
    std::string sm = "SM" + arch.substr(3);
    CHECK(r.stage(Stage::Sass)->artifact->text().find(sm) != std::string::npos);
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].resources);
  }
}

TEST_CASE("switching sm_75 -> sm_90 recompiles the crate for the new arch") {
  test::requireToolchain();
  test::Fixture math(crateDir() / "src/math.rs");
  CompileOptions o75, o90;
  o75.arch = "sm_75";
  const CompileResult& a = test::compiled(math.path, o75);
  const CompileResult& b = test::compiled(math.path, o90);
  REQUIRE(a.succeeded);
  REQUIRE(b.succeeded);
  CHECK(a.arch == "sm_75");
  CHECK(b.arch == "sm_90");
  CHECK(a.stage(Stage::Sass)->artifact->text().find("SM75") != std::string::npos);
  CHECK(b.stage(Stage::Sass)->artifact->text().find("SM90") != std::string::npos);
  uint32_t square = math.lineOf("v * v");
  CHECK_FALSE(test::instructionsFor(a, Stage::Sass, math.path.string(), square).empty());
  CHECK_FALSE(test::instructionsFor(b, Stage::Sass, math.path.string(), square).empty());
}

TEST_CASE("an arch newer than the local ptxas says which CUDA it needs") {
  test::requireToolchain();
  if (test::toolchain().cudaRelease != "11.8") return;  // the message is about the 11.8 pair
  CompileOptions o;
  o.arch = "sm_100";
  CompileResult r = compileWithDefaults(
      test::toolchain(), {test::sourceDir() / "examples/saxpy.rs", std::nullopt, {}}, o);
  REQUIRE(r.succeeded);
  CHECK(r.stage(Stage::Ptx)->available);
  REQUIRE_FALSE(r.stage(Stage::Sass)->available);
  const std::string& why = r.stage(Stage::Sass)->unavailableReason;
  CHECK(why.find("sm_100") != std::string::npos);
  CHECK(why.find("11.8") != std::string::npos);
  CHECK(why.find("12.8") != std::string::npos);
}

TEST_CASE("path dependencies come from the rlib cache until their sources or flags change") {
  test::requireToolchain();
  CrateCopy copy;
  TempDir cache("kernelscope-rlib-cache");
  Toolchain tc = test::toolchain();
  tc.cacheDir = cache.path();
  fs::path math = copy.file("crate/src/math.rs"), util = copy.file("crate-util/src/lib.rs");
  auto prepare = [&](const CompileInput& in, ResolvedOptions opts = {}) {
    TempDir work("kernelscope-rlib-work");
    RustcUnit u = prepareRustcUnit(tc, in, opts, work.path(), {});
    INFO(u.failure);
    CHECK(u.failure.empty());
    return std::pair{u.dependenciesBuilt, u.dependenciesReused};
  };
  auto entries = [&] {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cache.path() / "rlibs", ec)) {
      CHECK(e.path().filename().string().find(".tmp-") ==
            std::string::npos);  // nothing half-written
      n += e.path().filename().string().starts_with("crate_util-");
    }
    return n;
  };

  CHECK(prepare(onDisk(math)) == std::pair<size_t, size_t>{1, 0});
  CHECK(prepare(onDisk(math)) == std::pair<size_t, size_t>{0, 1});
  CHECK(entries() == 1);
  // A compile from the cached rlib: the dependency's code still maps to its own file.
  CompileResult r = compileWithDefaults(tc, {copy.file("crate/src/lib.rs"), std::nullopt, {}}, {});
  REQUIRE(r.succeeded);
  CHECK(test::containsFile(r.sourceFiles, util));
  test::Fixture u(util);
  CHECK_FALSE(
      test::instructionsFor(r, Stage::Ptx, util.string(), u.lineOf("_block_idx_x()")).empty());

  // An edit on disk is a new entry; unsaved text too, and it is reused while unchanged.
  std::string text = readWholeFile(util);
  copy.write("crate-util/src/lib.rs", text + "\n/// A new helper.\npub fn two() -> u32 { 2 }\n");
  CHECK(prepare(onDisk(math)) == std::pair<size_t, size_t>{1, 0});
  CompileInput unsaved{math, std::nullopt, {{util, text + "\npub fn three() -> u32 { 3 }\n"}}};
  CHECK(prepare(unsaved) == std::pair<size_t, size_t>{1, 0});
  CHECK(prepare(unsaved) == std::pair<size_t, size_t>{0, 1});
  CHECK(entries() == 3);
  // Target flags are part of the key: another arch builds its own rlib.
  ResolvedOptions sm80;
  sm80.arch = "sm_80";
  CHECK(prepare(onDisk(math), sm80) == std::pair<size_t, size_t>{1, 0});
  CHECK(prepare(onDisk(math), sm80) == std::pair<size_t, size_t>{0, 1});
}

TEST_CASE("concurrent compiles of one dependency leave one complete cache entry") {
  test::requireToolchain();
  CrateCopy copy;
  TempDir cache("kernelscope-rlib-race");
  Toolchain tc = test::toolchain();
  tc.cacheDir = cache.path();
  std::vector<std::string> failures(3);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < failures.size(); ++i)
    threads.emplace_back([&, i] {
      TempDir work("kernelscope-rlib-race-work");
      RustcUnit u =
          prepareRustcUnit(tc, onDisk(copy.file("crate/src/math.rs")), {}, work.path(), {});
      failures[i] = u.failure;
    });
  for (auto& t : threads) t.join();
  for (const auto& f : failures) CHECK(f.empty());
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(cache.path() / "rlibs")) entries.push_back(e.path());
  REQUIRE(entries.size() == 1);
  CHECK(fs::is_regular_file(entries[0] / "libcrate_util.rlib"));
  CHECK(fs::is_regular_file(entries[0] / "crate_util.d"));
}

TEST_CASE("resolveForFile: the crate's arch and opt-level fill only what the user left unset") {
  test::requireToolchain();
  CompileOptions unset;  // examples/crate says sm_90 and opt-level 3
  ResolvedOptions fromCrate = resolveForFile(test::toolchain(), crateDir() / "src/math.rs", unset);
  CHECK(fromCrate.arch == "sm_90");
  CHECK(fromCrate.optLevel == 3);

  CompileOptions chosen = unset;
  chosen.arch = "sm_75";
  chosen.optLevel = 1;
  ResolvedOptions kept = resolveForFile(test::toolchain(), crateDir() / "src/math.rs", chosen);
  CHECK(kept.arch == "sm_75");
  CHECK(kept.optLevel == 1);

  // A kernel outside any crate: what it was given, else the defaults.
  CHECK(resolveForFile(test::toolchain(), test::sourceDir() / "examples/saxpy.rs", chosen).arch ==
        "sm_75");
  CHECK(resolveForFile(test::toolchain(), test::sourceDir() / "examples/saxpy.rs", unset).arch ==
        kDefaultArch);
}

TEST_CASE("resolveOptions: the caller's value, else the crate's, else the default") {
  CrateSettings crate;
  crate.arch = "sm_80";
  crate.optLevel = 1;
  crate.profile = ToolchainProfile::RustCuda;  // runs cargo: only for a trusted workspace
  CompileOptions caller;
  ResolvedOptions none = resolveOptions(caller);
  CHECK(none.arch == kDefaultArch);
  CHECK(none.optLevel == 3);
  CHECK(none.profile == ToolchainProfile::RustcNvptx);
  CHECK(none.stages.size() == 4);
  CHECK(resolveOptions(caller, nullptr, true).stages ==
        std::vector<Stage>{Stage::Ptx, Stage::Sass});

  ResolvedOptions fromCrate = resolveOptions(caller, &crate);
  CHECK(fromCrate.arch == "sm_80");
  CHECK(fromCrate.optLevel == 1);
  CHECK(fromCrate.profile == ToolchainProfile::RustcNvptx);  // untrusted: not rust-cuda
  caller.workspaceTrusted = true;
  CHECK(resolveOptions(caller, &crate).profile == ToolchainProfile::RustCuda);

  caller.arch = "sm_75";
  caller.optLevel = 0;
  caller.profile = ToolchainProfile::RustcNvptx;
  caller.stages = {Stage::Mir, Stage::Ptx};
  ResolvedOptions chosen = resolveOptions(caller, &crate, true);
  CHECK(chosen.arch == "sm_75");
  CHECK(chosen.optLevel == 0);
  CHECK(chosen.profile == ToolchainProfile::RustcNvptx);
  CHECK(chosen.stages == std::vector<Stage>{Stage::Mir, Stage::Ptx});  // chosen: kept for a .cu
  // Resolved options, asked for again, resolve to themselves.
  CHECK(resolveOptions(chosen.asChosen(), &crate).arch == "sm_75");
  CHECK(resolveOptions(chosen.asChosen(), &crate).stages == chosen.stages);
}

TEST_CASE("CompileOptions compare by every choice, the stage listener aside") {
  CompileOptions a, b;
  b.onStages = [](std::shared_ptr<const CompileResult>) {};
  CHECK(a == b);  // where the stages go is no choice of what is compiled
  b.arch = kDefaultArch;
  CHECK_FALSE(a == b);  // unset is not the default chosen: the crate may set it
  a.arch = kDefaultArch;
  CHECK(a == b);
  for (auto change : std::initializer_list<void (*)(CompileOptions&)>{
           [](CompileOptions& o) { o.remarks = !o.remarks; },
           [](CompileOptions& o) { o.workspaceTrusted = true; },
           [](CompileOptions& o) { o.extraRustcFlags.push_back("--cfg=x"); },
           [](CompileOptions& o) {
             o.externCrates.push_back({"m", "/m"});
           },
           [](CompileOptions& o) { o.occupancyBlockSize = 128; },
           [](CompileOptions& o) { o.stages = std::vector<Stage>{Stage::Ptx}; }}) {
    CompileOptions changed = a;
    change(changed);
    CHECK_FALSE(changed == a);
  }
}

TEST_CASE(
    "an untrusted crate's rustc-flags and profile: withheld with a warning; trusted: applied with "
    "a note") {
  test::requireToolchain();
  CrateCopy copy;
  const fs::path written = copy.file("written-by-the-crate.ll");
  std::string toml = readWholeFile(copy.file("crate/Cargo.toml"));
  toml.replace(toml.find("rustc-flags = []"), 16,
               "rustc-flags = [\"--emit=llvm-ir=" + written.string() +
                   "\", \"--cfg\", \"kernelscope_test\"]\n"
                   "profile = \"rust-cuda\"");
  copy.write("crate/Cargo.toml", toml);
  const fs::path lib = copy.file("crate/src/lib.rs");
  auto trustDiagnostics = [](const CompileResult& r, Severity severity) {
    std::vector<std::string> out;
    for (const auto& d : r.diagnostics)
      if (d.code == kWorkspaceTrustCode && d.severity == severity) out.push_back(d.message);
    return out;
  };

  CompileOptions untrusted;
  untrusted.stages = {Stage::Ptx};
  untrusted.workspaceTrusted = false;
  ResolvedOptions o = resolveForFile(test::toolchain(), lib, untrusted);
  // rust-cuda would run cargo and the crate's build scripts
  CHECK(o.profile == ToolchainProfile::RustcNvptx);
  CompileResult r = compileKernel(test::toolchain(), {lib, std::nullopt, {}}, o);
  CHECK(r.succeeded);
  CHECK_FALSE(fs::exists(written));
  auto warnings = trustDiagnostics(r, Severity::Warning);
  REQUIRE(warnings.size() == 2);
  CHECK(test::anyContains(warnings, "profile = \"rust-cuda\" not applied"));
  CHECK(test::anyContains(
      warnings, "rustc-flags not applied (they may load code or write files): --emit=llvm-ir="));

  // The user's own choice of a cargo profile in an untrusted workspace is refused too.
  CompileOptions chosen = untrusted;
  chosen.profile = ToolchainProfile::CudaOxide;
  CompileResult refused = compileWithDefaults(test::toolchain(), {lib, std::nullopt, {}}, chosen);
  CHECK_FALSE(refused.succeeded);
  REQUIRE(refused.stage(Stage::Ptx));
  CHECK(refused.stage(Stage::Ptx)->unavailableReason.find("not trusted") != std::string::npos);

  CompileOptions trusted = untrusted;
  trusted.workspaceTrusted = true;
  trusted.profile = ToolchainProfile::RustcNvptx;  // the flags only: the profile needs a nightly
  CompileResult applied = compileWithDefaults(test::toolchain(), {lib, std::nullopt, {}}, trusted);
  CHECK(fs::exists(written));
  // The flag sent rustc's IR elsewhere: said, not shown as a crate without kernels.
  CHECK_FALSE(applied.succeeded);
  CHECK(applied.failure.starts_with("rustc made no LLVM IR of the crate where kernelscope reads"));
  auto notes = trustDiagnostics(applied, Severity::Note);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("applied because the workspace is trusted: --emit=llvm-ir=") !=
        std::string::npos);
  CompileOptions unchosen;
  unchosen.workspaceTrusted = true;
  CHECK(resolveForFile(test::toolchain(), lib, unchosen).profile == ToolchainProfile::RustCuda);
}

TEST_CASE("a crate's rustc-flags never pass an @file argument, trusted or not") {
  test::requireToolchain();
  // rustc would read the file's lines as more arguments: here one that writes a file; in the
  // attack, `-Zcodegen-backend=` naming the crate's own library.
  CrateCopy copy;
  const fs::path written = copy.file("written-through-a-response-file.ll");
  copy.write("crate/flags.txt", "--emit=llvm-ir=" + written.string() + "\n");
  std::string toml = readWholeFile(copy.file("crate/Cargo.toml"));
  toml.replace(toml.find("rustc-flags = []"), 16,
               "rustc-flags = [\"--cfg\", \"@" + copy.file("crate/flags.txt").string() +
                   "\", \"-W\", \"unused-variables\"]");
  copy.write("crate/Cargo.toml", toml);
  const fs::path lib = copy.file("crate/src/lib.rs");
  for (bool trusted : {false, true}) {
    CAPTURE(trusted);
    CompileOptions o;
    o.stages = {Stage::Ptx};
    o.workspaceTrusted = trusted;
    o.profile = ToolchainProfile::RustcNvptx;
    CompileResult r = compileWithDefaults(test::toolchain(), onDisk(lib), o);
    CHECK(r.succeeded);
    CHECK_FALSE(fs::exists(written));
    std::vector<std::string> refusals;
    for (const auto& d : r.diagnostics)
      if (d.code == kWorkspaceTrustCode && d.severity == Severity::Warning)
        refusals.push_back(d.message);
    REQUIRE(refusals.size() == 1);
    CHECK(test::anyContains(refusals, "rustc-flags not applied: --cfg @"));
    CHECK(test::anyContains(refusals, "read more arguments from a file"));
  }
}

TEST_CASE("the rlib cache stays within its bound: least recently used first, never a fresh entry") {
  TempDir dir("kernelscope-rlib-evict");
  auto entry = [&](const std::string& name, size_t bytes, std::chrono::minutes age) {
    fs::create_directories(dir.path() / name);
    std::ofstream(dir.path() / name / "libx.rlib", std::ios::binary) << std::string(bytes, 'x');
    fs::last_write_time(dir.path() / name, fs::file_time_type::clock::now() - age);
  };
  entry("a-oldest", 4000, std::chrono::minutes(300));
  entry("b-old", 4000, std::chrono::minutes(200));
  entry("c-recent", 4000, std::chrono::minutes(1));  // a compile may be using it
  entry("d-kept", 4000, std::chrono::minutes(400));  // the one just built
  // A running compile's staging (this process's pid: it runs).
  const std::string staging = stagingName("e") + "-4";
  entry(staging, 4000, std::chrono::minutes(5));
  CHECK(evictLeastRecentlyUsed(dir.path(), 9000, dir.path() / "d-kept") == 2);
  CHECK_FALSE(fs::exists(dir.path() / "a-oldest"));
  CHECK_FALSE(fs::exists(dir.path() / "b-old"));
  CHECK(fs::exists(dir.path() / "c-recent"));
  CHECK(fs::exists(dir.path() / "d-kept"));
  CHECK(fs::exists(dir.path() / staging));
  CHECK(evictLeastRecentlyUsed(dir.path(), 1u << 30) == 0);  // within the bound: nothing goes
}

TEST_CASE("the cargo cache is bounded by the same policy: whole workspaces, links not followed") {
  TempDir dir("kernelscope-cargo-evict");
  const fs::path big = dir.path() / "outside.bin";  // a user's file the mirror links to
  std::ofstream(big, std::ios::binary) << std::string(100000, 'x');
  auto workspace = [&](const std::string& name, size_t targetBytes, std::chrono::minutes age) {
    const fs::path base = dir.path() / "cargo" / name;
    fs::create_directories(base / "target-sm_90/nvptx64-nvidia-cuda/release/deps");
    fs::create_directories(base / "root/work");
    std::ofstream(base / "target-sm_90/nvptx64-nvidia-cuda/release/deps/libk.rlib",
                  std::ios::binary)
        << std::string(targetBytes, 'x');
    fs::create_symlink(big, base / "root/work/outside.bin");
    fs::last_write_time(base, fs::file_time_type::clock::now() - age);
  };
  workspace("old-1", 5000, std::chrono::minutes(90));
  workspace("older-2", 5000, std::chrono::minutes(120));
  workspace("now-3", 5000, std::chrono::minutes(0));
  // 15000 bytes of target dirs (the 100000-byte file behind the links is not counted).
  CHECK(evictLeastRecentlyUsed(dir.path() / "cargo", 16000) == 0);
  CHECK(evictLeastRecentlyUsed(dir.path() / "cargo", 11000, dir.path() / "cargo/now-3") == 1);
  CHECK_FALSE(fs::exists(dir.path() / "cargo/older-2"));
  CHECK(fs::exists(dir.path() / "cargo/old-1"));
  CHECK(fs::exists(big));  // removing a mirror never follows its links
  CHECK(evictLeastRecentlyUsed(dir.path() / "cargo", 1, dir.path() / "cargo/now-3") == 1);
  CHECK(fs::exists(dir.path() / "cargo/now-3"));
  CHECK(fs::exists(big));
}

TEST_CASE(
    "--extern: a file outside any crate uses a crate's directory, and bad names are refused") {
  ExternCrate util;
  CHECK(parseExternCrate("crate_util", util)->find("NAME=PATH") != std::string::npos);
  CHECK(parseExternCrate("../x=" + utilDir().string(), util)->find("not a crate name") !=
        std::string::npos);
  CHECK(parseExternCrate("@flags=" + utilDir().string(), util)->find("not a crate name") !=
        std::string::npos);
  CHECK(parseExternCrate("u=" + (utilDir() / "src").string(), util)->find("no Cargo.toml") !=
        std::string::npos);
  CHECK(parseExternCrate("u=" + (utilDir() / "Cargo.toml").string(), util)
            ->find("neither a crate's directory nor an .rlib") != std::string::npos);
  CHECK(parseExternCrate("u=/nonexistent/libu.rlib", util)->find("does not exist") !=
        std::string::npos);
  REQUIRE_FALSE(parseExternCrate("crate_util=" + utilDir().string(), util));
  CHECK(util.path == utilDir());
  test::requireToolchain();

  TempDir dir("kernelscope-extern");
  const fs::path file = dir.path() / "clamped.rs";
  std::ofstream(file) << R"(#![no_std]
#![feature(abi_ptx)]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! { loop {} }

#[no_mangle]
pub unsafe extern "ptx-kernel" fn clamped(x: *mut f32, n: usize) {
    let i = crate_util::global_index();
    if i < n {
        *x.add(i) = crate_util::clamp(*x.add(i), 0.0, 1.0);
    }
}
)";
  CompileOptions opts;
  opts.externCrates = {util};
  CompileResult r = compileWithDefaults(test::toolchain(), {file, std::nullopt, {}}, opts);
  std::string said;
  for (const auto& d : r.diagnostics) said += d.message + "\n";
  INFO(said);
  REQUIRE(r.succeeded);
  // The crate's code maps to its own file, as a path dependency's does.
  CHECK(test::containsFile(r.sourceFiles, utilDir() / "src/lib.rs"));
  CHECK_FALSE(test::instructionsFor(r, Stage::Ptx, (utilDir() / "src/lib.rs").string(),
                                    test::Fixture(utilDir() / "src/lib.rs").lineOf("v > hi"))
                  .empty());
  // Without it, rustc's own error names the crate.
  CompileResult without = compileWithDefaults(test::toolchain(), {file, std::nullopt, {}}, {});
  CHECK_FALSE(without.succeeded);

  // A file in a crate takes its crates from Cargo.toml: --extern is ignored, and said so.
  CrateCopy copy;
  CompileResult inCrate = compileWithDefaults(
      test::toolchain(), {copy.file("crate/src/lib.rs"), std::nullopt, {}}, opts);
  bool ignored = false;
  for (const auto& d : inCrate.diagnostics)
    ignored |= d.message.find("--extern not applied (crate_util)") != std::string::npos;
  CHECK(ignored);
}

namespace {

/// A tool runner that answers every command with the result it was given and keeps the
/// command lines it saw: the toolchain's tools never start.
struct AnsweringRunner : ToolRunner {
  ProcessResult answer;
  mutable std::vector<std::vector<std::string>> seen;
  ProcessResult run(const ProcessSpec& spec) const override {
    seen.push_back(spec.argv);
    return answer;
  }
};

}  // namespace

TEST_CASE("cargo metadata runs through the toolchain's runner: no cargo starts") {
  TempDir dir{"kernelscope-runner-test"};
  // findCargo's cargo beside rustc: a file that fails if it ever runs.
  fs::create_directories(dir.path() / "bin");
  const fs::path cargo = dir.path() / "bin/cargo";
  std::ofstream(cargo) << "#!/bin/sh\nexit 3\n";
  fs::permissions(cargo, fs::perms::owner_all);
  const fs::path manifest = dir.path() / "Cargo.toml";
  std::ofstream(manifest) << "[workspace]\nmembers = [\"kern\", \"util\"]\n";
  auto runner = std::make_shared<AnsweringRunner>();
  runner->answer.started = true;
  runner->answer.exitCode = 0;
  runner->answer.out = R"({"packages": [
      {"name": "kern", "manifest_path": "/w/kern/Cargo.toml"},
      {"name": "util", "manifest_path": "/w/util/Cargo.toml"}]})";
  Toolchain tc;
  tc.rustc.path = dir.path() / "bin/rustc";
  tc.runner = runner;

  std::string problem;
  auto packages = workspacePackages(tc, manifest, problem);
  CHECK(problem == "");
  REQUIRE(packages.size() == 2);
  CHECK(packages[0].name == "kern");
  CHECK(packages[1].name == "util");
  CHECK(packages[1].manifest == fs::path("/w/util/Cargo.toml"));
  REQUIRE(runner->seen.size() == 1);
  CHECK(runner->seen[0] == std::vector<std::string>{cargo.string(), "metadata", "--offline",
                                                    "--no-deps", "--format-version", "1",
                                                    "--manifest-path", manifest.string()});

  SUBCASE("cargo's failure is the problem, with its message") {
    runner->answer.exitCode = 101;
    runner->answer.out.clear();
    runner->answer.err = "error: failed to parse manifest\n";
    problem.clear();
    CHECK(workspacePackages(tc, manifest, problem).empty());
    CHECK(problem.rfind("cargo metadata exit status 101: error: failed to parse manifest", 0) == 0);
  }
}
