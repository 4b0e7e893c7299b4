// See Access.h.
#include "Access.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "ExactLocations.h"
#include "Parsers.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/UniformityAnalysis.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace ks {

uint32_t sectorsPerRequest(int64_t stride, uint32_t bytes) {
  std::set<int64_t> sectors;
  // The lowest address the warp touches is taken as sector-aligned (a negative stride walks
  // down to it), as the allocation's base is for a positive one.
  const int64_t lowest = std::min<int64_t>(0, 31 * stride);
  for (int64_t lane = 0; lane < 32; ++lane) {
    const int64_t first = lane * stride - lowest, last = first + int64_t(std::max(bytes, 1u)) - 1;
    for (int64_t s = first / 32; s <= last / 32; ++s) sectors.insert(s);
  }
  return uint32_t(sectors.size());
}

uint32_t bankConflictWays(int64_t stride, uint32_t bytes) {
  std::map<int64_t, std::set<int64_t>> wordsOfBank;
  auto word = [](int64_t a) { return a >= 0 ? a / 4 : -((-a + 3) / 4); };
  for (int64_t lane = 0; lane < 32; ++lane) {
    const int64_t first = lane * stride, last = first + int64_t(std::max(bytes, 1u)) - 1;
    for (int64_t w = word(first); w <= word(last); ++w) wordsOfBank[((w % 32) + 32) % 32].insert(w);
  }
  size_t most = 1;
  for (const auto& [bank, words] : wordsOfBank) most = std::max(most, words.size());
  // A warp's request is served 128 bytes per wavefront: wider accesses need more
  // wavefronts even without a conflict.
  const size_t wavefronts = std::max<size_t>(1, (32 * size_t(bytes) + 127) / 128);
  return uint32_t((most + wavefronts - 1) / wavefronts);
}

namespace {

std::string elementName(const std::string& type) {
  if (type == "f32") return "floats";
  if (type == "f64") return "doubles";
  return type + " elements";
}

std::string plural(int64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 || n == -1 ? "" : "s");
}

}  // namespace

std::string MemoryAccess::head() const {
  std::string s = space + " " + op + " " + type;
  if (throughGeneric) s += " (generic pointer)";
  return s;
}

std::string MemoryAccess::how() const {
  const bool shared = space == "shared";
  switch (pattern) {
    case AccessPattern::Coalesced:
      if (shared) return "no bank conflict (consecutive words)";
      return "coalesced (" + std::to_string(sectors) + " sectors per request)";
    case AccessPattern::Uniform:
      if (dependsOnTidYZ) return "uniform across threadIdx.x (varies with threadIdx.y/z)";
      return shared ? "uniform: one word, broadcast" : "uniform: one address per warp, broadcast";
    case AccessPattern::Strided: {
      std::string stride;
      if (strideBytes) {
        const int64_t b = *strideBytes;
        if (shared && b % 4 == 0)
          stride = "stride " + plural(b / 4, "word");
        else if (bytes && b % int64_t(bytes) == 0)
          stride = "stride " + std::to_string(b / int64_t(bytes)) + " " + elementName(type);
        else
          stride = "stride " + plural(b, "byte");
      } else {
        stride = "stride " + symbolicStride + " " + (symbolicInBytes ? "bytes" : elementName(type));
      }
      if (shared) {
        if (!bankWays) return stride + ": up to a 32-way bank conflict";
        if (bankWays == 1) return "no bank conflict (" + stride + ")";
        return std::to_string(bankWays) + "-way bank conflict (" + stride + ")";
      }
      if (!sectors) return stride + ": up to 32 sectors per request";
      return stride + ": " + std::to_string(sectors) + " sectors per request (ideal " +
             std::to_string(idealSectors) + ")";
    }
    case AccessPattern::Unknown:
      break;
  }
  if (dataDependent) return "address depends on loaded data: unknown";
  return "unknown (not affine in threadIdx.x)";
}

