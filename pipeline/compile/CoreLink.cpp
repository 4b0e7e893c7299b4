// Linking the sysroot's `core` into the launched image: see internal/CoreLink.h.
#include "CoreLink.h"

#include <llvm/BinaryFormat/Magic.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Object/Archive.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>
#include <mutex>
#include <set>

#include "ExactLocations.h"
#include "KernelClosures.h"
#include "Parsers.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

/// One library's bitcode: the rlib's object members (nvptx64 objects are bitcode).
struct LibraryBitcode {
  std::string library;  // "core"
  std::vector<std::shared_ptr<llvm::MemoryBuffer>> members;
};

/// The bitcode members of `rlib`, read once per process per file version: a compile lazily
/// loads from them only the functions it links.
std::vector<std::shared_ptr<llvm::MemoryBuffer>> bitcodeOf(const fs::path& rlib,
                                                           std::string& error) {
  struct Cached {
    fs::file_time_type changed;
    uintmax_t size = 0;
    std::vector<std::shared_ptr<llvm::MemoryBuffer>> members;
  };
  static std::mutex mutex;
  static std::map<fs::path, Cached> cache;
  std::error_code ec;
  const auto changed = fs::last_write_time(rlib, ec);
  const auto size = fs::file_size(rlib, ec);
  std::lock_guard lock(mutex);
  if (auto it = cache.find(rlib);
      !ec && it != cache.end() && it->second.changed == changed && it->second.size == size)
    return it->second.members;
  auto file = llvm::MemoryBuffer::getFile(rlib.string(), /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read " + rlib.string() + ": " + file.getError().message();
    return {};
  }
  auto archive = llvm::object::Archive::create((*file)->getMemBufferRef());
  if (!archive) {
    error = rlib.string() + " is not an archive: " + llvm::toString(archive.takeError());
    return {};
  }
  Cached entry{changed, size, {}};
  llvm::Error err = llvm::Error::success();
  for (const auto& child : (*archive)->children(err)) {
    auto bytes = child.getBuffer();
    if (!bytes) {
      llvm::consumeError(bytes.takeError());
      continue;
    }
    if (llvm::identify_magic(*bytes) == llvm::file_magic::bitcode)
      entry.members.push_back(llvm::MemoryBuffer::getMemBufferCopy(*bytes, rlib.string()));
  }
  if (err) {
    error = rlib.string() + " is damaged: " + llvm::toString(std::move(err));
    return {};
  }
  if (entry.members.empty()) {
    error = rlib.string() + " holds no bitcode (rebuild the core: kernelscope setup)";
    return {};
  }
  return cache.insert_or_assign(rlib, std::move(entry)).first->second.members;
}

/// The crate's dependencies (what cargo or kernelscope built), then the sysroot's nvptx64
/// `core` and `compiler_builtins`, in link order. A dependency without bitcode is left out:
/// what the kernels call from it stays unresolved, and is named as such.
std::vector<LibraryBitcode> libraries(const std::vector<fs::path>& crateRlibs,
                                      const fs::path& sysroot, std::string& error) {
  std::vector<LibraryBitcode> out;
  std::set<fs::path> seen;
  for (const fs::path& rlib : crateRlibs) {
    if (!seen.insert(rlib).second) continue;
    std::string name = rlib.stem().string();  // lib<crate>-<hash>
    if (name.starts_with("lib")) name.erase(0, 3);
    name = name.substr(0, name.rfind('-'));
    std::string skipped;
    LibraryBitcode bitcode{name, bitcodeOf(rlib, skipped)};
    if (!bitcode.members.empty()) out.push_back(std::move(bitcode));
  }
  const fs::path lib = sysroot / "lib/rustlib/nvptx64-nvidia-cuda/lib";
  for (const std::string library : {"core", "compiler_builtins"}) {
    std::error_code ec;
    fs::path rlib;
    for (const auto& e : fs::directory_iterator(lib, ec)) {
      const std::string name = e.path().filename().string();
      if (name.starts_with("lib" + library + "-") && name.ends_with(".rlib")) rlib = e.path();
    }
    if (rlib.empty()) {
      if (library == "core") error = "no libcore-*.rlib in " + lib.string();
      continue;  // a rustup sysroot may fold compiler_builtins into another rlib
    }
    LibraryBitcode bitcode{library, bitcodeOf(rlib, error)};
    if (!error.empty()) return {};
    out.push_back(std::move(bitcode));
  }
  return out;
}

