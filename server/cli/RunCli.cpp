// `kernelscope run`, `kernelscope profile` and `kernelscope gpu-exec`: a kernel on a real GPU.
//
// run and profile are the GPU service's (pipeline/gpu/GpuService.h: the file compiled as
// explain compiles it, the cubin ptxas made launched through a `gpu-exec` child, here or
// through --runner on another machine); this file reads their flags and prints the outcome.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "Cli.h"
#include "CliArgs.h"
#include "Crate.h"
#include "Cuda.h"
#include "Files.h"
#include "GpuExec.h"
#include "GpuResults.h"
#include "GpuService.h"
#include "OptionDecoding.h"
#include "ProfileBaseline.h"
#include "Report.h"
#include "Runner.h"
#include "Sweep.h"
#include "TextUtil.h"
#include "Toolchain.h"

namespace ks {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct RunArgs {
  std::string file;
  std::vector<std::string> kernels;  // --kernel, each; empty: the only one (or with a spec)
  bool allKernels = false;           // every kernel with a launch spec
  bool severalKernels() const { return allKernels || kernels.size() > 1; }
  std::string kernel() const { return kernels.empty() ? "" : kernels[0]; }
  CompileOptions options = cliCompileOptions();
  gpu::LaunchSettings launch;
  bool json = false;
  std::string dumpDir;
  int top = 0;              // profile: only the N hottest lines (0: every line with samples)
  std::string saveRequest;  // write the gpu-exec request here instead of launching
  std::string replay;       // render this recorded gpu-exec result instead of launching
  std::vector<gpu::SweepAxis> sweep;  // run: every combination of these variables' values
  int jobs = 1;                       // sweep configurations or kernels at once
  std::string baseline;               // profile: "last" or a saved profile's file
};

/// Reads `arg` if it says how to reach the GPU machine (--runner, --ncu for a profile,
/// --remote-kernelscope): nullopt when it is another option, "" when read, else the problem.
std::optional<std::string> readRunnerOption(std::string_view arg, ArgReader& args,
                                            gpu::LaunchSettings& launch, bool profile) {
  if (arg == "--runner" || (arg == "--ncu" && profile)) {
    // The settings gpuRunner and ncu: checked by the options table, as the editors' are.
    const OptionSpec& option = *optionByCliFlag(arg);
    auto v = args.value();
    if (!v) return std::string(arg) + " needs " + std::string(option.expected);
    if (auto bad = optionProblem(option, arg, cliOptionValue(option, *v))) return *bad;
    if (arg == "--ncu")
      launch.ncu = *v;
    else if (std::string why = gpu::splitRunner(*v, launch.runner); !why.empty())
      return why;
    return std::string();
  }
  if (arg != "--remote-kernelscope") return std::nullopt;
  auto v = args.value();
  if (!v) return std::string("--remote-kernelscope needs a path");
  launch.remoteKernelscope = *v;
  return std::string();
}

std::optional<std::string> parseRunArgs(int argc, char** argv, RunArgs& a, bool profile) {
  ArgReader args(profile ? "profile" : "run", argc, argv);
  while (auto arg = args.next()) {
    auto intValue = [&](int lo, int hi, int& out) -> std::optional<std::string> {
      auto v = args.value();
      auto n = v ? text::parseUint(*v) : std::nullopt;
      if (!n || *n < uint64_t(lo) || *n > uint64_t(hi))
        return std::string(*arg) + " takes a number from " + std::to_string(lo) + " to " +
               std::to_string(hi);
      out = static_cast<int>(*n);
      return std::nullopt;
    };
    if (auto r = readCompileOption(*arg, args, a.options)) {
      if (!r->empty()) return r;
    } else if (*arg == "--kernel") {
      auto v = args.value();
      if (!v) return "--kernel needs a name";
      a.kernels.push_back(*v);
    } else if (*arg == "--all-kernels") {
      a.allKernels = true;
    } else if (*arg == "--spec") {
      auto v = args.value();
      if (!v) return "--spec needs items, e.g. --spec 'n = 4096; block = 128'";
      a.launch.specItems.push_back(*v);
    } else if (*arg == "--runs" && !profile) {
      if (auto e = intValue(0, 100000, a.launch.runs)) return e;
    } else if (*arg == "--warmup" && !profile) {
      if (auto e = intValue(1, 1000, a.launch.warmup)) return e;
    } else if (*arg == "--timeout") {
      int s = 0;
      if (auto e = intValue(1, 86400, s)) return e;
      a.launch.timeout = std::chrono::seconds(s);
    } else if (auto r = readRunnerOption(*arg, args, a.launch, profile)) {
      if (!r->empty()) return r;
    } else if (*arg == "--dump" && !profile) {
      auto v = args.value();
      if (!v) return "--dump needs a directory";
      a.dumpDir = *v;
      a.launch.dump = true;
    } else if (*arg == "--sweep" && !profile) {
      auto v = args.value();
      gpu::SweepAxis axis;
      if (!v) return "--sweep needs NAME=V1,V2,... (e.g. --sweep block=64,128,256)";
      if (std::string why = gpu::parseSweepAxis(*v, axis); !why.empty()) return why;
      for (const auto& other : a.sweep)
        if (other.name == axis.name) return "--sweep " + axis.name + " is given twice";
      a.sweep.push_back(std::move(axis));
    } else if (*arg == "--jobs") {
      if (auto e = intValue(1, 256, a.jobs)) return e;
    } else if (*arg == "--baseline" && profile) {
      auto v = args.value();
      if (!v) return "--baseline needs 'last' or a file (profile --json's output)";
      a.baseline = *v;
    } else if (*arg == "--top" && profile) {
      if (auto e = intValue(1, 100000, a.top)) return e;
    } else if (*arg == "--save-request" || *arg == "--replay") {
      auto v = args.value();
      if (!v) return std::string(*arg) + " needs a file";
      (*arg == "--replay" ? a.replay : a.saveRequest) = *v;
    } else if (*arg == "--json") {
      a.json = true;
    } else if (arg->starts_with("-")) {
      return "unknown option '" + std::string(*arg) + "'";
    } else if (a.file.empty()) {
      a.file = *arg;
    } else {
      return "one file at a time ('" + std::string(*arg) + "' is extra)";
    }
  }
  if (a.file.empty()) return std::string("no file given");
  if (a.severalKernels() && (!a.sweep.empty() || !a.replay.empty() || !a.saveRequest.empty()))
    return std::string(
        "several kernels run one request each: --sweep, --replay and --save-request take one "
        "--kernel");
  if (!a.sweep.empty() && (!a.replay.empty() || !a.saveRequest.empty() || !a.dumpDir.empty()))
    return std::string(
        "--sweep runs every configuration: it takes no --replay, --save-request "
        "or --dump");
  return std::nullopt;
}

std::string si(double v, const char* unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) v /= 1000, ++i;
  std::ostringstream out;
  out << std::setprecision(v >= 100 ? 4 : 3) << v << " " << prefixes[i] << unit;
  return out.str();
}

