// ResultStore: see ResultStore.h.
//
// The encoding is cereal's binary archive, written straight from the result into one buffer
// (a document of the whole result built first, as nlohmann's CBOR needs, cost the CLI a
// third of its own CPU at 80 kernels and doubled its peak memory). Chains and their files
// are stored once, in tables written before the artifacts that refer to them by index.
// Native byte order: an entry is read only by the binary that wrote it (ResultStore.h).
// The bytes end with their digest, checked before anything is decoded, so a damaged or
// truncated entry is refused whole and no size read from it is ever trusted.
#include "ResultStore.h"

#include <unistd.h>

#include <algorithm>
#include <map>

#include <cereal/archives/binary.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/vector.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <streambuf>
#include <unordered_map>

#include "Files.h"
#include "StableHash.h"
#include "TextUtil.h"

// cereal's BinaryInputArchive, reading from bytes in memory, with one more check: a count
// (a string's or a vector's size) is never more than the bytes left, as every element takes
// at least one byte. cereal sizes a container before reading it, so without this a count
// changed in an entry whose digest was made again would allocate gigabytes.
namespace ks {
class BoundedInput : public cereal::InputArchive<BoundedInput, cereal::AllowEmptyClassElision> {
 public:
  explicit BoundedInput(std::string_view bytes)
      : cereal::InputArchive<BoundedInput, cereal::AllowEmptyClassElision>(this), rest_(bytes) {}
  void loadBinary(void* data, size_t size) {
    if (size > rest_.size()) throw cereal::Exception("the bytes end early");
    if (size == 0) return;  // an empty vector's data() may be null, which memcpy may not take
    std::memcpy(data, rest_.data(), size);
    rest_.remove_prefix(size);
  }
  size_t left() const { return rest_.size(); }

 private:
  std::string_view rest_;
};
}  // namespace ks

namespace cereal {
template <class T>
std::enable_if_t<std::is_arithmetic_v<T>> CEREAL_LOAD_FUNCTION_NAME(ks::BoundedInput& a, T& t) {
  a.loadBinary(std::addressof(t), sizeof t);
}
// A bool is one byte, 0 or 1 (std::optional's flag): any other byte is a damaged entry, and
// reading it as a bool would be undefined behaviour.
inline void CEREAL_LOAD_FUNCTION_NAME(ks::BoundedInput& a, bool& t) {
  uint8_t byte = 0;
  a.loadBinary(&byte, 1);
  if (byte > 1) throw Exception("a bool that is neither 0 nor 1");
  t = byte == 1;
}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(ks::BoundedInput& a, NameValuePair<T>& t) {
  a(t.value);
}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(ks::BoundedInput& a, SizeTag<T>& t) {
  a(t.size);
  if (static_cast<uint64_t>(t.size) > a.left()) throw Exception("a count beyond the bytes left");
}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(ks::BoundedInput& a, BinaryData<T>& bd) {
  a.loadBinary(bd.data, static_cast<size_t>(bd.size));
}
}  // namespace cereal
CEREAL_REGISTER_ARCHIVE(ks::BoundedInput)
// Its writing side is cereal's BinaryOutputArchive (whose own reading side stays cereal's).
namespace cereal::traits::detail {
template <>
struct get_output_from_input<ks::BoundedInput> {
  using type = BinaryOutputArchive;
};
}  // namespace cereal::traits::detail

