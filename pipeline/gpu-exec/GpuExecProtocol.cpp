#include "GpuExecProtocol.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "TextUtil.h"

namespace ks::gpu {

using nlohmann::json;

namespace {

std::string hex(const std::vector<uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) out += {digits[b >> 4], digits[b & 15]};
  return out;
}
bool unhex(const std::string& s, std::vector<uint8_t>& out) {
  if (s.size() % 2 || s.size() > 2 * size_t(kMaxParamBytes)) return false;
  out.clear();
  for (size_t i = 0; i < s.size(); i += 2) {
    auto v = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    int hi = v(s[i]), lo = v(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<uint8_t>(hi * 16 + lo));
  }
  return true;
}

std::string withBlobs(json header, const std::vector<const std::string*>& blobs) {
  json sizes = json::array();
  for (const auto* b : blobs) sizes.push_back(b->size());
  header["blobs"] = sizes;
  std::string out = header.dump();
  out += '\n';
  for (const auto* b : blobs) out += *b;
  return out;
}

/// Whether `header` holds a fractional number anywhere but under the keys whose values are
/// ones: reading one into an integer field (a count, `major`, `protocol`) is a cast, undefined
/// beyond the field's range (1e19), and a header comes from another machine. Walked without
/// recursion: a header may nest deeply.
bool floatOutsideFloatFields(const json& header) {
  static const std::set<std::string, std::less<>> kFloatFields = {
      "timesMs", "execMs", "checksum", "first", "value", "lo", "hi", "bytes", "flops"};
  std::vector<std::pair<const json*, bool>> todo = {{&header, false}};  // value, floats allowed
  while (!todo.empty()) {
    auto [j, floatsAllowed] = todo.back();
    todo.pop_back();
    if (j->is_number_float() && !floatsAllowed) return true;
    if (j->is_array())
      for (const json& e : *j) todo.emplace_back(&e, floatsAllowed);
    if (j->is_object())
      for (auto it = j->begin(); it != j->end(); ++it)
        todo.emplace_back(&it.value(), kFloatFields.count(it.key()) != 0);
  }
  return false;
}

/// Splits a message into its header and blobs; the problem, or "".
std::string splitMessage(std::string_view message, json& header, std::vector<std::string>& blobs) {
  size_t nl = message.find('\n');
  if (nl > kMaxHeaderBytes) return "no message header";  // none at all (npos) included
  header = json::parse(message.substr(0, nl), nullptr, false);
  if (header.is_discarded() || !header.is_object()) return "the message header is not JSON";
  if (floatOutsideFloatFields(header)) return "a fractional number where a whole one goes";
  if (header.value("protocol", 0) != kProtocolVersion)
    return "protocol version " + header.value("protocol", json(0)).dump() +
           ", this kernelscope speaks " + std::to_string(kProtocolVersion) +
           ": use the same kernelscope version on both machines";
  size_t at = nl + 1;
  const json& sizes = header.contains("blobs") ? header["blobs"] : json::array();
  if (!sizes.is_array()) return "bad blob list";
  for (const auto& s : sizes) {
    if (!s.is_number_unsigned() || s.get<uint64_t>() > message.size() - at)
      return "the message is truncated";
    size_t n = s.get<size_t>();
    blobs.emplace_back(message.substr(at, n));
    at += n;
  }
  return {};
}

const char* modeName(ExecRequest::Mode m) {
  return m == ExecRequest::Mode::Run       ? "run"
         : m == ExecRequest::Mode::Profile ? "profile"
                                           : "launch-once";
}
const char* fillName(Fill::Kind k) {
  switch (k) {
    case Fill::Kind::Zeros:
      return "zeros";
    case Fill::Kind::Ones:
      return "ones";
    case Fill::Kind::Constant:
      return "constant";
    case Fill::Kind::Iota:
      return "iota";
    case Fill::Kind::Uniform:
      return "uniform";
    case Fill::Kind::File:
      return "file";
    case Fill::Kind::Pattern:
      return "pattern";
  }
  return "zeros";
}

}  // namespace

