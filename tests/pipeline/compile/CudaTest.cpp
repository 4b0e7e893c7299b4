// The CUDA C++ twin: `.cu` kernels through the same pipeline, and `kernelscope compare`.
#include <doctest/doctest.h>

#include "Compile.h"
#include "Cuda.h"
#include "Process.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

/// Whether nvcc is there besides the toolchain every test here needs (requireToolchain):
/// without nvcc a test says it is skipped.
bool haveNvcc() {
  test::requireToolchain();
  if (test::toolchain().nvcc.found()) return true;
  MESSAGE("skipped: no nvcc (" << test::toolchain().nvcc.problem << ")");
  return false;
}

}  // namespace

TEST_CASE("a .cu kernel maps its lines like a Rust one") {
  if (!haveNvcc()) return;
  test::Fixture f(test::sourceDir() / "examples/cuda/saxpy.cu");
  const CompileResult& r = test::compiled(f.path);
  REQUIRE(r.succeeded);
  CHECK_FALSE(r.stage(Stage::Mir)->available);
  REQUIRE(r.stage(Stage::Ptx)->available);
  uint32_t line = f.lineOf("y[i] = a * x[i] + y[i];");
  INFO(r.stage(Stage::Ptx)->artifact->text());
  auto ptx = test::instructionsFor(r, Stage::Ptx, f.path.string(), line);
  CHECK(test::anyContains(ptx, "fma.rn.f32"));
  CHECK(test::anyContains(
      test::instructionsFor(r, Stage::Ptx, f.path.string(), f.lineOf("blockIdx.x * blockDim.x")),
      "%ctaid.x"));
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels[0].symbol == "saxpy");
  CHECK(r.kernels[0].definition.line == f.lineOf("__global__ void saxpy"));
  CHECK(r.kernels[0].resources);
  const StageOutcome* sass = r.stage(Stage::Sass);
  REQUIRE(sass);
  if (sass->available)
    CHECK(test::anyContains(test::instructionsFor(r, Stage::Sass, f.path.string(), line), "FFMA"));
  else
    CHECK(sass->unavailableReason.find("CUDA") != std::string::npos);
}

TEST_CASE("a .cu helper inlined into a kernel is listed under its call") {
  if (!haveNvcc()) return;
  test::Fixture f(test::sourceDir() / "examples/cuda/elementwise_mul.cu");
  const CompileResult& r = test::compiled(f.path);
  REQUIRE(r.succeeded);
  uint32_t body = f.lineOf("*start = blockIdx.x"), call = f.lineOf("grid_stride(&start, &stride);");
  CHECK_FALSE(r.lineMap->linesFor(Stage::Ptx, {f.path.string(), body}).direct.empty());
  CHECK_FALSE(r.lineMap->linesFor(Stage::Ptx, {f.path.string(), call}).inlined.empty());
}

TEST_CASE("nvcc errors in unsaved .cu text point at the real file and line") {
  if (!haveNvcc()) return;
  test::Fixture f(test::sourceDir() / "examples/cuda/saxpy.cu");
  std::string broken = f.text;
  broken.replace(broken.find("= a * x[i] + y[i];"), 10, "= a * undefined_name");
  CompileResult r = compileWithDefaults(test::toolchain(), {f.path, broken, {}}, {});
  CHECK_FALSE(r.succeeded);
  bool found = false;
  for (const auto& d : r.diagnostics)
    if (d.severity == Severity::Error && d.range && d.range->file == f.path.string() &&
        d.range->startLine == f.lineOf("= a * x[i] + y[i];") &&
        d.message.find("undefined_name") != std::string::npos)
      found = true;
  CHECK(found);
}

TEST_CASE("nvcc diagnostics and PTX ISA versions per CUDA release") {
  auto d = parseNvccDiagnostics(
      "/k/a.cu(5): error: identifier \"q\" is undefined\n"
      "/k/a.cu(7): warning #177-D: variable \"z\" was declared but never referenced\n"
      "1 error detected in the compilation of \"/k/a.cu\".\n");
  REQUIRE(d.size() == 2);
  CHECK(d[0].severity == Severity::Error);
  CHECK(d[0].range->file == "/k/a.cu");
  CHECK(d[0].range->startLine == 5);
  CHECK(d[0].message == "identifier \"q\" is undefined");
  CHECK(d[1].severity == Severity::Warning);
  CHECK(d[1].message == "variable \"z\" was declared but never referenced");
  CHECK(maxPtxIsaFor("11.8") == "7.8");
  CHECK(maxPtxIsaFor("13.0") == "9.0");
  CHECK(maxPtxIsaFor("99.9").empty());
}

TEST_CASE("compare pairs the SAXPY twins") {
  if (!haveNvcc()) return;
  auto r = test::runKernelscope({"compare", "examples/saxpy.rs", "examples/cuda/saxpy.cu"});
  INFO(r.out << r.err);
  CHECK((r.exitCode == 0 || r.exitCode == 3));  // 3: a stage unavailable on one side
  CHECK(r.out.find("kernel saxpy") != std::string::npos);
  CHECK(r.out.find("registers") != std::string::npos);
  // Rust keeps `a * x + y` as a multiply and an add; nvcc contracts it into an FMA.
  auto diffLine = [&](char side, std::string_view what) {
    for (auto line : splitLines(r.out))
      if (!line.empty() && line[0] == side && line.find(what) != std::string_view::npos)
        return true;
    return false;
  };
  CHECK(diffLine('+', "fma.rn.f32"));
  CHECK(diffLine('-', "mul.rn.f32"));
  CHECK(diffLine('-', "add.rn.f32"));
  CHECK(diffLine(' ', "mov.u32"));  // the index computation is the same code

  auto named = test::runKernelscope(
      {"compare", "examples/saxpy.rs", "examples/cuda/saxpy.cu", "--kernel", "nope"});
  CHECK(named.exitCode == 2);
  CHECK(named.err.find("nope") != std::string::npos);
}
