// Kernel crates through cargo: real cargo builds of tests/fixtures/cargo (a two-member
// workspace: a cdylib with `[lib] path`, a build script setting a cfg, default features, a
// path dependency and a registry dependency served offline, a .cargo/config.toml target
// setting), unsaved text, build script failures, and what an untrusted workspace gets.
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "CargoBuild.h"
#include "Compile.h"
#include "Crate.h"
#include "Passes.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

fs::path workspace() { return test::sourceDir() / "tests/fixtures/cargo"; }
fs::path kernelsFile(const std::string& name) { return workspace() / "kernels/src" / name; }
fs::path fastmathLib() { return workspace() / "fastmath/src/lib.rs"; }

/// num-traits from Debian's librust-num-traits-dev (scripts/setup.sh installs it).
bool registryCratesInstalled() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/share/cargo/registry", ec))
    if (e.path().filename().string().starts_with("num-traits-")) return true;
  MESSAGE(
      "skipped: /usr/share/cargo/registry has no num-traits (install librust-num-traits-dev: "
      "scripts/setup.sh)");
  return false;
}

CompileOptions trusted() {
  CompileOptions o;
  o.workspaceTrusted = true;
  return o;
}

std::vector<std::string> kernelNames(const CompileResult& r) {
  std::vector<std::string> names;
  for (const auto& k : r.kernels) names.push_back(k.demangled);
  std::sort(names.begin(), names.end());
  return names;
}

std::string allMessages(const CompileResult& r) {
  std::string out;
  for (const auto& d : r.diagnostics) out += d.message + "\n";
  return out;
}

/// A cdylib crate `k` written into a temporary folder, compiled trusted with a cache of its
/// own; `manifestExtra` ends its Cargo.toml.
class ScratchCrate {
 public:
  explicit ScratchCrate(const std::string& manifestExtra = "") : dir_("kernelscope-cargo-test") {
    write("k/Cargo.toml",
          "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
          "[lib]\ncrate-type = [\"cdylib\"]\n" +
              manifestExtra);
    tc_.cacheDir = dir_.path() / "cache";
  }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((dir_.path() / rel).parent_path());
    std::ofstream(dir_.path() / rel) << text;
  }
  /// `body` (kernels) as the crate's lib.rs, with the attributes and panic handler it needs.
  void lib(const std::string& body) {
    write("k/src/lib.rs",
          "#![no_std]\n#![feature(abi_ptx)]\n" + body +
              "#[panic_handler]\nfn p(_: &core::panic::PanicInfo) -> ! { loop {} }\n");
  }
  CompileResult compile() {
    return compileWithDefaults(tc_, {dir_.path() / "k/src/lib.rs", std::nullopt, {}}, trusted());
  }
  const fs::path& path() const { return dir_.path(); }

 private:
  TempDir dir_;
  Toolchain tc_ = test::toolchain();
};

}  // namespace

TEST_CASE(
    "cargo builds a cdylib kernel crate: build script cfg, features, registry and path "
    "dependencies, config") {
  test::requireToolchain();
  if (!registryCratesInstalled()) return;
  test::Fixture shade(kernelsFile("shade.rs"));
  const CompileResult& r = test::compiled(shade.path, trusted());
  INFO(allMessages(r));
  REQUIRE(r.succeeded);
  CHECK(r.crateManifest == workspace() / "kernels/Cargo.toml");
  // `root` exists only with build.rs's cfg, `configured` only with .cargo/config.toml's.
  CHECK(kernelNames(r) == std::vector<std::string>{"configured", "root", "smooth"});
  for (const auto& k : r.kernels) CHECK(k.definition.file == kernelsFile("kernels.rs").string());
  // The default feature `scaled` is on: its multiply is there.
  CHECK(test::anyContains(
      test::instructionsFor(r, Stage::Ptx, shade.path.string(), shade.lineOf("s * 2.0")),
      "add.rn.f32"));
  // The path dependency's code is attributed to its own file, which the server watches.
  test::Fixture fastmath(fastmathLib());
  CHECK(r.lineMap->isUserFile(fastmathLib().string()));
  CHECK(test::containsFile(r.sourceFiles, fastmathLib()));
  CHECK(test::containsFile(r.sourceFiles, kernelsFile("kernels.rs")));
  CHECK_FALSE(
      test::instructionsFor(r, Stage::Ptx, fastmathLib().string(), fastmath.lineOf("t * t * (3.0"))
          .empty());
  CHECK_FALSE(
      test::instructionsFor(r, Stage::Sass, fastmathLib().string(), fastmath.lineOf("t * t * (3.0"))
          .empty());
  // Registry crates are not the user's code.
  for (const auto& f : r.lineMap->userFiles())
    CHECK(f.find("/usr/share/cargo/registry") == std::string::npos);
  // Nothing was written into the user's tree.
  CHECK_FALSE(fs::exists(workspace() / "Cargo.lock"));
  CHECK_FALSE(fs::exists(workspace() / "target"));
  CHECK_FALSE(fs::exists(workspace() / "kernels/Cargo.lock"));
}

