// The tool calls of one compile, made by hand with the arguments kernelscope uses and
// nothing parsed: what the benchmarks compare kernelscope against.
#pragma once

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "Process.h"
#include "Toolchain.h"

namespace ks::bench {

using Clock = std::chrono::steady_clock;

inline double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Milliseconds each tool took; ok is false when one failed.
struct ToolTimes {
  double rustc = 0, ptxas = 0, nvdisasm = 0;
  bool ok = false;
  double total() const { return rustc + ptxas + nvdisasm; }
};

/// rustc as kernelscope runs it, by hand: MIR, LLVM IR and PTX in one call, with the
/// optimization remarks (into `dir`/r) or, as a user compiling the file would run it, without.
/// `codegenUnits` other than kernelscope's 1: as a build with rustc's units would run it.
inline ProcessSpec rustcByHand(const Toolchain& tc, const std::filesystem::path& kernel,
                               const std::filesystem::path& dir, bool remarks,
                               int codegenUnits = 1) {
  ProcessSpec rustc;
  rustc.argv = {tc.rustc.path.string(),
                "--sysroot",
                tc.sysroot.path.string(),
                "--edition",
                "2021",
                "--crate-type",
                "rlib",
                "--crate-name",
                "k",
                "--target",
                "nvptx64-nvidia-cuda",
                "-C",
                "opt-level=3",
                "-C",
                "target-cpu=sm_90",
                "-C",
                "codegen-units=" + std::to_string(codegenUnits),
                "-C",
                "debuginfo=line-directives-only",
                "-Zmir-include-spans=on",
                "--error-format=json",
                "--emit=mir,llvm-ir,asm"};
  if (remarks)
    rustc.argv.insert(rustc.argv.end(),
                      {"-C", "remark=all", "-Zremark-dir=" + (dir / "r").string()});
  rustc.argv.insert(rustc.argv.end(), {"--out-dir", dir.string(), kernel.string()});
  rustc.env = {{"RUSTC_BOOTSTRAP", "1"}};
  return rustc;
}

/// Milliseconds of a plain rustc of `kernel` (no remarks: what a user compiling the file
/// waits for); negative when it failed.
inline double plainRustcMs(const Toolchain& tc, const std::filesystem::path& kernel) {
  TempDir dir("kernelscope-bench");
  auto t0 = Clock::now();
  if (!runProcess(rustcByHand(tc, kernel, dir.path(), false)).ok()) return -1;
  return ms(Clock::now() - t0);
}

/// rustc (MIR, LLVM IR, PTX and remarks in one call), ptxas, nvdisasm, one after another.
inline ToolTimes rawTools(const Toolchain& tc, const std::filesystem::path& kernel) {
  ToolTimes t;
  TempDir dir("kernelscope-bench");
  const ProcessSpec rustc = rustcByHand(tc, kernel, dir.path(), true);
  auto t0 = Clock::now();
  if (!runProcess(rustc).ok()) return t;
  auto t1 = Clock::now();
  ProcessSpec ptxas;
  ptxas.argv = {tc.ptxas.path.string(),
                "-arch=sm_90",
                "-v",
                "-lineinfo",
                (dir.path() / "k.s").string(),
                "-o",
                (dir.path() / "k.cubin").string()};
  if (!runProcess(ptxas).ok()) return t;
  auto t2 = Clock::now();
  ProcessSpec nvdisasm;
  nvdisasm.argv = {tc.nvdisasm.path.string(), "-c", "-g", "-gi", (dir.path() / "k.cubin").string()};
  if (!runProcess(nvdisasm).ok()) return t;
  auto t3 = Clock::now();
  t.rustc = ms(t1 - t0);
  t.ptxas = ms(t2 - t1);
  t.nvdisasm = ms(t3 - t2);
  t.ok = true;
  return t;
}

}  // namespace ks::bench