// The plain parts of a result, as cereal writes and reads them (members in order; enums as
// their underlying type). Frames are written whole here; chains go through Tables below.
namespace cereal {
template <class A>
void save(A& a, const ks::SharedString& s) {
  a(s.str());
}
template <class A>
void load(A& a, ks::SharedString& s) {
  std::string text;
  a(text);
  s = std::move(text);
}
template <class A>
void serialize(A& a, ks::Frame& f) {
  a(f.file, f.line, f.column, f.function);
}
template <class A>
void serialize(A& a, ks::SourceRange& r) {
  a(r.file, r.startLine, r.startColumn, r.endLine, r.endColumn);
}
template <class A>
void serialize(A& a, ks::RelatedNote& n) {
  a(n.range, n.message);
}
template <class A>
void serialize(A& a, ks::SuggestedFix& f) {
  a(f.title, f.edits);
}
template <class A>
void serialize(A& a, ks::Diagnostic& d) {
  a(d.severity, d.source, d.code, d.message, d.range, d.ptxLine, d.related, d.fixes);
}
template <class A>
void serialize(A& a, ks::Remark& r) {
  a(r.kind, r.pass, r.name, r.function, r.message, r.location, r.userLocation, r.viaLibrary,
    r.count);
}
template <class A>
void serialize(A& a, ks::SourceLine& l) {
  a(l.file, l.line);
}
template <class A>
void serialize(A& a, ks::ControlCode& c) {
  a(c.stall, c.yield, c.writeBarrier, c.readBarrier, c.waitMask, c.reuse);
}
template <class A>
void serialize(A& a, ks::InstructionCost& c) {
  a(c.hasLive, c.gpr, c.pred, c.ugpr, c.hasControl, c.control, c.address, c.local);
}
template <class A>
void serialize(A& a, ks::LocalArray& l) {
  a(l.function, l.name, l.bytes, l.indexedAt, l.usedAt);
}
template <class A>
void serialize(A& a, ks::MemoryAccess& m) {
  a(m.function, m.line, m.callSites, m.op, m.space, m.throughGeneric, m.type, m.bytes, m.lanes,
    m.pattern, m.strideBytes, m.symbolicStride, m.symbolicInBytes, m.dependsOnTidYZ,
    m.dataDependent, m.sectors, m.idealSectors, m.bankWays);
}
template <class A>
void serialize(A& a, ks::DivergentBranch& b) {
  a(b.function, b.line, b.callSites, b.onThreadIndex);
}
template <class A>
void serialize(A& a, ks::AccessFacts& f) {
  a(f.accesses, f.branches, f.analyzed, f.error);
}
template <class A>
void serialize(A& a, ks::SassCosts& c) {
  a(c.lines, c.arrays, c.access, c.liveCounts, c.controlCodes);
}
template <class A>
void serialize(A& a, ks::KernelResources& r) {
  a(r.name, r.arch, r.registers, r.barriers, r.stackFrame, r.spillStores, r.spillLoads,
    r.sharedMemory, r.constantMemory, r.localMemory, r.isEntry);
}
template <class A>
void serialize(A& a, ks::ArtifactFunction& f) {
  a(f.symbol, f.demangled, f.firstLine, f.lastLine, f.isKernel, f.definition);
}
template <class A>
void serialize(A& a, ks::LinkedFunction& f) {
  a(f.symbol, f.demangled, f.library);
}
template <class A>
void serialize(A& a, ks::PassChange& c) {
  a(c.stage, c.pass, c.unit, c.before, c.after, c.diff);
}
template <class A>
void serialize(A& a, ks::StagePasses& s) {
  a(s.stage, s.changes, s.passesRun, s.initial, s.final, s.initialCount, s.finalCount);
}
}  // namespace cereal

namespace ks {

namespace fs = std::filesystem;

namespace {

// Bumped when the encoding changes (the binary's identity in the key covers builds too).
constexpr uint32_t kFormat = 6;
// What an entry holds, first in its bytes: a result and a pass-by-pass view are not mistaken
// for each other.
constexpr std::string_view kResultTag = "ks-result", kPassesTag = "ks-passes";
constexpr size_t kDigestChars = 32;  // bytesDigest's hex digits, at the end of the bytes
constexpr size_t kLineBytes = 10;    // an artifact line: kind, location source, function, chain

/// cereal writes through a stream: this one appends to a string reserved beforehand.
class StringSink final : public std::streambuf {
 public:
  explicit StringSink(std::string& out) : out_(out) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_.append(s, static_cast<size_t>(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof()))
      out_.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }

