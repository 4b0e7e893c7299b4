// PTX lines against the PTX ISA tables: instructions, modifiers, directives, special registers. See
// InstructionDocs.h.
#include <algorithm>
#include <cctype>
#include <string>

#include "Decoding.h"
#include "TextUtil.h"

namespace ks::docs {

namespace {

std::string_view sectionCategory(std::string_view section) {
  if (section == "integer") return "integer arithmetic";
  if (section == "extended") return "extended-precision integer arithmetic";
  if (section == "float") return "floating point";
  if (section == "half") return "half-precision floating point";
  if (section == "mixed") return "mixed-precision floating point";
  if (section == "compare") return "comparison and selection";
  if (section == "half-compare") return "half-precision comparison";
  if (section == "logic") return "logic and shift";
  if (section == "data") return "data movement and conversion";
  if (section == "texture") return "texture";
  if (section == "surface") return "surface";
  if (section == "control") return "control flow";
  if (section == "sync") return "synchronization and communication";
  if (section == "mma") return "warp-level matrix multiply-accumulate";
  if (section == "wgmma") return "warpgroup matrix multiply-accumulate";
  if (section == "tcgen05") return "5th-generation tensor core";
  if (section == "stack") return "stack manipulation";
  if (section == "video") return "video";
  return "miscellaneous";
}

bool isPtxType(std::string_view m) {
  static constexpr std::string_view kTypes[] = {
      ".pred",   ".b8",     ".b16",    ".b32",    ".b64",    ".b128",   ".u8",   ".u16",
      ".u32",    ".u64",    ".s8",     ".s16",    ".s32",    ".s64",    ".f16",  ".f16x2",
      ".bf16",   ".bf16x2", ".tf32",   ".f32",    ".f32x2",  ".f64",    ".e4m3", ".e5m2",
      ".e4m3x2", ".e5m2x2", ".e2m1x2", ".e2m3x2", ".e3m2x2", ".ue8m0x2"};
  return std::find(std::begin(kTypes), std::end(kTypes), m) != std::end(kTypes);
}

bool isHalfType(std::string_view t) {
  return t == ".f16" || t == ".f16x2" || t == ".bf16" || t == ".bf16x2";
}
bool isFloatType(std::string_view t) {
  return t == ".f32" || t == ".f64" || t == ".f32x2" || isHalfType(t);
}

/// The part of a dotted modifier that names it for lookup: ".sp::ordered_metadata" -> "sp".
std::string_view nameOfPart(std::string_view part) { return part.substr(0, part.find("::")); }

/// Chooses the index entry for an opcode: the longest dotted prefix with an entry, and
/// among entries of the same name the one whose section fits the operand types.
const PtxInstruction* findPtxInstruction(const std::vector<std::string_view>& parts,
                                         const std::vector<std::string_view>& types, size_t& used) {
  auto table = docs::ptxInstructions();
  for (size_t n = parts.size(); n >= 1; --n) {
    std::string name;
    for (size_t i = 0; i < n; ++i) name += (i ? "." : "") + std::string(nameOfPart(parts[i]));
    std::vector<const PtxInstruction*> candidates;
    for (const auto& e : table)
      if (e.name == name) candidates.push_back(&e);
    if (candidates.empty()) continue;
    used = n;
    if (candidates.size() == 1) return candidates.front();
    bool half = std::any_of(types.begin(), types.end(), isHalfType);
    bool f32 = std::any_of(types.begin(), types.end(),
                           [](std::string_view t) { return t == ".f32" || t == ".f64"; });
    bool anyFloat = std::any_of(types.begin(), types.end(), isFloatType);
    std::string_view want = half && f32 ? "mixed" : half ? "half" : anyFloat ? "float" : "integer";
    if (name == "set" || name == "setp") want = half ? "half-compare" : "compare";
    for (const auto* c : candidates)
      if (c->section == want) return c;
    if (want == "mixed")  // only add, sub and fma have mixed-precision forms
      for (const auto* c : candidates)
        if (c->section == "half") return c;
    return candidates.front();
  }
  return nullptr;
}

/// What a special register operand (`%ctaid.x`, `%laneid`) is, or empty.
std::string specialRegisterMeaning(std::string_view op) {
  if (!op.starts_with("%")) return {};
  std::string_view base = op;
  std::string_view axis;
  if (auto dot = op.find('.'); dot != std::string_view::npos) {
    base = op.substr(0, dot);
    axis = op.substr(dot + 1);
  }
  const Entry* e = findEntry(docs::ptxSpecialRegisters(), base);
  if (!e) {
    // Numbered families: %pm3, %pm3_64, %envreg7.
    std::string_view trimmed = base;
    while (!trimmed.empty() && std::isdigit(static_cast<unsigned char>(trimmed.back())))
      trimmed.remove_suffix(1);
    if (base.starts_with("%pm") && base.ends_with("_64"))
      e = findEntry(docs::ptxSpecialRegisters(), "%pm0_64");
    else if (trimmed == "%pm")
      e = findEntry(docs::ptxSpecialRegisters(), "%pm0");
    else if (trimmed == "%envreg")
      e = findEntry(docs::ptxSpecialRegisters(), "%envreg");
  }
  if (!e) return {};
  std::string s = std::string(op);
  if (!axis.empty()) s += " (the " + std::string(axis) + " component of " + std::string(base) + ")";
  return s + ": " + std::string(e->meaning);
}

std::string describeMatrixShape(std::string_view part) {
  // ".m16n8k16" -> "matrix shape M=16, N=8, K=16".
  std::string_view s = part.substr(1);
  if (s.size() < 4 || s[0] != 'm') return {};
  auto n = s.find('n'), k = s.find('k');
  if (n == std::string_view::npos || k == std::string_view::npos || !(n < k)) return {};
  std::string_view m = s.substr(1, n - 1), nn = s.substr(n + 1, k - n - 1), kk = s.substr(k + 1);
  auto digits = [](std::string_view v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || c == 'N';
    });
  };
  if (!digits(m) || !digits(nn) || !digits(kk)) return {};
  return "matrix shape M=" + std::string(m) + ", N=" + std::string(nn) + ", K=" + std::string(kk);
}