TEST_CASE("unsaved text reaches cargo's build, and a revert to the saved text is seen") {
  test::requireToolchain();
  if (!registryCratesInstalled()) return;
  const fs::path shade = kernelsFile("shade.rs");
  std::string text = readWholeFile(shade);
  std::string fiveTimes = text;
  fiveTimes.replace(fiveTimes.find("s * 2.0"), 7, "s * 5.0");
  auto ptxOf = [&](const CompileInput& in) {
    CompileResult r = compileWithDefaults(test::toolchain(), in, trusted());
    INFO(allMessages(r));
    REQUIRE(r.succeeded);
    return r.stage(Stage::Ptx)->artifact->text();
  };
  CHECK(ptxOf({shade, fiveTimes, {}}).find("0f40A00000") != std::string::npos);  // 5.0
  CHECK(ptxOf({shade, std::nullopt, {}}).find("0f40A00000") == std::string::npos);

  // An error in the path dependency's unsaved text is reported at its line in its file.
  std::string fastmath = readWholeFile(fastmathLib());
  std::string broken = fastmath;
  broken.replace(broken.find("let t = clamp01"), 15, "let t = clamp02");
  CompileResult r = compileWithDefaults(
      test::toolchain(), {shade, std::nullopt, {{fastmathLib(), broken}}}, trusted());
  CHECK_FALSE(r.succeeded);
  bool atItsLine = false;
  test::Fixture f(fastmathLib());
  for (const auto& d : r.diagnostics)
    if (d.severity == Severity::Error && d.range && d.range->file == fastmathLib().string() &&
        d.range->startLine == f.lineOf("let t = clamp01"))
      atItsLine = true;
  INFO(allMessages(r));
  CHECK(atItsLine);
}

TEST_CASE("untrusted: cargo does not run, the user is told what is off, and the rest compiles") {
  test::requireToolchain();
  CompileResult r =
      compileWithDefaults(test::toolchain(), {kernelsFile("kernels.rs"), std::nullopt, {}}, {});
  INFO(allMessages(r));
  REQUIRE(r.succeeded);  // without the build script's cfg and the config's, `smooth` alone
  CHECK(kernelNames(r) == std::vector<std::string>{"smooth"});
  bool told = false;
  for (const auto& d : r.diagnostics)
    if (d.code == "workspace-trust" && d.severity == Severity::Warning && d.range &&
        d.range->file == (workspace() / "kernels/Cargo.toml").string()) {
      told = true;
      CHECK(d.message.find("gpu-kernels's build script") != std::string::npos);
      CHECK(d.message.find("num-traits") != std::string::npos);
      CHECK(d.message.find("not trusted") != std::string::npos);
    }
  CHECK(told);
}

