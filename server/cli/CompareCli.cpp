// `kernelscope compare`: a Rust kernel's PTX and SASS next to its CUDA C++ twin's.
//
// People porting CUDA C++ to Rust want to know whether the two compile to the same code.
// Both files go through the engine (Engine.h; the `.cu` through nvcc); kernels are paired by
// name (or `--kernel`), each pair gets its resources side by side and, per stage, a diff
// of the two bodies normalized so that only real differences remain: register numbers,
// labels, parameter names, addresses and encodings are renamed away.
// The diff itself is the artifact diff of Diff.h; this file adds only what differs
// between two compilers (parameter names, SASS register allocation).
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <regex>

#include "Cli.h"
#include "CliArgs.h"
#include "Compile.h"
#include "Diff.h"
#include "Engine.h"
#include "TextUtil.h"

namespace ks {

namespace {

struct CompareArgs {
  std::string rustFile, cudaFile, kernel;
  std::vector<Stage> stages{Stage::Ptx, Stage::Sass};
  CompileOptions options = [] {
    CompileOptions o = cliCompileOptions();
    o.remarks = false;  // remarks are not shown
    return o;
  }();
  size_t context = 3;
};

std::optional<std::string> parseArgs(int argc, char** argv, CompareArgs& a) {
  ArgReader args("compare", argc, argv);
  while (auto next = args.next()) {
    std::string_view arg = *next;
    if (auto bad = readCompileOption(arg, args, a.options)) {
      if (!bad->empty()) return *bad;
    } else if (arg == "--kernel") {
      auto v = args.value();
      if (!v) return "--kernel needs a kernel name";
      a.kernel = *v;
    } else if (arg == "--stages") {
      auto v = args.value();
      if (!v) return "--stages needs ptx, sass or ptx,sass";
      if (auto bad = parseStageList(*v, a.stages)) return *bad;
      for (Stage st : a.stages)
        if (st != Stage::Ptx && st != Stage::Sass)
          return "compare shows ptx and sass, not '" + std::string(stageName(st)) + "'";
    } else if (arg.starts_with("-")) {
      return "unknown option '" + std::string(arg) + "' (see kernelscope --help)";
    } else if (a.rustFile.empty()) {
      a.rustFile = arg;
    } else if (a.cudaFile.empty()) {
      a.cudaFile = arg;
    } else {
      return "compare takes two files: a Rust kernel and a CUDA C++ one";
    }
  }
  if (a.cudaFile.empty()) return "usage: kernelscope compare RUST_FILE CUDA_FILE [--kernel NAME]";
  a.options.stages = a.stages;
  return std::nullopt;
}

/// What differs between two compilers but not between their code: the kernel's name in
/// its parameters (PTX `saxpy_param_0`) and SASS register numbers (each compiler allocates
/// its own). The rest (virtual register and label numbers, locations, addresses) is
/// normalized by the artifact diff (Diff.h).
std::string acrossCompilers(Stage stage, std::string_view line) {
  static const std::regex param(R"(\b\w+_param_(\d+))"), sassReg(R"(\b(U?R|U?P|B)(\d+)\b)");
  std::string s(line);
  if (stage == Stage::Ptx) return std::regex_replace(s, param, "param_$1");
  if (stage == Stage::Sass) return std::regex_replace(s, sassReg, "$1");
  return s;
}

/// One kernel's lines of an artifact as an artifact of their own, renamed across compilers.
Artifact kernelBody(const Artifact& a, const std::string& symbol) {
  for (const auto& f : a.functions) {
    if (f.symbol != symbol) continue;
    std::string text;
    std::vector<ArtifactLine> lines;
    for (uint32_t l = f.firstLine; l <= f.lastLine && l < a.lines().size(); ++l) {
      text += acrossCompilers(a.stage, a.shownLine(l)) + "\n";
      ArtifactLine line;
      line.kind = a.lines()[l].kind;
      line.function = 0;
      lines.push_back(std::move(line));
    }
    ArtifactFunction fn = f;
    fn.firstLine = 0;
    fn.lastLine = lines.empty() ? 0 : static_cast<uint32_t>(lines.size() - 1);
    return Artifact(a.stage, std::move(text), std::move(lines), {std::move(fn)});
  }
  Artifact none;
  none.stage = a.stage;
  return none;
}

void printResources(std::ostream& out, const KernelInfo& rust, const KernelInfo& cuda) {
  auto row = [&](std::string_view what, auto get) {
    out << "  " << std::left << std::setw(16) << what << std::right << std::setw(8) << get(rust)
        << std::setw(8) << get(cuda) << "\n";
  };
  auto res = [](auto field) {
    return [field](const KernelInfo& k) -> std::string {
      return k.resources ? std::to_string(field(*k.resources)) : "-";
    };
  };
  out << "  " << std::left << std::setw(16) << "" << std::right << std::setw(8) << "rust"
      << std::setw(8) << "c++"
      << "\n";
  row("registers", res([](const KernelResources& r) { return r.registers; }));
  row("spill st/ld", [](const KernelInfo& k) {
    return k.resources ? std::to_string(k.resources->spillStores) + "/" +
                             std::to_string(k.resources->spillLoads)
                       : "-";
  });
  row("stack", res([](const KernelResources& r) { return r.stackFrame; }));
  row("shared mem", res([](const KernelResources& r) { return r.sharedMemory; }));
  row("constant mem", res([](const KernelResources& r) { return r.constantMemory; }));
  row("ptx instr", [](const KernelInfo& k) { return std::to_string(k.ptxInstructions); });
  row("sass instr", [](const KernelInfo& k) { return std::to_string(k.sassInstructions); });
}

using KernelPair = std::pair<const KernelInfo*, const KernelInfo*>;

/// Pairs: the named kernel, else kernels of the same name, else the only kernel of each.
/// Empty after saying why when there is none.
std::vector<KernelPair> kernelPairs(const CompileResult& rust, const CompileResult& cuda,
                                    const CompareArgs& args) {
  std::vector<KernelPair> pairs;
  if (!args.kernel.empty()) {
    const KernelInfo *a = findKernel(rust, args.kernel), *b = findKernel(cuda, args.kernel);
    if (!a || !b) {
      std::cerr << "kernelscope compare: no kernel '" << args.kernel << "' in "
                << (a ? args.cudaFile : args.rustFile) << "\n";
      return {};
    }
    return {{a, b}};
  }
  for (const auto& k : rust.kernels)
    if (const auto* twin = findKernel(cuda, k.symbol)) pairs.push_back({&k, twin});
  if (pairs.empty() && rust.kernels.size() == 1 && cuda.kernels.size() == 1)
    pairs.push_back({&rust.kernels[0], &cuda.kernels[0]});
  if (pairs.empty())
    std::cerr << "kernelscope compare: no kernels of the same name in both files; name one with "
                 "--kernel\n";
  return pairs;
}

/// One pair's resources and, per stage, the diff of its bodies; the exit status it calls for.
int printPair(const KernelPair& pair, const CompileResult& rust, const CompileResult& cuda,
              const CompareArgs& args) {
  const auto& [a, b] = pair;
  int status = kExitOk;
  std::cout << "\nkernel " << a->demangled
            << (a->demangled != b->demangled ? " vs " + b->demangled : "") << "\n";
  printResources(std::cout, *a, *b);
  for (Stage s : args.stages) {
    const StageOutcome *sa = rust.stage(s), *sb = cuda.stage(s);
    std::cout << "\n" << stageName(s) << "\n";
    if (!sa || !sa->available || !sb || !sb->available) {
      const StageOutcome* missing = (!sa || !sa->available) ? sa : sb;
      std::cout << "  (unavailable: " << (missing ? missing->unavailableReason : "not run")
                << ")\n";
      status = kExitStageUnavailable;
      continue;
    }
    StageDiff d =
        diffArtifacts(kernelBody(*sa->artifact, a->symbol), kernelBody(*sb->artifact, b->symbol),
                      args.rustFile, args.cudaFile, {static_cast<int>(args.context), true});
    std::cout << "  " << d.removed << " instructions only in rust (-), " << d.added
              << " only in c++ (+)\n";
    if (!d.changed())
      std::cout << "  identical after normalization\n";
    else
      std::cout << d.unified;
  }
  return status;
}

}  // namespace

int compareMain(int argc, char** argv) {
  CompareArgs args;
  if (auto err = parseArgs(argc, argv, args)) {
    std::cerr << "kernelscope compare: " << *err << "\n";
    return kExitUsage;
  }
  for (const auto& f : {args.rustFile, args.cudaFile})
    if (auto bad = inputFileProblem(f)) {
      std::cerr << "kernelscope compare: cannot read " << f << ": " << *bad << "\n";
      return kExitUsage;
    }
  Engine& engine = cliEngine();
  // The Rust crate's [package.metadata.kernelscope] fills what the command line left unset;
  // the CUDA C++ twin compiles for the same arch and opt level.
  const std::filesystem::path rustPath = std::filesystem::absolute(args.rustFile);
  args.options = engine.optionsFor(rustPath, args.options).asChosen();
  const auto rustResult = engine.compile({rustPath, std::nullopt, {}}, args.options);
  const auto cudaResult =
      engine.compile({std::filesystem::absolute(args.cudaFile), std::nullopt, {}}, args.options);
  const CompileResult &rust = *rustResult, &cuda = *cudaResult;
  for (const auto* r : {&rust, &cuda})
    for (const auto& d : r->diagnostics)
      if (d.severity == Severity::Error || d.severity == Severity::Note)
        printDiagnostic(std::cerr, d);
  if (!rust.succeeded || !cuda.succeeded) {
    std::cerr << "kernelscope compare: " << (rust.succeeded ? args.cudaFile : args.rustFile) << ": "
              << failureText(rust.succeeded ? cuda : rust) << "\n";
    return kExitFailed;
  }
  const std::vector<KernelPair> pairs = kernelPairs(rust, cuda, args);
  if (pairs.empty()) return kExitUsage;
  std::cout
      << args.rustFile << "  vs  " << args.cudaFile << "  (" << rust.arch << "; rust opt-level "
      << rust.optLevel
      << "; normalized: register numbers, labels, parameter names and addresses renamed away)\n";
  int status = kExitOk;
  for (const KernelPair& pair : pairs) status = std::max(status, printPair(pair, rust, cuda, args));
  return status;
}

}  // namespace ks
