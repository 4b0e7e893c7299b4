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
  CHECK(hostile.trusted == std::vector<std::string>{
                               "-Zcodegen-backend=/tmp/evil.so", "--emit=llvm-ir=/home/me/.bashrc",
                               "-o", "/tmp/out", "-C", "linker=/tmp/evil",
                               "-Cllvm-args=-info-output-file=/x", "-L", "/tmp", "--extern",
                               "evil=/tmp/libevil.rlib", "-Z", "crate-attr=x", "--cfg", "ok"});
}

TEST_CASE("workspace rustc flags: an @file argument is refused, trusted or not") {
  // rustc reads `@file` as more arguments before it parses options: a crate's
  // `rustc-flags = ["--cfg", "@shadow0/flags.txt"]` could load its own codegen backend.
  auto v = vetWorkspaceRustcFlags({"--cfg", "@shadow0/flags.txt", "-W", "@/abs/flags.txt",
                                   "@flags.txt", "-A", "dead_code", "--cfg=@x"});
  CHECK(v.refused == std::vector<std::string>{"--cfg", "@shadow0/flags.txt", "-W",
                                              "@/abs/flags.txt", "@flags.txt"});
  CHECK(v.safe == std::vector<std::string>{"-A", "dead_code"});
  // Glued, `@x` is the option's value, not an argument of its own: it fails the cfg grammar.
  CHECK(v.needTrust == std::vector<std::string>{"--cfg=@x"});
  CHECK(v.trusted == std::vector<std::string>{"-A", "dead_code", "--cfg=@x"});
}

TEST_CASE("workspace rustc flags: each allowed option's value is checked by its grammar") {
  const std::vector<std::vector<std::string>> valid = {
      {"--cfg", "feature"},
      {"--cfg", "feature=\"fast math\""},
      {"--check-cfg", "cfg(fast)"},
      {"--check-cfg", "cfg(feature, values(\"a\", \"b\", none()))"},
      {"--check-cfg=cfg(x, values(any()))"},
      {"-W", "unused-variables"},
      {"-Aclippy::all"},
      {"--deny=warnings"},
      {"--cap-lints", "allow"},
      {"-C", "opt-level=s"},
      {"-Cdebuginfo=line-tables-only"},
      {"-C", "overflow-checks"},
      {"-C", "codegen-units=16"},
      {"-C", "target-feature=+ptx80,-foo"},
      {"-C", "remark=all"},
      {"-Z", "mir-enable-passes=-Inline,+GVN"},
      {"-Zinline-mir=no"}};
  for (const auto& flags : valid) {
    CAPTURE(joinFlags(flags));
    CHECK(vetWorkspaceRustcFlags(flags).safe == flags);
  }
  const std::vector<std::vector<std::string>> invalid = {{"--cfg", "-Zcodegen-backend=x.so"},
                                                         {"--cfg", "a=b"},
                                                         {"--cfg", "a=\"quote\"inside\""},
                                                         {"--check-cfg", "cfg(a"},
                                                         {"--check-cfg", "cfg(a, values(b))"},
                                                         {"-W", "--emit=llvm-ir=/tmp/x"},
                                                         {"-A", "a b"},
                                                         {"--cap-lints", "loud"},
                                                         {"-C", "opt-level=4"},
                                                         {"-C", "debuginfo=/tmp/x"},
                                                         {"-C", "codegen-units=-1"},
                                                         {"-C", "target-feature=ptx80"},
                                                         {"-C", "panic=../x"},
                                                         {"-C", "remark=a b"},
                                                         {"-Z", "mir-opt-level=x"}};
  for (const auto& flags : invalid) {
    CAPTURE(joinFlags(flags));
    auto v = vetWorkspaceRustcFlags(flags);
    CHECK(v.safe.empty());
    CHECK(v.needTrust == flags);
  }
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