std::string encodeRequest(const ExecRequest& r) {
  json args = json::array();
  std::vector<const std::string*> blobs{&r.cubin};
  for (size_t i = 0; i < r.plan.args.size(); ++i) {
    const ArgPlan& a = r.plan.args[i];
    json j = {{"name", a.name}};
    if (!a.buffer) {
      j["scalar"] = hex(a.scalar);
    } else {
      j["elem"] = elemTypeName(a.elem);
      j["type"] = a.typeName;
      if (a.elem == ElemType::Record) j["recordBytes"] = a.recordBytes;
      if (a.fill.kind == Fill::Kind::Pattern) j["pattern"] = hex(a.fill.pattern);
      j["count"] = a.count;
      j["output"] = a.output;
      j["fill"] = fillName(a.fill.kind);
      j["value"] = a.fill.value;
      j["lo"] = a.fill.lo;
      j["hi"] = a.fill.hi;
      j["seed"] = a.fill.seed;
      if (a.fill.kind == Fill::Kind::File) {
        j["blob"] = blobs.size();
        blobs.push_back(i < r.argData.size() ? &r.argData[i] : &r.cubin);
      }
    }
    args.push_back(std::move(j));
  }
  json header = {{"protocol", kProtocolVersion},
                 {"mode", modeName(r.mode)},
                 {"kernel", r.plan.kernel},
                 {"grid", r.plan.grid},
                 {"block", r.plan.block},
                 {"shared", r.plan.sharedBytes},
                 {"args", args},
                 {"warmup", r.warmup},
                 {"runs", r.runs},
                 {"dump", r.dump},
                 {"ncu", r.ncu},
                 {"ncuTimeout", r.ncuTimeoutSeconds}};
  if (r.plan.bytes) header["bytes"] = *r.plan.bytes;
  if (r.plan.flops) header["flops"] = *r.plan.flops;
  return withBlobs(std::move(header), blobs);
}

std::string decodeRequest(std::string_view message, ExecRequest& r) {
  json h;
  std::vector<std::string> blobs;
  if (std::string why = splitMessage(message, h, blobs); !why.empty()) return why;
  try {
    std::string mode = h.at("mode");
    if (mode == "run")
      r.mode = ExecRequest::Mode::Run;
    else if (mode == "profile")
      r.mode = ExecRequest::Mode::Profile;
    else if (mode == "launch-once")
      r.mode = ExecRequest::Mode::LaunchOnce;
    else
      return "unknown mode '" + mode + "'";
    if (blobs.empty()) return "no cubin";
    r.cubin = blobs[0];
    r.plan.kernel = h.at("kernel");
    r.plan.grid = h.at("grid");
    r.plan.block = h.at("block");
    r.plan.sharedBytes = h.at("shared");
    if (h.contains("bytes")) r.plan.bytes = h["bytes"].get<double>();
    if (h.contains("flops")) r.plan.flops = h["flops"].get<double>();
    r.warmup = std::clamp(h.value("warmup", 2), 1, 1000);
    r.runs = std::clamp(h.value("runs", 20), 0, 100000);
    r.dump = h.value("dump", false);
    r.ncu = h.value("ncu", "");
    r.ncuTimeoutSeconds = std::clamp(h.value("ncuTimeout", 300), 1, 86400);
    for (const auto& j : h.at("args")) {
      ArgPlan a;
      a.name = j.at("name");
      std::string data;
      if (j.contains("scalar")) {
        if (!unhex(j["scalar"].get<std::string>(), a.scalar))
          return "bad scalar bytes for " + a.name;
      } else {
        a.buffer = true;
        std::string elemName = j.at("elem");
        auto elem = elemName == "record" ? ElemType::Record : elemTypeFromName(elemName);
        if (!elem) return "unknown element type for " + a.name;
        a.elem = *elem;
        a.typeName = j.value("type", elemName);
        if (a.elem == ElemType::Record) {
          a.recordBytes = j.at("recordBytes");
          if (a.recordBytes == 0 || a.recordBytes > kMaxParamBytes)
            return "bad record size for " + a.name;
        }
        a.count = j.at("count");
        if (a.count == 0 || a.count > kMaxBufferBytes / a.elementBytes())
          return "bad length for " + a.name;
        a.output = j.value("output", false);
        std::string fill = j.at("fill");
        bool known = false;
        for (auto k : {Fill::Kind::Zeros, Fill::Kind::Ones, Fill::Kind::Constant, Fill::Kind::Iota,
                       Fill::Kind::Uniform, Fill::Kind::File, Fill::Kind::Pattern})
          if (fill == fillName(k)) a.fill.kind = k, known = true;
        if (!known) return "unknown fill '" + fill + "' for " + a.name;
        if (a.elem == ElemType::Record && a.fill.kind != Fill::Kind::Zeros &&
            a.fill.kind != Fill::Kind::File && a.fill.kind != Fill::Kind::Pattern)
          return "a buffer of " + a.typeName + " is filled with zeros, a value or a file";
        if (a.fill.kind == Fill::Kind::Pattern && (!unhex(j.value("pattern", ""), a.fill.pattern) ||
                                                   a.fill.pattern.size() != a.elementBytes()))
          return "bad element value for " + a.name;
        a.fill.value = j.value("value", 0.0);
        a.fill.lo = j.value("lo", 0.0);
        a.fill.hi = j.value("hi", 1.0);
        a.fill.seed = j.value("seed", uint64_t(0));
        if (a.fill.kind == Fill::Kind::File) {
          size_t b = j.at("blob");
          if (b == 0 || b >= blobs.size()) return "no data for " + a.name;
          data = blobs[b];
          if (data.size() != a.byteSize()) return "the data for " + a.name + " has the wrong size";
        }
      }
      r.plan.args.push_back(std::move(a));
      r.argData.push_back(std::move(data));
    }
  } catch (const std::exception& e) {
    return std::string("bad request: ") + e.what();
  }
  return {};
}