std::string time(double ms) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(ms < 0.1 ? 2 : ms < 10 ? 3 : 1);
  if (ms < 1)
    out << ms * 1000 << " us";
  else
    out << ms << " ms";
  return out.str();
}

std::string dims(const std::array<uint32_t, 3>& d) {
  std::string s = std::to_string(d[0]);
  if (d[1] != 1 || d[2] != 1) s += " x " + std::to_string(d[1]);
  if (d[2] != 1) s += " x " + std::to_string(d[2]);
  return s;
}

std::string number(double v) {
  std::ostringstream out;
  out << std::setprecision(7) << v;
  return out.str();
}

/// Writes one buffer as a .npy file (NPY 1.0, C order).
void writeNpy(const fs::path& path, gpu::ElemType elem, uint64_t count, const std::string& data) {
  // A buffer of structs: numpy's raw records of the struct's size.
  std::string descr = elem == gpu::ElemType::Record
                          ? "|V" + std::to_string(count ? data.size() / count : 0)
                          : std::string(gpu::elemTypeNumpy(elem));
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(count) + ",), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header << data;
}

/// The GPU service's request for the file's kernel (the first --kernel).
gpu::GpuRequest requestOf(const RunArgs& args, bool profile) {
  gpu::GpuRequest request;
  request.profile = profile;
  request.input = {fs::absolute(args.file), std::nullopt, {}};
  request.options = args.options;
  request.kernel = args.kernel();
  request.launch = args.launch;
  request.saveRequest = args.saveRequest;
  request.replay = args.replay;
  request.baseline = args.baseline;
  return request;
}