/// Functions that are only declared (LLVM's intrinsics aside); with `usedOnly`, those that
/// are called.
std::vector<llvm::Function*> declaredCallees(llvm::Module& module, bool usedOnly = true) {
  std::vector<llvm::Function*> out;
  for (llvm::Function& f : module)
    if (f.isDeclaration() && !f.isIntrinsic() && (!usedOnly || !f.use_empty())) out.push_back(&f);
  return out;
}

/// Collects the linker's messages instead of LLVM's default, which ends the process on an
/// error; the context's own handler is back when this goes.
class CollectDiagnostics {
 public:
  explicit CollectDiagnostics(llvm::LLVMContext& context)
      : context_(context), previous_(context.getDiagnosticHandler()) {
    struct Handler final : llvm::DiagnosticHandler {
      explicit Handler(std::string& errors) : errors_(errors) {}
      bool handleDiagnostics(const llvm::DiagnosticInfo& d) override {
        if (d.getSeverity() != llvm::DS_Error) return true;
        llvm::raw_string_ostream out(errors_);
        llvm::DiagnosticPrinterRawOStream printer(out);
        if (!errors_.empty()) out << "; ";
        d.print(printer);
        return true;
      }
      std::string& errors_;
    };
    context.setDiagnosticHandler(std::make_unique<Handler>(errors));
  }
  ~CollectDiagnostics() { context_.setDiagnosticHandler(std::move(previous_)); }
  CollectDiagnostics(const CollectDiagnostics&) = delete;
  CollectDiagnostics& operator=(const CollectDiagnostics&) = delete;
  std::string errors;

 private:
  llvm::LLVMContext& context_;
  std::unique_ptr<llvm::DiagnosticHandler> previous_;
};

/// Where `f` is called: the calling function and the call's source line, a few of them.
std::vector<std::string> callersOf(const llvm::Function& f) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const llvm::User* user : f.users()) {
    const auto* call = llvm::dyn_cast<llvm::CallBase>(user);
    if (!call || !call->getFunction()) continue;
    std::string where = demangleSymbol(call->getFunction()->getName().str());
    if (const llvm::DebugLoc& loc = call->getDebugLoc()) {
      const llvm::DILocation* at = loc.get();
      while (at->getInlinedAt()) at = at->getInlinedAt();  // the caller's own line
      where += " (" + fs::path(at->getFilename().str()).filename().string() + ":" +
               std::to_string(at->getLine()) + ":" + std::to_string(at->getColumn()) + ")";
    }
    if (seen.insert(where).second) out.push_back(where);
    if (out.size() == 3) break;
  }
  return out;
}

}  // namespace

bool callsDeclaredFunctions(const llvm::Module& module) {
  return !declaredCallees(const_cast<llvm::Module&>(module)).empty();
}

namespace {

/// Links into `into`, until nothing more is found, what it declares from the libraries (a
/// library's code may call another's: core's formatting into compiler_builtins' 128-bit
/// division, and back); `libraryOf` gets which library defined each function. An error
/// message, or empty.
std::string linkLibraries(llvm::Module& into, const std::vector<LibraryBitcode>& libraries,
                          llvm::Linker& linker, std::map<std::string, std::string>& libraryOf) {
  bool progress = true;
  for (int round = 0; round < 4 && progress; ++round) {
    progress = false;
    for (const LibraryBitcode& lib : libraries)
      for (const auto& member : lib.members) {
        if (declaredCallees(into, false).empty()) return {};
        std::set<const llvm::Function*> before;
        for (const llvm::Function& f : into)
          if (!f.isDeclaration()) before.insert(&f);
        auto lazy = llvm::getLazyBitcodeModule(member->getMemBufferRef(), into.getContext());
        if (!lazy)
          return "cannot read " + lib.library + "'s bitcode (" + llvm::toString(lazy.takeError()) +
                 "): was it built by another LLVM than kernelscope's (" LLVM_VERSION_STRING ")?";
        (*lazy)->setDataLayout(into.getDataLayout());  // one rustc: only spelled otherwise
        (*lazy)->setTargetTriple(into.getTargetTriple());
        if (linker.linkInModule(std::move(*lazy), llvm::Linker::Flags::LinkOnlyNeeded))
          return "linking " + lib.library + " failed";
        for (const llvm::Function& f : into)  // each function this member brought
          if (!f.isDeclaration() && !before.count(&f)) {
            libraryOf.emplace(f.getName().str(), lib.library);
            progress = true;
          }
      }
  }
  return {};
}

}  // namespace

