// Live registers per function, cached by the function's code. See internal/LiveRanges.h.
#include "LiveRanges.h"

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>

#include <algorithm>
#include <cctype>
#include <future>
#include <list>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "Artifact.h"
#include "Files.h"
#include "StableHash.h"
#include "TextUtil.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

/// The tables of recently analysed functions by their key, least recently used evicted
/// beyond the bound (a 40-kernel file's tables take about 1 MiB).
class Cache {
 public:
  static constexpr size_t kCapacity = 8u << 20;

  std::optional<std::string> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }
  void insert(const std::string& key, std::string table) {
    std::lock_guard lock(mutex_);
    if (index_.count(key) || table.size() > kCapacity) return;
    bytes_ += table.size();
    lru_.emplace_front(key, std::move(table));
    index_[key] = lru_.begin();
    while (bytes_ > kCapacity) {
      bytes_ -= lru_.back().second.size();
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }
  size_t bytes() {
    std::lock_guard lock(mutex_);
    return bytes_;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    lru_.clear();
    index_.clear();
    bytes_ = 0;
  }

 private:
  std::mutex mutex_;
  size_t bytes_ = 0;
  std::list<std::pair<std::string, std::string>> lru_;  // most recent first
  std::unordered_map<std::string, std::list<std::pair<std::string, std::string>>::iterator> index_;
};

Cache& cache() {
  static Cache c;
  return c;
}

/// A function of the cubin: the `.text.NAME` section and the symbol nvdisasm's `-fun` takes.
struct Function {
  std::string name;
  std::string key;
  uint64_t symbol = 0;  // 0: no symbol of its own (then only a run over the whole cubin)
};

/// The cubin's functions in section order, keyed by what their counts depend on.
std::optional<std::vector<Function>> functionsOf(std::string_view cubin,
                                                 const std::vector<std::string_view>& salt,
                                                 std::string& error) {
  auto object = llvm::object::ObjectFile::createELFObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(cubin.data(), cubin.size()), "cubin"));
  if (!object) {
    error = "the cubin is not an ELF file: " + llvm::toString(object.takeError());
    return std::nullopt;
  }
  std::vector<Function> out;
  std::unordered_map<std::string, size_t> byName;
  for (const auto& section : (*object)->sections()) {
    auto name = section.getName();
    auto contents = section.getContents();
    if (!name || !contents || !name->starts_with(".text.")) {
      if (!name) llvm::consumeError(name.takeError());
      if (!contents) llvm::consumeError(contents.takeError());
      continue;
    }
    Function f;
    f.name = name->drop_front(6).str();
    std::vector<std::string_view> parts = salt;
    const std::string code = bytesDigest(std::string_view(contents->data(), contents->size()));
    parts.insert(parts.end(), {f.name, code});
    f.key = stableDigest(parts);
    byName[f.name] = out.size();
    out.push_back(std::move(f));
  }
  for (const auto& symbol : (*object)->symbols()) {
    auto name = symbol.getName();
    auto type = symbol.getType();
    if (!name || !type || *type != llvm::object::SymbolRef::ST_Function) {
      if (!name) llvm::consumeError(name.takeError());
      if (!type) llvm::consumeError(type.takeError());
      continue;
    }
    // The ELF symbol's index, as nvdisasm numbers them.
    if (auto it = byName.find(name->str()); it != byName.end())
      out[it->second].symbol = symbol.getRawDataRefImpl().d.b;
  }
  return out;
}

