// The CUDA C++ front end: nvcc -> PTX for the shared back end. See Cuda.h.
#include "Cuda.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "Crate.h"
#include "FrontEnd.h"
#include "GpuArch.h"
#include "Parsers.h"
#include "PtxBackend.h"
#include "TextUtil.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

void replaceAll(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

Diagnostic note(Severity severity, std::string message, std::string source = "kernelscope") {
  Diagnostic d;
  d.severity = severity;
  d.source = std::move(source);
  d.message = std::move(message);
  return d;
}

/// The `.version X.Y` of a PTX text, empty when absent.
std::string ptxVersionOf(std::string_view ptx) {
  for (auto line : splitLines(ptx)) {
    std::string_view t = text::trim(line);
    if (text::consume(t, ".version")) return std::string(text::trim(t));
  }
  return {};
}

int versionNumber(std::string_view v) {
  auto major = text::takeUint(v);
  uint32_t minor = text::consume(v, ".") ? text::takeUint(v).value_or(0) : 0;
  return major ? static_cast<int>(*major * 100 + minor) : -1;
}

/// "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0"
std::string releaseOf(const std::string& versionLine) {
  auto pos = versionLine.find("release ");
  return pos == std::string::npos
             ? ""
             : versionLine.substr(pos + 8, versionLine.find(',', pos) - pos - 8);
}

}  // namespace

bool isCudaSource(const fs::path& p) { return p.extension() == ".cu" || p.extension() == ".cuh"; }

std::string maxPtxIsaFor(std::string_view cudaRelease) {
  static const std::map<std::string_view, std::string_view> isa = {
      {"11.0", "7.0"}, {"11.1", "7.1"}, {"11.2", "7.2"}, {"11.3", "7.3"}, {"11.4", "7.4"},
      {"11.5", "7.5"}, {"11.6", "7.6"}, {"11.7", "7.7"}, {"11.8", "7.8"}, {"12.0", "8.0"},
      {"12.1", "8.1"}, {"12.2", "8.2"}, {"12.3", "8.3"}, {"12.4", "8.4"}, {"12.5", "8.5"},
      {"12.6", "8.5"}, {"12.8", "8.7"}, {"12.9", "8.8"}, {"13.0", "9.0"}};
  auto it = isa.find(cudaRelease);
  return it == isa.end() ? "" : std::string(it->second);
}