/// Says an outcome's notes and what went wrong; whether there is something to show.
bool sayProblems(const char* command, const gpu::GpuOutcome& out) {
  for (const auto& n : out.notes) std::cerr << "kernelscope " << command << ": note: " << n << "\n";
  for (const auto& d : out.details) std::cerr << d << "\n";
  if (!out.error.empty()) std::cerr << "kernelscope " << command << ": " << out.error << "\n";
  return out.ok();
}

bool fileReadable(const char* command, const RunArgs& args) {
  std::error_code ec;
  if (fs::is_regular_file(fs::absolute(args.file), ec)) return true;
  std::cerr << "kernelscope " << command << ": cannot read " << args.file << ": no such file\n";
  return false;
}

/// Runs or profiles the file's kernel through the GPU service and prints what went wrong;
/// nullopt: nothing to show (`status` says whether that is a failure).
std::optional<gpu::GpuOutcome> runOnGpu(const char* command, const RunArgs& args, bool profile,
                                        int& status) {
  status = kExitFailed;
  if (!fileReadable(command, args)) return std::nullopt;
  gpu::GpuOutcome out = gpu::runOnGpu(cliEngine(), requestOf(args, profile));
  if (!sayProblems(command, out)) return std::nullopt;
  if (out.requestSaved) {
    std::cout << "wrote the gpu-exec request for " << out.kernel << " to " << args.saveRequest
              << " (run it: kernelscope gpu-exec < FILE)\n";
    status = kExitOk;
    return std::nullopt;
  }
  return out;
}

/// Several kernels (--kernel twice or more, --all-kernels), each through the GPU service,
/// --jobs at once; each one's outcome shown by `show` in the file's order (--json: an array
/// of their documents). Fails when one of them did.
int runKernels(const char* command, const RunArgs& args, bool profile,
               const std::function<int(const gpu::GpuOutcome&, json*)>& show) {
  if (!fileReadable(command, args)) return kExitFailed;
  gpu::GpuRequest request = requestOf(args, profile);
  std::vector<std::string> kernels = args.kernels;
  if (args.allKernels) {
    gpu::SpecifiedKernels specified =
        gpu::kernelsWithSpecs(cliEngine(), request.input, request.options);
    for (const auto& d : specified.details) std::cerr << d << "\n";
    if (!specified.problem.empty()) {
      std::cerr << "kernelscope " << command << ": " << specified.problem << "\n";
      return kExitFailed;
    }
    for (auto& k : specified.kernels)
      if (std::find(kernels.begin(), kernels.end(), k) == kernels.end())
        kernels.push_back(std::move(k));
  }
  const std::vector<gpu::GpuOutcome> outcomes =
      gpu::runKernelsOnGpu(cliEngine(), request, kernels, static_cast<size_t>(args.jobs));
  int status = kExitOk;
  json docs = json::array();
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!args.json && i > 0) std::cout << "\n";
    if (!sayProblems(command, outcomes[i])) {
      std::cerr << "kernelscope " << command << ": " << kernels[i] << " did not "
                << (profile ? "profile" : "run") << "\n";
      status = kExitFailed;
      continue;
    }
    json doc;
    if (show(outcomes[i], args.json ? &doc : nullptr) != kExitOk) status = kExitFailed;
    if (args.json) docs.push_back(std::move(doc));
  }
  if (args.json) std::cout << docs.dump(2) << "\n";
  return status;
}

}  // namespace

int printLineProfile(const gpu::KernelLineProfile&, const gpu::DeviceInfo&, const gpu::LaunchPlan&,
                     const std::filesystem::path& file, bool asJson, int top);

