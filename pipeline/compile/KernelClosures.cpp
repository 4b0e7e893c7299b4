// rustc's optimization made by kernelscope, and a kernel's closure. See KernelClosures.h.
#include "KernelClosures.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cctype>
#include <map>
#include <vector>

#include "ExactLocations.h"
#include "TextUtil.h"

namespace ks {

std::string optimizeForNvptx(llvm::Module& module, const std::string& arch, int optLevel,
                             PipelineTuning how) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = nvptxTargetMachine(module, arch, optLevel, error);
  if (!tm) return error;
  llvm::PipelineTuningOptions tuning;
  if (how == PipelineTuning::Rustc) {
    // rustc_codegen_llvm's settings: loops are unrolled and interleaved from -O1, vectorized
    // (loops and straight-line code) from -O2; function merging is off for nvptx.
    tuning.LoopUnrolling = tuning.LoopInterleaving = optLevel >= 1;
    tuning.LoopVectorization = tuning.SLPVectorization = optLevel >= 2;
    tuning.MergeFunctions = false;
  }
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(tm.get(), tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  const llvm::OptimizationLevel level = optLevel <= 0   ? llvm::OptimizationLevel::O0
                                        : optLevel == 1 ? llvm::OptimizationLevel::O1
                                        : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                        : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager pipeline = level == llvm::OptimizationLevel::O0
                                         ? builder.buildO0DefaultPipeline(level)
                                         : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, modules);
  return {};
}

/// Who names whom among the module's definitions: a function through its body, a variable
/// through its initializer (a table of functions, a constant pointing at another).
struct KernelClosures::References {
  std::map<const llvm::GlobalObject*, std::set<const llvm::GlobalObject*>> uses, usedBy;

  explicit References(const llvm::Module& module) {
    for (const llvm::Function& f : module)
      for (const llvm::BasicBlock& block : f)
        for (const llvm::Instruction& i : block)
          for (const llvm::Use& operand : i.operands()) note(&f, operand.get());
    for (const llvm::GlobalVariable& v : module.globals())
      if (v.hasInitializer()) note(&v, v.getInitializer());
  }

 private:
  void note(const llvm::GlobalObject* from, const llvm::Value* value) {
    std::vector<const llvm::Value*> work = {value};
    std::set<const llvm::Value*> seen;
    while (!work.empty()) {
      const llvm::Value* v = work.back();
      work.pop_back();
      if (!llvm::isa<llvm::Constant>(v) || !seen.insert(v).second) continue;
      if (const auto* object = llvm::dyn_cast<llvm::GlobalObject>(v)) {
        if (!object->isDeclaration() && object != from) {
          uses[from].insert(object);
          usedBy[object].insert(from);
        }
      } else if (const auto* alias = llvm::dyn_cast<llvm::GlobalAlias>(v)) {
        work.push_back(alias->getAliasee());
      } else if (!llvm::isa<llvm::GlobalValue>(v)) {
        for (const llvm::Use& operand : llvm::cast<llvm::Constant>(v)->operands())
          work.push_back(operand.get());
      }
    }
  }
};

namespace {

/// Whether what others do with `object` can change the code of a function that uses it:
/// a local function (how many call it, with which arguments) or a local variable that can
/// be written. A constant's uses change nothing but whether it is kept.
bool othersMatter(const llvm::GlobalObject& object) {
  if (!object.hasLocalLinkage()) return false;
  const auto* variable = llvm::dyn_cast<llvm::GlobalVariable>(&object);
  return !variable || !variable->isConstant();
}

}  // namespace

KernelClosures::KernelClosures(const llvm::Module& module)
    : module_(module), references_(std::make_unique<const References>(module)) {}

KernelClosures::~KernelClosures() = default;

std::set<std::string> KernelClosures::of(const std::string& kernel, ClosureRule rule) const {
  std::set<std::string> names;
  const llvm::Function* entry = module_.getFunction(kernel);
  if (!entry || entry->isDeclaration()) return names;
  std::set<const llvm::GlobalObject*> in;
  std::vector<const llvm::GlobalObject*> work = {entry};
  auto add = [&](const auto& objects) {
    for (const llvm::GlobalObject* o : objects) work.push_back(o);
  };
  while (!work.empty()) {
    const llvm::GlobalObject* object = work.back();
    work.pop_back();
    if (!in.insert(object).second) continue;
    if (auto it = references_->uses.find(object); it != references_->uses.end()) add(it->second);
    if (rule == ClosureRule::Complete && othersMatter(*object))
      if (auto it = references_->usedBy.find(object); it != references_->usedBy.end())
        add(it->second);
  }
  for (const llvm::GlobalObject* object : in) names.insert(object->getName().str());
  return names;
}