std::string encodeResult(const RunResult& r) {
  json buffers = json::array();
  for (const auto& b : r.buffers)
    buffers.push_back({{"name", b.name},
                       {"elem", elemTypeName(b.elem)},
                       {"type", b.typeName},
                       {"count", b.count},
                       {"output", b.output},
                       {"checksum", b.checksum},
                       {"first", b.first},
                       {"blob", b.blob}});
  const DeviceInfo& d = r.device;
  json header = {{"protocol", kProtocolVersion},
                 {"ok", r.ok},
                 {"errorKind", r.errorKind},
                 {"error", r.error},
                 {"device",
                  {{"name", d.name},
                   {"major", d.major},
                   {"minor", d.minor},
                   {"sms", d.smCount},
                   {"clockKHz", d.clockKHz},
                   {"memoryClockKHz", d.memoryClockKHz},
                   {"busWidth", d.memoryBusWidthBits},
                   {"driver", d.driverVersion}}},
                 {"timesMs", r.timesMs},
                 {"buffers", buffers},
                 {"execMs", r.execMs},
                 {"ncuSource", r.ncuSourceCsv},
                 {"ncuMetrics", r.ncuMetricsCsv}};
  std::vector<const std::string*> blobs;
  for (const auto& b : r.blobs) blobs.push_back(&b);
  return withBlobs(std::move(header), blobs);
}

std::string decodeResult(std::string_view message, RunResult& r) {
  json h;
  if (std::string why = splitMessage(message, h, r.blobs); !why.empty()) return why;
  try {
    r.ok = h.at("ok");
    r.errorKind = text::withoutControls(h.value("errorKind", ""), false);
    r.error = text::withoutControls(h.value("error", ""), true);
    const json& d = h.at("device");
    r.device.name = text::withoutControls(d.value("name", ""), false);
    r.device.major = d.value("major", 0);
    r.device.minor = d.value("minor", 0);
    r.device.smCount = d.value("sms", 0);
    r.device.clockKHz = d.value("clockKHz", 0);
    r.device.memoryClockKHz = d.value("memoryClockKHz", 0);
    r.device.memoryBusWidthBits = d.value("busWidth", 0);
    r.device.driverVersion = d.value("driver", 0);
    r.timesMs = h.value("timesMs", std::vector<double>());
    r.execMs = h.value("execMs", 0.0);
    r.ncuSourceCsv = h.value("ncuSource", "");
    r.ncuMetricsCsv = h.value("ncuMetrics", "");
    for (const auto& j : h.at("buffers")) {
      BufferResult b;
      b.name = text::withoutControls(j.at("name"), false);
      std::string elemName = j.at("elem");
      b.elem = elemName == "record" ? ElemType::Record
                                    : elemTypeFromName(elemName).value_or(ElemType::F32);
      b.typeName = text::withoutControls(j.value("type", elemName), false);
      b.count = j.at("count");
      b.output = j.value("output", false);
      b.checksum = j.value("checksum", 0.0);
      b.first = j.value("first", std::vector<double>());
      b.blob = j.value("blob", -1);
      if (b.blob >= static_cast<int>(r.blobs.size())) return "a buffer names a missing blob";
      r.buffers.push_back(std::move(b));
    }
  } catch (const std::exception& e) {
    return std::string("bad result: ") + e.what();
  }
  return {};
}

