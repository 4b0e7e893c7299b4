// rustc's optimization made by kernelscope from rustc's unoptimized module, whole and one
// kernel's closure at a time, against rustc's own output (KernelClosures.h).
#include "KernelClosures.h"

#include <doctest/doctest.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>

#include "Crate.h"
#include "ExactLocations.h"
#include "TestSupport.h"

namespace fs = std::filesystem;
using namespace ks;

namespace {

constexpr const char* kArch = "sm_80";

/// rustc over `file` as kernelscope runs it, at `optLevel`, with `extra` arguments: the
/// outputs' directory.
fs::path rustcOutputs(const TempDir& dir, const fs::path& file, int optLevel,
                      const std::vector<std::string>& extra) {
  CompileOptions options;
  options.arch = kArch;
  options.optLevel = optLevel;
  ProcessSpec rustc;
  rustc.argv = rustcTargetArgs(test::toolchain(), resolveOptions(options));
  rustc.argv.insert(rustc.argv.begin(), test::toolchain().rustc.path.string());
  rustc.argv.insert(rustc.argv.end(), {"--edition", "2021", "--crate-type", "rlib", "--crate-name",
                                       "k", "--out-dir", dir.path().string()});
  rustc.argv.insert(rustc.argv.end(), extra.begin(), extra.end());
  rustc.argv.push_back(file.string());
  rustc.env = {{"RUSTC_BOOTSTRAP", "1"}};
  const ProcessResult run = runProcess(rustc);
  REQUIRE_MESSAGE(run.ok(), file << ": " << run.err);
  return dir.path();
}

std::unique_ptr<llvm::Module> readModule(llvm::LLVMContext& context, const fs::path& path) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseIRFile(path.string(), error, context);
  REQUIRE_MESSAGE(module, path << ": " << error.getMessage().str());
  return module;
}

std::string ptxOf(llvm::Module& module, int optLevel) {
  std::string error;
  std::optional<Artifact> ptx = compilePtx(module, kArch, optLevel, error);
  REQUIRE_MESSAGE(ptx, error);
  return ptx->text();
}

/// The module's text with every local value unnamed (numbered as LLVM prints them) and no
/// module name: what differs between rustc's optimization in memory and the same pipeline
/// over rustc's bitcode is the numeric suffixes of some names. An intrinsic's declaration
/// is left without attributes: it has LLVM's own, which the bitcode reader and the text
/// reader of rustc's `.ll` print otherwise (`mustprogress`).
std::string withoutLocalNames(const llvm::Module& original) {
  std::unique_ptr<llvm::Module> module = llvm::CloneModule(original);
  module->setModuleIdentifier("k");
  module->setSourceFileName("k");
  for (llvm::Function& f : *module) {
    if (f.isIntrinsic()) f.setAttributes({});
    for (llvm::Argument& a : f.args()) a.setName("");
    for (llvm::BasicBlock& b : f) {
      b.setName("");
      for (llvm::Instruction& i : b) i.setName("");
    }
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return text;
}

std::vector<std::string> kernelsOf(const llvm::Module& module) {
  std::vector<std::string> kernels;
  for (const llvm::Function& f : module)
    if (!f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::PTX_Kernel)
      kernels.push_back(f.getName().str());
  return kernels;
}

/// rustc's unoptimized module of a file, and the module optimized whole by kernelscope: its
/// IR without local names (withoutLocalNames) and its PTX.
struct Unoptimized {
  int optLevel = 3;
  TempDir dir{"kernelscope-test"};
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  std::string wholeIr, wholePtx;

  Unoptimized(const fs::path& file, int optLevel) : optLevel(optLevel) {
    rustcOutputs(dir, file, optLevel, {"--emit=llvm-bc", "-C", "no-prepopulate-passes"});
    module = readModule(context, dir.path() / "k.bc");
    std::unique_ptr<llvm::Module> whole = llvm::CloneModule(*module);
    REQUIRE(optimizeAsRustc(*whole, kArch, optLevel) == "");
    wholeIr = withoutLocalNames(*whole);
    wholePtx = ptxOf(*whole, optLevel);
  }

  /// The PTX of `kernel` with the module's counts reset, from `names` optimized alone.
  std::string ptxAlone(const std::set<std::string>& names, const std::string& kernel) const {
    std::unique_ptr<llvm::Module> alone = closureModule(*module, names);
    REQUIRE(optimizeAsRustc(*alone, kArch, optLevel) == "");
    return ptxWithModuleCountsReset(ptxOf(*alone, optLevel), kernel);
  }
};

/// Unoptimized of a file (relative to the source directory) at a level, made once per run.
const Unoptimized& unoptimized(const std::string& name, int optLevel) {
  // Never destroyed: the modules' context outlives nothing that LLVM tears down at exit.
  static auto* const made = new std::map<std::pair<std::string, int>, std::unique_ptr<Unoptimized>>;
  auto& entry = (*made)[{name, optLevel}];
  if (!entry) entry = std::make_unique<Unoptimized>(test::sourceDir() / name, optLevel);
  return *entry;
}

/// The files these tests compile: the compiling examples and fixtures, and the fixture
/// whose kernels share a helper and a variable.
std::vector<std::string> files() {
  std::vector<std::string> all = test::compilingKernels();
  all.push_back("tests/fixtures/core_calls.rs");
  all.push_back("tests/fixtures/gpu/half.rs");
  all.push_back("tests/fixtures/shared_helper.rs");
  return all;
}

}  // namespace