namespace {

bool isCallTo(const llvm::Value* v, llvm::StringRef name) {
  const auto* call = llvm::dyn_cast<llvm::CallBase>(v);
  const llvm::Function* f = call ? call->getCalledFunction() : nullptr;
  return f && f->getName() == name;
}

bool isTidX(const llvm::Value* v) { return isCallTo(v, "llvm.nvvm.read.ptx.sreg.tid.x"); }
bool isTidYZ(const llvm::Value* v) {
  return isCallTo(v, "llvm.nvvm.read.ptx.sreg.tid.y") ||
         isCallTo(v, "llvm.nvvm.read.ptx.sreg.tid.z");
}
bool isThreadIndex(const llvm::Value* v) {
  return isTidX(v) || isTidYZ(v) || isCallTo(v, "llvm.nvvm.read.ptx.sreg.laneid");
}

bool containsUnknown(const llvm::SCEV* s, bool (*pred)(const llvm::Value*)) {
  return llvm::SCEVExprContains(s, [&](const llvm::SCEV* e) {
    const auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(e);
    return u && pred(u->getValue());
  });
}

/// Pushes zero and sign extensions down to the leaves of an expression, assuming the
/// narrow arithmetic under them does not wrap. Rust's `(block * dim + tid) as usize` is
/// wrapping u32 arithmetic, so ScalarEvolution cannot distribute the `zext` itself and the
/// difference between neighbouring lanes would not fold; for any launch, index arithmetic
/// in 32 bits that wrapped would address outside the buffers anyway.
class ExtendLeaves : public llvm::SCEVRewriteVisitor<ExtendLeaves> {
 public:
  using SCEVRewriteVisitor::SCEVRewriteVisitor;
  const llvm::SCEV* visitZeroExtendExpr(const llvm::SCEVZeroExtendExpr* e) {
    return extend(e->getOperand(), e->getType(), false);
  }
  const llvm::SCEV* visitSignExtendExpr(const llvm::SCEVSignExtendExpr* e) {
    return extend(e->getOperand(), e->getType(), true);
  }
  /// `(x + 1) * n` becomes `x * n + n`: ScalarEvolution keeps a product of sums as it is,
  /// so the difference of two lanes' `row * n` would not cancel; as a sum of products it does.
  const llvm::SCEV* visitMulExpr(const llvm::SCEVMulExpr* e) {
    llvm::SmallVector<const llvm::SCEV*, 8> terms{SE.getOne(e->getType())};
    for (const llvm::SCEV* op : e->operands()) {
      const llvm::SCEV* v = visit(op);
      llvm::SmallVector<const llvm::SCEV*, 8> next;
      const auto* sum = llvm::dyn_cast<llvm::SCEVAddExpr>(v);
      for (const llvm::SCEV* t : terms) {
        if (sum)
          for (const llvm::SCEV* s : sum->operands()) next.push_back(SE.getMulExpr(t, s));
        else
          next.push_back(SE.getMulExpr(t, v));
      }
      if (next.size() > 64) return e;  // not worth expanding
      terms = std::move(next);
    }
    return SE.getAddExpr(terms);
  }

