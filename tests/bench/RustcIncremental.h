// What rustc's own incremental compile would give an edit (ks_bench_scale's `incremental`
// mode; README "Performance"): rustc by hand, as kernelscope runs it without the remarks,
// one codegen unit and clean against 16 units with `-C incremental`, on the same kernels laid
// out in one module, in modules of 20 and in a module each (rustc cuts its units along
// modules), an edit to one kernel's constant after a clean compile; and whether the units
// change the code: each kernel's PTX instructions (registers and labels numbered away) of
// both, compared.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "GeneratedKernels.h"
#include "Parsers.h"
#include "RawTools.h"
#include "TextUtil.h"

namespace ks::bench {

/// Each kernel's instructions in the `.s` files (one per codegen unit) of `dir`, with
/// registers and labels numbered away, so that two compiles compare by what they do.
inline std::map<std::string, std::vector<std::string>> kernelInstructions(
    const std::filesystem::path& dir) {
  static const std::regex numbered(R"((%[a-z]+|\$L__[A-Za-z_]+)[0-9]+)");
  std::map<std::string, std::vector<std::string>> kernels;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".s") continue;
    std::ifstream in(e.path());
    const Artifact ptx = parsePtx({std::istreambuf_iterator<char>(in), {}});
    for (const ArtifactFunction& f : ptx.functions) {
      if (!f.isKernel || kernels.count(f.symbol)) continue;
      std::vector<std::string>& body = kernels[f.symbol];
      for (uint32_t l = f.firstLine; l <= f.lastLine; ++l)
        if (ptx.lines()[l].kind == LineKind::Instruction)
          body.push_back(std::regex_replace(std::string(ptx.lineText(l)), numbered, "$1"));
    }
  }
  return kernels;
}

/// `text` with kernel `k`'s first `0.75` changed to a constant no earlier round or run used.
inline std::string editedKernel(std::string text, int k, int round) {
  const size_t at = text.find("0.75", text.find("fn kernel_" + std::to_string(k) + "("));
  return text.replace(at, 4, "0." + std::to_string(100 + round) + std::to_string(getpid() % 9973));
}

/// One rustc of `file` into a new `out`, with `units` codegen units and, when `incremental`
/// is set, its incremental directory there: milliseconds, negative when it failed.
inline double timedRustc(const Toolchain& tc, const std::filesystem::path& file,
                         const std::filesystem::path& out, int units,
                         const std::filesystem::path& incremental = {}) {
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  ProcessSpec rustc = rustcByHand(tc, file, out, false, units);
  if (!incremental.empty())
    rustc.argv.insert(rustc.argv.end() - 1, "-Cincremental=" + incremental.string());
  const auto start = Clock::now();
  return runProcess(rustc).ok() ? ms(Clock::now() - start) : -1;
}

inline void rustcIncremental(const Toolchain& tc, const std::filesystem::path& dir, int rounds,
                             const std::vector<int>& sizes) {
  std::printf("%8s %8s %9s %9s %9s %9s %9s %9s %9s\n", "kernels", "modules", "one unit", "one edit",
              "inc whole", "inc edit", "edit/one", "differ", "instr");
  for (int n : sizes)
    for (int perModule : {0, 20, 1}) {
      if (perModule >= n) continue;
      const std::string text = generatedKernels(n, perModule);
      const std::filesystem::path file = dir / "k.rs", oneOut = dir / "one", incOut = dir / "inc";
      std::vector<double> one, oneEdit, inc, incEdit;
      size_t differ = 0, oneInstr = 0, incInstr = 0;
      for (int r = 0; r < rounds; ++r) {
        std::ofstream(file) << text;
        one.push_back(timedRustc(tc, file, oneOut, 1));
        const std::filesystem::path cache = dir / ("incremental-" + std::to_string(r));
        inc.push_back(timedRustc(tc, file, incOut, 16, cache));
        std::ofstream(file) << editedKernel(text, n / 2, r);
        oneEdit.push_back(timedRustc(tc, file, oneOut, 1));
        incEdit.push_back(timedRustc(tc, file, incOut, 16, cache));
        std::filesystem::remove_all(cache);
        if (r > 0) continue;
        // The edited file's code, whole with one unit and with rustc's reuse.
        const auto a = kernelInstructions(oneOut), b = kernelInstructions(incOut);
        for (const auto& [kernel, body] : a) {
          auto it = b.find(kernel);
          differ += it == b.end() || it->second != body;
          oneInstr += body.size();
          incInstr += it == b.end() ? 0 : it->second.size();
        }
      }
      const double oneMs = median(one);
      std::printf("%8d %8d %9.0f %9.0f %9.0f %9.0f %9.3f %5zu/%-3d %5zu/%zu\n", n,
                  perModule ? (n + perModule - 1) / perModule : 1, oneMs, median(oneEdit),
                  median(inc), median(incEdit), median(incEdit) / oneMs, differ, n, incInstr,
                  oneInstr);
    }
  std::printf(
      "(ms, medians of %d rounds; one unit = rustc as kernelscope runs it, without the remarks,\n"
      " one edit = again after kernel n/2's constant changed; inc = 16 codegen units with\n"
      " -C incremental, whole from a clean cache, edit = the same edit with the cache;\n"
      " edit/one = inc edit / one unit; differ = kernels whose PTX instructions differ between\n"
      " one unit and inc after the edit; instr = the PTX instructions of inc / one unit)\n",
      rounds);
  std::fflush(stdout);
}

}  // namespace ks::bench
