// LLVM IR parser: reads rustc's `.ll` with the LLVM 22 library.
//
// The module is parsed, then printed again by LLVM itself with an annotation writer that
// records where each instruction starts in the printed text. That gives every line its
// instruction, and every instruction its `!dbg` DILocation with the exact `inlinedAt`
// chain, without re-implementing metadata numbering. The printed text is what we show.
#include <llvm/AsmParser/Parser.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/AssemblyAnnotationWriter.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FormattedStream.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "Parsers.h"
#include "TextUtil.h"

namespace ks {

namespace {

/// Records the byte offset at which LLVM starts printing each function and instruction.
class PositionRecorder : public llvm::AssemblyAnnotationWriter {
 public:
  explicit PositionRecorder(const std::string& sink) : sink_(sink) {}
  void emitFunctionAnnot(const llvm::Function* f, llvm::formatted_raw_ostream& os) override {
    os.flush();
    functions.emplace_back(sink_.size(), f);
  }
  void emitInstructionAnnot(const llvm::Instruction* i, llvm::formatted_raw_ostream& os) override {
    os.flush();
    instructions.emplace_back(sink_.size(), i);
  }
  std::vector<std::pair<size_t, const llvm::Function*>> functions;
  std::vector<std::pair<size_t, const llvm::Instruction*>> instructions;

 private:
  const std::string& sink_;
};

std::string filePathOf(const llvm::DIScope* scope) {
  if (!scope) return {};
  std::string name = scope->getFilename().str();
  std::string dir = scope->getDirectory().str();
  if (!name.empty() && name.front() != '/' && !dir.empty()) name = dir + "/" + name;
  return normalizePath(name);
}

std::string functionNameOf(const llvm::DILocalScope* scope) {
  if (!scope) return {};
  const llvm::DISubprogram* sp = scope->getSubprogram();
  if (!sp) return {};
  if (!sp->getLinkageName().empty()) return demangleSymbol(sp->getLinkageName().str());
  return sp->getName().str();
}

}  // namespace

DebugChains::DebugChains() = default;
DebugChains::~DebugChains() = default;

const DebugChains::Scope& DebugChains::scopeOf(const llvm::DILocalScope* scope) {
  auto [it, added] = scopes_.try_emplace(scope);
  if (added) it->second = {filePathOf(scope), functionNameOf(scope)};
  return it->second;
}

const Chain& DebugChains::of(const llvm::DILocation* loc) {
  static const Chain kNone;
  if (!loc) return kNone;
  auto [it, added] = chains_.try_emplace(loc);
  if (!added) return it->second;
  std::vector<Frame> chain;
  for (const llvm::DILocation* at = loc; at; at = at->getInlinedAt()) {
    const Scope& s = scopeOf(at->getScope());
    chain.push_back(Frame{s.file, at->getLine(), at->getColumn(), s.function});
  }
  it->second = interner_.intern(std::move(chain));
  return it->second;
}

namespace {

void classifyByText(Artifact& a) {
  for (size_t i = 0; i < a.lines().size(); ++i) {
    std::string_view t = text::trim(a.lineText(i));
    auto& l = a.lines()[i];
    if (t.empty() || t.starts_with(";") || t == "}")
      l.kind = LineKind::Other;
    else if (t.starts_with("define "))
      l.kind = LineKind::Header;
    else if (std::string_view first = t.substr(0, t.find_first_of(" \t")); first.ends_with(":"))
      l.kind = LineKind::Label;  // "bb4:" or "start:  ; preds = ..."
    else
      l.kind = LineKind::Directive;
  }
}

}  // namespace

std::string demangleSymbol(std::string_view symbol) {
  std::string s(symbol);
  if (!(s.starts_with("_R") || s.starts_with("_Z"))) return s;
  std::string d = llvm::demangle(s);
  // Legacy Rust symbols end in a hash segment "::h0123456789abcdef".
  if (s.starts_with("_ZN") && d.size() > 19 && d.compare(d.size() - 19, 3, "::h") == 0)
    d.resize(d.size() - 19);
  return d;
}

LlvmModule::LlvmModule() = default;
LlvmModule::~LlvmModule() = default;
void LlvmModule::reset() {
  module.reset();
  context.reset();
}

Artifact parseLlvmIr(std::string input, std::string* error, LlvmModule* keep) {
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::LLVMContext& ctx = *context;
  llvm::SMDiagnostic diag;
  auto buffer =
      llvm::MemoryBuffer::getMemBuffer(input, "rustc.ll", /*RequiresNullTerminator=*/false);
  std::unique_ptr<llvm::Module> module = llvm::parseAssembly(*buffer, diag, ctx);
  if (!module) {
    if (error) {
      std::string msg;
      llvm::raw_string_ostream os(msg);
      diag.print("llvm-ir", os);
      *error = msg;
    }
    Artifact a(Stage::LlvmIr, std::move(input));
    classifyByText(a);
    return a;
  }

  std::string printed;
  PositionRecorder recorder(printed);
  {
    llvm::raw_string_ostream os(printed);
    module->print(os, &recorder);
  }
  Artifact a(Stage::LlvmIr, std::move(printed));
  classifyByText(a);

  // Functions with bodies: header line to the closing brace.
  std::map<const llvm::Function*, int32_t> fnIndex;
  for (auto [offset, f] : recorder.functions) {
    if (f->isDeclaration()) continue;
    ArtifactFunction af;
    af.symbol = f->getName().str();
    af.demangled = demangleSymbol(af.symbol);
    af.isKernel = f->getCallingConv() == llvm::CallingConv::PTX_Kernel;
    if (const llvm::DISubprogram* sp = f->getSubprogram())
      af.definition = Frame{filePathOf(sp), sp->getLine(), 0, af.demangled};
    af.firstLine = a.lineAt(offset);
    // The annotation is emitted before any comment lines LLVM prints above `define`.
    while (af.firstLine + 1 < a.lines().size() && !a.lineText(af.firstLine).starts_with("define "))
      ++af.firstLine;
    uint32_t last = af.firstLine;
    while (last + 1 < a.lines().size() && a.lineText(last) != "}") ++last;
    af.lastLine = last;
    fnIndex[f] = static_cast<int32_t>(a.functions.size());
    for (uint32_t l = af.firstLine; l <= af.lastLine; ++l) a.lines()[l].function = fnIndex[f];
    a.functions.push_back(std::move(af));
  }

  // LLVM uniques debug locations, so one chain per DILocation (interned across them).
  DebugChains chains;
  for (auto [offset, inst] : recorder.instructions) {
    uint32_t l = a.lineAt(offset);
    auto& line = a.lines()[l];
    line.kind = LineKind::Instruction;
    line.location = chains.of(inst->getDebugLoc().get());
  }
  if (keep) {
    keep->module = std::move(module);
    keep->context = std::move(context);
  }
  return a;
}

}  // namespace ks
