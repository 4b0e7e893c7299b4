// Workspace trust: what a workspace's own files may choose, and what needs the user's trust.
#include <doctest/doctest.h>

#include "Trust.h"

using namespace ks;

TEST_CASE(
    "workspace rustc flags: code generation and lints pass, loading code and writing files need "
    "trust") {
  auto v = vetWorkspaceRustcFlags({"-C", "target-feature=+ptx80", "-Cdebuginfo=2",
                                   "--codegen=overflow-checks=on", "--cfg", "feature=\"fast\"",
                                   "-Zmir-opt-level=2", "-Dwarnings", "--cap-lints", "warn"});
  CHECK(v.safe == std::vector<std::string>{"-C", "target-feature=+ptx80", "-Cdebuginfo=2",
                                           "--codegen=overflow-checks=on", "--cfg",
                                           "feature=\"fast\"", "-Zmir-opt-level=2", "-Dwarnings",
                                           "--cap-lints", "warn"});
  CHECK(v.needTrust.empty());

  // Each probe of the hostile crate: a library loaded, a file written, a program run.
  auto hostile = vetWorkspaceRustcFlags(
      {"-Zcodegen-backend=/tmp/evil.so", "--emit=llvm-ir=/home/me/.bashrc", "-o", "/tmp/out", "-C",
       "linker=/tmp/evil", "-Cllvm-args=-info-output-file=/x", "-L", "/tmp", "--extern",
       "evil=/tmp/libevil.rlib", "-Z", "crate-attr=x", "--cfg", "ok"});
  CHECK(hostile.safe == std::vector<std::string>{"--cfg", "ok"});
  CHECK(hostile.needTrust ==
        std::vector<std::string>{
            "-Zcodegen-backend=/tmp/evil.so", "--emit=llvm-ir=/home/me/.bashrc", "-o", "/tmp/out",
            "-C", "linker=/tmp/evil", "-Cllvm-args=-info-output-file=/x", "-L", "/tmp", "--extern",
            "evil=/tmp/libevil.rlib", "-Z", "crate-attr=x"});
  // An option whose value is missing is not safe either.
  CHECK(vetWorkspaceRustcFlags({"-C"}).needTrust == std::vector<std::string>{"-C"});
}

TEST_CASE("profiles that run cargo need trust") {
  CHECK_FALSE(profileRunsCargo(ToolchainProfile::RustcNvptx));
  CHECK(profileRunsCargo(ToolchainProfile::RustCuda));
  CHECK(profileRunsCargo(ToolchainProfile::CudaOxide));
}

TEST_CASE("flags that leave rustc's LLVM back end alone") {
  CHECK(leavesBackEndAlone({}));
  CHECK(leavesBackEndAlone({"-C", "debuginfo=2", "-Coverflow-checks=on", "--codegen", "panic=abort",
                            "-Zmir-opt-level=2", "--cfg", "feature=\"x\"", "-A", "dead_code"}));
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{"-C", "target-feature=+ptx80"},
                                             {"-Cllvm-args=-nvptx-sched4reg"},
                                             {"--codegen=relocation-model=pic"},
                                             {"-C", "opt-level=1"},
                                             {"-Ztrap-unreachable=no"}}) {
    CAPTURE(flags.front());
    CHECK_FALSE(leavesBackEndAlone(flags));
  }
}
