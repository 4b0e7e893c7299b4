// libFuzzer target over the gpu-exec protocol (gpu/GpuExecProtocol.h): the request gpu-exec
// decodes from its stdin, the result `run` and `profile` decode from a runner's output or a
// --replay file, and a result checked against the request it answers.
//
// The first byte chooses: a request, a result, or a request and a result separated by a NUL
// byte. Structure-aware: a message is a JSON header line and the blobs it lists by size;
// besides byte mutations, the custom mutator sets one number of the header (a size, a count,
// a blob index, a version) to a boundary value and keeps the blobs, which byte mutations of
// JSON text seldom reach.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "GpuExecProtocol.h"

namespace {

void numbersOf(nlohmann::json& j, std::vector<nlohmann::json*>& out) {
  if (j.is_number()) out.push_back(&j);
  if (j.is_structured())
    for (auto& v : j) numbersOf(v, out);
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize,
                                          unsigned seed) {
  std::string message(reinterpret_cast<const char*>(data), size);
  const size_t newline = message.find('\n');
  if (seed % 3 == 0 || size < 2 || newline == std::string::npos)
    return LLVMFuzzerMutate(data, size, maxSize);
  nlohmann::json header = nlohmann::json::parse(message.substr(1, newline - 1), nullptr, false);
  std::vector<nlohmann::json*> numbers;
  if (!header.is_discarded()) numbersOf(header, numbers);
  if (numbers.empty()) return LLVMFuzzerMutate(data, size, maxSize);
  static const int64_t kBoundaries[] = {
      0, -1, 1, 2, 255, 65536, INT32_MAX, INT64_MAX, INT64_MIN, int64_t{1} << 40, int64_t{1} << 32};
  *numbers[(seed / 3) % numbers.size()] = kBoundaries[(seed / 7) % std::size(kBoundaries)];
  std::string out = message.substr(0, 1) + header.dump() + message.substr(newline);
  if (out.size() > maxSize) return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view message(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      ks::gpu::ExecRequest request;
      if (ks::gpu::decodeRequest(message, request).empty()) {
        (void)ks::gpu::resultSizeLimit(request);
        ks::gpu::ExecRequest again;
        (void)ks::gpu::decodeRequest(ks::gpu::encodeRequest(request), again);
      }
      break;
    }
    case 1: {
      ks::gpu::RunResult result;
      if (ks::gpu::decodeResult(message, result).empty()) {
        (void)ks::gpu::timeStats(result.timesMs);
        (void)result.device.describe();
        ks::gpu::RunResult again;
        (void)ks::gpu::decodeResult(ks::gpu::encodeResult(result), again);
      }
      break;
    }
    default: {
      const size_t nul = message.find('\0');
      if (nul == std::string_view::npos) break;
      ks::gpu::ExecRequest request;
      ks::gpu::RunResult result;
      if (ks::gpu::decodeRequest(message.substr(0, nul), request).empty() &&
          ks::gpu::decodeResult(message.substr(nul + 1), result).empty())
        (void)ks::gpu::checkResultAgainstPlan(request, result);
    }
  }
  return 0;
}