CoreLink linkSysrootLibraries(llvm::Module& module, const fs::path& sysroot,
                              const std::vector<fs::path>& crateRlibs, const std::string& arch,
                              int optLevel) {
  CoreLink out;
  const std::vector<LibraryBitcode> libs = libraries(crateRlibs, sysroot, out.error);
  llvm::LLVMContext& context = module.getContext();
  // The libraries' part is made apart, in a module that declares what the kernels call:
  // only what that reaches comes in, with the crate's functions it calls back (the panic
  // handler). It is optimized as a cdylib's link would optimize it (so that a panic path
  // does not keep core's formatting when the handler ignores it), then linked into
  // `module`, whose own functions are left as rustc made them.
  std::set<std::string> entries;
  auto part = std::make_unique<llvm::Module>("kernelscope-sysroot", context);
  part->setDataLayout(module.getDataLayout());
  part->setTargetTriple(module.getTargetTriple());
  for (llvm::Function* f : declaredCallees(module)) {
    entries.insert(f->getName().str());
    part->getOrInsertFunction(f->getName(), f->getFunctionType(), f->getAttributes());
  }
  std::map<std::string, std::string> libraryOf;  // symbol -> the library that defined it
  CollectDiagnostics diagnostics(context);
  if (out.error.empty()) {
    llvm::Linker linker(*part);
    out.error = linkLibraries(*part, libs, linker, libraryOf);
    if (out.error.empty() && !declaredCallees(*part, false).empty() &&
        linker.linkInModule(llvm::CloneModule(module), llvm::Linker::Flags::LinkOnlyNeeded))
      out.error = "linking the crate's functions that core calls failed";
    if (!out.error.empty() && !diagnostics.errors.empty()) out.error += ": " + diagnostics.errors;
  }
  for (llvm::GlobalValue& g : part->global_values())
    if (!g.isDeclaration() && !entries.count(g.getName().str())) {
      if (auto* object = llvm::dyn_cast<llvm::GlobalObject>(&g)) object->setComdat(nullptr);
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  if (optLevel > 0 && out.error.empty())
    optimizeForNvptx(*part, arch, optLevel, PipelineTuning::LlvmDefaults);

  std::set<const llvm::GlobalValue*> definedBefore;
  for (const llvm::GlobalValue& g : module.global_values())
    if (!g.isDeclaration()) definedBefore.insert(&g);
  if (llvm::Linker(module).linkInModule(std::move(part), llvm::Linker::Flags::LinkOnlyNeeded) &&
      out.error.empty())
    out.error = "linking core's code into the kernel's failed: " + diagnostics.errors;
  // What came in is the image's own: internal, so that ptxas keeps only what is called.
  for (llvm::GlobalValue& g : module.global_values()) {
    if (g.isDeclaration() || definedBefore.count(&g)) continue;
    if (auto* object = llvm::dyn_cast<llvm::GlobalObject>(&g)) object->setComdat(nullptr);
    g.setLinkage(llvm::GlobalValue::InternalLinkage);
    auto* f = llvm::dyn_cast<llvm::Function>(&g);
    if (!f) continue;
    // A name taken in `module` came with a suffix (".1"); one of no library is a copy of the
    // crate's own function (the panic handler, when not inlined): not listed.
    const std::string name = f->getName().str();
    auto library = libraryOf.find(name);
    if (const size_t dot = name.rfind('.'); library == libraryOf.end() && dot != std::string::npos)
      library = libraryOf.find(name.substr(0, dot));
    if (library != libraryOf.end())
      out.linked.push_back({name, demangleSymbol(name), library->second});
  }
  for (const llvm::Function* f : declaredCallees(module))
    out.unresolved.push_back(
        {f->getName().str(), demangleSymbol(f->getName().str()), callersOf(*f)});
  return out;
}

CoreLink linkForLaunch(llvm::Module& module, const fs::path& sysroot,
                       const std::vector<fs::path>& crateRlibs, const std::string& arch,
                       int optLevel) {
  if (!callsDeclaredFunctions(module)) return {};
  CoreLink link = linkSysrootLibraries(module, sysroot, crateRlibs, arch, optLevel);
  link.attempted = true;
  return link;
}

std::optional<Artifact> compileLinkedCopy(const llvm::Module& module, const fs::path& sysroot,
                                          const std::vector<fs::path>& crateRlibs,
                                          const std::string& arch, int optLevel, CoreLink& link,
                                          std::string& error) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  link = linkForLaunch(*copy, sysroot, crateRlibs, arch, optLevel);
  std::optional<Artifact> ptx = compilePtx(*copy, arch, optLevel, error);
  if (ptx) markLinkedFunctions(*ptx, link.linked);
  return ptx;
}