/// nvdisasm's `-plr` listing cut to what readLiveRegisters reads, by function: the section
/// line, the table's header and each instruction's address and counts (the instruction's text
/// and the padding before the table are most of the listing's bytes).
std::unordered_map<std::string, std::string> tablesByFunction(std::string_view listing) {
  std::unordered_map<std::string, std::string> out;
  std::string* current = nullptr;
  for (std::string_view line : splitLines(listing)) {
    std::string_view t = text::trim(line);
    if (t.starts_with("//--")) {
      current = nullptr;
      size_t at = t.find(".text.");
      if (at == std::string_view::npos) continue;
      std::string_view name = t.substr(at + 6);
      current = &out[std::string(name.substr(0, name.find_first_of(" \t-")))];
      current->append(t).push_back('\n');
      continue;
    }
    size_t bar = line.find("// |");
    if (!current || bar == std::string_view::npos) continue;
    std::string_view table = line.substr(bar);
    if (t.starts_with("/*")) {
      size_t end = t.find("*/");
      if (end == std::string_view::npos) continue;
      current->append(t.substr(0, end + 2)).push_back(' ');
    } else if (table.size() <= 4 || !std::isalpha(uint8_t(table[4]))) {
      continue;  // a directive's empty row, or the "#" row under the header
    }
    current->append(table).push_back('\n');
  }
  return out;
}

}  // namespace

LiveRangeRun liveRanges(const Toolchain& tc, const ResolvedOptions& opts,
                        const CancellationToken& cancel, const fs::path& cubinPath) {
  LiveRangeRun out;
  const std::string cubin = readWholeFile(cubinPath);
  const std::string tool = tc.nvdisasm.path.string();
  std::string error;
  auto functions = functionsOf(cubin, {"plr", tool, tc.nvdisasm.version, opts.arch}, error);
  if (!functions) {
    out.run.started = true;
    out.run.exitCode = 1;
    out.run.err = error;
    return out;
  }
  out.functions = functions->size();
  std::vector<std::optional<std::string>> tables(functions->size());
  std::vector<size_t> missing;
  bool eachHasSymbol = true;
  for (size_t i = 0; i < functions->size(); ++i) {
    tables[i] = cache().find((*functions)[i].key);
    if (tables[i]) continue;
    missing.push_back(i);
    eachHasSymbol = eachHasSymbol && (*functions)[i].symbol != 0;
  }
  out.analysed = missing.size();
  // A run costs about 0.6 s before its first function: a few functions to a run at least,
  // and as many runs as cores (the SASS listing runs beside them).
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  size_t runs = std::clamp<size_t>(missing.size() / 4, 1, cores);
  const bool whole = missing.size() == functions->size() && runs == 1;
  if (!eachHasSymbol) runs = 1;
  auto run = [&](size_t first, size_t count) {
    ProcessSpec p;
    p.argv = {tool, "-c", "-plr", "-lrm", "count"};
    if (eachHasSymbol && !whole) {
      std::string indices;
      for (size_t m = first; m < first + count; ++m)
        indices += (indices.empty() ? "" : ",") + std::to_string((*functions)[missing[m]].symbol);
      p.argv.insert(p.argv.end(), {"-fun", indices});
    }
    p.argv.push_back(cubinPath.string());
    p.timeout = opts.toolTimeout;
    p.cancel = cancel;
    return runProcess(p);
  };
  std::vector<std::future<ProcessResult>> pending;
  for (size_t r = 0, at = 0; r < runs && !missing.empty(); ++r) {
    const size_t count = (missing.size() - at) / (runs - r);
    pending.push_back(std::async(std::launch::async, run, at, count));
    at += count;
  }
  out.run.started = true;
  out.run.exitCode = 0;
  for (auto& f : pending) {
    ProcessResult pr = f.get();
    out.run.elapsed = std::max(out.run.elapsed, pr.elapsed);
    if (!pr.ok()) {
      if (out.run.ok()) out.run = std::move(pr);
      continue;
    }
    auto byName = tablesByFunction(pr.out);
    for (size_t i : missing) {
      auto it = byName.find((*functions)[i].name);
      if (it == byName.end() || tables[i]) continue;
      cache().insert((*functions)[i].key, it->second);
      tables[i] = std::move(it->second);
    }
  }
  if (!out.run.ok()) return out;
  for (auto& t : tables)
    if (t) out.run.out += *t;
  return out;
}

size_t liveRangeCacheBytes() { return cache().bytes(); }

void clearLiveRangeCache() { cache().clear(); }

}  // namespace ks