 private:
  std::string& out_;
};

/// `tag`, the format and what `body` writes, followed by the digest of all of it.
template <class Body>
std::string encode(std::string_view tag, size_t sizeHint, Body&& body) {
  std::string bytes;
  // With room to spare: a buffer outgrown is copied whole into one twice its size, whose pages
  // all fault in again (a third of parking a result took). Room reserved and never written is
  // never touched.
  bytes.reserve(sizeHint + sizeHint / 8 + 4096);
  {
    StringSink sink(bytes);
    std::ostream out(&sink);
    cereal::BinaryOutputArchive archive(out);
    archive(std::string(tag), kFormat);
    body(archive);
  }
  bytes += bytesDigest(bytes);
  return bytes;
}

/// Decodes what encode wrote with `tag`: nullopt for bytes whose digest, tag or format is not
/// that, and for anything cereal or `body` cannot read.
template <class T, class Body>
std::optional<T> decode(std::string_view bytes, std::string_view tag, Body&& body) {
  if (bytes.size() < kDigestChars) return std::nullopt;
  const std::string_view content = bytes.substr(0, bytes.size() - kDigestChars);
  if (bytesDigest(content) != bytes.substr(content.size())) return std::nullopt;
  try {
    BoundedInput archive(content);
    std::string writtenTag;
    uint32_t format = 0;
    archive(writtenTag, format);
    if (writtenTag != tag || format != kFormat) return std::nullopt;
    return body(archive);
  } catch (const std::exception&) {  // cereal's read errors, out-of-range indexes
    return std::nullopt;
  }
}

/// The chains of a result's artifacts, each once, with the files their frames name: written
/// before the artifacts, whose lines name a chain by its index (0: none).
class Tables {
 public:
  explicit Tables(const CompileResult& r) {
    for (const auto& [stage, outcome] : r.stages)
      for (const ArtifactLine& l : outcome.artifact->lines()) add(l.location);
  }
  uint32_t chain(const Chain& c) const { return c.empty() ? 0 : chainIndex_.at(c.id()); }
  /// About the bytes `save` writes.
  size_t bytes() const { return bytes_; }

  void save(cereal::BinaryOutputArchive& a) const {
    a(files_, static_cast<uint32_t>(chains_.size()));
    for (const Chain* c : chains_) {
      a(static_cast<uint32_t>(c->size()));
      for (const Frame& f : *c) a(fileIndex_.at(f.file), f.line, f.column, f.function);
    }
  }

 private:
  void add(const Chain& c) {
    if (c.empty()) return;
    auto [it, added] = chainIndex_.try_emplace(c.id(), static_cast<uint32_t>(chains_.size() + 1));
    if (!added) return;
    chains_.push_back(&c);
    bytes_ += 4;
    for (const Frame& f : c) {
      bytes_ += 20 + f.function.size();
      if (fileIndex_.try_emplace(f.file, static_cast<uint32_t>(files_.size())).second) {
        files_.push_back(f.file);
        bytes_ += 8 + f.file.size();
      }
    }
  }

  std::vector<std::string> files_;
  std::unordered_map<std::string, uint32_t> fileIndex_;
  std::vector<const Chain*> chains_;  // index i+1: chains_[i]
  std::unordered_map<const void*, uint32_t> chainIndex_;
  size_t bytes_ = 0;
};

/// The reading side of Tables: the chains by index, interned again.
std::vector<Chain> loadChains(BoundedInput& a) {
  std::vector<std::string> files;
  uint32_t count = 0;
  a(files, count);
  std::vector<Chain> chains{Chain()};
  ChainInterner interner;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t frames = 0;
    a(frames);
    std::vector<Frame> chain;
    for (uint32_t k = 0; k < frames; ++k) {
      uint32_t file = 0;
      Frame& f = chain.emplace_back();
      a(file, f.line, f.column, f.function);
      f.file = files.at(file);
    }
    chains.push_back(interner.intern(std::move(chain)));
  }
  return chains;
}