/// The meaning of one PTX modifier in the context of its instruction.
std::string ptxModifierMeaning(std::string_view base, std::string_view part) {
  std::string_view bare = part.substr(1);
  if (base == "setp" || base == "set" || base == "slct" || base == "vset" || base == "vset2" ||
      base == "vset4") {
    if (const Entry* c = findEntry(docs::ptxComparisons(), bare))
      return "compare: " + std::string(c->meaning);
    if (bare == "and" || bare == "or" || bare == "xor")
      return "combine the comparison with the predicate operand by " +
             std::string(bare == "and"  ? "AND"
                         : bare == "or" ? "OR"
                                        : "XOR");
  }
  if ((base == "bar" || base == "barrier") && bare == "sync")
    return "wait until all threads of the block (or the given count) have arrived; __syncthreads";
  if (base == "bra" && bare == "uni")
    return "the branch is uniform: all active threads of the warp take the same way";
  if (base == "cvta" && bare == "to")
    return "convert from a generic address to the named state space";
  if (base == "membar" && bare == "gl")
    return "order memory accesses as seen by all threads of the GPU";
  if (base == "fence" && bare == "proxy")
    return "a proxy fence: orders accesses made through different memory proxies";
  if ((base == "cvt" || base == "cvt.pack") && bare == "sat")
    return "saturate: clamp to the destination type's range";
  if (base == "ld" || base == "st" || base == "atom" || base == "red") {
    if (bare == "v2" || bare == "v4" || bare == "v8")
      return "a vector of " + std::string(bare.substr(1)) +
             " elements in one access (the address must be aligned to its size)";
  }
  if (const Entry* e = findEntry(docs::ptxModifiers(), part)) return std::string(e->meaning);
  if (auto shape = describeMatrixShape(part); !shape.empty()) return shape;
  if (bare == "x1" || bare == "x2" || bare == "x4" || bare == "x8" || bare == "x16" ||
      bare == "x32" || bare == "x64" || bare == "x128")
    return "repeat the operation " + std::string(bare.substr(1)) +
           " times (number of matrices or columns)";
  if (bare == "trans") return "transpose the matrices";
  if (bare == "row" || bare == "col")
    return std::string(bare == "row" ? "row-major" : "column-major") + " layout";
  if (bare == "1d" || bare == "2d" || bare == "3d" || bare == "4d" || bare == "5d")
    return "a " + std::string(bare) + " tensor";
  if (bare == "parity") return "wait on the phase given by its parity rather than a state token";
  if (bare.starts_with("cta_group::"))
    return "the number of blocks (CTAs) that take part: " + std::string(bare.substr(11));
  if (bare.starts_with("kind::")) return "the kind of operands: " + std::string(bare.substr(6));
  if (bare.starts_with("mbarrier::complete_tx::"))
    return "completion is signalled on an mbarrier as bytes transferred";
  if (bare == "multicast::cluster") return "deliver the data to several blocks of the cluster";
  if (bare.starts_with("shared::"))
    return "shared memory (" + std::string(bare.substr(8)) + " window)";
  return {};
}

