// Toolchain discovery: explicit choices, missing tools with fixes, fingerprints.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "Process.h"
#include "TestSupport.h"
#include "Toolchain.h"

using namespace ks;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("an explicit rustc that does not exist is reported with a fix") {
  ToolchainSettings s;
  s.rustc = "/nonexistent/rustc";
  Toolchain tc = discoverToolchain(s);
  CHECK_FALSE(tc.rustc.found());
  CHECK(tc.rustc.problem.find("/nonexistent/rustc") != std::string::npos);
  CHECK_FALSE(tc.rustc.fix.empty());
  std::string report = doctorReport(tc);
  CHECK(report.find("MISSING") != std::string::npos);
  CHECK(report.find("fix:") != std::string::npos);
}

TEST_CASE("the set-up toolchain is found and pairs ptxas with nvdisasm of one release") {
  test::requireToolchain();
  const Toolchain& tc = test::toolchain();
  CHECK(tc.rustcLlvm.starts_with("22."));
  CHECK(tc.ptxas.path.parent_path() == tc.nvdisasm.path.parent_path());
  CHECK_FALSE(tc.cudaRelease.empty());
  CHECK(tc.nvdisasm.version.find("release " + tc.cudaRelease) != std::string::npos);
  CHECK(doctorReport(tc).find("MISSING") == std::string::npos);
}

TEST_CASE("the fingerprint changes with any tool") {
  Toolchain a;
  a.rustc.path = "/usr/bin/rustc";
  a.rustc.version = "1.96.0";
  a.ptxas.version = "11.8";
  Toolchain b = a;
  CHECK(a.fingerprint() == b.fingerprint());
  b.ptxas.version = "13.0";
  CHECK(a.fingerprint() != b.fingerprint());
  b = a;
  b.sysroot.path = "/elsewhere";
  CHECK(a.fingerprint() != b.fingerprint());
  // nvcc makes the PTX of a .cu file: another nvcc must not be answered from the cache.
  b = a;
  b.nvcc.version = "Cuda compilation tools, release 12.4, V12.4.131";
  CHECK(a.fingerprint() != b.fingerprint());
  b = a;
  b.nvcc.path = "/opt/cuda-12.4/bin/nvcc";
  CHECK(a.fingerprint() != b.fingerprint());
}

TEST_CASE("the sysroot cache is keyed by the rustc version") {
  Toolchain a;
  a.cacheDir = "/c";
  a.rustcRelease = "1.96.0";
  a.rustc.version = "1.96.0 (LLVM 22.1.8)";
  Toolchain b = a;
  b.rustcRelease = "1.97.0";
  b.rustc.version = "1.97.0 (LLVM 22.1.8)";
  CHECK(a.sysrootCacheDir() != b.sysrootCacheDir());
  CHECK(a.sysrootCacheDir().string().find("1.96.0") != std::string::npos);
}

namespace {

/// A fake toolchain in a temp dir whose tools count their runs: rustc (a nightly without
/// the nvptx64 core, with library sources), and a CUDA 11.8 ptxas, nvdisasm and nvcc.
struct FakeTools {
  TempDir dir{"toolchain-cache-test"};
  fs::path runs = dir.path() / "runs";

  FakeTools() {
    fs::create_directories(dir.path() / "cuda/bin");
    fs::create_directories(dir.path() / "sysroot/lib/rustlib/src/rust/library/core");
    write("rustc",
          "case \"$1\" in -vV) printf 'rustc 1.96.0\\nrelease: 1.96.0\\nLLVM version: "
          "22.1.8\\n';; --print) echo " +
              (dir.path() / "sysroot").string() + ";; esac");
    for (const char* tool : {"ptxas", "nvdisasm", "nvcc"})
      write(std::string("cuda/bin/") + tool,
            "echo 'Cuda compilation tools, release 11.8, V11.8.89'");
  }
  void write(const std::string& name, const std::string& body) {
    const fs::path p = dir.path() / name;
    std::ofstream(p) << "#!/bin/sh\necho " << name << " >> " << runs.string() << "\n"
                     << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
  }
  ToolchainSettings settings() const {
    return {(dir.path() / "rustc").string(), (dir.path() / "cuda").string(),
            (dir.path() / "cache").string()};
  }
  /// How many tool runs discovery made so far.
  size_t toolRuns() const {
    const std::string log = readWholeFile(runs);
    return splitLines(log).size();
  }
};

}  // namespace