/// An artifact: its text (its lines are indexed again on reading), each line's kind,
/// location source, function and chain index, and its functions.
void saveArtifact(cereal::BinaryOutputArchive& a, const Artifact& art, const Tables& t) {
  std::vector<uint8_t> kinds, sources;
  std::vector<int32_t> functions;
  std::vector<uint32_t> chains;
  kinds.reserve(art.lines().size());
  sources.reserve(art.lines().size());
  functions.reserve(art.lines().size());
  chains.reserve(art.lines().size());
  for (const ArtifactLine& l : art.lines()) {
    kinds.push_back(static_cast<uint8_t>(l.kind));
    sources.push_back(static_cast<uint8_t>(l.source));
    functions.push_back(l.function);
    chains.push_back(t.chain(l.location));
  }
  a(art.stage, art.text(), kinds, sources, functions, chains, art.functions);
}

Artifact loadArtifact(BoundedInput& a, const std::vector<Chain>& chainTable) {
  Stage stage{};
  std::string text;
  std::vector<uint8_t> kinds, sources;
  std::vector<int32_t> functions;
  std::vector<uint32_t> chains;
  std::vector<ArtifactFunction> artifactFunctions;
  a(stage, text, kinds, sources, functions, chains, artifactFunctions);
  Artifact art(stage, std::move(text), {}, std::move(artifactFunctions));
  const size_t n = art.lines().size();
  if (kinds.size() != n || sources.size() != n || functions.size() != n || chains.size() != n)
    throw std::out_of_range("artifact lines");
  for (size_t i = 0; i < n; ++i) {
    ArtifactLine& l = art.lines()[i];
    l.kind = static_cast<LineKind>(kinds[i]);
    l.source = static_cast<LocationSource>(sources[i]);
    l.function = functions[i];
    l.location = chainTable.at(chains[i]);
  }
  return art;
}

/// A kernel; its occupancy is a function of the resources, the arch and the block size, so
/// only the block size is kept.
void saveKernel(cereal::BinaryOutputArchive& a, const KernelInfo& k) {
  const std::optional<uint32_t> blockSize =
      k.occupancy ? std::optional(k.occupancy->atBlockSize.blockSize) : std::nullopt;
  a(k.symbol, k.demangled, k.definition, k.resources, static_cast<uint64_t>(k.ptxInstructions),
    static_cast<uint64_t>(k.sassInstructions), blockSize);
}

KernelInfo loadKernel(BoundedInput& a, const std::string& arch) {
  KernelInfo k;
  uint64_t ptx = 0, sass = 0;
  std::optional<uint32_t> blockSize;
  a(k.symbol, k.demangled, k.definition, k.resources, ptx, sass, blockSize);
  k.ptxInstructions = ptx;
  k.sassInstructions = sass;
  if (blockSize && k.resources) k.occupancy = kernelOccupancy(arch, *k.resources, *blockSize);
  return k;
}

std::vector<std::string> pathStrings(const std::vector<fs::path>& paths) {
  std::vector<std::string> out;
  for (const fs::path& p : paths) out.push_back(p.string());
  return out;
}

std::string fileDigest(const fs::path& f) { return stableDigest({fileFingerprint(f)}); }

/// About what the costs come to, written (their lines' and accesses' fixed parts and texts).
size_t costsBytes(const SassCosts& c) {
  size_t bytes = c.lines.size() * sizeof(InstructionCost);
  for (const MemoryAccess& m : c.access.accesses)
    bytes += sizeof(MemoryAccess) + m.function.size() + m.callSites.size() * 24;
  for (const DivergentBranch& b : c.access.branches)
    bytes += sizeof(DivergentBranch) + b.function.size() + b.callSites.size() * 24;
  for (const LocalArray& l : c.arrays) bytes += sizeof(LocalArray) + l.indexedAt.size() * 24;
  return bytes;
}

}  // namespace