namespace {

/// A run's figures as text: launch, time, bandwidth and throughput, and every buffer.
void printRun(const gpu::LaunchPlan& plan, const gpu::RunResult& r, const std::string& dumpDir) {
  const gpu::RunFigures f = gpu::runFigures(plan, r);
  const gpu::TimeStats& t = f.time;
  std::cout << plan.kernel << " on " << r.device.describe() << "\n";
  std::cout << "  launch   grid " << dims(plan.grid) << ", block " << dims(plan.block);
  if (plan.sharedBytes) std::cout << ", " << plan.sharedBytes << " B dynamic shared";
  std::cout << "\n";
  if (!r.timesMs.empty()) {
    std::cout << "  time     " << time(t.median) << " median (min " << time(t.min) << ", max "
              << time(t.max) << ", " << r.timesMs.size() << " runs)\n";
    double peakBw = r.device.peakBandwidth();
    std::cout << "  memory   " << si(f.bytes, "B") << (plan.bytes ? "" : " (every buffer once)")
              << " -> " << si(f.bandwidth, "B/s");
    if (peakBw > 0)
      std::cout << " = " << std::fixed << std::setprecision(1) << 100 * f.bandwidth / peakBw
                << "% of " << si(peakBw, "B/s") << " peak" << std::defaultfloat;
    std::cout << "\n";
    if (plan.flops) {
      double peak = r.device.peakFlops();
      std::cout << "  compute  " << si(*plan.flops, "FLOP") << " -> " << si(f.throughput, "FLOP/s");
      if (peak > 0)
        std::cout << " = " << std::fixed << std::setprecision(1) << 100 * f.throughput / peak
                  << "% of " << si(peak, "FLOP/s") << " FP32 peak" << std::defaultfloat;
      std::cout << "\n";
    }
  }
  std::cout << "  buffers  (after the first launch)\n";
  for (const auto& b : r.buffers) {
    const std::string type =
        b.typeName.empty() ? std::string(gpu::elemTypeName(b.elem)) : b.typeName;
    std::cout << "    " << std::left << std::setw(10) << b.name << std::setw(18)
              << (type + "[" + std::to_string(b.count) + "]") << std::setw(9)
              << (b.output ? "output" : "") << std::right;
    if (b.elem == gpu::ElemType::Record) {
      std::cout << "structs: --dump writes their bytes\n";
      continue;
    }
    std::cout << "sum " << number(b.checksum) << "  [";
    for (size_t i = 0; i < b.first.size(); ++i) std::cout << (i ? ", " : "") << number(b.first[i]);
    std::cout << (b.count > b.first.size() ? ", ...]" : "]") << "\n";
  }
  if (!dumpDir.empty()) std::cout << "  dumped   every buffer to " << dumpDir << "/NAME.npy\n";
}

/// A sweep as JSON: each configuration's values, launch, time and predicted occupancy.
json sweepJson(const fs::path& file, const gpu::SweepOutcome& s) {
  json points = json::array();
  for (const auto& p : s.points) {
    json values = json::object();
    for (const auto& [name, value] : p.values) values[name] = value;
    json j = {{"values", values},
              {"label", p.label()},
              {"ok", p.ran()},
              {"outputsDiffer", p.outputsDiffer}};
    if (p.plan) j["grid"] = p.plan->grid, j["block"] = p.plan->block;
    if (p.ran()) {
      const gpu::TimeStats t = gpu::timeStats(p.run.timesMs);
      j["medianMs"] = t.median, j["minMs"] = t.min, j["maxMs"] = t.max;
    } else {
      j["error"] = p.error;
    }
    if (p.predicted)
      j["predictedOccupancy"] = {{"fraction", p.predicted->fraction()},
                                 {"blocksPerSm", p.predicted->blocksPerSm},
                                 {"warpsPerSm", p.predicted->warpsPerSm},
                                 {"limitedBy", p.predicted->limitText()}};
    points.push_back(std::move(j));
  }
  json out = {{"file", file.string()},    {"kernel", s.kernel},
              {"arch", s.arch},           {"configurations", std::move(points)},
              {"best", nullptr},          {"outputsEqual", s.differing.empty()},
              {"differing", s.differing}, {"equality", s.equalityRule}};
  if (s.best) out["best"] = *s.best;
  out["reference"] = s.reference ? json(*s.reference) : json(nullptr);
  out["referenceIsOwnSpec"] = s.referenceIsOwn;
  for (const auto& p : s.points)
    if (p.ran()) {
      out["device"] = p.run.device.describe();
      break;
    }
  return out;
}

/// `run --sweep`: every configuration, a table of time against predicted occupancy.
int sweepMain(const RunArgs& args) {
  fs::path path = fs::absolute(args.file);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    std::cerr << "kernelscope run: cannot read " << args.file << ": no such file\n";
    return kExitFailed;
  }
  gpu::GpuRequest request;
  request.input = {path, std::nullopt, {}};
  request.options = args.options;
  request.kernel = args.kernel();
  request.launch = args.launch;
  const gpu::SweepOutcome s =
      gpu::runSweep(cliEngine(), request, args.sweep, static_cast<size_t>(args.jobs));
  for (const auto& n : s.notes) std::cerr << "kernelscope run: note: " << n << "\n";
  for (const auto& d : s.details) std::cerr << d << "\n";
  if (!s.error.empty()) std::cerr << "kernelscope run: " << s.error << "\n";
  if (!s.ok()) return kExitFailed;
  if (args.json) {
    std::cout << sweepJson(path, s).dump(2) << "\n";
    return s.best ? kExitOk : kExitFailed;
  }
  std::string device;
  for (const auto& p : s.points)
    if (p.ran() && device.empty()) device = p.run.device.describe();
  std::cout << s.kernel << " on " << (device.empty() ? "no device (nothing ran)" : device) << ", "
            << s.points.size() << " configurations\n";
  size_t labelWidth = 15;
  for (const auto& p : s.points) labelWidth = std::max(labelWidth, p.label().size() + 2);
  std::cout << "  " << std::left << std::setw(static_cast<int>(labelWidth)) << "configuration"
            << std::setw(16) << "grid" << std::setw(12) << "time"
            << "predicted occupancy (" << s.arch << ")\n";
  for (size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    std::cout << "  " << std::setw(static_cast<int>(labelWidth)) << p.label() << std::setw(16)
              << (p.plan ? dims(p.plan->grid) : "-") << std::setw(12)
              << (p.ran() ? time(p.medianMs) : "-");
    if (p.predicted)
      std::cout << p.predicted->percent() << " (" << p.predicted->blocksPerSm
                << " blocks/SM, limited by " << p.predicted->limitText() << ")";
    else
      std::cout << "-";
    if (s.best == i) std::cout << "  <- fastest";
    if (p.outputsDiffer) std::cout << "  (outputs differ)";
    std::cout << "\n";
    if (!p.ran()) {
      std::cout << "  " << std::string(labelWidth, ' ')
                << "did not run: " << text::firstLine(p.error) << "\n";
    }
  }
  std::cout << std::right;
  if (s.best)
    std::cout << "fastest: " << s.points[*s.best].label() << " ("
              << time(s.points[*s.best].medianMs) << " median)\n";
  if (s.reference) {
    const std::string ref =
        s.points[*s.reference].label() +
        (s.referenceIsOwn ? ", the kernel's own spec" : ", what most configurations computed");
    if (s.differing.empty())
      std::cout << "outputs: equal across the configurations that ran (" << s.equalityRule << ")\n";
    for (const auto& d : s.differing)
      std::cout << "outputs differ from " << ref << ": " << d << "\n";
  }
  return s.best ? kExitOk : kExitFailed;
}

}  // namespace