std::string ptxOperands(std::string_view base, std::string_view rest) {
  auto ops = splitOperands(rest);
  if (ops.empty()) return {};
  static constexpr std::string_view kNoDestination[] = {"st",
                                                        "red",
                                                        "sust",
                                                        "sured",
                                                        "prefetch",
                                                        "prefetchu",
                                                        "bar",
                                                        "barrier",
                                                        "bra",
                                                        "call",
                                                        "ret",
                                                        "exit",
                                                        "trap",
                                                        "membar",
                                                        "fence",
                                                        "cp",
                                                        "st.async",
                                                        "st.bulk",
                                                        "multimem.st",
                                                        "multimem.red",
                                                        "mbarrier.init",
                                                        "mbarrier.inval",
                                                        "nanosleep",
                                                        "wmma.store",
                                                        "stmatrix",
                                                        "discard",
                                                        "applypriority",
                                                        "bar.warp.sync",
                                                        "brx.idx",
                                                        "pmevent",
                                                        "tcgen05.st"};
  bool noDest = std::find(std::begin(kNoDestination), std::end(kNoDestination), base) !=
                std::end(kNoDestination);
  std::string out;
  auto joined = [&](size_t from) {
    std::string s;
    for (size_t i = from; i < ops.size(); ++i) s += (i > from ? ", " : "") + std::string(ops[i]);
    return s;
  };
  if (noDest)
    out = joined(0);
  else if (ops.size() == 1)
    out = "destination " + std::string(ops[0]);
  else
    out = "destination " + std::string(ops[0]) + "; sources " + joined(1);
  for (auto op : ops) {
    if (op.starts_with("[")) out += "; " + std::string(op) + " is a memory address";
    if (auto sr = specialRegisterMeaning(op); !sr.empty()) out += "; " + sr;
  }
  if (std::any_of(ops.begin(), ops.end(),
                  [](std::string_view o) { return o.find('|') != std::string_view::npos; }))
    out += "; p|q writes the result to p and its negation to q";
  return out;
}

std::optional<InstructionDoc> describePtxDirective(std::string_view line) {
  std::string_view rest = line;
  std::string_view first = takeWord(rest);
  // `.visible .entry saxpy(`: the declaration is the second word, the first qualifies it.
  std::vector<std::string> words{std::string(first)};
  while (!rest.empty() && rest.front() == '.' && first != ".section") {
    std::string w(takeWord(rest));
    if (w == ".align" && !rest.empty() && std::isdigit(static_cast<unsigned char>(rest.front())))
      w += " " + std::string(takeWord(rest));  // `.align 4` is one qualifier
    words.push_back(w);
  }
  std::string_view main = first;
  for (const auto& w : words)
    if (w == ".entry" || w == ".func") main = w;
  const Entry* e = findEntry(docs::ptxDirectives(), main);
  if (!e) e = findEntry(docs::ptxDirectives(), first);
  if (!e) return std::nullopt;
  InstructionDoc d;
  d.stage = Stage::Ptx;
  d.mnemonic = std::string(e->name);
  d.written = std::string(first);
  d.category = "directive";
  d.summary = std::string(e->meaning);
  const bool declaration = main == ".param" || main == ".reg" || main == ".shared" ||
                           main == ".global" || main == ".const" || main == ".local";
  for (const auto& w : words) {
    if (w == main) continue;
    std::string meaning;
    if (w.starts_with(".align "))
      meaning = w.substr(7) + "-byte aligned";
    else if (isPtxType(w))
      meaning = ptxModifierMeaning("", w);
    else if (w == ".ptr")
      meaning = findEntry(docs::ptxDirectives(), w)->meaning;
    else if (declaration && !ptxModifierMeaning("", w).empty())
      meaning = ptxModifierMeaning("", w);  // `.ptr .global`
    else if (const Entry* m = findEntry(docs::ptxDirectives(), w))
      meaning = m->meaning;
    else
      meaning = ptxModifierMeaning("", w);
    d.modifiers.push_back({w, meaning});
  }
  rest = stripTrailingSemicolon(rest);
  while (!rest.empty() && (rest.back() == ',' || rest.back() == '('))
    rest = text::trim(rest.substr(0, rest.size() - 1));
  if (main == ".loc") {
    auto nums = split(rest, ' ');
    std::vector<std::string_view> fields;
    for (auto n : nums)
      if (!text::trim(n).empty()) fields.push_back(text::trim(n));
    if (fields.size() >= 3)
      d.operands = "file " + std::string(fields[0]) + ", line " + std::string(fields[1]) +
                   ", column " + std::string(text::trim(fields[2].substr(0, fields[2].find(',')))) +
                   (fields[1] == "0" ? " (line 0: code the compiler made up)" : "");
  } else if (main == ".reg") {
    if (auto lt = rest.find('<'); lt != std::string_view::npos) {
      auto gt = rest.find('>', lt);
      std::string_view name = text::trim(rest.substr(0, lt));
      if (gt != std::string_view::npos) {
        std::string_view count = rest.substr(lt + 1, gt - lt - 1);
        d.operands = std::string(name) + "<" + std::string(count) + "> declares " +
                     std::string(count) + " registers " + std::string(name) + "0.." +
                     std::string(name) + (count == "0" ? "0" : "N-1");
        if (auto n = text::parseUint(count); n && *n > 0)
          d.operands = std::string(name) + "<" + std::string(count) + "> declares " +
                       std::string(name) + "0.." + std::string(name) + std::to_string(*n - 1);
      }
    } else if (!rest.empty()) {
      d.operands = "declares " + std::string(rest);
    }
  } else if (!rest.empty()) {
    d.operands = std::string(rest);
  }
  return d;
}

}  // namespace

