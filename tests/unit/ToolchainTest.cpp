// Toolchain discovery: explicit choices, missing tools with fixes, fingerprints.
#include <doctest/doctest.h>

#include <cstdlib>

#include "TestSupport.h"
#include "Toolchain.h"

using namespace ks;

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
  if (!test::toolchainUsable()) return;
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