namespace {

/// A run's outcome: its buffers dumped when asked (in DIR/KERNEL/ when several kernels ran),
/// then its figures as text or, with `doc`, as run --json's document.
int showRun(const RunArgs& args, const gpu::GpuOutcome& out, json* doc) {
  const gpu::LaunchPlan& plan = *out.plan;
  const gpu::RunResult& r = out.run;
  fs::path dumpDir = args.dumpDir;
  // The result's buffers are the plan's (decodeResultFor), so the files are named after the
  // kernel and its parameters; a name that is not a plain file name is never a path.
  if (!dumpDir.empty() && args.severalKernels())
    dumpDir = gpu::isPlainParameterName(out.kernel) ? dumpDir / out.kernel : fs::path();
  if (!dumpDir.empty()) {
    std::error_code ec;
    fs::create_directories(dumpDir, ec);
    for (const auto& b : r.buffers)
      if (b.blob >= 0 && gpu::isPlainParameterName(b.name))
        writeNpy(dumpDir / (b.name + ".npy"), b.elem, b.count, r.blobs[b.blob]);
  }
  if (doc)
    *doc = runResultOf(fs::absolute(args.file), plan, r);
  else
    printRun(plan, r, dumpDir.string());
  return kExitOk;
}

}  // namespace

int runMain(int argc, char** argv) {
  RunArgs args;
  if (auto err = parseRunArgs(argc, argv, args, false)) {
    std::cerr << "kernelscope run: " << *err << "\n";
    return kExitUsage;
  }
  if (!args.sweep.empty()) return sweepMain(args);
  if (args.severalKernels())
    return runKernels("run", args, false, [&](const gpu::GpuOutcome& out, json* doc) {
      return showRun(args, out, doc);
    });
  int status = kExitFailed;
  auto out = runOnGpu("run", args, false, status);
  if (!out) return status;
  json doc;
  const int rc = showRun(args, *out, args.json ? &doc : nullptr);
  if (args.json) std::cout << doc.dump(2) << "\n";
  return rc;
}

