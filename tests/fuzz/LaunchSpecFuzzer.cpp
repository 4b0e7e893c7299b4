// libFuzzer target over the launch-spec parser (gpu/LaunchSpec.h): the `// kernelscope:`
// lines of a kernel, evaluated against its signature as `run` and `profile` do.
//
// Structure-aware: each line of the input becomes a `// kernelscope:` line above a saxpy
// kernel whose PTX and Rust signatures are known, so every input reaches the item parser,
// the expression evaluator and resolveSpec. Besides byte mutations, the custom mutator sets
// one item's value to an expression at a boundary (a shift past 64 bits, a division by zero,
// a buffer of 2^40 elements, a deep nesting) or appends a known item, which byte mutations
// seldom build.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "KernelSignature.h"
#include "LaunchSpec.h"
#include "Parsers.h"
#include "SpecSkeleton.h"
#include "SpecText.h"

namespace {

constexpr std::string_view kPtx =
    ".visible .entry saxpy(\n"
    "\t.param .u32 saxpy_param_0,\n\t.param .f32 saxpy_param_1,\n"
    "\t.param .u64 saxpy_param_2,\n\t.param .u64 saxpy_param_3\n)\n{\n\tret;\n}\n";
constexpr std::string_view kKernel =
    "pub unsafe extern \"ptx-kernel\" fn saxpy(n: u32, a: f32, x: *const f32, y: *mut f32) {}\n";

const char* const kValues[] = {"1 << 63",
                               "1 << 64",
                               "-1",
                               "0",
                               "1 / 0",
                               "ceil(0 / 0)",
                               "1e308 * 1e308",
                               "f32[1 << 40] zeros",
                               "f32[n] uniform(1, -1, seed = 18446744073709551615)",
                               "f32[n] file(\"../../etc/passwd\")",
                               "[4294967296, 1, 1]",
                               "[0, 0, 0]",
                               "min()",
                               "max(1, 2, 3, 4, 5, 6, 7, 8, 9)",
                               "((((((((((((((((((((1))))))))))))))))))))",
                               "u8[n] iota",
                               "f64[n] constant(-0.0)",
                               "n"};
const char* const kItems[] = {"n = 1 << 20",
                              "a = 2.0",
                              "x = f32[n] uniform(-1, 1, seed = 1)",
                              "y = f32[n] zeros",
                              "grid = ceil(n / 256)",
                              "block = 256",
                              "shared = 49152",
                              "bytes = 12 * n",
                              "flops = 2 * n"};

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize,
                                          unsigned seed) {
  if (seed % 3 == 0) return LLVMFuzzerMutate(data, size, maxSize);
  std::string text(reinterpret_cast<const char*>(data), size);
  const size_t eq = text.find('=', (seed / 3) % (size + 1));
  if (seed % 3 == 1 && eq != std::string::npos) {
    // The value after an `=`, up to the item's end, becomes a boundary expression.
    size_t end = text.find_first_of(";\n", eq);
    if (end == std::string::npos) end = text.size();
    text.replace(eq + 1, end - eq - 1, std::string(" ") + kValues[(seed / 7) % std::size(kValues)]);
  } else {
    text += std::string(text.empty() || text.back() == '\n' ? "" : "; ") +
            kItems[(seed / 7) % std::size(kItems)];
  }
  if (text.size() > maxSize) return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string source = "#![no_std]\n";
  uint32_t lines = 1;
  for (size_t start = 0; start < input.size();) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    source += "// kernelscope: ";
    source += input.substr(start, end - start);
    source += '\n';
    ++lines;
    start = end + 1;
  }
  const size_t nameOffset = source.size() + kKernel.find("saxpy");
  source += kKernel;
  // The kernel's parameters from the parsed PTX, as a compile reads them.
  static const ks::Artifact ptx = ks::parsePtx(std::string(kPtx));
  const ks::ArtifactFunction* kernel = nullptr;
  for (const auto& f : ptx.functions)
    if (f.isKernel) kernel = &f;
  if (!kernel) __builtin_trap();
  ks::gpu::KernelSignature sig = ks::gpu::ptxSignature(ptx, *kernel);
  if (!ks::gpu::addSourceSignature(sig, source, nameOffset, false).empty()) __builtin_trap();
  std::vector<ks::gpu::SpecError> errors;
  const ks::gpu::LaunchSpec spec = ks::gpu::specFromComments(source, lines + 1, "k.rs", errors);
  if (auto plan = ks::gpu::resolveSpec(spec, sig, errors)) {
    (void)plan->bufferBytes();
    for (const auto& arg : plan->args)
      if (arg.buffer && arg.byteSize() > ks::gpu::kMaxBufferBytes) __builtin_trap();
  }
  for (const auto& item : spec.items) {
    std::string error;
    (void)ks::gpu::evaluateExpression(item.value, error);
  }
  (void)ks::gpu::specSkeleton(sig);
  return 0;
}