TEST_CASE("toolchain discovery is reused from the cache until a tool changes") {
  FakeTools fake;
  const Toolchain first = discoverToolchain(fake.settings());
  CHECK(first.rustcRelease == "1.96.0");
  CHECK(first.ptxas.found());
  CHECK(first.cudaRelease == "11.8");
  const size_t runs = fake.toolRuns();
  CHECK(runs >= 4);  // rustc twice, ptxas, nvdisasm, nvcc

  // Unchanged: no tool runs, the same toolchain.
  const Toolchain again = discoverToolchain(fake.settings());
  CHECK(fake.toolRuns() == runs);
  CHECK(again.fingerprint() == first.fingerprint());
  CHECK(again.rustc.path == first.rustc.path);
  CHECK(again.nvcc.version == first.nvcc.version);
  CHECK(again.rustSrc == first.rustSrc);

  // A new ptxas (its modification time changes): discovered afresh, and the new version seen.
  fake.write("cuda/bin/ptxas", "echo 'Cuda compilation tools, release 12.4, V12.4.131'");
  fs::last_write_time(fake.dir.path() / "cuda/bin/ptxas",
                      fs::last_write_time(fake.dir.path() / "cuda/bin/ptxas") + 1s);
  const Toolchain upgraded = discoverToolchain(fake.settings());
  CHECK(fake.toolRuns() > runs);
  CHECK(upgraded.cudaRelease == "12.4");
  CHECK(upgraded.fingerprint() != first.fingerprint());

  // A damaged cache file is not trusted: discovery runs again and answers right.
  const size_t before = fake.toolRuns();
  for (const auto& e : fs::directory_iterator(fake.dir.path() / "cache/toolchain"))
    std::ofstream(e.path()) << "{\"format\": 1, \"witnesses\": [tru";
  const Toolchain afterDamage = discoverToolchain(fake.settings());
  CHECK(fake.toolRuns() > before);
  CHECK(afterDamage.cudaRelease == "12.4");
  // ... and rewrites it whole: the next discovery is a hit again.
  const size_t rewritten = fake.toolRuns();
  discoverToolchain(fake.settings());
  CHECK(fake.toolRuns() == rewritten);
}

TEST_CASE("toolchain discovery notices a tool that appears") {
  FakeTools fake;
  const fs::path nvcc = fake.dir.path() / "cuda/bin/nvcc";
  fs::remove(nvcc);
  CHECK(discoverToolchain(fake.settings()).nvcc.path != nvcc);  // none, or one on PATH
  fake.write("cuda/bin/nvcc", "echo 'Cuda compilation tools, release 11.8, V11.8.89'");
  CHECK(discoverToolchain(fake.settings()).nvcc.path == nvcc);
}

