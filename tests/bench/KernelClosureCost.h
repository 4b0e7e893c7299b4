// What an edit would cost if kernelscope optimized only the kernels it changed
// (ks_bench_scale's `closures` mode; README "Performance"): rustc by hand as kernelscope
// runs it without the remarks (clean), against rustc stopping after its unoptimized module
// (`-C no-prepopulate-passes --emit=mir,llvm-bc`, the front end), kernelscope's optimization
// and NVPTX back end over that module whole (KernelClosures.h), and over the edited kernel's
// closure alone, by both rules; how many kernels' PTX from their reached set alone is the
// whole module's; and when the edited kernel's SASS would come (ptxas and nvdisasm by hand
// over its reached set's PTX) against a whole compile by hand (clean, ptxas, nvdisasm).
#pragma once

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ExactLocations.h"
#include "GeneratedKernels.h"
#include "KernelClosures.h"
#include "RawTools.h"
#include "RustcIncremental.h"

namespace ks::bench {

/// rustc's front end alone over `file` into a new `out`: milliseconds, negative on failure.
inline double timedFrontEnd(const Toolchain& tc, const std::filesystem::path& file,
                            const std::filesystem::path& out) {
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  ProcessSpec rustc = rustcByHand(tc, file, out, false);
  for (std::string& a : rustc.argv)
    if (a == "--emit=mir,llvm-ir,asm") a = "--emit=mir,llvm-bc";
  rustc.argv.insert(rustc.argv.end() - 1, "-Cno-prepopulate-passes");
  const auto start = Clock::now();
  return runProcess(rustc).ok() ? ms(Clock::now() - start) : -1;
}

/// Milliseconds to optimize `names` of `module` alone and make its PTX; the PTX in `ptx`.
inline double timedClosure(const llvm::Module& module, const std::set<std::string>& names,
                           std::string& ptx) {
  const auto start = Clock::now();
  std::unique_ptr<llvm::Module> part = closureModule(module, names);
  std::string error;
  optimizeAsRustc(*part, "sm_90", 3);
  std::optional<Artifact> out = compilePtx(*part, "sm_90", 3, error);
  ptx = out ? out->text() : "";
  return ms(Clock::now() - start);
}

inline void kernelClosureCost(const Toolchain& tc, const std::filesystem::path& dir, int rounds,
                              const std::vector<int>& sizes) {
  std::printf("%7s %7s %7s %7s %7s %7s %9s %9s %7s %7s %9s %9s\n", "kernels", "clean", "front",
              "whole", "same", "reached", "complete", "edit rch", "edit cpl", "rch/cln", "cpl/cln",
              "rch same");
  for (int n : sizes) {
    const std::string text = generatedKernels(n);
    const std::filesystem::path file = dir / "k.rs", out = dir / "out", front = dir / "front";
    std::vector<double> clean, frontMs, whole, editReached, editComplete, tools, sassReached;
    bool same = true;
    size_t reachedSize = 0, completeSize = 0, reachedSame = 0;
    for (int r = 0; r < rounds; ++r) {
      std::ofstream(file) << editedKernel(text, n / 2, r);
      clean.push_back(timedRustc(tc, file, out, 1));
      ToolTimes backEnd;
      rawBackEnd(tc, out / "k.s", backEnd);
      tools.push_back(clean.back() + backEnd.ptxas + backEnd.nvdisasm);
      frontMs.push_back(timedFrontEnd(tc, file, front));
      llvm::LLVMContext context;
      llvm::SMDiagnostic error;
      auto start = Clock::now();
      std::unique_ptr<llvm::Module> module =
          llvm::parseIRFile((front / "k.bc").string(), error, context);
      if (!module) return (void)std::fprintf(stderr, "no bitcode: %s\n", error.getMessage().data());
      const double load = ms(Clock::now() - start);
      std::string wholePtx;
      std::set<std::string> everything;
      for (const llvm::GlobalObject& g : module->global_objects())
        if (!g.isDeclaration()) everything.insert(g.getName().str());
      whole.push_back(load + timedClosure(*module, everything, wholePtx));
      const std::string kernel = "kernel_" + std::to_string(n / 2);
      const KernelClosures closures(*module);
      std::string ptx;
      editReached.push_back(load +
                            timedClosure(*module, closures.of(kernel, ClosureRule::Reached), ptx));
      std::ofstream(dir / "edited.ptx") << ptx;
      ToolTimes edited;
      rawBackEnd(tc, dir / "edited.ptx", edited);
      sassReached.push_back(editReached.back() + edited.ptxas + edited.nvdisasm);
      editComplete.push_back(load + timedClosure(*module, closures.of(kernel), ptx));
      if (r > 0) continue;
      std::ifstream rustcs(out / "k.s");
      same = wholePtx == std::string(std::istreambuf_iterator<char>(rustcs), {});
      for (int k = 0; k < n; ++k) {
        const std::string name = "kernel_" + std::to_string(k);
        const auto reached = closures.of(name, ClosureRule::Reached);
        reachedSize += reached.size();
        completeSize += closures.of(name).size();
        timedClosure(*module, reached, ptx);
        reachedSame +=
            ptxWithModuleCountsReset(ptx, name) == ptxWithModuleCountsReset(wholePtx, name);
      }
    }
    const double cleanMs = median(clean), frontEnd = median(frontMs);
    const double sass = frontEnd + median(sassReached);
    std::printf(
        "%7d %7.0f %7.0f %7.0f %7s %7.1f %9.1f %9.0f %7.0f %7.3f %9.3f %5zu/%-3d %9.0f %9.0f "
        "%8.3f\n",
        n, cleanMs, frontEnd, median(whole), same ? "yes" : "NO", double(reachedSize) / n,
        double(completeSize) / n, frontEnd + median(editReached), frontEnd + median(editComplete),
        (frontEnd + median(editReached)) / cleanMs, (frontEnd + median(editComplete)) / cleanMs,
        reachedSame, n, median(tools), sass, sass / median(tools));
  }
  std::printf(
      "(ms, medians of %d rounds; clean = rustc as kernelscope runs it, without the remarks;\n"
      " front = rustc's front end alone (MIR and the unoptimized module); whole = kernelscope's\n"
      " optimization and PTX of that module whole, same = whether that PTX is rustc's byte for\n"
      " byte; reached, complete = the mean closure (definitions) of a kernel by each rule;\n"
      " edit = front + kernel n/2's closure optimized alone and made PTX; rch same = kernels\n"
      " whose PTX from their reached set alone is the whole module's; tools = clean, then\n"
      " ptxas and nvdisasm of its PTX (a whole compile by hand); sass rch = edit rch, then\n"
      " ptxas and nvdisasm of the edited kernel's reached set's PTX)\n",
      rounds);
  std::fflush(stdout);
}

}  // namespace ks::bench