namespace {

std::string signedCount(double before, double after) {
  const double d = after - before;
  return (d < 0 ? "-" : "+") + gpu::compactCount(std::fabs(d));
}

void printDeltas(const std::vector<gpu::LineDelta>& deltas, const std::string& since) {
  std::cout << "\n  since the " << since
            << " (lines matched through the edit):\n  line  was   stalls          samples   "
               "instrs  L2 sectors        change\n";
  for (const auto& d : deltas) {
    std::ostringstream share;
    share << std::fixed << std::setprecision(1) << 100 * d.before.share << "% -> "
          << 100 * d.after.share << "%";
    std::cout << "  " << std::setw(4) << (d.line ? std::to_string(d.line) : "-") << "  "
              << std::setw(4) << (d.beforeLine ? std::to_string(*d.beforeLine) : "new") << "  "
              << std::left << std::setw(16) << share.str() << std::setw(10)
              << signedCount(d.before.stallSamples, d.after.stallSamples) << std::setw(8)
              << (std::to_string(d.before.instructions) + "->" +
                  std::to_string(d.after.instructions))
              << std::setw(18)
              << (gpu::compactCount(d.before.l2Sectors) + " -> " +
                  gpu::compactCount(d.after.l2Sectors))
              << std::right << (d.line ? d.hint(since) : "removed by the edit") << "\n";
  }
}

}  // namespace

namespace {

/// A profile's outcome: its hot lines and, against a baseline, their changes, as text or,
/// with `doc`, as profile --json's document.
int showProfile(const RunArgs& args, const gpu::GpuOutcome& out, json* doc) {
  if (!out.baselineProblem.empty()) {
    std::cerr << "kernelscope profile: --baseline: " << out.baselineProblem << "\n";
    return kExitFailed;
  }
  const fs::path file = fs::absolute(args.file);
  if (doc) {
    lsp::ProfileResult result =
        profileResultOf(file, *out.lines, out.run.device, *out.plan, static_cast<size_t>(args.top));
    if (out.deltas) result.baseline = profileDeltasOf(*out.deltas, out.since);
    *doc = result;
    (*doc)["snapshot"] = json::parse(gpu::encodeSnapshot(*out.snapshot));
    return kExitOk;
  }
  int rc = printLineProfile(*out.lines, out.run.device, *out.plan, file, false, args.top);
  if (out.deltas) printDeltas(*out.deltas, out.since);
  return rc;
}

}  // namespace

int profileMain(int argc, char** argv) {
  RunArgs args;
  if (auto err = parseRunArgs(argc, argv, args, true)) {
    std::cerr << "kernelscope profile: " << *err << "\n";
    return kExitUsage;
  }
  auto show = [&](const gpu::GpuOutcome& out, json* doc) { return showProfile(args, out, doc); };
  if (args.severalKernels()) return runKernels("profile", args, true, show);
  int status = kExitFailed;
  auto out = runOnGpu("profile", args, true, status);
  if (!out) return status;
  json doc;
  const int rc = show(*out, args.json ? &doc : nullptr);
  if (args.json && rc == kExitOk) std::cout << doc.dump(2) << "\n";
  return rc;
}