TEST_CASE("a failing build script is reported with cargo's own words") {
  test::requireToolchain();
  TempDir dir("kernelscope-cargo-test");
  fs::create_directories(dir.path() / "k/src");
  std::ofstream(dir.path() / "k/Cargo.toml")
      << "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
         "[lib]\ncrate-type = [\"cdylib\"]\n";
  std::ofstream(dir.path() / "k/build.rs") << "fn main() { panic!(\"no CUDA here\"); }\n";
  std::ofstream(dir.path() / "k/src/lib.rs")
      << "#![no_std]\n#[panic_handler]\nfn p(_: &core::panic::PanicInfo) -> ! { loop {} }\n";
  Toolchain tc = test::toolchain();
  tc.cacheDir = dir.path() / "cache";
  CompileResult r =
      compileWithDefaults(tc, {dir.path() / "k/src/lib.rs", std::nullopt, {}}, trusted());
  CHECK_FALSE(r.succeeded);
  INFO(allMessages(r));
  CHECK(allMessages(r).find("no CUDA here") != std::string::npos);
  CHECK(allMessages(r).find("build") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "k/Cargo.lock"));
  CHECK_FALSE(fs::exists(dir.path() / "k/target"));
}

TEST_CASE("a workspace cargo cannot resolve offline compiles with rustc alone, and says so") {
  test::requireToolchain();
  // The kernel crate needs nothing, but another member needs a crate that is in no local
  // registry: cargo resolves the whole workspace, so it cannot build anything offline.
  TempDir dir("kernelscope-cargo-test");
  fs::create_directories(dir.path() / "k/src");
  fs::create_directories(dir.path() / "other/src");
  std::ofstream(dir.path() / "Cargo.toml") << "[workspace]\nmembers = [\"k\", \"other\"]\n";
  std::ofstream(dir.path() / "k/Cargo.toml")
      << "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
         "[lib]\ncrate-type = [\"cdylib\"]\n";
  std::ofstream(dir.path() / "k/src/lib.rs")
      << "#![no_std]\n#![feature(abi_ptx)]\n#[no_mangle]\n"
         "pub unsafe extern \"ptx-kernel\" fn twice(x: *mut f32) { *x = *x * 2.0; }\n"
         "#[panic_handler]\nfn p(_: &core::panic::PanicInfo) -> ! { loop {} }\n";
  std::ofstream(dir.path() / "other/Cargo.toml")
      << "[package]\nname = \"other\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
         "[dependencies]\nno-such-crate-anywhere = \"1.0\"\n";
  std::ofstream(dir.path() / "other/src/lib.rs") << "pub fn f() {}\n";
  Toolchain tc = test::toolchain();
  tc.cacheDir = dir.path() / "cache";
  const CompileInput input{dir.path() / "k/src/lib.rs", std::nullopt, {}};
  CompileResult r = compileWithDefaults(tc, input, trusted());
  INFO(allMessages(r));
  REQUIRE(r.succeeded);
  CHECK(kernelNames(r) == std::vector<std::string>{"twice"});
  bool told = false;
  for (const auto& d : r.diagnostics)
    if (d.message.find("cargo could not resolve the workspace offline") != std::string::npos) {
      told = true;
      CHECK(d.severity == Severity::Warning);
      REQUIRE(d.range);
      CHECK(d.range->file == normalizePath((dir.path() / "k/Cargo.toml").string()));
      // Cargo's own words, with the user's paths, not those of kernelscope's mirror.
      CHECK(d.message.find("no-such-crate-anywhere") != std::string::npos);
      CHECK(d.message.find(normalizePath((dir.path() / "other").string()) + ")") !=
            std::string::npos);
      CHECK(d.message.find(tc.cacheDir.string()) == std::string::npos);
    }
  CHECK(told);
  // The passes view takes the same way.
  PassesResult passes = computePasses(tc, input, resolveOptions(trusted()), "twice", {});
  CHECK(passes.error.empty());
  CHECK_FALSE(passes.stages.empty());
}