 private:
  const llvm::SCEV* extend(const llvm::SCEV* op, llvm::Type* to, bool sign) {
    auto each = [&](const auto* n) {
      llvm::SmallVector<const llvm::SCEV*, 4> ops;
      for (const llvm::SCEV* o : n->operands()) ops.push_back(extend(o, to, sign));
      return ops;
    };
    if (const auto* a = llvm::dyn_cast<llvm::SCEVAddExpr>(op)) {
      auto ops = each(a);
      return SE.getAddExpr(ops);
    }
    if (const auto* m = llvm::dyn_cast<llvm::SCEVMulExpr>(op)) {
      auto ops = each(m);
      return visit(SE.getMulExpr(ops));
    }
    if (const auto* r = llvm::dyn_cast<llvm::SCEVAddRecExpr>(op); r && r->isAffine())
      return SE.getAddRecExpr(extend(r->getStart(), to, sign),
                              extend(r->getStepRecurrence(SE), to, sign), r->getLoop(),
                              llvm::SCEV::FlagAnyWrap);
    const llvm::SCEV* inner = visit(op);
    return sign ? SE.getSignExtendExpr(inner, to) : SE.getZeroExtendExpr(inner, to);
  }
};

/// A run-time stride in words: the IR names of the values it is made of ("n", "4·n").
std::string describeStride(const llvm::SCEV* s) {
  if (const auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(s)) {
    const llvm::Value* v = u->getValue();
    return v->hasName() ? v->getName().str() : "a run-time value";
  }
  if (const auto* c = llvm::dyn_cast<llvm::SCEVCastExpr>(s))
    return describeStride(c->getOperand(0));
  if (const auto* m = llvm::dyn_cast<llvm::SCEVMulExpr>(s)) {
    std::string out;
    for (const llvm::SCEV* o : m->operands()) out += (out.empty() ? "" : "·") + describeStride(o);
    return out;
  }
  if (const auto* a = llvm::dyn_cast<llvm::SCEVAddExpr>(s)) {
    std::string out;
    for (const llvm::SCEV* o : a->operands()) out += (out.empty() ? "" : " + ") + describeStride(o);
    return "(" + out + ")";
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  s->print(os);
  return text;
}

std::string typeName(const llvm::Type* t) {
  if (t->isFloatTy()) return "f32";
  if (t->isDoubleTy()) return "f64";
  if (t->isHalfTy()) return "f16";
  if (t->isBFloatTy()) return "bf16";
  if (t->isIntegerTy()) return "i" + std::to_string(t->getIntegerBitWidth());
  if (t->isPointerTy()) return "ptr";
  if (const auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t))
    return "<" + std::to_string(v->getNumElements()) + " x " + typeName(v->getElementType()) + ">";
  return "aggregate";
}

std::string spaceName(unsigned as) {
  switch (as) {
    case 1:
      return "global";
    case 3:
      return "shared";
    case 4:
      return "constant";
    case 5:
      return "local";
    default:
      return "generic";
  }
}

/// The address space a pointer really points into: its own, or for a generic pointer the
/// space it was converted from (an addrspacecast, or the `cvta.<space>` of inline PTX, the
/// way Rust declares shared memory), a kernel parameter (global: the NVPTX back end lowers
/// kernel pointer parameters to the global space), or an alloca (local).
void placePointer(const llvm::Value* ptr, MemoryAccess& a) {
  const unsigned as = ptr->getType()->getPointerAddressSpace();
  a.space = spaceName(as);
  if (as != 0) return;
  const llvm::Value* v = ptr;
  for (int depth = 0; depth < 64; ++depth) {
    if (const auto* cast = llvm::dyn_cast<llvm::AddrSpaceCastOperator>(v)) {
      a.space = spaceName(cast->getSrcAddressSpace());
      a.throughGeneric = a.space != "generic";
      return;
    }
    if (const auto* gep = llvm::dyn_cast<llvm::GEPOperator>(v)) {
      v = gep->getPointerOperand();
      continue;
    }
    break;
  }
  const llvm::Value* base = llvm::getUnderlyingObject(ptr, 0);
  if (const auto* call = llvm::dyn_cast<llvm::CallBase>(base)) {
    if (const auto* asmCall = llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand())) {
      const llvm::StringRef text = asmCall->getAsmString();
      for (const char* sp : {"shared", "global", "local", "const"})
        if (text.contains(std::string("cvta.") + sp)) {
          a.space = std::string(sp) == "const" ? "constant" : sp;
          a.throughGeneric = true;
          return;
        }
    }
    return;
  }
  if (const auto* arg = llvm::dyn_cast<llvm::Argument>(base)) {
    if (arg->getParent()->getCallingConv() == llvm::CallingConv::PTX_Kernel) a.space = "global";
    return;
  }
  if (llvm::isa<llvm::AllocaInst>(base)) a.space = "local";
  if (const auto* g = llvm::dyn_cast<llvm::GlobalValue>(base))
    if (g->getAddressSpace() != 0) a.space = spaceName(g->getAddressSpace());
}

/// Whether `v`'s value is computed from a thread-index register (through at most a few
/// hundred instructions of its operands).
bool reachesThreadIndex(const llvm::Value* v) {
  std::vector<const llvm::Value*> work{v};
  std::set<const llvm::Value*> seen{v};
  for (size_t i = 0; i < work.size() && i < 512; ++i) {
    if (isThreadIndex(work[i])) return true;
    const auto* inst = llvm::dyn_cast<llvm::Instruction>(work[i]);
    if (!inst || llvm::isa<llvm::LoadInst>(inst)) continue;
    for (const llvm::Value* op : inst->operands())
      if (seen.insert(op).second) work.push_back(op);
  }
  return false;
}

class Analyzer {
 public:
  Analyzer(const LineMap& map, AccessFacts& out) : map_(map), out_(out) {}