TEST_CASE("kernelscope's optimization of rustc's unoptimized module is rustc's, to the PTX byte") {
  test::requireToolchain();
  // Every file at rustc's default -O3; the other levels, which set the pipeline up
  // otherwise, on files with loops, core's calls and a shared helper.
  const std::set<std::string> atEveryLevel = {"tests/fixtures/iterators.rs",
                                              "tests/fixtures/core_calls.rs",
                                              "tests/fixtures/shared_helper.rs"};
  for (const std::string& name : files())
    for (int optLevel : {0, 1, 2, 3}) {
      if (optLevel != 3 && !atEveryLevel.count(name)) continue;
      CAPTURE(name);
      CAPTURE(optLevel);
      TempDir optimized("kernelscope-test");
      rustcOutputs(optimized, test::sourceDir() / name, optLevel, {"--emit=llvm-ir,asm"});
      const Unoptimized& ours = unoptimized(name, optLevel);
      llvm::LLVMContext context;  // its own: a context renames a type it already has
      CHECK(ours.wholeIr == withoutLocalNames(*readModule(context, optimized.path() / "k.ll")));
      CHECK(ours.wholePtx == readWholeFile(optimized.path() / "k.s"));
    }
}

TEST_CASE("a kernel optimized from its closure alone has its PTX in the whole crate") {
  test::requireToolchain();
  for (const std::string& name : files()) {
    CAPTURE(name);
    const Unoptimized& crate = unoptimized(name, 3);
    REQUIRE(!kernelsOf(*crate.module).empty());
    const KernelClosures closures(*crate.module);
    for (const std::string& kernel : kernelsOf(*crate.module)) {
      CAPTURE(kernel);
      const std::set<std::string> closure = closures.of(kernel);
      REQUIRE(closure.count(kernel));
      const std::string expected = ptxWithModuleCountsReset(crate.wholePtx, kernel);
      REQUIRE(!expected.empty());
      CHECK(crate.ptxAlone(closure, kernel) == expected);
    }
  }
}

TEST_CASE("a kernel's closure takes in the users of a local helper and of a written variable") {
  test::requireToolchain();
  const Unoptimized& crate = unoptimized("tests/fixtures/shared_helper.rs", 3);
  const KernelClosures closures(*crate.module);
  for (const char* kernel : {"one", "two"}) {
    CAPTURE(kernel);
    // Each kernel reaches the helper and the variable, and through them the other kernel.
    const std::set<std::string> reached = closures.of(kernel, ClosureRule::Reached);
    const std::set<std::string> complete = closures.of(kernel);
    CHECK(reached.size() == 3);
    CHECK(complete.count("one"));
    CHECK(complete.count("two"));
    // Without the other kernel, the kernel comes out otherwise.
    CHECK(crate.ptxAlone(reached, kernel) != ptxWithModuleCountsReset(crate.wholePtx, kernel));
  }
}

TEST_CASE("a function's PTX with the module's counts reset") {
  const std::string ptx =
      "\t.file\t1 \"/src/k.rs\"\n"
      "\t.file\t2 \"/core/num.rs\"\n"
      ".func helper(\n\t.param .b32 helper_param_0\n)\n;\n"
      ".visible .func helper(\n\t.param .b32 helper_param_0\n)\n{\n\tret;\n}\n"
      ".visible .entry k(\n)\n{\n"
      "\t.local .align 4 .b8 \t__local_depot1[16];\n"
      "$L__func_begin1:\n\t.loc\t2 7 5\n"
      "$L__BB1_2:\n\t{ // callseq 4, 0\n\t} // callseq 4\n"
      "\tbra.uni \t$L__BB1_2;\n$L__tmp12:\n\t.loc\t1 3 1\n\tret;\n}\n";
  CHECK(ptxWithModuleCountsReset(ptx, "k") ==
        ".entry k(\n)\n{\n"
        "\t.local .align 4 .b8 \t__local_depot0[16];\n"
        "$L__func_begin0:\n\t.loc\t/core/num.rs 7 5\n"
        "$L__BB0:\n\t{ // callseq 0, 0\n\t} // callseq 0\n"
        "\tbra.uni \t$L__BB0;\n$L__tmp0:\n\t.loc\t/src/k.rs 3 1\n\tret;\n}");
  // The definition, not the declaration before it.
  CHECK(ptxWithModuleCountsReset(ptx, "helper") ==
        ".func helper(\n\t.param .b32 helper_param_0\n)\n{\n\tret;\n}");
  CHECK(ptxWithModuleCountsReset(ptx, "absent").empty());
}