TEST_CASE("building the core removes the cores no rustc uses any more, and only those") {
  FakeTools fake;
  // cargo next to the fake rustc "builds" core and compiler_builtins: two real archives.
  fake.write("cargo",
             "d=\"$CARGO_TARGET_DIR/nvptx64-nvidia-cuda/release/deps\"; mkdir -p \"$d\" && cd "
             "\"$d\" && echo x > m.o && ar rc libcore-fake.rlib m.o && ar rc "
             "libcompiler_builtins-fake.rlib m.o");
  Toolchain tc = discoverToolchain(fake.settings());
  REQUIRE(tc.rustc.found());
  REQUIRE_FALSE(tc.sysroot.found());
  const fs::path sysroots = tc.sysrootCacheDir().parent_path();
  // A core's folder as kernelscope leaves it; `builtFor` empty: as earlier releases did.
  auto core = [](const fs::path& dir, const std::string& builtFor) {
    fs::create_directories(dir / "lib/rustlib/nvptx64-nvidia-cuda/lib");
    if (!builtFor.empty()) std::ofstream(dir / "kernelscope-rustc") << builtFor << "\n";
    return dir;
  };
  const std::string rustc = tc.rustc.path.string();
  const fs::path upgraded = core(sysroots / "1.95.0-aa", rustc);  // this rustc's earlier release
  const fs::path gone = core(sysroots / "1.94.0-bb", "/nonexistent/rustc");
  const fs::path otherRustc =
      core(sysroots / "1.96.0-cc", (fake.dir.path() / "cuda/bin/nvcc").string());
  const fs::path earlierOld = core(sysroots / "1.93.0-0123456789ab", "");
  fs::last_write_time(earlierOld, fs::file_time_type::clock::now() - 48h);
  const fs::path earlierRecent = core(sysroots / "1.93.0-ba9876543210", "");
  const fs::path staging = core(sysroots / "1.95.0-dd.tmp-123", rustc);
  const fs::path notACore = sysroots / "notes";
  fs::create_directories(notACore / "lib");
  const fs::path outside = core(fake.dir.path() / "elsewhere", rustc);
  fs::create_directory_symlink(outside, sysroots / "link");

  std::vector<std::string> said;
  REQUIRE(ensureSysroot(tc, [&](const std::string& m) { said.push_back(m); }).empty());
  CHECK(tc.sysroot.path == tc.sysrootCacheDir());
  CHECK(readWholeFile(tc.sysroot.path / "kernelscope-rustc") == rustc + "\n");
  CHECK(discoverToolchain(fake.settings()).sysroot.path == tc.sysrootCacheDir());
  for (const fs::path& removed : {upgraded, gone, earlierOld}) {
    CAPTURE(removed);
    CHECK_FALSE(fs::exists(removed));
    CHECK(std::count(said.begin(), said.end(),
                     "Removed " + removed.string() + ", a core no rustc here uses any more") == 1);
  }
  for (const fs::path& kept : {otherRustc, earlierRecent, staging, notACore, outside}) {
    CAPTURE(kept);
    CHECK(fs::exists(kept));
  }
  CHECK(fs::is_symlink(sysroots / "link"));
}

TEST_CASE("a rustup proxy is resolved to its toolchain's rustc, from outside the workspace") {
  // The proxy chooses a toolchain by the rust-toolchain.toml of its working directory, and a
  // workspace's could name any program (`path = "/proc/self/cwd/evil-tc"`): the language
  // server's working directory is often the workspace.
  FakeTools fake;
  const fs::path own = fake.dir.path() / "sysroot/bin/rustc";
  fs::create_directories(own.parent_path());
  fake.write("sysroot/bin/rustc",
             "case \"$1\" in -vV) printf 'rustc 1.96.0\\nrelease: 1.96.0\\nLLVM version: "
             "22.1.8\\n';; --print) echo " +
                 (fake.dir.path() / "sysroot").string() + ";; esac");
  // rustup's proxies are rustup under another name (here a link, as ~/.cargo/bin has them).
  fake.write("rustup", "if [ -f rust-toolchain.toml ]; then echo workspace-toolchain >> " +
                           fake.runs.string() + "; fi\nexec " + own.string() + " \"$@\"");
  fs::remove(fake.dir.path() / "rustc");
  fs::create_symlink("rustup", fake.dir.path() / "rustc");
  const fs::path workspace = fake.dir.path() / "workspace";
  fs::create_directories(workspace);
  std::ofstream(workspace / "rust-toolchain.toml") << "[toolchain]\npath = \"/tmp/evil-tc\"\n";
  const fs::path before = fs::current_path();
  fs::current_path(workspace);
  Toolchain tc = discoverToolchain(fake.settings());
  fs::current_path(before);
  CHECK(tc.rustc.path == own);
  CHECK(readWholeFile(fake.runs).find("workspace-toolchain") == std::string::npos);
  CHECK(kernelscopeWorkingDirectory(tc).string().starts_with(tc.cacheDir.string()));

  // A wrapper the user chose (not rustup) is run as it is, from outside the workspace too.
  FakeTools wrapped;
  fs::current_path(workspace);
  Toolchain chosen = discoverToolchain(wrapped.settings());
  fs::current_path(before);
  CHECK(chosen.rustc.path == wrapped.dir.path() / "rustc");
}