std::vector<Diagnostic> parseNvccDiagnostics(std::string_view stderrText) {
  std::vector<Diagnostic> out;
  for (auto line : splitLines(stderrText)) {
    // /path/k.cu(12): error: identifier "undefined_name" is undefined
    auto open = line.find('(');
    auto close = line.find("): ", open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos) continue;
    std::string_view num = line.substr(open + 1, close - open - 1);
    auto n = text::parseUint(num);
    std::string_view rest = line.substr(close + 3);
    Severity sev;
    if (text::consume(rest, "error: "))
      sev = Severity::Error;
    else if (text::consume(rest, "warning"))
      sev = Severity::Warning;
    else
      continue;
    if (!n) continue;
    if (sev == Severity::Warning)
      rest = text::trim(
          rest.substr(rest.find(':') == std::string_view::npos ? 0 : rest.find(':') + 1));
    Diagnostic d;
    d.source = "nvcc";
    d.severity = sev;
    d.message = std::string(rest);
    d.range = SourceRange{normalizePath(line.substr(0, open)), *n, 1, *n, 1};
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

class CudaFrontEnd final : public FrontEnd {
 public:
  std::string_view name() const override { return "cuda"; }

  std::optional<std::string> neverProduces(Stage s) const override {
    if (s != Stage::Mir && s != Stage::LlvmIr) return std::nullopt;
    // CUDA C++ has no MIR, and nvcc's NVVM IR is not kept.
    return std::string(stageName(s)) + " is a Rust stage: a .cu file has PTX and SASS";
  }

  std::optional<FrontEndOutput> compile(const Toolchain& tc, const CompileInput& input,
                                        const ResolvedOptions& opts,
                                        const CancellationToken& cancel, const fs::path& work,
                                        const fs::path& out, CompileResult& result) override {
    const fs::path file = normalizePath(fs::absolute(input.path).string());
    if (!tc.nvcc.found())
      return failCompile(
          opts, result,
          "nvcc: " + tc.nvcc.problem + (tc.nvcc.fix.empty() ? "" : " (fix: " + tc.nvcc.fix + ")"));
    nvccRelease_ = releaseOf(tc.nvcc.version);
    if (!cudaSupports(nvccRelease_, opts.arch))
      return failCompile(
          opts, result,
          archNeedsCudaMessage("nvcc", nvccRelease_, tc.nvcc.path.string(), opts.arch));

    std::vector<std::pair<fs::path, fs::path>> remaps;
    fs::path source =
        sourceView(file.parent_path(), unsavedTexts(input), work, remaps) / file.filename();
    auto unshadow = [&](std::string s) {
      for (const auto& [shadow, real] : remaps) replaceAll(s, shadow.string(), real.string());
      return s;
    };

    FrontEndOutput o;
    o.stem = file.stem().string();
    const fs::path ptxFile = out / (o.stem + ".ptx");
    ProcessResult r = runNvcc(tc, opts, source, ptxFile, work, cancel);
    result.toolTime += r.elapsed;
    if (r.cancelled) return cancelCompile(opts, result);
    result.diagnostics = parseNvccDiagnostics(unshadow(r.err));
    if (!r.ok()) {
      bool haveError = hasError(result.diagnostics);
      std::string why = "nvcc " + r.describe();
      if (!haveError)
        result.diagnostics.push_back(toolError(why + ":\n" + r.err.substr(0, 4000), "nvcc"));
      failStages(opts, result,
                 haveError ? "the kernel does not compile (see the diagnostics)" : why);
      return std::nullopt;
    }
    result.succeeded = true;
    result.sourceFiles = {file};

    std::string ptxText = unshadow(readWholeFile(ptxFile));
    o.ptx = parsePtx(ptxText);
    std::set<std::string> userFiles = {file.string()};
    std::string dir = file.parent_path().string() + "/";
    for (const auto& l : o.ptx.lines())
      for (const auto& f : l.location)
        if (f.file.starts_with(dir)) userFiles.insert(f.file);
    o.lineMap =
        std::make_shared<LineMap>(std::vector<std::string>(userFiles.begin(), userFiles.end()));
    if (opts.wants(Stage::Ptx)) {
      StageOutcome& st = result.stages[Stage::Ptx];
      st = {true, {}, std::make_shared<const Artifact>(o.ptx), r.elapsed};
    }
    o.ir.stage = Stage::LlvmIr;  // none: nvcc's `.loc` lines already carry exact inline chains
    o.lineIds = false;
    lowerPtxIsaForPtxas(tc, file, ptxText, o, result);
    return o;
  }

  void complete(const CompileInput&, const ResolvedOptions&, CompileResult& result) const override {
    if (!lowered_) return;
    if (auto it = result.stages.find(Stage::Sass);
        it != result.stages.end() && !it->second.available)
      it->second.unavailableReason += " (SASS for CUDA C++ needs ptxas + nvdisasm of CUDA " +
                                      nvccRelease_ +
                                      ", nvcc's release; set CUDA_HOME to a full toolkit)";
  }

 private:
  /// nvcc's PTX of `source`, with line info, into `ptxFile`.
  static ProcessResult runNvcc(const Toolchain& tc, const ResolvedOptions& opts,
                               const fs::path& source, const fs::path& ptxFile,
                               const fs::path& work, const CancellationToken& cancel) {
    ProcessSpec nvcc;
    nvcc.argv = {tc.nvcc.path.string(), "-arch=" + opts.arch, "-lineinfo", "--ptx", "-o",
                 ptxFile.string(),      source.string()};
    nvcc.cwd = work;
    nvcc.timeout = opts.toolTimeout;
    nvcc.cancel = cancel;
    return tc.run(nvcc);
  }

  /// The ptxas/nvdisasm pair may be older than nvcc: ptxas gets the PTX with its ISA
  /// version lowered to what it reads, and a note says so.
  void lowerPtxIsaForPtxas(const Toolchain& tc, const fs::path& file, const std::string& ptxText,
                           FrontEndOutput& o, CompileResult& result) {
    std::string version = ptxVersionOf(ptxText), readable = maxPtxIsaFor(tc.cudaRelease);
    lowered_ =
        tc.ptxas.found() && !readable.empty() && versionNumber(version) > versionNumber(readable);
    if (!lowered_) return;
    o.ptxasText = ptxText;
    replaceAll(*o.ptxasText, ".version " + version, ".version " + readable);
    result.diagnostics.push_back(
        note(Severity::Note, "SASS and resources of " + file.filename().string() +
                                 " come from ptxas " + tc.cudaRelease + " with nvcc " +
                                 nvccRelease_ + "'s PTX ISA " + version + " read as " + readable +
                                 " (no ptxas + nvdisasm of CUDA " + nvccRelease_ +
                                 " found; set CUDA_HOME to a full toolkit for an exact match)"));
  }

  std::string nvccRelease_;
  bool lowered_ = false;  // ptxas reads the PTX with a lowered `.version`
};

}  // namespace

std::unique_ptr<FrontEnd> cudaFrontEnd() { return std::make_unique<CudaFrontEnd>(); }

}  // namespace ks
