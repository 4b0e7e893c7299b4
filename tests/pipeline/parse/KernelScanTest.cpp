// Kernel entry points found in source text, for each toolchain's way of marking them.
#include <doctest/doctest.h>

#include "KernelScan.h"
#include "TestSupport.h"

using namespace ks;

namespace {
/// "name@line" for each entry, in order.
std::string scan(std::string_view src, bool cuda = false) {
  std::string out;
  for (const auto& k : scanKernelEntries(src, cuda))
    out += (out.empty() ? "" : " ") + k.name + "@" + std::to_string(k.line);
  return out;
}
}  // namespace

TEST_CASE("rustc-nvptx kernels: extern \"ptx-kernel\" and \"gpu-kernel\" functions") {
  CHECK(scan("#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn saxpy(n: u32) {}\n") == "saxpy@2");
  CHECK(scan("extern \"gpu-kernel\" fn k() {}\nfn helper() {}\n") == "k@1");
  CHECK(scan("pub unsafe extern \"ptx-kernel\" fn\n    multi_line(a: f32) {}") == "multi_line@2");
  // Not kernels: commented out, in a string, a plain extern "C" function.
  CHECK(
      scan("// extern \"ptx-kernel\" fn old() {}\n/* extern \"ptx-kernel\" fn older() {} */\n"
           "const S: &str = \"extern \\\"ptx-kernel\\\" fn fake()\";\nextern \"C\" fn host() {}\n")
          .empty());
}

TEST_CASE("rust-cuda and cuda-oxide kernels: #[kernel] on a plain fn") {
  CHECK(scan("use cuda_std::prelude::*;\n\n#[kernel]\n#[allow(improper_ctypes_definitions)]\n"
             "pub unsafe fn add(a: &[f32], b: &[f32], c: *mut f32) {}\n") == "add@5");
  CHECK(scan("#[cuda_std::kernel]\npub unsafe fn scale(x: *mut f32) {}\n") == "scale@2");
  CHECK(scan("#[kernel]\n/// Adds.\npub fn vecadd(a: &[f32], mut c: DisjointSlice<f32>) "
             "{}\n#[inline]\nfn not_a_kernel() {}\n") == "vecadd@3");
  CHECK(scan("#![no_std]\n#[derive(Clone)]\nstruct S;\n#[kernel_helper]\nfn x() {}\n").empty());
}

TEST_CASE("CUDA C++ kernels: __global__ functions") {
  CHECK(scan("extern \"C\" __global__ void saxpy(unsigned n, float a) {}\n__device__ float f(float "
             "x) { return x; }\n",
             true) == "saxpy@1");
  CHECK(
      scan("template <int N>\n__global__ void __launch_bounds__(256)\nreduce(const float* in) {}\n",
           true) == "reduce@3");
  CHECK(scan("// __global__ void old() {}\n", true).empty());
}

TEST_CASE("the bundled examples' kernels are found where they are defined") {
  for (const char* name :
       {"saxpy", "vector_add", "elementwise_mul", "reduce_sum", "matmul_naive", "matmul_tiled"}) {
    CAPTURE(name);
    test::Fixture rs(test::sourceDir() / "examples" / (std::string(name) + ".rs"));
    auto k = scanKernelEntries(rs.text);
    REQUIRE(k.size() == 1);
    CHECK(k[0].name == name);
    CHECK(k[0].line == rs.lineOf("fn " + std::string(name)));
    test::Fixture cu(test::sourceDir() / "examples/cuda" / (std::string(name) + ".cu"));
    auto c = scanKernelEntries(cu.text, true);
    REQUIRE(c.size() == 1);
    CHECK(c[0].name == name);
  }
}
