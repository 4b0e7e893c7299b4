// The launched image of kernels that call into `core`: linked, loadable, marked, and the
// user's lines still mapped (CoreLink.h).
#include <doctest/doctest.h>

#include <fstream>

#include "Compile.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

/// The ELF file type of a cubin: 2 (ET_EXEC) for the driver's loadable image, 1 (ET_REL)
/// for what ptxas -c makes.
int elfType(const std::string& cubin) {
  if (cubin.size() < 18 || cubin.compare(0, 4,
                                         "\x7f"
                                         "ELF") != 0)
    return -1;
  return static_cast<unsigned char>(cubin[16]) | static_cast<unsigned char>(cubin[17]) << 8;
}

bool hasLinked(const CompileResult& r, const std::string& demangled) {
  for (const LinkedFunction& f : r.linkedFunctions)
    if (f.demangled == demangled && f.library == "core") return true;
  return false;
}

}  // namespace

TEST_CASE("safe kernels that call into core get a loadable cubin with core's code linked in") {
  test::requireToolchain();
  test::Fixture f(test::sourceDir() / "tests/fixtures/core_calls.rs");
  const CompileResult& r = test::compiled(f.path);
  REQUIRE(r.succeeded);
  REQUIRE(r.cubins.size() == r.kernels.size());
  for (const auto& [kernel, cubin] : r.cubins)
    CHECK(elfType(*cubin) == 2);  // not relocatable: ptxas linked each kernel's whole image
  CHECK(r.cubinProblem.empty());
  CHECK(hasLinked(r, "core::panicking::panic_bounds_check"));
  CHECK(hasLinked(r, "core::panicking::panic_const::panic_const_rem_by_zero"));
  CHECK(hasLinked(r, "core::option::expect_failed"));
  const Artifact& ptx = *r.stage(Stage::Ptx)->artifact;
  CHECK(ptx.text().find(".extern .func") == std::string::npos);
  CHECK(ptx.text().find("// linked from core: core::panicking::panic_bounds_check\n.func") !=
        std::string::npos);
  // In SASS, ptxas places each callee under `$kernel$symbol:`, marked after it.
  REQUIRE(r.stage(Stage::Sass)->available);
  const Artifact& sass = *r.stage(Stage::Sass)->artifact;
  CHECK(sass.text().find("$scale_slice$_RNvNtCs") != std::string::npos);
  CHECK(sass.text().find(":\n        // linked from core: core::panicking::panic_bounds_check\n") !=
        std::string::npos);
  // The panic path the handler ignores keeps none of core's formatting.
  CHECK(ptx.text().find("core::fmt") == std::string::npos);
  for (const KernelInfo& k : r.kernels) {
    CAPTURE(k.symbol);
    REQUIRE(k.resources);
    CHECK(k.resources->registers <= 16);
  }
  // The user's lines map as before, in PTX and in the SASS of the linked image.
  const std::string file = f.path.string();
  for (const char* line : {"store", "rem", "expect"}) {
    CAPTURE(line);
    CHECK_FALSE(test::instructionsFor(r, Stage::Ptx, file, f.line(line)).empty());
    CHECK_FALSE(test::instructionsFor(r, Stage::Sass, file, f.line(line)).empty());
  }
  bool storesToY = false;
  for (const auto& i : test::instructionsFor(r, Stage::Sass, file, f.line("store")))
    storesToY |= i.find("STG.E") != std::string::npos;
  CHECK(storesToY);
}

TEST_CASE("a kernel calling what nothing defines says which function and where it is called") {
  test::requireToolchain();
  TempDir dir("kernelscope-unlinked");
  const fs::path file = dir.path() / "unlinked.rs";
  std::ofstream(file) << R"(#![no_std]
#![feature(abi_ptx)]
extern "C" {
    fn helper_nobody_defines(x: u32) -> u32;
}
#[no_mangle]
pub unsafe extern "ptx-kernel" fn calls_missing(x: *mut u32) {
    *x = helper_nobody_defines(*x);
}
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
)";
  CompileResult r = compileWithDefaults(test::toolchain(), {file, std::nullopt, {}}, {});
  REQUIRE(r.succeeded);
  CHECK_FALSE(cubinOf(r, "calls_missing"));
  CHECK(r.stage(Stage::Sass)->available);  // assembled as relocatable, as before
  CHECK(r.cubinProblem.find("helper_nobody_defines, called from calls_missing (unlinked.rs:8:") !=
        std::string::npos);
  bool warned = false;
  for (const Diagnostic& d : r.diagnostics)
    warned |= d.severity == Severity::Warning &&
              d.message.find("helper_nobody_defines") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("run makes a launch of a bounds-checked slice kernel; its H200 result is 2x") {
  test::requireToolchain();
  TempDir dir("kernelscope-core-request");
  const fs::path request = dir.path() / "scale_slice.run.req";
  ProcessResult saved = test::runKernelscope({"run", "tests/fixtures/core_calls.rs", "--kernel",
                                              "scale_slice", "--save-request", request.string()});
  REQUIRE_MESSAGE(saved.ok(), saved.err);
  const std::string bytes = readWholeFile(request);
  CHECK(bytes.find("\x7f"
                   "ELF") != std::string::npos);  // the cubin travels in the request
  // The result recorded on an H200 (tests/bench/gpu/run_device.py matched it against numpy).
  ProcessResult replay =
      test::runKernelscope({"run", "tests/fixtures/core_calls.rs", "--kernel", "scale_slice",
                            "--replay", "tests/golden/gpu/scale_slice.run.result"});
  REQUIRE_MESSAGE(replay.ok(), replay.err);
  CHECK(replay.out.find("scale_slice on NVIDIA H200") != std::string::npos);
  CHECK(replay.out.find("x         f32[1048576]               sum -598.4189") != std::string::npos);
  CHECK(replay.out.find("y         f32[1048576]      output   sum -1196.838") != std::string::npos);
}