TEST_CASE(
    "the shadow tree: unsaved files are files, the rest links, a reverted file follows the disk") {
  TempDir dir("kernelscope-shadow-test");
  const fs::path real = dir.path() / "real", shadow = dir.path() / "shadow",
                 record = dir.path() / "record";
  fs::create_directories(real / "src");
  std::ofstream(real / "src/lib.rs") << "saved";
  std::ofstream(real / "src/other.rs") << "other";
  std::ofstream(real / "Cargo.toml") << "toml";
  const std::string lib = (real / "src/lib.rs").string();
  const std::string lock = (real / "Cargo.lock").string();

  syncShadowTree(shadow, {{lib, "unsaved"}}, {lock}, record);
  CHECK(readWholeFile(shadowPathOf(shadow, lib)) == "unsaved");
  CHECK_FALSE(fs::is_symlink(shadowPathOf(shadow, lib)));
  CHECK(fs::is_symlink(shadowPathOf(shadow, real / "src/other.rs")));
  CHECK(fs::is_symlink(shadowPathOf(shadow, real / "Cargo.toml")));

  // Cargo writes a Cargo.lock the user does not have: it is kept.
  std::ofstream(shadowPathOf(shadow, lock)) << "lock";
  syncShadowTree(shadow, {}, {lock}, record);
  CHECK(readWholeFile(shadowPathOf(shadow, lib)) == "saved");  // back to the disk's text
  CHECK(readWholeFile(shadowPathOf(shadow, lock)) == "lock");
  CHECK_FALSE(fs::exists(real / "Cargo.lock"));

  // A file that disappears from the disk disappears from the shadow.
  fs::remove(real / "src/lib.rs");
  syncShadowTree(shadow, {}, {lock}, record);
  CHECK_FALSE(fs::exists(shadowPathOf(shadow, lib)));
  CHECK(fs::is_symlink(shadowPathOf(shadow, real / "src/other.rs")));
}

TEST_CASE("the CLI builds a crate through cargo") {
  test::requireToolchain();
  if (!registryCratesInstalled()) return;
  ProcessResult r = test::runKernelscope(
      {"explain", "tests/fixtures/cargo/kernels/src/kernels.rs", "--stages", "ptx"});
  INFO(r.out << r.err);
  CHECK(r.exitCode == 0);
  CHECK(r.out.find("configured") != std::string::npos);
  CHECK(r.out.find("root") != std::string::npos);
  CHECK(r.out.find("smooth") != std::string::npos);
}

TEST_CASE("a file of a crate without kernels shows what the kernels that use it made of it") {
  test::requireToolchain();
  if (!registryCratesInstalled()) return;
  test::Fixture fastmath(fastmathLib());
  const CompileResult& r = test::compiled(fastmath.path, trusted());
  INFO(allMessages(r));
  REQUIRE(r.succeeded);
  CHECK(kernelNames(r) == std::vector<std::string>{"configured", "root", "smooth"});
  const uint32_t cubic = fastmath.lineOf("t * t * (3.0");
  auto ptx = test::instructionsFor(r, Stage::Ptx, fastmath.path.string(), cubic);
  CHECK(test::anyContains(ptx, "mul.rn.f32"));
  // Each instruction says which kernel it is in and where it was inlined.
  const auto& lines = r.lineMap->linesFor(Stage::Ptx, {fastmath.path.string(), cubic}).direct;
  REQUIRE_FALSE(lines.empty());
  const LineOrigin& o = r.lineMap->origin(Stage::Ptx, lines.front());
  REQUIRE_FALSE(o.outerUserFrames.empty());
  CHECK(o.outerUserFrames.front().file == kernelsFile("shade.rs").string());
  CHECK(o.outerUserFrames.front().line ==
        test::Fixture(kernelsFile("shade.rs")).lineOf("fastmath::smoothstep"));

  // The CLI names the kernel and the call site, and a file that is not the current one.
  ProcessResult cli = test::runKernelscope(
      {"explain", "tests/fixtures/cargo/fastmath/src/lib.rs", "--stages", "ptx"});
  INFO(cli.out << cli.err);
  CHECK(cli.exitCode == 0);
  CHECK(cli.out.find("// in smooth, inlined at tests/fixtures/cargo/kernels/src/shade.rs:5") !=
        std::string::npos);
  ProcessResult caller = test::runKernelscope(
      {"explain", "tests/fixtures/cargo/kernels/src/shade.rs", "--stages", "ptx"});
  CHECK(caller.out.find(
            "// inlined from tests/fixtures/cargo/fastmath/src/lib.rs:8 (fastmath::smoothstep)") !=
        std::string::npos);
}