int printLineProfile(const gpu::KernelLineProfile& lp, const gpu::DeviceInfo& device,
                     const gpu::LaunchPlan& plan, const std::filesystem::path& file, bool asJson,
                     int top) {
  std::vector<const gpu::LineCounters*> order = gpu::hottestLines(lp, static_cast<size_t>(top));
  const auto& m = lp.metrics;
  if (asJson) {
    std::cout << json(profileResultOf(file, lp, device, plan, static_cast<size_t>(top))).dump(2)
              << "\n";
    return kExitOk;
  }
  std::cout << lp.kernel << " on " << device.describe() << ", grid " << dims(plan.grid)
            << ", block " << dims(plan.block) << "\n  ";
  if (m.durationNs) std::cout << "duration " << time(*m.durationNs / 1e6);
  std::cout << std::fixed << std::setprecision(1);
  if (m.achievedOccupancyPct)
    std::cout << ", achieved occupancy " << *m.achievedOccupancyPct << "%";
  if (m.dramThroughputPct) std::cout << ", DRAM throughput " << *m.dramThroughputPct << "% of peak";
  std::cout << ", " << std::setprecision(0) << lp.totalSamples << " stall samples\n\n";
  std::cout << "  line  stalls  top stall reasons              instrs  executed  threads  L2 "
               "sectors (x ideal)  "
               "bank ways  source\n";
  for (const auto* l : order) {
    std::string reasons;
    for (const auto& [reason, v] : l->topStalls(2))
      reasons +=
          (reasons.empty() ? "" : ", ") + reason + " " +
          std::to_string(static_cast<int>(std::lround(100 * v / std::max(1.0, l->stallSamples)))) +
          "%";
    std::ostringstream l2;
    if (l->l2SectorsIdeal > 0)
      l2 << gpu::compactCount(l->l2Sectors) << " (" << std::fixed << std::setprecision(2)
         << l->sectorsPerIdeal() << "x)";
    else
      l2 << "-";
    std::ostringstream ways;
    if (l->sharedConflictWays > 0)
      ways << std::fixed << std::setprecision(0) << l->sharedConflictWays << "-way";
    else
      ways << "-";
    std::cout << "  " << std::setw(4) << (l->line ? std::to_string(l->line) : "?") << " "
              << std::setw(6) << std::fixed << std::setprecision(1) << 100 * lp.share(*l) << "%  "
              << std::left << std::setw(30) << reasons << std::right << std::setw(7)
              << l->instructions << std::setw(10) << gpu::compactCount(l->executed) << std::setw(9)
              << std::setprecision(1) << l->threadsActive() << std::setw(22) << l2.str()
              << std::setw(11) << ways.str() << "  " << (l->line ? l->text : "(no source line)")
              << "\n";
  }
  std::cout << std::defaultfloat;
  return kExitOk;
}

namespace {

/// `compare RUST_FILE CUDA_FILE (--run | --profile) [run options]`, each --replay for one side
/// in order: the two files, the options both sides share, and the replays.
struct CompareLaunchArgs {
  std::vector<std::string> files, common, replays;
  bool profile = false;
};

std::optional<CompareLaunchArgs> parseCompareLaunch(int argc, char** argv) {
  CompareLaunchArgs c;
  bool modeGiven = false;
  static const std::set<std::string, std::less<>> takesValue = {"--kernel",
                                                                "--spec",
                                                                "--runs",
                                                                "--warmup",
                                                                "--timeout",
                                                                "--runner",
                                                                "--remote-kernelscope",
                                                                "--ncu",
                                                                "--top",
                                                                "--arch",
                                                                "--opt",
                                                                "--save-temps",
                                                                "--extern"};
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--run" || a == "--profile") {
      c.profile = a == "--profile";
      modeGiven = true;
    } else if (a == "--replay" && i + 1 < argc) {
      c.replays.push_back(argv[++i]);
    } else if (takesValue.count(a) && i + 1 < argc) {
      c.common.push_back(a);
      c.common.push_back(argv[++i]);
    } else if (!a.starts_with("-")) {
      c.files.push_back(a);
    } else {
      c.common.push_back(a);
    }
  }
  if (c.files.size() != 2 || !modeGiven || (!c.replays.empty() && c.replays.size() != 2))
    return std::nullopt;
  return c;
}

/// One kernel of a comparison, compiled, launched and (profiled) attributed.
struct Side {
  RunArgs args;
  std::optional<gpu::GpuOutcome> out;
  const gpu::LaunchPlan& plan() const { return *out->plan; }
  const gpu::RunResult& result() const { return out->run; }
  const gpu::KernelLineProfile& lines() const { return *out->lines; }
};

