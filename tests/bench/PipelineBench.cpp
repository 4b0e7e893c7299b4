// Benchmark: kernelscope's whole pipeline against the raw tool calls it makes.
//
// For each example kernel, alternately: (a) rustc + ptxas + nvdisasm run by hand with the
// same arguments, nothing parsed; (b) compileWithDefaults(), which runs the same tools and also
// parses every output, regenerates chain ids and builds the line map. Reports the median
// of each and their ratio, measured in one run. Not a test: timings on a shared machine
// vary, so it prints numbers and asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "Compile.h"
#include "RawTools.h"

using namespace ks;
namespace fs = std::filesystem;
using namespace ks::bench;

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  fs::path root = KS_SOURCE_DIR;
  Toolchain tc = discoverToolchain();
  if (!tc.rustc.found() || !tc.sysroot.found() || !tc.ptxas.found() || !tc.nvdisasm.found()) {
    std::fprintf(stderr, "toolchain incomplete: run scripts/setup.sh\n%s",
                 doctorReport(tc).c_str());
    return 1;
  }
  std::vector<fs::path> kernels;
  for (const auto& e : fs::directory_iterator(root / "examples"))
    if (e.path().extension() == ".rs") kernels.push_back(e.path());
  std::sort(kernels.begin(), kernels.end());

  std::printf("%-20s %10s %12s %8s %8s %8s\n", "kernel", "raw ms", "kernelscope", "ratio", "ptx",
              "sass");
  double rawTotal = 0, ksTotal = 0;
  for (const auto& k : kernels) {
    std::vector<double> raw, ours;
    size_t ptx = 0, sass = 0;
    rawTools(tc, k);  // warm the page cache for both
    for (int i = 0; i < rounds; ++i) {
      auto t0 = Clock::now();
      if (!rawTools(tc, k).ok) {
        std::fprintf(stderr, "raw tools failed on %s\n", k.c_str());
        return 1;
      }
      auto t1 = Clock::now();
      CompileResult r = compileWithDefaults(tc, {k, std::nullopt}, {});
      auto t2 = Clock::now();
      if (!r.succeeded) {
        std::fprintf(stderr, "kernelscope failed on %s\n", k.c_str());
        return 1;
      }
      ptx = r.stage(Stage::Ptx)->artifact->instructionCount();
      sass = r.stage(Stage::Sass)->artifact->instructionCount();
      raw.push_back(ms(t1 - t0));
      ours.push_back(ms(t2 - t1));
    }
    double a = median(raw), b = median(ours);
    rawTotal += a;
    ksTotal += b;
    std::printf("%-20s %10.1f %12.1f %8.3f %8zu %8zu\n", k.stem().c_str(), a, b, b / a, ptx, sass);
  }
  std::printf(
      "%-20s %10.1f %12.1f %8.3f   (medians of %d rounds; ratio = kernelscope / raw tools)\n",
      "all", rawTotal, ksTotal, ksTotal / rawTotal, rounds);
  return 0;
}