std::unique_ptr<llvm::Module> closureModule(const llvm::Module& module,
                                            const std::set<std::string>& names) {
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(
      module, map, [&](const llvm::GlobalValue* g) { return names.count(g->getName().str()) > 0; });
  // What was not copied became a declaration (without an initializer, so it uses nothing);
  // one that nothing kept uses goes.
  std::vector<llvm::GlobalValue*> unused;
  for (llvm::GlobalValue& g : copy->global_values())
    if (g.isDeclaration() && g.use_empty() && !names.count(g.getName().str())) {
      const llvm::GlobalValue* original = module.getNamedValue(g.getName());
      if (original && !original->isDeclaration()) unused.push_back(&g);
    }
  for (llvm::GlobalValue* g : unused) g->eraseFromParent();
  return copy;
}

namespace {

bool nameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

/// Where the definition of `name` starts in `ptx` (a declaration, `.func f(...);`, is
/// skipped), or npos.
size_t definitionOf(std::string_view ptx, std::string_view name) {
  for (std::string_view kind : {".entry ", ".func "}) {
    const std::string head = std::string(kind) + std::string(name) + "(";
    for (size_t at = ptx.find(head); at != std::string_view::npos; at = ptx.find(head, at + 1)) {
      const size_t body = ptx.find("\n{", at), declaration = ptx.find("\n;", at);
      if (body != std::string_view::npos && body < declaration) return at;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::string ptxWithModuleCountsReset(std::string_view ptx, std::string_view name) {
  const size_t start = definitionOf(ptx, name);
  if (start == std::string_view::npos) return {};
  const size_t end = ptx.find("\n}", start);
  const std::string_view body =
      ptx.substr(start, end == std::string_view::npos ? end : end + 2 - start);

  std::map<std::string, std::string, std::less<>> fileNames;  // `.file 2 "k.rs"`: 2 -> k.rs
  forEachLine(ptx, [&](std::string_view line) {
    line = text::trimLeft(line);
    if (!line.starts_with(".file")) return;
    line = text::trimLeft(line.substr(5));
    size_t n = 0;
    while (n < line.size() && digit(line[n])) ++n;
    const size_t open = line.find('"'), close = line.find('"', open + 1);
    if (n > 0 && close != std::string_view::npos)
      fileNames[std::string(line.substr(0, n))] =
          std::string(line.substr(open + 1, close - open - 1));
  });

  // Each numbered name gets its number in the order the function first names it, per kind.
  std::map<std::string, std::map<std::string, size_t>, std::less<>> renumbered;
  auto number = [&](const std::string& kind, std::string_view original) {
    auto& seen = renumbered[kind];
    return std::to_string(seen.emplace(std::string(original), seen.size()).first->second);
  };
  std::string out;
  out.reserve(body.size());
  // Writes the counted name `rest` starts with, if any, into `out`: the bytes it took, or 0.
  auto rewrite = [&](std::string_view rest) -> size_t {
    if (rest.starts_with("$L__")) {  // $L__BB3_1, $L__tmp17, $L__func_begin3
      size_t kindEnd = 4;
      while (kindEnd < rest.size() && nameChar(rest[kindEnd]) && !digit(rest[kindEnd])) ++kindEnd;
      size_t end = kindEnd;
      while (end < rest.size() && nameChar(rest[end])) ++end;
      const std::string kind(rest.substr(0, kindEnd));
      out += kind + number(kind, rest.substr(kindEnd, end - kindEnd));
      return end;
    }
    for (std::string_view counted : {"__local_depot", "callseq ", ".loc\t"}) {
      if (!rest.starts_with(counted)) continue;
      size_t end = counted.size();
      while (end < rest.size() && digit(rest[end])) ++end;
      const std::string_view n = rest.substr(counted.size(), end - counted.size());
      if (n.empty()) return 0;
      out += counted;
      if (counted != ".loc\t") {
        out += number(std::string(counted), n);
      } else if (auto file = fileNames.find(n); file != fileNames.end()) {
        out += file->second;
      } else {
        out += n;
      }
      return end;
    }
    return 0;
  };
  for (size_t i = 0; i < body.size();)
    if (const size_t taken = rewrite(body.substr(i)))
      i += taken;
    else
      out += body[i++];
  return out;
}

}  // namespace ks