TEST_CASE("a helper crate used by two kernel crates shows the kernels of both") {
  test::requireToolchain();
  TempDir dir("kernelscope-users-test");
  auto write = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((dir.path() / rel).parent_path());
    std::ofstream(dir.path() / rel) << text;
  };
  write("util/Cargo.toml", "[package]\nname = \"util\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
  write("util/src/lib.rs", "#![no_std]\n#[inline]\npub fn twice(v: f32) -> f32 {\n    v + v\n}\n");
  for (const std::string name : {"a", "b"}) {
    write(name + "/Cargo.toml", "[package]\nname = \"" + name +
                                    "\"\nversion = \"0.1.0\"\nedition = \"2021\"\n" +
                                    "[dependencies]\nutil = { path = \"../util\" }\n");
    write(name + "/src/lib.rs",
          "#![no_std]\n#![feature(abi_ptx)]\n#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn " +
              name + "_twice(p: *mut f32) {\n    *p = util::twice(*p);\n}\n" +
              "#[panic_handler]\nfn p(_: &core::panic::PanicInfo) -> ! { loop {} }\n");
  }
  const fs::path util = dir.path() / "util/src/lib.rs";
  CompileResult r = compileWithDefaults(test::toolchain(), {util, std::nullopt, {}}, {});
  INFO(allMessages(r));
  REQUIRE(r.succeeded);
  CHECK(kernelNames(r) == std::vector<std::string>{"a_twice", "b_twice"});
  const Artifact& ptx = *r.stage(Stage::Ptx)->artifact;
  std::set<std::string> kernels;
  for (uint32_t l : r.lineMap->linesFor(Stage::Ptx, {util.string(), 4}).direct)
    kernels.insert(ptx.functions[ptx.lines()[l].function].demangled);
  CHECK(kernels == std::set<std::string>{"a_twice", "b_twice"});
  CHECK(r.stage(Stage::Sass)->available);
}

namespace {

/// The modification time of the kernel crate's LLVM IR in cargo's target dirs under `cache`:
/// it changes only when cargo rebuilds the crate.
fs::file_time_type kernelCrateBuilt(const fs::path& cache) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(cache / "cargo", ec); it != fs::end(it);
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("gpu_kernels-") && name.ends_with(".ll")) return it->last_write_time(ec);
  }
  return {};
}

}  // namespace