  void function(llvm::Function& f, llvm::FunctionAnalysisManager& fam) {
    auto& se = fam.getResult<llvm::ScalarEvolutionAnalysis>(f);
    auto& ui = fam.getResult<llvm::UniformityInfoAnalysis>(f);
    const llvm::DataLayout& dl = f.getParent()->getDataLayout();
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& inst : bb) {
        if (const auto* br = llvm::dyn_cast<llvm::BranchInst>(&inst); br && br->isConditional())
          branch(f, inst, br->getCondition(), ui);
        if (const auto* sw = llvm::dyn_cast<llvm::SwitchInst>(&inst))
          branch(f, inst, sw->getCondition(), ui);
        const llvm::Value* ptr = nullptr;
        const llvm::Type* type = nullptr;
        std::string op;
        if (const auto* l = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
          ptr = l->getPointerOperand(), type = l->getType(), op = "load";
        } else if (const auto* s = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
          ptr = s->getPointerOperand(), type = s->getValueOperand()->getType(), op = "store";
        } else if (const auto* r = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) {
          ptr = r->getPointerOperand(), type = r->getValOperand()->getType(), op = "atomic";
        } else if (const auto* x = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) {
          ptr = x->getPointerOperand(), type = x->getNewValOperand()->getType(), op = "atomic";
        }
        if (!ptr) continue;
        MemoryAccess a;
        if (!place(inst, a)) continue;
        a.function = f.getName().str();
        a.op = op;
        a.type = typeName(type);
        a.bytes = uint32_t(dl.getTypeStoreSize(const_cast<llvm::Type*>(type)).getFixedValue());
        if (const auto* v = llvm::dyn_cast<llvm::FixedVectorType>(type))
          a.lanes = v->getNumElements();
        placePointer(ptr, a);
        classify(ptr, se, ui, a);
        out_.accesses.push_back(std::move(a));
      }
  }

 private:
  /// The Rust line of `inst` and the user call sites it was inlined through; false when
  /// it has none.
  template <typename T>
  bool place(const llvm::Instruction& inst, T& fact) {
    const llvm::DILocation* loc = inst.getDebugLoc().get();
    if (!loc) return false;
    const LineOrigin o = map_.attributeChain(chains_.of(loc));
    if (o.attribution != Attribution::Direct) return false;
    fact.line = {o.user.file, o.user.line};
    for (const Frame& f : o.outerUserFrames) fact.callSites.push_back({f.file, f.line});
    return true;
  }

  void branch(llvm::Function& f, const llvm::Instruction& term, const llvm::Value* cond,
              llvm::UniformityInfo& ui) {
    if (!ui.hasDivergentTerminator(*term.getParent())) return;
    DivergentBranch b;
    // A branch without a location takes its condition's.
    const auto* condInst = llvm::dyn_cast<llvm::Instruction>(cond);
    if (!place(term, b) && !(condInst && place(*condInst, b))) return;
    b.function = f.getName().str();
    b.onThreadIndex = reachesThreadIndex(cond);
    out_.branches.push_back(std::move(b));
  }

  void classify(const llvm::Value* ptr, llvm::ScalarEvolution& se, llvm::UniformityInfo& ui,
                MemoryAccess& a) {
    if (!se.isSCEVable(ptr->getType())) return;
    const llvm::SCEV* s = ExtendLeaves(se).visit(se.getSCEV(const_cast<llvm::Value*>(ptr)));
    if (!containsUnknown(s, isTidX)) {
      a.dependsOnTidYZ = containsUnknown(s, isTidYZ);
      // No thread index in the expression: the same for the warp, unless a part of it is a
      // value the threads loaded (opaque to ScalarEvolution; UniformityAnalysis knows).
      const bool loaded = llvm::SCEVExprContains(s, [&](const llvm::SCEV* e) {
        const auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(e);
        return u && llvm::isa<llvm::Instruction>(u->getValue()) &&
               !llvm::isa<llvm::CallBase>(u->getValue()) && ui.isDivergent(u->getValue());
      });
      if (!a.dependsOnTidYZ && loaded) {
        a.dataDependent = true;
        return;
      }
      uniform(a);
      return;
    }
    // The address of lane tid.x + 1 less that of lane tid.x. The thread index is below
    // 1024, so adding one wraps in no width.
    llvm::ValueToSCEVMapTy next;
    llvm::SCEVExprContains(s, [&](const llvm::SCEV* e) {
      if (const auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(e); u && isTidX(u->getValue()))
        next[u->getValue()] =
            se.getAddExpr(u, se.getOne(u->getType()),
                          llvm::SCEV::NoWrapFlags(llvm::SCEV::FlagNUW | llvm::SCEV::FlagNSW));
      return false;
    });
    const llvm::SCEV* s1 = llvm::SCEVParameterRewriter::rewrite(s, se, next);
    const llvm::SCEV* delta = se.getMinusSCEV(s1, s);
    if (llvm::isa<llvm::SCEVCouldNotCompute>(delta) || containsUnknown(delta, isTidX)) return;
    if (const auto* c = llvm::dyn_cast<llvm::SCEVConstant>(delta)) {
      const int64_t stride = c->getAPInt().getSExtValue();
      if (stride == 0) return uniform(a);
      a.strideBytes = stride;
      a.sectors = sectorsPerRequest(stride, a.bytes);
      a.idealSectors = sectorsPerRequest(a.bytes, a.bytes);
      if (a.space == "shared") a.bankWays = bankConflictWays(stride, a.bytes);
      a.pattern = stride == int64_t(a.bytes) ? AccessPattern::Coalesced : AccessPattern::Strided;
      return;
    }
    // A stride known only at run time: in elements where it divides evenly.
    a.pattern = AccessPattern::Strided;
    const llvm::SCEV* elems = se.getUDivExactExpr(delta, se.getConstant(delta->getType(), a.bytes));
    const bool even = se.getMulExpr(elems, se.getConstant(delta->getType(), a.bytes)) == delta;
    a.symbolicStride = describeStride(even ? elems : delta);
    a.symbolicInBytes = !even;
  }

  static void uniform(MemoryAccess& a) {
    a.pattern = AccessPattern::Uniform;
    a.strideBytes = 0;
    a.sectors = a.idealSectors = sectorsPerRequest(0, a.bytes);
    if (a.space == "shared") a.bankWays = 1;
  }

  const LineMap& map_;
  AccessFacts& out_;
  DebugChains chains_;
};

}  // namespace