std::string serializeResult(const CompileResult& r) {
  const Tables tables(r);
  // About what it comes to, so that the buffer is allocated once.
  // Each cubin once, and each kernel's by its index: a group's kernels share one.
  std::vector<std::string> cubins, cubinKernels;
  std::vector<uint32_t> cubinOf;  // each kernel's
  std::map<const std::string*, uint32_t> index;
  for (const auto& [kernel, cubin] : r.cubins) {
    if (!cubin) continue;
    auto [it, added] = index.try_emplace(cubin.get(), static_cast<uint32_t>(cubins.size()));
    if (added) cubins.push_back(*cubin);
    cubinKernels.push_back(kernel);
    cubinOf.push_back(it->second);
  }
  size_t sizeHint = tables.bytes() + (r.costs ? costsBytes(*r.costs) : 0);
  for (const auto& [stage, outcome] : r.stages)
    sizeHint += outcome.artifact->text().size() + outcome.artifact->lines().size() * kLineBytes;
  for (const auto& cubin : cubins) sizeHint += cubin.size() + 8;
  for (const auto& kernel : cubinKernels) sizeHint += kernel.size() + 12;
  auto frameBytes = [](const std::optional<Frame>& f) {
    return f ? 32 + f->file.size() + f->function.size() : 1;
  };
  for (const Remark& m : r.remarks)
    sizeHint += m.pass.size() + m.name.size() + m.function.size() + m.message.size() +
                frameBytes(m.location) + frameBytes(m.userLocation) + 48;
  return encode(kResultTag, sizeHint, [&](cereal::BinaryOutputArchive& a) {
    a(r.succeeded, r.failure, r.arch, r.optLevel, r.profile,
      static_cast<int64_t>(r.totalTime.count()), static_cast<int64_t>(r.toolTime.count()),
      pathStrings(r.sourceFiles), r.crateManifest.string());
    a(r.lineMap ? std::optional(r.lineMap->userFiles()) : std::nullopt, cubins, cubinKernels,
      cubinOf, r.cubinProblem, r.linkedFunctions);
    tables.save(a);
    a(static_cast<uint32_t>(r.stages.size()));
    for (const auto& [stage, outcome] : r.stages) {
      a(stage, outcome.available, outcome.unavailableReason,
        static_cast<int64_t>(outcome.toolTime.count()));
      saveArtifact(a, *outcome.artifact, tables);
    }
    a(r.diagnostics, r.remarks, static_cast<uint32_t>(r.kernels.size()));
    for (const KernelInfo& k : r.kernels) saveKernel(a, k);
    // As cereal writes an optional (its "nullopt" flag, then the value), without copying
    // the costs.
    a(r.costs == nullptr);
    if (r.costs) a(*r.costs);
  });
}

