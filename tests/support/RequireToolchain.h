// The one toolchain gate of the test suites. A test that compiles needs rustc, the nvptx64
// core, ptxas and nvdisasm (scripts/setup.sh installs them) and fails without them, naming
// what is missing: a skip would let a suite pass that checked nothing.
#pragma once

#include <doctest/doctest.h>

#include "Toolchain.h"

namespace ks::test {

/// The toolchain the tests compile with: discovered once, the nvptx64 core built when rustc
/// is there without it (as `kernelscope setup` does).
inline const Toolchain& toolchain() {
  // Never destroyed: tests on other threads may use it while the process exits.
  static const Toolchain* const tc = [] {
    auto* found = new Toolchain(discoverToolchain());
    if (found->rustc.found() && !found->sysroot.found())
      ensureSysroot(*found, [](const std::string& m) { MESSAGE(m); });
    return found;
  }();
  return *tc;
}

/// FAILs the calling test unless rustc, the nvptx64 core, ptxas and nvdisasm are all found.
inline void requireToolchain() {
  const Toolchain& tc = toolchain();
  if (!(tc.rustc.found() && tc.sysroot.found() && tc.ptxas.found() && tc.nvdisasm.found()))
    FAIL("the kernelscope toolchain is incomplete (run scripts/setup.sh):\n" << doctorReport(tc));
}

}  // namespace ks::test
