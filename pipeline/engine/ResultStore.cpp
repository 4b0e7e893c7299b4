// ResultStore: see ResultStore.h.
//
// The encoding is CBOR through nlohmann/json (the library the pipeline already reads JSON
// with); the per-line data of an artifact (kind, location source, function, chain) is packed
// into one binary string, as tens of thousands of lines would otherwise be as many JSON values.
#include "ResultStore.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "Files.h"
#include "StableHash.h"

namespace ks {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Bumped when the encoding changes (the binary's identity in the key covers builds too).
constexpr int kFormat = 2;

/// Chains and file names are stored once and referred to by index.
class Tables {
 public:
  uint32_t file(const std::string& f) {
    auto [it, added] = fileIndex_.try_emplace(f, static_cast<uint32_t>(files_.size()));
    if (added) files_.push_back(f);
    return it->second;
  }
  json frame(const Frame& f) { return json::array({file(f.file), f.line, f.column, f.function}); }
  uint32_t chain(const Chain& c) {
    if (c.empty()) return 0;
    auto [it, added] = chainIndex_.try_emplace(c.id(), static_cast<uint32_t>(chains_.size() + 1));
    if (added) {
      json frames = json::array();
      for (const Frame& f : c) frames.push_back(frame(f));
      chains_.push_back(std::move(frames));
    }
    return it->second;
  }
  json filesJson() const { return files_; }
  json chainsJson() const { return chains_; }

 private:
  std::vector<std::string> files_;
  std::unordered_map<std::string, uint32_t> fileIndex_;
  json chains_ = json::array();  // index i+1: chains_[i]; 0 is the empty chain
  std::unordered_map<const void*, uint32_t> chainIndex_;
};

/// The reading side of Tables.
struct ReadTables {
  std::vector<std::string> files;
  std::vector<Chain> chains{Chain()};
  Frame frame(const json& j) const {
    return {files.at(j.at(0).get<uint32_t>()), j.at(1).get<uint32_t>(), j.at(2).get<uint32_t>(),
            j.at(3).get<std::string>()};
  }
};

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint32_t get32(const std::vector<uint8_t>& in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(in.at(at + i)) << (8 * i);
  return v;
}
constexpr size_t kLineBytes = 10;  // kind, source, function (int32), chain index

json rangeJson(const SourceRange& r) {
  return json::array({r.file, r.startLine, r.startColumn, r.endLine, r.endColumn});
}
SourceRange rangeFrom(const json& j) {
  return {j.at(0).get<std::string>(), j.at(1).get<uint32_t>(), j.at(2).get<uint32_t>(),
          j.at(3).get<uint32_t>(), j.at(4).get<uint32_t>()};
}

json artifactJson(const Artifact& a, Tables& t) {
  std::vector<uint8_t> lines;
  lines.reserve(a.lines.size() * kLineBytes);
  for (const ArtifactLine& l : a.lines) {
    lines.push_back(static_cast<uint8_t>(l.kind));
    lines.push_back(static_cast<uint8_t>(l.source));
    put32(lines, static_cast<uint32_t>(l.function));
    put32(lines, t.chain(l.location));
  }
  json functions = json::array();
  for (const ArtifactFunction& f : a.functions)
    functions.push_back(
        {f.symbol, f.demangled, f.firstLine, f.lastLine, f.isKernel, t.frame(f.definition)});
  return {{"stage", static_cast<int>(a.stage)},
          {"text", a.text},
          {"lines", json::binary(std::move(lines))},
          {"functions", std::move(functions)}};
}

Artifact artifactFrom(const json& j, const ReadTables& t) {
  Artifact a;
  a.stage = static_cast<Stage>(j.at("stage").get<int>());
  a.text = j.at("text").get<std::string>();
  a.indexLines();
  const std::vector<uint8_t>& lines = j.at("lines").get_binary();
  if (lines.size() != a.lines.size() * kLineBytes) throw std::out_of_range("artifact lines");
  for (size_t i = 0; i < a.lines.size(); ++i) {
    const size_t at = i * kLineBytes;
    ArtifactLine& l = a.lines[i];
    l.kind = static_cast<LineKind>(lines[at]);
    l.source = static_cast<LocationSource>(lines[at + 1]);
    l.function = static_cast<int32_t>(get32(lines, at + 2));
    l.location = t.chains.at(get32(lines, at + 6));
  }
  for (const json& f : j.at("functions"))
    a.functions.push_back({f.at(0).get<std::string>(), f.at(1).get<std::string>(),
                           f.at(2).get<uint32_t>(), f.at(3).get<uint32_t>(), f.at(4).get<bool>(),
                           t.frame(f.at(5))});
  return a;
}

json diagnosticJson(const Diagnostic& d) {
  json related = json::array(), fixes = json::array();
  for (const RelatedNote& n : d.related) related.push_back({rangeJson(n.range), n.message});
  for (const SuggestedFix& f : d.fixes) {
    json edits = json::array();
    for (const auto& [range, text] : f.edits) edits.push_back({rangeJson(range), text});
    fixes.push_back({f.title, std::move(edits)});
  }
  return {{"severity", static_cast<int>(d.severity)},
          {"source", d.source},
          {"code", d.code},
          {"message", d.message},
          {"range", d.range ? rangeJson(*d.range) : json()},
          {"rendered", d.rendered},
          {"ptxLine", d.ptxLine ? json(*d.ptxLine) : json()},
          {"related", std::move(related)},
          {"fixes", std::move(fixes)}};
}

Diagnostic diagnosticFrom(const json& j) {
  Diagnostic d;
  d.severity = static_cast<Severity>(j.at("severity").get<int>());
  d.source = j.at("source").get<std::string>();
  d.code = j.at("code").get<std::string>();
  d.message = j.at("message").get<std::string>();
  if (!j.at("range").is_null()) d.range = rangeFrom(j.at("range"));
  d.rendered = j.at("rendered").get<std::string>();
  if (!j.at("ptxLine").is_null()) d.ptxLine = j.at("ptxLine").get<uint32_t>();
  for (const json& n : j.at("related"))
    d.related.push_back({rangeFrom(n.at(0)), n.at(1).get<std::string>()});
  for (const json& f : j.at("fixes")) {
    SuggestedFix fix{f.at(0).get<std::string>(), {}};
    for (const json& e : f.at(1)) fix.edits.emplace_back(rangeFrom(e.at(0)), e.at(1));
    d.fixes.push_back(std::move(fix));
  }
  return d;
}

json remarkJson(const Remark& r, Tables& t) {
  return {{"kind", static_cast<int>(r.kind)},
          {"pass", r.pass},
          {"name", r.name},
          {"function", r.function},
          {"message", r.message},
          {"location", r.location ? t.frame(*r.location) : json()},
          {"userLocation", r.userLocation ? t.frame(*r.userLocation) : json()},
          {"viaLibrary", r.viaLibrary},
          {"count", r.count}};
}

Remark remarkFrom(const json& j, const ReadTables& t) {
  Remark r;
  r.kind = static_cast<Remark::Kind>(j.at("kind").get<int>());
  r.pass = j.at("pass").get<std::string>();
  r.name = j.at("name").get<std::string>();
  r.function = j.at("function").get<std::string>();
  r.message = j.at("message").get<std::string>();
  if (!j.at("location").is_null()) r.location = t.frame(j.at("location"));
  if (!j.at("userLocation").is_null()) r.userLocation = t.frame(j.at("userLocation"));
  r.viaLibrary = j.at("viaLibrary").get<bool>();
  r.count = j.at("count").get<uint32_t>();
  return r;
}

json resourcesJson(const KernelResources& r) {
  return json::array({r.name, r.arch, r.registers, r.barriers, r.stackFrame, r.spillStores,
                      r.spillLoads, r.sharedMemory, r.constantMemory, r.localMemory, r.isEntry});
}

KernelResources resourcesFrom(const json& j) {
  KernelResources r;
  r.name = j.at(0).get<std::string>();
  r.arch = j.at(1).get<std::string>();
  uint32_t* fields[] = {&r.registers,  &r.barriers,     &r.stackFrame,     &r.spillStores,
                        &r.spillLoads, &r.sharedMemory, &r.constantMemory, &r.localMemory};
  for (size_t i = 0; i < std::size(fields); ++i) *fields[i] = j.at(2 + i).get<uint32_t>();
  r.isEntry = j.at(10).get<bool>();
  return r;
}

json kernelJson(const KernelInfo& k, Tables& t) {
  return {{"symbol", k.symbol},
          {"demangled", k.demangled},
          {"definition", t.frame(k.definition)},
          {"resources", k.resources ? resourcesJson(*k.resources) : json()},
          {"ptx", k.ptxInstructions},
          {"sass", k.sassInstructions},
          // The occupancy is a function of the resources, the arch and the block size.
          {"blockSize", k.occupancy ? json(k.occupancy->atBlockSize.blockSize) : json()}};
}

KernelInfo kernelFrom(const json& j, const std::string& arch, const ReadTables& t) {
  KernelInfo k;
  k.symbol = j.at("symbol").get<std::string>();
  k.demangled = j.at("demangled").get<std::string>();
  k.definition = t.frame(j.at("definition"));
  if (!j.at("resources").is_null()) k.resources = resourcesFrom(j.at("resources"));
  k.ptxInstructions = j.at("ptx").get<size_t>();
  k.sassInstructions = j.at("sass").get<size_t>();
  if (!j.at("blockSize").is_null() && k.resources)
    k.occupancy = kernelOccupancy(arch, *k.resources, j.at("blockSize").get<uint32_t>());
  return k;
}

std::string fileDigest(const fs::path& f) { return stableDigest({fileFingerprint(f)}); }

}  // namespace

std::string serializeResult(const CompileResult& r) {
  Tables t;
  json stages = json::array();
  for (const auto& [stage, outcome] : r.stages)
    stages.push_back({{"stage", static_cast<int>(stage)},
                      {"available", outcome.available},
                      {"reason", outcome.unavailableReason},
                      {"toolTime", outcome.toolTime.count()},
                      {"artifact", artifactJson(*outcome.artifact, t)}});
  json diagnostics = json::array(), remarks = json::array(), kernels = json::array();
  for (const Diagnostic& d : r.diagnostics) diagnostics.push_back(diagnosticJson(d));
  for (const Remark& m : r.remarks) remarks.push_back(remarkJson(m, t));
  for (const KernelInfo& k : r.kernels) kernels.push_back(kernelJson(k, t));
  json sources = json::array();
  for (const fs::path& f : r.sourceFiles) sources.push_back(f.string());
  json j = {{"format", kFormat},
            {"succeeded", r.succeeded},
            {"failure", r.failure},
            {"arch", r.arch},
            {"optLevel", r.optLevel},
            {"profile", static_cast<int>(r.profile)},
            {"totalTime", r.totalTime.count()},
            {"toolTime", r.toolTime.count()},
            {"sourceFiles", std::move(sources)},
            {"crateManifest", r.crateManifest.string()},
            {"userFiles", r.lineMap ? json(r.lineMap->userFiles()) : json()},
            {"cubin", r.cubin ? json::binary(std::vector<uint8_t>(r.cubin->begin(), r.cubin->end()))
                              : json()},
            {"stages", std::move(stages)},
            {"diagnostics", std::move(diagnostics)},
            {"remarks", std::move(remarks)},
            {"kernels", std::move(kernels)}};
  // The tables last: filled while the rest was encoded.
  j["files"] = t.filesJson();
  j["chains"] = t.chainsJson();
  std::vector<uint8_t> bytes = json::to_cbor(j);
  return std::string(bytes.begin(), bytes.end());
}

std::optional<CompileResult> deserializeResult(std::string_view bytes) {
  try {
    const json j = json::from_cbor(bytes.begin(), bytes.end());
    if (j.at("format").get<int>() != kFormat) return std::nullopt;
    ReadTables t;
    t.files = j.at("files").get<std::vector<std::string>>();
    ChainInterner interner;
    for (const json& c : j.at("chains")) {
      std::vector<Frame> frames;
      for (const json& f : c) frames.push_back(t.frame(f));
      t.chains.push_back(interner.intern(std::move(frames)));
    }
    CompileResult r;
    r.succeeded = j.at("succeeded").get<bool>();
    r.failure = j.at("failure").get<std::string>();
    r.arch = j.at("arch").get<std::string>();
    r.optLevel = j.at("optLevel").get<int>();
    r.profile = static_cast<ToolchainProfile>(j.at("profile").get<int>());
    r.totalTime = std::chrono::milliseconds(j.at("totalTime").get<int64_t>());
    r.toolTime = std::chrono::milliseconds(j.at("toolTime").get<int64_t>());
    for (const json& f : j.at("sourceFiles")) r.sourceFiles.emplace_back(f.get<std::string>());
    r.crateManifest = j.at("crateManifest").get<std::string>();
    if (const json& cubin = j.at("cubin"); !cubin.is_null())
      r.cubin =
          std::make_shared<const std::string>(cubin.get_binary().begin(), cubin.get_binary().end());
    std::shared_ptr<LineMap> lineMap;
    if (!j.at("userFiles").is_null())
      lineMap = std::make_shared<LineMap>(j.at("userFiles").get<std::vector<std::string>>());
    for (const json& s : j.at("stages")) {
      StageOutcome o;
      o.available = s.at("available").get<bool>();
      o.unavailableReason = s.at("reason").get<std::string>();
      o.toolTime = std::chrono::milliseconds(s.at("toolTime").get<int64_t>());
      o.setArtifact(artifactFrom(s.at("artifact"), t));
      // The line map is a function of the artifacts and the user's files (LineMap.h).
      if (o.available && lineMap) lineMap->addArtifact(*o.artifact);
      r.stages[static_cast<Stage>(s.at("stage").get<int>())] = std::move(o);
    }
    r.lineMap = std::move(lineMap);
    for (const json& d : j.at("diagnostics")) r.diagnostics.push_back(diagnosticFrom(d));
    for (const json& m : j.at("remarks")) r.remarks.push_back(remarkFrom(m, t));
    for (const json& k : j.at("kernels")) r.kernels.push_back(kernelFrom(k, r.arch, t));
    return r;
  } catch (const std::exception&) {  // nlohmann's parse and type errors, out-of-range indexes
    return std::nullopt;
  }
}

std::string serializePasses(const PassesResult& r) {
  json stages = json::array();
  for (const StagePasses& sp : r.stages) {
    json changes = json::array();
    for (const PassChange& c : sp.changes)
      changes.push_back({static_cast<int>(c.stage), c.pass, c.unit, c.before, c.after, c.diff});
    stages.push_back({static_cast<int>(sp.stage), std::move(changes), sp.passesRun, sp.initial,
                      sp.final, sp.initialCount, sp.finalCount});
  }
  json diagnostics = json::array(), sources = json::array();
  for (const Diagnostic& d : r.diagnostics) diagnostics.push_back(diagnosticJson(d));
  for (const fs::path& f : r.sourceFiles) sources.push_back(f.string());
  const json j = {{"passesFormat", kFormat},
                  {"kernel", r.kernel},
                  {"demangled", r.demangled},
                  {"stages", std::move(stages)},
                  {"finalModuleIr", r.finalModuleIr},
                  {"kernels", r.kernels},
                  {"diagnostics", std::move(diagnostics)},
                  {"sourceFiles", std::move(sources)}};
  std::vector<uint8_t> bytes = json::to_cbor(j);
  return std::string(bytes.begin(), bytes.end());
}

std::optional<PassesResult> deserializePasses(std::string_view bytes) {
  try {
    const json j = json::from_cbor(bytes.begin(), bytes.end());
    if (j.at("passesFormat").get<int>() != kFormat) return std::nullopt;
    PassesResult r;
    r.kernel = j.at("kernel").get<std::string>();
    r.demangled = j.at("demangled").get<std::string>();
    for (const json& s : j.at("stages")) {
      StagePasses sp;
      sp.stage = static_cast<Stage>(s.at(0).get<int>());
      for (const json& c : s.at(1))
        sp.changes.push_back({static_cast<Stage>(c.at(0).get<int>()), c.at(1).get<std::string>(),
                              c.at(2).get<std::string>(), c.at(3).get<size_t>(),
                              c.at(4).get<size_t>(), c.at(5).get<std::string>()});
      sp.passesRun = s.at(2).get<size_t>();
      sp.initial = s.at(3).get<std::string>();
      sp.final = s.at(4).get<std::string>();
      sp.initialCount = s.at(5).get<size_t>();
      sp.finalCount = s.at(6).get<size_t>();
      r.stages.push_back(std::move(sp));
    }
    r.finalModuleIr = j.at("finalModuleIr").get<std::string>();
    r.kernels = j.at("kernels").get<std::vector<std::string>>();
    for (const json& d : j.at("diagnostics")) r.diagnostics.push_back(diagnosticFrom(d));
    for (const json& f : j.at("sourceFiles")) r.sourceFiles.emplace_back(f.get<std::string>());
    return r;
  } catch (const std::exception&) {  // nlohmann's parse and type errors
    return std::nullopt;
  }
}

namespace {

constexpr const char* kResultFile = "result.cbor";
constexpr const char* kFilesFile = "files";  // "DIGEST PATH" per line: the other inputs

}  // namespace

std::optional<std::string> ResultStore::loadEntry(const std::string& key) const {
  const fs::path entry = dir_ / key;
  std::ifstream files(entry / kFilesFile);
  if (!files) return std::nullopt;
  for (std::string line; std::getline(files, line);) {
    const size_t space = line.find(' ');
    if (space == std::string::npos || fileDigest(line.substr(space + 1)) != line.substr(0, space))
      return std::nullopt;  // a module, dependency or Cargo.toml changed (or a damaged list)
  }
  FileText bytes = readRegularFile(entry / kResultFile, uintmax_t{1} << 32);
  if (!bytes.ok()) return std::nullopt;
  std::error_code ec;  // its last use, for the eviction (evictLeastRecentlyUsed)
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
  return std::move(bytes.text);
}

std::string ResultStore::saveEntry(const std::string& key, const std::string& bytes,
                                   const std::vector<fs::path>& sourceFiles) const {
  if (maxBytes_ == 0) return {};
  const fs::path entry = dir_ / key;
  const fs::path staging = dir_ / (".tmp-" + key + "-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::create_directories(staging, ec);
  auto failed = [&](const std::string& why) {
    fs::remove_all(staging, ec);
    return "compile results are not kept between runs: cannot write " + dir_.string() + " (" + why +
           ")";
  };
  if (ec) return failed(ec.message());
  {
    std::ofstream files(staging / kFilesFile, std::ios::binary);
    for (const fs::path& f : sourceFiles) files << fileDigest(f) << ' ' << f.string() << '\n';
    std::ofstream out(staging / kResultFile, std::ios::binary);
    out << bytes;
    if (!files.flush() || !out.flush()) return failed("is the disk full?");
  }
  fs::remove_all(entry, ec);  // a stale entry under the same key makes way
  fs::rename(staging, entry, ec);
  if (ec) fs::remove_all(staging, ec);  // another run placed it first: theirs is as good
  evictLeastRecentlyUsed(dir_, maxBytes_, entry);
  return {};
}

std::shared_ptr<const CompileResult> ResultStore::load(const std::string& key) const {
  const std::optional<std::string> bytes = loadEntry(key);
  std::optional<CompileResult> result = bytes ? deserializeResult(*bytes) : std::nullopt;
  return result ? std::make_shared<const CompileResult>(std::move(*result)) : nullptr;
}

std::string ResultStore::save(const std::string& key, const CompileResult& result) const {
  if (!result.succeeded || result.cancelled) return {};
  return saveEntry(key, serializeResult(result), result.sourceFiles);
}

std::optional<PassesResult> ResultStore::loadPasses(const std::string& key) const {
  const std::optional<std::string> bytes = loadEntry(key);
  return bytes ? deserializePasses(*bytes) : std::nullopt;
}

std::string ResultStore::savePasses(const std::string& key, const PassesResult& result) const {
  // Only a whole answer whose files are known: an error may be a killed tool, worth retrying.
  if (!result.error.empty() || result.cancelled || result.sourceFiles.empty()) return {};
  return saveEntry(key, serializePasses(result), result.sourceFiles);
}

}  // namespace ks
