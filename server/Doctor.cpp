// `kernelscope doctor` and `kernelscope setup`.
#include <iostream>

#include "Cli.h"
#include "Toolchain.h"

namespace ks {

Toolchain toolchainForCli() {
  Toolchain tc = discoverToolchain();
  if (tc.rustc.found() && !tc.sysroot.found()) {
    std::string err = ensureSysroot(tc, [](const std::string& m) { std::cerr << "kernelscope: " << m << "\n"; });
    if (!err.empty()) std::cerr << "kernelscope: " << err << "\n";
  }
  return tc;
}

int doctorMain(int, char**) {
  Toolchain tc = discoverToolchain();
  std::cout << doctorReport(tc);
  bool core = tc.rustc.found() && tc.sysroot.found();
  if (!core) std::cout << "\nkernelscope cannot compile kernels until the MISSING items above are fixed.\n";
  else if (!tc.nvdisasm.found() || !tc.ptxas.found()) std::cout << "\nMIR, LLVM IR and PTX work; SASS and resources need the MISSING tools.\n";
  else std::cout << "\nAll stages available.\n";
  return core ? 0 : 1;
}

int setupMain(int, char**) {
  Toolchain tc = discoverToolchain();
  if (!tc.rustc.found()) {
    std::cerr << "kernelscope setup: rustc: " << tc.rustc.problem << "\n  fix: " << tc.rustc.fix << "\n";
    return 1;
  }
  if (tc.sysroot.found()) {
    std::cerr << "[setup] nvptx64 core: present (" << tc.sysroot.path.string() << ")\n";
    return 0;
  }
  std::string err = ensureSysroot(tc, [](const std::string& msg) { std::cerr << "[setup] " << msg << "\n"; });
  if (!err.empty()) {
    std::cerr << "kernelscope setup: " << err << "\n";
    return 1;
  }
  return 0;
}

}  // namespace ks