TEST_CASE("an unchanged kernel crate is fresh to cargo: not rebuilt, its remarks still there") {
  test::requireToolchain();
  if (!registryCratesInstalled()) return;
  TempDir cache("kernelscope-fresh-test");
  Toolchain tc = test::toolchain();
  tc.cacheDir = cache.path();
  const fs::path kernels = kernelsFile("kernels.rs");
  CompileResult first = compileWithDefaults(tc, {kernels, std::nullopt, {}}, trusted());
  INFO(allMessages(first));
  REQUIRE(first.succeeded);
  const auto built = kernelCrateBuilt(cache.path());
  REQUIRE(built != fs::file_time_type{});
  CHECK_FALSE(first.remarks.empty());

  // Other stages, the same crate: cargo finds it fresh, and the compile is the same.
  CompileOptions ptxOnly = trusted();
  ptxOnly.stages = {Stage::Ptx};
  CompileResult second = compileWithDefaults(tc, {kernels, std::nullopt, {}}, ptxOnly);
  REQUIRE(second.succeeded);
  CHECK(kernelCrateBuilt(cache.path()) == built);
  CHECK(kernelNames(second) == kernelNames(first));
  CHECK(second.remarks.size() == first.remarks.size());
  CHECK(second.stage(Stage::Ptx)->artifact->text() == first.stage(Stage::Ptx)->artifact->text());

  // Without remarks: the same arguments (fresh), and no remark is read; with them again,
  // the build's remarks are still there.
  CompileOptions noRemarks = trusted();
  noRemarks.remarks = false;
  CompileResult quiet = compileWithDefaults(tc, {kernels, std::nullopt, {}}, noRemarks);
  REQUIRE(quiet.succeeded);
  CHECK(kernelCrateBuilt(cache.path()) == built);
  CHECK(quiet.remarks.empty());
  CompileResult again = compileWithDefaults(tc, {kernels, std::nullopt, {}}, trusted());
  REQUIRE(again.succeeded);
  CHECK(kernelCrateBuilt(cache.path()) == built);
  CHECK(again.remarks.size() == first.remarks.size());

  // An edit is a rebuild.
  std::string text = readWholeFile(kernels);
  text.replace(text.find("*out = 1.0;"), 11, "*out = 3.0;");
  CompileResult edited = compileWithDefaults(tc, {kernels, text, {}}, trusted());
  REQUIRE(edited.succeeded);
  CHECK(kernelCrateBuilt(cache.path()) != built);
  CHECK(edited.stage(Stage::Ptx)->artifact->text().find("0f40400000") != std::string::npos);
}

TEST_CASE("passes through cargo: the build script's cfg is seen, and a second run runs again") {
  test::requireToolchain();
  if (!registryCratesInstalled()) return;
  const fs::path kernels = kernelsFile("kernels.rs");
  for (int run = 0; run < 2; ++run) {
    CAPTURE(run);
    // `root` exists only where cargo ran build.rs.
    PassesResult r =
        computePasses(test::toolchain(), {kernels, std::nullopt, {}}, resolveOptions(trusted()),
                      "root", PassesOptions{true, false, 3});
    INFO(r.error);
    REQUIRE(r.error.empty());
    const StagePasses* llvm = r.stage(Stage::LlvmIr);
    REQUIRE(llvm != nullptr);
    CHECK(llvm->passesRun > 10);
    CHECK_FALSE(llvm->changes.empty());
    CHECK(llvm->final.starts_with("define ptx_kernel void @root("));
    CHECK_FALSE(irFunctionText(r.finalModuleIr, "root").empty());
  }
  // Untrusted, the crate is built without cargo: no build script, no `root`.
  PassesResult untrusted =
      computePasses(test::toolchain(), {kernels, std::nullopt, {}}, {}, "root");
  CHECK(untrusted.error.starts_with("unknown kernel 'root'"));
}

TEST_CASE(".cargo/config.toml rustflags as cargo takes them: matching target tables, else build") {
  test::requireToolchain();
  ScratchCrate crate("[lints.rust]\nunexpected_cfgs = \"allow\"\n");
  std::string lib;
  for (const std::string cfg : {"from_build", "from_host_table", "from_nvptx_table"})
    lib += "#[cfg(" + cfg + ")]\n#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn " + cfg +
           "(p: *mut f32) {\n    *p = 1.0;\n}\n";
  crate.lib(lib);
  auto kernelsWith = [&](const std::string& config) {
    crate.write("k/.cargo/config.toml", config);
    CompileResult r = crate.compile();
    INFO(allMessages(r));
    REQUIRE(r.succeeded);
    return kernelNames(r);
  };
  // A `cfg` table that does not match nvptx64 leaves build.rustflags in force.
  CHECK(kernelsWith("[build]\nrustflags = [\"--cfg\", \"from_build\"]\n"
                    "[target.'cfg(target_os = \"linux\")']\n"
                    "rustflags = [\"--cfg\", \"from_host_table\"]\n") ==
        std::vector<std::string>{"from_build"});
  // One that matches replaces them, as cargo does; a string build.rustflags works too.
  CHECK(kernelsWith("[build]\nrustflags = \"--cfg from_build\"\n"
                    "[target.'cfg(target_arch = \"nvptx64\")']\n"
                    "rustflags = [\"--cfg\", \"from_nvptx_table\"]\n") ==
        std::vector<std::string>{"from_nvptx_table"});
  CHECK(kernelsWith("[build]\nrustflags = \"--cfg from_build\"\n") ==
        std::vector<std::string>{"from_build"});
  CHECK_FALSE(fs::exists(crate.path() / "k/target"));
}

