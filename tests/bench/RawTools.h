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

/// ptxas and nvdisasm by hand over `ptx` (its cubin next to it), into `t`: false when one
/// failed.
inline bool rawBackEnd(const Toolchain& tc, const std::filesystem::path& ptx, ToolTimes& t) {
  const std::string cubin = std::filesystem::path(ptx).replace_extension(".cubin").string();
  ProcessSpec ptxas;
  ptxas.argv = {tc.ptxas.path.string(), "-arch=sm_90", "-v", "-lineinfo",
                ptx.string(),           "-o",          cubin};
  auto t0 = Clock::now();
  if (!runProcess(ptxas).ok()) return false;
  auto t1 = Clock::now();
  ProcessSpec nvdisasm;
  nvdisasm.argv = {tc.nvdisasm.path.string(), "-c", "-g", "-gi", cubin};
  if (!runProcess(nvdisasm).ok()) return false;
  t.ptxas = ms(t1 - t0);
  t.nvdisasm = ms(Clock::now() - t1);
  return true;
}

/// rustc (MIR, LLVM IR, PTX and remarks in one call), ptxas, nvdisasm, one after another.
inline ToolTimes rawTools(const Toolchain& tc, const std::filesystem::path& kernel) {
  ToolTimes t;
  TempDir dir("kernelscope-bench");
  const ProcessSpec rustc = rustcByHand(tc, kernel, dir.path(), true);
  auto t0 = Clock::now();
  if (!runProcess(rustc).ok()) return t;
  t.rustc = ms(Clock::now() - t0);
  t.ok = rawBackEnd(tc, dir.path() / "k.s", t);
  return t;
}

}  // namespace ks::bench