std::optional<CompileResult> deserializeResult(std::string_view bytes) {
  return decode<CompileResult>(bytes, kResultTag, [](BoundedInput& a) {
    CompileResult r;
    int64_t totalTime = 0, toolTime = 0;
    std::vector<std::string> sourceFiles;
    std::string manifest;
    a(r.succeeded, r.failure, r.arch, r.optLevel, r.profile, totalTime, toolTime, sourceFiles,
      manifest);
    r.totalTime = std::chrono::milliseconds(totalTime);
    r.toolTime = std::chrono::milliseconds(toolTime);
    r.sourceFiles.assign(sourceFiles.begin(), sourceFiles.end());
    r.crateManifest = manifest;
    std::optional<std::vector<std::string>> userFiles;
    std::vector<std::string> cubins, cubinKernels;
    std::vector<uint32_t> cubinOf;
    a(userFiles, cubins, cubinKernels, cubinOf, r.cubinProblem, r.linkedFunctions);
    std::vector<std::shared_ptr<const std::string>> shared;
    for (auto& cubin : cubins)
      shared.push_back(std::make_shared<const std::string>(std::move(cubin)));
    for (size_t k = 0; k < cubinKernels.size() && k < cubinOf.size(); ++k)
      if (cubinOf[k] < shared.size()) r.cubins[cubinKernels[k]] = shared[cubinOf[k]];
    std::shared_ptr<LineMap> lineMap;
    if (userFiles) lineMap = std::make_shared<LineMap>(std::move(*userFiles));
    const std::vector<Chain> chains = loadChains(a);
    uint32_t stages = 0;
    a(stages);
    for (uint32_t i = 0; i < stages; ++i) {
      Stage stage{};
      StageOutcome o;
      int64_t stageToolTime = 0;
      a(stage, o.available, o.unavailableReason, stageToolTime);
      o.toolTime = std::chrono::milliseconds(stageToolTime);
      o.setArtifact(loadArtifact(a, chains));
      // The line map is a function of the artifacts and the user's files (LineMap.h).
      if (o.available && lineMap) lineMap->addArtifact(*o.artifact);
      r.stages[stage] = std::move(o);
    }
    r.lineMap = std::move(lineMap);
    uint32_t kernels = 0;
    a(r.diagnostics, r.remarks, kernels);
    shareRemarkTexts(r.remarks);
    for (uint32_t i = 0; i < kernels; ++i) r.kernels.push_back(loadKernel(a, r.arch));
    std::optional<SassCosts> costs;
    a(costs);
    if (costs) r.costs = std::make_shared<const SassCosts>(std::move(*costs));
    return r;
  });
}

std::string serializePasses(const PassesResult& r) {
  size_t sizeHint = r.finalModuleIr.size();
  for (const StagePasses& sp : r.stages)
    for (const PassChange& c : sp.changes) sizeHint += c.diff.size();
  return encode(kPassesTag, sizeHint, [&](cereal::BinaryOutputArchive& a) {
    a(r.kernel, r.demangled, r.stages, r.finalModuleIr, r.kernels, r.diagnostics,
      pathStrings(r.sourceFiles));
  });
}

std::optional<PassesResult> deserializePasses(std::string_view bytes) {
  return decode<PassesResult>(bytes, kPassesTag, [](BoundedInput& a) {
    PassesResult r;
    std::vector<std::string> sourceFiles;
    a(r.kernel, r.demangled, r.stages, r.finalModuleIr, r.kernels, r.diagnostics, sourceFiles);
    r.sourceFiles.assign(sourceFiles.begin(), sourceFiles.end());
    return r;
  });
}