/// Runs side `i` of `c` (the CUDA twin, 1, on the Rust kernel's spec unless it has its own);
/// nullopt when done, else the exit status after saying what went wrong.
std::optional<int> runSide(const CompareLaunchArgs& c, size_t i, std::array<Side, 2>& sides) {
  const char* command = c.profile ? "compare --profile" : "compare --run";
  Side& side = sides[i];
  std::vector<std::string> words = {c.files[i]};
  words.insert(words.end(), c.common.begin(), c.common.end());
  if (!c.replays.empty()) words.insert(words.end(), {"--replay", c.replays[i]});
  std::vector<char*> ptrs;
  for (auto& w : words) ptrs.push_back(w.data());
  if (auto err = parseRunArgs(static_cast<int>(ptrs.size()), ptrs.data(), side.args, c.profile)) {
    std::cerr << "kernelscope " << command << ": " << *err << "\n";
    return kExitUsage;
  }
  if (i == 1) {
    std::string items;
    for (const auto& item : sides[0].out->spec.items) items += item.key + " = " + item.value + "; ";
    side.args.launch.fallbackSpecItems = {items};
  }
  int status = kExitFailed;
  side.out = runOnGpu(command, side.args, c.profile, status);
  if (!side.out) return status;
  return std::nullopt;
}

void compareRow(const std::string& label, const std::string& a, const std::string& b) {
  std::cout << "  " << std::left << std::setw(24) << label << std::setw(26) << a << b << std::right
            << "\n";
}

void printCompareRun(const Side& rust, const Side& cuda) {
  auto stats = [](const Side& s) { return gpu::timeStats(s.result().timesMs); };
  compareRow("time (median)", time(stats(rust).median), time(stats(cuda).median));
  auto bw = [&](const Side& s) {
    const auto& plan = s.plan();
    double bytes = plan.bytes.value_or(static_cast<double>(plan.bufferBytes()));
    return si(bytes / (stats(s).median / 1000), "B/s");
  };
  compareRow("bandwidth", bw(rust), bw(cuda));
  for (size_t b = 0; b < rust.result().buffers.size() && b < cuda.result().buffers.size(); ++b) {
    const auto& x = rust.result().buffers[b];
    const auto& y = cuda.result().buffers[b];
    if (!x.output) continue;
    compareRow(x.name + " checksum", number(x.checksum), number(y.checksum));
  }
}

void printCompareProfile(const Side& rust, const Side& cuda) {
  auto metric = [](const std::optional<double>& v, double scale, const char* unit) {
    if (!v) return std::string("-");
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << *v * scale << unit;
    return out.str();
  };
  const auto &x = rust.lines().metrics, &y = cuda.lines().metrics;
  compareRow("duration", metric(x.durationNs, 1e-3, " us"), metric(y.durationNs, 1e-3, " us"));
  compareRow("achieved occupancy", metric(x.achievedOccupancyPct, 1, "%"),
             metric(y.achievedOccupancyPct, 1, "%"));
  compareRow("DRAM throughput", metric(x.dramThroughputPct, 1, "% of peak"),
             metric(y.dramThroughputPct, 1, "% of peak"));
  auto hot = [](const Side& s) { return gpu::hottestLines(s.lines(), 3); };
  auto label = [](const Side& s, const gpu::LineCounters* l) {
    std::ostringstream out;
    out << "line " << (l->line ? std::to_string(l->line) : "?") << " " << std::fixed
        << std::setprecision(1) << 100 * s.lines().share(*l) << "%";
    return out.str();
  };
  auto a = hot(rust), b = hot(cuda);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i)
    compareRow(i == 0 ? "hottest lines (stalls)" : "", i < a.size() ? label(rust, a[i]) : "",
               i < b.size() ? label(cuda, b[i]) : "");
}

}  // namespace

int compareLaunchMain(int argc, char** argv) {
  const auto c = parseCompareLaunch(argc, argv);
  if (!c) {
    std::cerr << "usage: kernelscope compare RUST_FILE CUDA_FILE --run|--profile [the options of "
                 "run or profile] (see kernelscope --help)\n";
    return kExitUsage;
  }
  std::array<Side, 2> sides;
  for (size_t i = 0; i < 2; ++i)
    if (auto status = runSide(*c, i, sides)) return *status;
  const auto& rust = sides[0];
  const auto& cuda = sides[1];
  std::cout << rust.out->kernel << ": Rust (" << c->files[0] << ") and CUDA C++ (" << c->files[1]
            << ") on " << rust.result().device.describe() << "\n";
  compareRow("", "Rust", "CUDA C++");
  if (c->profile)
    printCompareProfile(rust, cuda);
  else
    printCompareRun(rust, cuda);
  return kExitOk;
}

int gpuExecMain(int argc, char** argv) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string exe = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string("kernelscope");
  return gpu::gpuExecMain({exe, "gpu-exec"}, argc, argv);
}

}  // namespace ks