std::optional<InstructionDoc> describePtx(std::string_view raw) {
  std::string_view line = stripTrailingSemicolon(stripLineComment(raw));
  if (line.empty()) return std::nullopt;
  if (line == "{" || line == "}") {
    InstructionDoc d;
    d.stage = Stage::Ptx;
    d.mnemonic = "{}";
    d.written = std::string(line);
    d.category = "control flow";
    d.summary =
        "A brace of a function body or of a block that scopes the registers declared in it.";
    d.minPtx = "1.0";
    d.minSm = "all targets";
    return d;
  }
  if (isLabelLine(line))
    return labelDoc(Stage::Ptx, line,
                    "A label: a branch target (LLVM names a function's basic blocks "
                    "$L__BB<function>_<block>).");
  if (line.front() == '.') return describePtxDirective(line);
  if (line.front() == ')' || line.front() == '(') return std::nullopt;

  std::string_view rest = line;
  InstructionDoc d;
  d.stage = Stage::Ptx;
  std::optional<ModifierDoc> guard;
  if (rest.front() == '@') {
    std::string_view g = takeWord(rest);
    bool negated = g.size() > 1 && g[1] == '!';
    std::string_view pred = g.substr(negated ? 2 : 1);
    guard =
        ModifierDoc{std::string(g), "guard: runs only in the threads where " + std::string(pred) +
                                        " is " + (negated ? "false" : "true")};
  }
  std::string_view opcode = takeWord(rest);
  if (opcode.empty()) return std::nullopt;
  auto parts = split(opcode, '.');
  std::vector<std::string_view> types;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view m(parts[i].data() - 1, parts[i].size() + 1);
    if (isPtxType(m)) types.push_back(m);
  }
  size_t used = 0;
  const PtxInstruction* entry = findPtxInstruction(parts, types, used);
  if (!entry) return std::nullopt;
  d.mnemonic = std::string(entry->name);
  d.written = std::string(opcode);
  d.category = std::string(sectionCategory(entry->section));
  d.summary = std::string(entry->summary);
  d.minPtx = std::string(entry->minPtx);
  d.minSm = std::string(entry->minSm);
  if (guard) d.modifiers.push_back(*guard);
  std::string_view base = entry->name;
  size_t typeIndex = 0;
  for (size_t i = used; i < parts.size(); ++i) {
    std::string_view part(parts[i].data() - 1, parts[i].size() + 1);  // with its leading '.'
    std::string meaning = ptxModifierMeaning(base, part);
    if (isPtxType(part) && types.size() >= 2) {
      meaning = (typeIndex == 0 ? "destination type: " : "source type: ") + meaning;
      ++typeIndex;
    } else if (isPtxType(part) && (base == "setp" || base == "set")) {
      meaning = "compared as " + meaning;
    }
    d.modifiers.push_back({std::string(part), meaning});
  }
  d.operands =
      ptxOperands(base.starts_with("cp.") || base.starts_with("multimem.cp.") ? "cp" : base, rest);
  if (base == "ld" || base == "st" || base == "atom" || base == "red") {
    bool space = std::any_of(d.modifiers.begin(), d.modifiers.end(), [](const ModifierDoc& m) {
      return m.text == ".global" || m.text.starts_with(".shared") || m.text == ".local" ||
             m.text.starts_with(".param") || m.text == ".const";
    });
    if (!space)
      d.operands +=
          "; no state space given: the address is generic and the hardware finds the space at run "
          "time";
  }
  return d;
}

}  // namespace ks::docs