AccessFacts analyzeAccesses(llvm::Module& module, const std::vector<std::string>& functions,
                            const LineMap& lineMap, const std::string& arch) {
  AccessFacts out;
  // The NVPTX target's TTI names the thread-index registers as divergence sources; without
  // it, UniformityAnalysis would call every branch uniform.
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = nvptxTargetMachine(module, arch, 3, error);
  if (!tm) {
    out.error = error;
    return out;
  }
  llvm::PassBuilder pb(tm.get());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  Analyzer analyzer(lineMap, out);
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    if (!functions.empty() &&
        std::find(functions.begin(), functions.end(), f.getName().str()) == functions.end())
      continue;
    analyzer.function(f, fam);
    // Its analyses are freed at once: the next function's reuse the memory, and none of
    // them reads another function's.
    fam.clear(f, f.getName());
  }
  out.analyzed = true;
  return out;
}

namespace {

AccessFacts analyzeBitcode(const llvm::SmallVector<char, 0>& bitcode, const LineMap& lineMap,
                           const std::string& arch) {
  llvm::LLVMContext context;
  auto module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "access"), context);
  if (!module) {
    AccessFacts out;
    out.error =
        "the LLVM IR does not read back from bitcode: " + llvm::toString(module.takeError());
    return out;
  }
  return analyzeAccesses(**module, {}, lineMap, arch);
}

}  // namespace

std::shared_future<AccessFacts> analyzeAccessesAside(const llvm::Module& module,
                                                     std::shared_ptr<const LineMap> lineMap,
                                                     const std::string& arch) {
  // Bitcode, not a clone (a clone lives in the module's own context) nor the IR text again
  // (at 80 kernels, parsing the text takes 0.09 s; writing and reading bitcode 0.06 s).
  auto bitcode = std::make_shared<llvm::SmallVector<char, 0>>();
  {
    llvm::raw_svector_ostream os(*bitcode);
    llvm::WriteBitcodeToFile(module, os);
  }
  return std::async(std::launch::async,
                    [bitcode = std::move(bitcode), lineMap = std::move(lineMap), arch]() mutable {
                      AccessFacts out = analyzeBitcode(*bitcode, *lineMap, arch);
                      bitcode.reset();  // freed as soon as it has served, not with the future
                      lineMap.reset();
                      return out;
                    })
      .share();
}

AccessFacts accessesOf(const AccessFacts& all, const std::vector<std::string>& functions) {
  const auto named = [&](const std::string& f) {
    return std::find(functions.begin(), functions.end(), f) != functions.end();
  };
  AccessFacts out;
  out.analyzed = all.analyzed;
  out.error = all.error;
  for (const auto& a : all.accesses)
    if (named(a.function)) out.accesses.push_back(a);
  for (const auto& b : all.branches)
    if (named(b.function)) out.branches.push_back(b);
  return out;
}

AccessFacts analyzeAccesses(std::string_view irText, const std::vector<std::string>& functions,
                            const LineMap& lineMap, const std::string& arch) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic err;
  auto module =
      llvm::parseAssemblyString(llvm::StringRef(irText.data(), irText.size()), err, context);
  if (!module) {
    AccessFacts out;
    out.error = "the LLVM IR does not parse: " + err.getMessage().str();
    return out;
  }
  return analyzeAccesses(*module, functions, lineMap, arch);
}

}  // namespace ks