namespace {

/// Inserts note lines into `artifact`: each (line, text) goes before that line, as a line
/// of no kind outside code (LineKind::Other) in the function of the line it precedes.
void insertNotes(Artifact& artifact, std::vector<std::pair<uint32_t, std::string>> notes) {
  if (notes.empty()) return;
  std::stable_sort(notes.begin(), notes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string text;
  text.reserve(artifact.text().size() + notes.size() * 64);
  std::vector<ArtifactLine> lines;
  lines.reserve(artifact.lines().size() + notes.size());
  std::vector<uint32_t> newIndex(artifact.lines().size() + 1);
  size_t next = 0;
  for (uint32_t i = 0; i <= artifact.lines().size(); ++i) {
    for (; next < notes.size() && notes[next].first == i; ++next) {
      ArtifactLine note;
      note.kind = LineKind::Other;
      // In a function when it precedes one of its lines other than the first.
      if (i < artifact.lines().size() && artifact.lines()[i].function >= 0 &&
          artifact.functions[artifact.lines()[i].function].firstLine < i)
        note.function = artifact.lines()[i].function;
      lines.push_back(note);
      text += notes[next].second + "\n";
    }
    newIndex[i] = static_cast<uint32_t>(lines.size());
    if (i == artifact.lines().size()) break;
    lines.push_back(artifact.lines()[i]);
    text += std::string(artifact.lineText(i)) + "\n";
  }
  for (ArtifactFunction& f : artifact.functions) {
    f.firstLine = newIndex[f.firstLine];
    f.lastLine = newIndex[f.lastLine];
  }
  artifact =
      Artifact(artifact.stage, std::move(text), std::move(lines), std::move(artifact.functions));
}

}  // namespace

void markLinkedFunctions(Artifact& artifact, const std::vector<LinkedFunction>& linked) {
  if (linked.empty()) return;
  std::map<std::string, const LinkedFunction*> bySymbol;
  for (const LinkedFunction& f : linked) bySymbol[f.symbol] = &f;
  auto note = [](const LinkedFunction& f, std::string_view indent) {
    return std::string(indent) + "// linked from " + f.library + ": " + f.demangled;
  };
  std::vector<std::pair<uint32_t, std::string>> notes;
  if (artifact.stage == Stage::Ptx) {
    // A function called before its definition has a prototype first: the last one is it.
    std::map<std::string, uint32_t> definition;
    for (const ArtifactFunction& f : artifact.functions)
      if (bySymbol.count(f.symbol)) definition[f.symbol] = f.firstLine;
    for (const auto& [symbol, line] : definition)
      notes.emplace_back(line, note(*bySymbol[symbol], ""));
  } else {
    // ptxas places a callee in every kernel that calls it, under `$kernel$symbol:`.
    for (uint32_t i = 0; i < artifact.lines().size(); ++i) {
      if (artifact.lines()[i].kind != LineKind::Label || artifact.lines()[i].function < 0) continue;
      std::string_view label = artifact.lineText(i);
      const std::string& kernel = artifact.functions[artifact.lines()[i].function].symbol;
      const std::string prefix = "$" + kernel + "$";
      if (!label.starts_with(prefix) || !label.ends_with(":")) continue;
      label = label.substr(prefix.size(), label.size() - prefix.size() - 1);
      if (auto it = bySymbol.find(std::string(label)); it != bySymbol.end())
        notes.emplace_back(i + 1, note(*it->second, "        "));
    }
  }
  insertNotes(artifact, std::move(notes));
}

std::string unresolvedMessage(const std::vector<std::string>& missing,
                              const std::vector<UnresolvedFunction>& known) {
  std::string message =
      "the code calls functions that nothing it links defines (its crate, its dependencies, the "
      "sysroot's core and compiler_builtins):";
  for (const std::string& symbol : missing) {
    message += "\n  " + demangleSymbol(symbol);
    for (const UnresolvedFunction& u : known)
      if (u.symbol == symbol && !u.calledFrom.empty()) {
        message += ", called from ";
        for (size_t i = 0; i < u.calledFrom.size(); ++i)
          message += (i ? ", " : "") + u.calledFrom[i];
      }
  }
  return message + "\n(the SASS shown is the code assembled as relocatable, ptxas -c)";
}

}  // namespace ks
