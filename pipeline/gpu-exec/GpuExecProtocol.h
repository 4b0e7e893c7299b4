// The gpu-exec protocol: what `kernelscope run`/`profile` send to `kernelscope gpu-exec`
// (on this machine or, through a runner prefix such as `ssh gpu-box`, on another one) and
// what comes back.
//
// A message is one line of JSON (the header), then the binary blobs it lists by size: the
// cubin and `file(...)` buffer contents on the way there, dumped buffers on the way back.
// Nothing else is needed on the GPU machine: the plan is fully evaluated before it is sent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "LaunchPlan.h"

namespace ks::gpu {

constexpr int kProtocolVersion = 1;

struct ExecRequest {
  enum class Mode : uint8_t { Run, Profile, LaunchOnce };
  Mode mode = Mode::Run;
  LaunchPlan plan;
  std::string cubin;                 // the bytes ptxas made: loaded as they are, never JIT-compiled
  std::vector<std::string> argData;  // per argument: the contents of a file(...) buffer, else empty
  int warmup = 2;     // launches before timing (the first one's outputs are reported)
  int runs = 20;      // timed launches
  bool dump = false;  // send every buffer's contents back
  std::string ncu;    // Nsight Compute CLI to use; empty: found on the GPU machine
  int ncuTimeoutSeconds = 300;
};

/// The device, from its attributes.
struct DeviceInfo {
  std::string name;
  int major = 0, minor = 0;
  int smCount = 0;
  int clockKHz = 0;
  int memoryClockKHz = 0;
  int memoryBusWidthBits = 0;
  int driverVersion = 0;
  /// Peak DRAM bandwidth in bytes/s (2 transfers per memory clock x bus width); 0 unknown.
  double peakBandwidth() const;
  /// Peak FP32 operations/s (2 per FMA x FP32 lanes per SM x SMs x clock); 0 unknown.
  double peakFlops() const;
  /// "NVIDIA H200 (sm_90, 132 SMs), driver 13.0"
  std::string describe() const;
};

/// One buffer after the first launch.
struct BufferResult {
  std::string name;
  ElemType elem = ElemType::F32;
  std::string typeName;  // a record's Rust type; else the element type's name
  uint64_t count = 0;
  bool output = false;
  double checksum = 0;        // 0 for records        // the sum of the elements
  std::vector<double> first;  // the first elements (up to 8)
  int blob = -1;              // index into RunResult::blobs when dumped
};

struct RunResult {
  bool ok = false;
  /// When not ok: no-driver, no-device, load, launch, fault, memory, request, ncu, protocol.
  std::string errorKind;
  std::string error;
  DeviceInfo device;
  std::vector<double> timesMs;  // each timed launch, kernel time by events
  std::vector<BufferResult> buffers;
  double execMs = 0;          // gpu-exec's own time: cubin received -> results ready
  std::string ncuSourceCsv;   // profile: ncu --page source --csv --print-source sass
  std::string ncuMetricsCsv;  // profile: ncu --page raw --csv of the kernel metrics
  std::vector<std::string> blobs;

  /// A run that did not happen or did not finish, and why.
  static RunResult failure(std::string kind, std::string message) {
    RunResult r;
    r.errorKind = std::move(kind);
    r.error = std::move(message);
    return r;
  }
};

std::string encodeRequest(const ExecRequest&);
/// Returns the problem ("" when `out` was filled).
std::string decodeRequest(std::string_view message, ExecRequest& out);

/// The largest message header (its first line).
constexpr size_t kMaxHeaderBytes = 16u << 20;
/// Reads one message from `fd`: the header line (at most kMaxHeaderBytes), then exactly the
/// blobs it lists, so that an endless or unterminated input (/dev/zero, a silent pipe that
/// closes) ends with an error instead of filling memory. Returns the problem ("" when done).
std::string readMessage(int fd, std::string& message);
std::string encodeResult(const RunResult&);
/// Decodes a result's shape. The text it holds comes from another machine (or a file):
/// control characters are replaced, so a name cannot drive the terminal it is printed on.
std::string decodeResult(std::string_view message, RunResult& out);

/// Checks a decoded result against the request it answers: a runner's output or a replayed
/// file could name buffers `../x` or `/etc/y`, and buffer names become file names (`run
/// --dump`). A successful result lists exactly the plan's buffers, in order, each with its
/// name, type, count and direction, and a dumped buffer's bytes are its size. Returns the
/// problem ("" when the result fits the plan).
std::string checkResultAgainstPlan(const ExecRequest& request, const RunResult& result);

/// The most bytes a result of `request` can need on the wire: its dumped buffers, if asked
/// for, and room for the header and ncu's tables. A runner that prints more is wrong.
size_t resultSizeLimit(const ExecRequest& request);

/// The time statistics of a run.
struct TimeStats {
  double min = 0, median = 0, max = 0;
};
TimeStats timeStats(const std::vector<double>& ms);

}  // namespace ks::gpu