TEST_CASE(
    "a build's rustflags: codegen units overridden and said; no code made is said, not shown "
    "stale") {
  test::requireToolchain();
  ScratchCrate crate;
  // Kernels in two modules: rustc's units follow modules, so several units would split them.
  auto kernels = [&](const std::string& name) {
    std::string lib;
    for (const std::string m : {"a", "b"})
      lib += "mod " + m + " {\n#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn " + name + "_" +
             m + "(p: *mut f32) {\n    *p = 1.0;\n}\n}\n";
    crate.lib(lib);
  };
  auto compile = [&] { return crate.compile(); };
  kernels("first");
  CompileResult one = compile();
  REQUIRE(one.succeeded);
  CHECK(kernelNames(one) == std::vector<std::string>{"first_a", "first_b"});
  // With 16 units rustc would write a file per unit and leave the last build's single files
  // in place: the first kernels would be shown for the second.
  crate.write("k/.cargo/config.toml",
              "[target.nvptx64-nvidia-cuda]\nrustflags = [\"-Ccodegen-units=16\"]\n");
  kernels("second");
  CompileResult r = compile();
  INFO(allMessages(r));
  REQUIRE(r.succeeded);
  CHECK(kernelNames(r) == std::vector<std::string>{"second_a", "second_b"});
  const std::string ptx = r.stage(Stage::Ptx)->artifact->text();
  CHECK(ptx.find(".entry second_a") != std::string::npos);  // one module: both kernels
  CHECK(ptx.find(".entry second_b") != std::string::npos);
  CHECK(test::anyContains(
      [&] {
        std::vector<std::string> notes;
        for (const auto& d : r.diagnostics)
          if (d.severity == Severity::Note) notes.push_back(d.message);
        return notes;
      }(),
      "the build's rustflags set the codegen units (-Ccodegen-units=16): kernelscope compiles "
      "the crate as one unit"));

  // A flag that stops code generation: said, and the last build's code is not shown.
  crate.write("k/.cargo/config.toml",
              "[target.nvptx64-nvidia-cuda]\nrustflags = [\"-Zno-codegen\"]\n");
  kernels("third");
  CompileResult none = compile();
  CHECK_FALSE(none.succeeded);
  CHECK(none.kernels.empty());
  CHECK(none.failure.find("rustc made no LLVM IR of the crate") != std::string::npos);
}

TEST_CASE("a cargo crate's launched image links what its kernels call from a dependency") {
  // `root` calls libm's sqrtf (through num-traits), not inlined: a cdylib build links libm's
  // rlib, and so does the image kernelscope launches (CoreLink.h).
  test::requireToolchain();
  if (!registryCratesInstalled()) return;
  const CompileResult& r = test::compiled(kernelsFile("kernels.rs"), trusted());
  INFO(allMessages(r));
  REQUIRE(r.succeeded);
  REQUIRE(!r.cubins.empty());
  for (const auto& [kernel, cubin] : r.cubins) {
    CHECK(cubin->size() > 18);
    CHECK(static_cast<unsigned char>((*cubin)[16]) == 2);  // ELF ET_EXEC: loadable
  }
  CHECK(r.cubinProblem.empty());
  bool sqrtf = false;
  for (const LinkedFunction& f : r.linkedFunctions)
    sqrtf |= f.library == "libm" && f.demangled == "libm::math::sqrtf::sqrtf";
  CHECK(sqrtf);
  REQUIRE(r.stage(Stage::Sass)->available);
  CHECK(r.stage(Stage::Sass)
            ->artifact->text()
            .find("        // linked from libm: libm::math::sqrtf::sqrtf") != std::string::npos);
}