namespace {

// An entry is one file: a header naming the length of the list of the other files it was
// compiled from ("DIGEST PATH" per line), the list, the encoded bytes (ending with their own
// digest), and a digest of the header, the list and that inner digest. Everything an entry
// holds is covered: an edited list is refused as a damaged result is.
constexpr const char* kResultFile = "result";
constexpr std::string_view kEntryHeader = "ks-entry ";
constexpr uintmax_t kMaxEntryBytes = uintmax_t{1} << 32;

/// The entry's outer digest: its header and list, and the encoded bytes' own digest.
std::string entryDigest(std::string_view headerAndList, std::string_view encoded) {
  std::string covered(headerAndList);
  covered += encoded.substr(encoded.size() - std::min(encoded.size(), kDigestChars));
  return bytesDigest(covered);
}

/// The header and list of an entry's bytes, when its outer digest holds.
std::optional<std::string_view> splitEntry(std::string_view entry) {
  if (entry.size() < kEntryHeader.size() + 2 * kDigestChars || !entry.starts_with(kEntryHeader))
    return std::nullopt;
  const size_t newline = entry.find('\n');
  if (newline > kEntryHeader.size() + 20) return std::nullopt;  // none at all (npos) included
  size_t listBytes = 0;
  for (char c : entry.substr(kEntryHeader.size(), newline - kEntryHeader.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    listBytes = listBytes * 10 + static_cast<size_t>(c - '0');
  }
  const size_t listEnd = newline + 1 + listBytes;
  if (listBytes > entry.size() || listEnd + 2 * kDigestChars > entry.size()) return std::nullopt;
  const std::string_view encoded = entry.substr(listEnd, entry.size() - kDigestChars - listEnd);
  if (entryDigest(entry.substr(0, listEnd), encoded) != entry.substr(entry.size() - kDigestChars))
    return std::nullopt;
  return entry.substr(0, listEnd);
}

}  // namespace

std::optional<std::string> ResultStore::loadEntry(const std::string& key) const {
  const fs::path entry = dir_ / key;
  // Non-blocking and bounded: a FIFO or a link to /dev/zero in its place is refused.
  FileText bytes = readRegularFile(entry / kResultFile, kMaxEntryBytes);
  if (!bytes.ok()) return std::nullopt;
  const std::optional<std::string_view> headerAndList = splitEntry(bytes.text);
  if (!headerAndList) return std::nullopt;  // damaged or cut short
  const std::string_view list = headerAndList->substr(headerAndList->find('\n') + 1);
  for (std::string_view line : splitLines(list)) {
    const size_t space = line.find(' ');
    if (space == std::string_view::npos ||
        fileDigest(fs::path(line.substr(space + 1))) != line.substr(0, space))
      return std::nullopt;  // a module, dependency or Cargo.toml changed
  }
  std::error_code ec;  // its last use, for the eviction (evictLeastRecentlyUsed)
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
  // The encoded bytes alone, in place (an entry may be tens of MB).
  bytes.text.resize(bytes.text.size() - kDigestChars);
  bytes.text.erase(0, headerAndList->size());
  return std::move(bytes.text);
}

namespace {

/// A directory this store made: named by a key (a digest) and holding only its entry file
/// (and the `files` list of the layout before). Eviction removes nothing else that may be
/// found under the store's directory.
bool isResultStoreEntry(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.size() != kDigestChars ||
      name.find_first_not_of("0123456789abcdef") != std::string::npos)
    return false;
  std::error_code ec;
  bool hasResult = false;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const fs::path file = e.path().filename();
    if ((file != kResultFile && file != "files") ||
        e.symlink_status(ec).type() != fs::file_type::regular)
      return false;
    hasResult = hasResult || file == kResultFile;
  }
  return !ec && hasResult;
}

}  // namespace

std::string ResultStore::saveEntry(const std::string& key, const std::string& bytes,
                                   const std::vector<fs::path>& sourceFiles) const {
  if (maxBytes_ == 0) return {};
  const fs::path entry = dir_ / key;
  const fs::path staging = dir_ / stagingName(key);
  std::error_code ec;
  fs::create_directories(staging, ec);
  auto failed = [&](const std::string& why) {
    fs::remove_all(staging, ec);
    return "compile results are not kept between runs: cannot write " + dir_.string() + " (" + why +
           ")";
  };
  if (ec) return failed(ec.message());
  std::string list;
  for (const fs::path& f : sourceFiles) list += fileDigest(f) + ' ' + f.string() + '\n';
  const std::string headerAndList =
      std::string(kEntryHeader) + std::to_string(list.size()) + '\n' + list;
  errno = 0;
  {
    // A write past a file-size limit fails here (EFBIG: the CLI ignores SIGXFSZ).
    std::ofstream out(staging / kResultFile, std::ios::binary);
    out << headerAndList << bytes << entryDigest(headerAndList, bytes);
    if (!out.flush()) return failed(errno != 0 ? std::strerror(errno) : "is the disk full?");
  }
  fs::remove_all(entry, ec);  // a stale entry under the same key makes way
  fs::rename(staging, entry, ec);
  if (ec) fs::remove_all(staging, ec);  // another run placed it first: theirs is as good
  evictLeastRecentlyUsed(dir_, maxBytes_, entry, isResultStoreEntry);
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