std::string readMessage(int fd, std::string& message) {
  message.clear();
  char buf[1 << 16];
  size_t headerEnd = std::string::npos;
  uint64_t want = 0;  // the whole message's length, once the header is read
  for (;;) {
    if (headerEnd != std::string::npos && message.size() >= want) break;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::string("cannot read the request: ") + std::strerror(errno);
    if (n == 0) break;
    message.append(buf, static_cast<size_t>(n));
    if (headerEnd != std::string::npos) continue;
    headerEnd = message.find('\n');
    if (headerEnd == std::string::npos) {
      if (message.size() > kMaxHeaderBytes)
        return "no message header in the first " + std::to_string(kMaxHeaderBytes >> 20) +
               " MiB of the input (is it a gpu-exec request?)";
      continue;
    }
    json header = json::parse(std::string_view(message).substr(0, headerEnd), nullptr, false);
    if (header.is_discarded() || !header.is_object()) return "the message header is not JSON";
    want = headerEnd + 1;
    const json& sizes = header.contains("blobs") ? header["blobs"] : json::array();
    if (!sizes.is_array()) return "bad blob list";
    for (const auto& b : sizes) {
      if (!b.is_number_unsigned() || b.get<uint64_t>() > kMaxBufferBytes)
        return "a blob of the message is too large";
      want += b.get<uint64_t>();
    }
  }
  if (headerEnd == std::string::npos) return "no message header (the input ended)";
  if (message.size() < want) return "the message is truncated";
  message.resize(want);  // what follows a message is not part of it
  return {};
}

std::string checkResultAgainstPlan(const ExecRequest& request, const RunResult& r) {
  if (!r.ok) return {};  // a failure carries no buffers to trust
  std::vector<const ArgPlan*> planned;
  for (const auto& a : request.plan.args)
    if (a.buffer) planned.push_back(&a);
  if (r.buffers.size() != planned.size())
    return "the result lists " + std::to_string(r.buffers.size()) + " buffers, the plan " +
           std::to_string(planned.size());
  std::vector<bool> blobUsed(r.blobs.size(), false);
  for (size_t i = 0; i < planned.size(); ++i) {
    const ArgPlan& want = *planned[i];
    const BufferResult& got = r.buffers[i];
    if (got.name != want.name || got.elem != want.elem || got.count != want.count ||
        got.output != want.output ||
        (want.elem == ElemType::Record && got.typeName != want.typeName))
      return "buffer " + std::to_string(i + 1) + " of the result is not the plan's " + want.name +
             " (" + (want.typeName.empty() ? std::string(elemTypeName(want.elem)) : want.typeName) +
             "[" + std::to_string(want.count) + "])";
    if (got.blob < 0) {
      if (request.dump) return "the result has no contents for buffer " + want.name;
      continue;
    }
    if (!request.dump) return "the result has contents for buffer " + want.name + " unasked";
    auto blob = static_cast<size_t>(got.blob);
    if (blobUsed[blob]) return "two buffers of the result name the same contents";
    blobUsed[blob] = true;
    if (r.blobs[blob].size() != want.byteSize())
      return "the contents of buffer " + want.name + " are " +
             std::to_string(r.blobs[blob].size()) + " bytes, not " +
             std::to_string(want.byteSize());
  }
  return {};
}

size_t resultSizeLimit(const ExecRequest& request) {
  // The header, times and ncu's source and metrics tables (a few MB for a large kernel).
  constexpr size_t kHeaderRoom = size_t(256) << 20;
  return kHeaderRoom + (request.dump ? request.plan.bufferBytes() : 0);
}

double DeviceInfo::peakBandwidth() const {
  return 2.0 * memoryClockKHz * 1000.0 * (memoryBusWidthBits / 8.0);
}

double DeviceInfo::peakFlops() const {
  // FP32 lanes per SM by architecture (CUDA C++ Programming Guide, arithmetic instructions).
  int lanes = 0;
  if (major == 7)
    lanes = 64;
  else if (major == 8)
    lanes = minor == 0 ? 64 : 128;
  else if (major == 9 || major >= 10)
    lanes = 128;
  return 2.0 * lanes * smCount * clockKHz * 1000.0;
}

std::string DeviceInfo::describe() const {
  return name + " (sm_" + std::to_string(major) + std::to_string(minor) + ", " +
         std::to_string(smCount) + " SMs), driver " + std::to_string(driverVersion / 1000) + "." +
         std::to_string(driverVersion % 1000 / 10);
}

TimeStats timeStats(const std::vector<double>& ms) {
  if (ms.empty()) return {};
  std::vector<double> s = ms;
  std::sort(s.begin(), s.end());
  double median = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
  return {s.front(), median, s.back()};
}

}  // namespace ks::gpu
