#include "GpuExec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "Files.h"
#include "GpuExecProtocol.h"
#include "Ncu.h"
#include "Process.h"
#include "Runner.h"
#include "TextUtil.h"

namespace ks::gpu {

namespace {

namespace fs = std::filesystem;

/// The request in `file` (a regular file: a FIFO or device would block or never end), else
/// on stdin; read as one message (readMessage), so its size is bounded by its own header.
std::string readRequest(const std::string& file, std::string& message) {
  if (file.empty()) return readMessage(STDIN_FILENO, message);
  // O_NONBLOCK: opening a FIFO waits for a writer otherwise, before it can be refused.
  int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "cannot open " + file + ": " + std::strerror(errno);
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    why = file + " is not a regular file (a request is a file or comes on stdin)";
  else
    why = readMessage(fd, message);
  ::close(fd);
  return why;
}

/// The quoted lines of ncu's output (its CSV), without the program's or ncu's messages.
std::string csvLines(const std::string& out) {
  std::string csv;
  for (std::string_view line : splitLines(out))
    if (line.starts_with('"')) csv.append(line).push_back('\n');
  return csv;
}

/// ncu's own error lines (==ERROR== ..., ==WARNING== ...), for the message when it fails.
std::string ncuMessages(const ProcessResult& p) {
  std::string msgs;
  for (const std::string* s : {&p.out, &p.err})
    for (std::string_view line : splitLines(*s))
      if (line.starts_with("==ERROR==") || line.starts_with("==WARNING==")) {
        if (!msgs.empty()) msgs += '\n';
        msgs += line;
      }
  return msgs;
}

RunResult profile(const ExecRequest& request, const std::vector<std::string>& self) {
  // Without a driver no ncu would help: say so first, as a run does.
  if (std::optional<RunResult> missing = driverMissing()) return *missing;
  fs::path ncu = findNcu(request.ncu);
  if (ncu.empty())
    return RunResult::failure(
        "ncu", request.ncu.empty()
                   ? "Nsight Compute's CLI (ncu) was not found on the GPU machine: "
                     "install Nsight Compute, "
                     "or set CUDA_HOME there"
                   : "the configured ncu '" + request.ncu + "' is not an executable");
  TempDir dir("kernelscope-profile");
  ExecRequest once = request;
  once.mode = ExecRequest::Mode::LaunchOnce;
  once.dump = false;
  fs::path requestFile = dir.path() / "request";
  std::ofstream(requestFile, std::ios::binary) << encodeRequest(once);
  RunResult result;
  for (bool sourcePage : {true, false}) {
    fs::path resultFile = dir.path() / (sourcePage ? "result-source" : "result-metrics");
    std::vector<std::string> program = self;
    program.insert(program.end(),
                   {"--request", requestFile.string(), "--result", resultFile.string()});
    ProcessSpec spec;
    spec.argv = ncuArgv(ncu, request.plan.kernel, sourcePage, program);
    spec.timeout = std::chrono::seconds(request.ncuTimeoutSeconds);
    ProcessResult p = runProcess(spec);
    RunResult launched;
    std::string decodeProblem = decodeResult(readWholeFile(resultFile), launched);
    if (decodeProblem.empty() && !launched.ok)
      return launched;  // the launch itself failed (fault, ...)
    std::string messages = ncuMessages(p);
    if (!p.ok() || !decodeProblem.empty() || messages.find("==ERROR==") != std::string::npos) {
      std::string why = "ncu " + p.describe() + (messages.empty() ? "" : ":\n" + messages);
      if (messages.find("ERR_NVGPUCTRPERM") != std::string::npos)
        why +=
            "\n(the GPU's performance counters are reserved for administrators: see NVIDIA's "
            "ERR_NVGPUCTRPERM page)";
      return RunResult::failure("ncu", why);
    }
    std::string csv = csvLines(p.out);
    if (sourcePage) {
      result = launched;
      result.ncuSourceCsv = csv;
    } else {
      result.ncuMetricsCsv = csv;
    }
  }
  return result;
}

}  // namespace

int gpuExecMain(const std::vector<std::string>& self, int argc, char** argv) {
  std::string requestFile, resultFile;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--request" || a == "--result") && i + 1 < argc)
      (a == "--request" ? requestFile : resultFile) = argv[++i];
    else {
      std::fprintf(stderr, "gpu-exec: unknown argument '%s' (the request comes on stdin)\n",
                   a.c_str());
      return 2;
    }
  }
  std::string message;
  ExecRequest request;
  RunResult result;
  if (std::string why = readRequest(requestFile, message); !why.empty())
    result = RunResult::failure("request", why);
  else if (std::string bad = decodeRequest(message, request); !bad.empty())
    result = RunResult::failure("request", bad);
  else if (request.mode == ExecRequest::Mode::Profile)
    result = profile(request, self);
  else
    result = execute(request);
  std::string out = encodeResult(result);
  if (!resultFile.empty()) {
    std::ofstream(resultFile, std::ios::binary) << out;
  } else {
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace ks::gpu
