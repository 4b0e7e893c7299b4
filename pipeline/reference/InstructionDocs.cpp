// InstructionDocs: decodes one line of MIR, LLVM IR, PTX or SASS against the reference
// tables and says what its instruction and each of its modifiers mean.
//
// The decoders read the text as the tools print it (the same text the parsers see), so
// the CLI and the server can explain any line of any stage without re-parsing an
// artifact. They never fail loudly: a part they do not know is listed without a meaning.
#include "InstructionDocs.h"

#include <algorithm>
#include <cctype>

#include "InstructionTables.h"
#include "TextUtil.h"

namespace ks {

namespace {

using docs::Entry;
using docs::Opcode;
using docs::PtxInstruction;

// ---------------------------------------------------------------------------------------
// Small text helpers.

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

/// Splits operands at top-level commas (not inside brackets, braces or parentheses).
std::vector<std::string_view> splitOperands(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth <= 0) {
      auto op = text::trim(s.substr(start, i - start));
      if (!op.empty()) out.push_back(op);
      start = i + 1;
    }
  }
  return out;
}

/// Takes the first blank-separated word of `s` and advances past it.
std::string_view takeWord(std::string_view& s) {
  text::skipBlanks(s);
  size_t n = 0;
  while (n < s.size() && s[n] != ' ' && s[n] != '\t') ++n;
  std::string_view w = s.substr(0, n);
  s.remove_prefix(n);
  text::skipBlanks(s);
  return w;
}

std::string_view stripTrailingSemicolon(std::string_view s) {
  s = text::trim(s);
  while (!s.empty() && s.back() == ';') s = text::trim(s.substr(0, s.size() - 1));
  return s;
}

std::string_view stripLineComment(std::string_view s) {
  // A `//` inside a string literal (a .file path, a .pragma) is not a comment.
  bool inString = false;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '"') inString = !inString;
    if (!inString && s[i] == '/' && s[i + 1] == '/') return s.substr(0, i);
  }
  return s;
}

template <typename Table>
const Entry* findEntry(const Table& table, std::string_view name) {
  for (const Entry& e : table)
    if (e.name == name) return &e;
  return nullptr;
}

const Opcode* findOpcode(std::span<const Opcode> table, std::string_view name) {
  for (const Opcode& o : table)
    if (o.name == name) return &o;
  return nullptr;
}

bool isLabelLine(std::string_view s) {
  if (s.size() < 2 || s.back() != ':') return false;
  for (char c : s.substr(0, s.size() - 1))
    if (c == ' ' || c == '\t' || c == ',' || c == '(') return false;
  return true;
}

InstructionDoc labelDoc(Stage stage, std::string_view label, std::string_view what) {
  InstructionDoc d;
  d.stage = stage;
  d.mnemonic = "label";
  d.written = std::string(label);
  d.category = "label";
  d.summary = std::string(what);
  return d;
}

// ---------------------------------------------------------------------------------------
// PTX.

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

// ---------------------------------------------------------------------------------------
// SASS.

std::string_view sassDirectiveMeaning(std::string_view w) {
  if (w == ".section") return "An ELF section of the cubin.";
  if (w == ".align") return "Aligns what follows to a byte boundary.";
  if (w == ".global") return "The symbol is visible outside the cubin.";
  if (w == ".type") return "The kind of a symbol (function or object).";
  if (w == ".size") return "The size of a symbol in bytes.";
  if (w == ".other") return "CUDA symbol attributes (a kernel entry is STO_CUDA_ENTRY).";
  if (w == ".headerflags")
    return "The cubin's ELF header flags: the target architecture, address size, virtual arch.";
  if (w == ".elftype") return "The ELF file type of the cubin.";
  return {};
}

std::string sassOperandNote(std::string_view op) {
  std::string_view o = op;
  if (o.starts_with("-") || o.starts_with("!") || o.starts_with("|") || o.starts_with("~"))
    o.remove_prefix(1);
  if (o.starts_with("c[0x0][")) {
    return std::string(op) +
           ": constant bank 0 (launch constants such as the block and grid sizes first, then the "
           "kernel's "
           "parameters: from 0x210 on sm_90, from 0x160 on sm_70..sm_89)";
  }
  if (o.starts_with("c[")) return std::string(op) + ": a constant bank entry";
  if (o == "RZ") return "RZ: the zero register (reads as 0, writes are dropped)";
  if (o == "URZ") return "URZ: the uniform zero register";
  if (o == "PT") return "PT: the always-true predicate";
  if (o == "UPT") return "UPT: the always-true uniform predicate";
  if (o.starts_with("SR_")) {
    static constexpr std::pair<std::string_view, std::string_view> kSr[] = {
        {"SR_TID", "%tid: the thread's index in its block"},
        {"SR_CTAID", "%ctaid: the block's index in the grid"},
        {"SR_LANEID", "%laneid: the lane within the warp"},
        {"SR_CLOCKLO", "the low word of the cycle counter"},
        {"SR_CLOCKHI", "the high word of the cycle counter"},
        {"SR_GLOBALTIMERLO", "the low word of %globaltimer"},
        {"SR_GLOBALTIMERHI", "the high word of %globaltimer"},
        {"SR_SMID", "%smid: the multiprocessor"},
        {"SR_WARPID", "%warpid"},
        {"SR_LEMASK", "%lanemask_le"},
        {"SR_LTMASK", "%lanemask_lt"},
        {"SR_EQMASK", "%lanemask_eq"},
        {"SR_GEMASK", "%lanemask_ge"},
        {"SR_GTMASK", "%lanemask_gt"},
        {"SR_CgaCtaId", "the block's id within its cluster"},
        {"SR_SWINHI", "the high word of the shared window base"},
    };
    std::string_view name = o.substr(0, o.find('.'));
    for (auto [k, v] : kSr)
      if (name == k) return std::string(op) + ": special register, " + std::string(v);
    return std::string(op) + ": a special register";
  }
  if (o.starts_with("[")) {
    std::string s = std::string(op) + ": a memory address";
    if (o.find(".64") != std::string_view::npos) s += " held in a 64-bit register pair";
    if (o.find("UR") != std::string_view::npos) s += " (with a uniform register part)";
    return s;
  }
  if (o.starts_with("`(")) return std::string(op) + ": the branch target";
  if (o.starts_with("UR") && o.size() > 2 && std::isdigit(static_cast<unsigned char>(o[2])))
    return std::string(op.substr(0, op.find('.'))) +
           ": a uniform register (one value for the whole warp)";
  if (o.starts_with("UP") && o.size() > 2 && std::isdigit(static_cast<unsigned char>(o[2])))
    return std::string(op) + ": a uniform predicate";
  return {};
}

/// The logic function of a LOP3/PLOP3 truth table immediate, where a, b and c are the
/// three sources (their truth-table columns 0xF0, 0xCC and 0xAA).
std::string lutFunction(std::string_view imm) {
  uint32_t v = 0;
  if (!imm.starts_with("0x") || imm.size() > 4) return {};
  for (char c : imm.substr(2)) {
    int d = std::isdigit(static_cast<unsigned char>(c))
                ? c - '0'
                : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    if (d < 0 || d > 15) return {};
    v = v * 16 + static_cast<uint32_t>(d);
  }
  static constexpr std::pair<uint32_t, std::string_view> kKnown[] = {
      {0xf0, "a"},           {0xcc, "b"},           {0xaa, "c"},
      {0x0f, "~a"},          {0x33, "~b"},          {0x55, "~c"},
      {0xc0, "a & b"},       {0xa0, "a & c"},       {0x88, "b & c"},
      {0x80, "a & b & c"},   {0xfc, "a | b"},       {0xfa, "a | c"},
      {0xee, "b | c"},       {0xfe, "a | b | c"},   {0x3c, "a ^ b"},
      {0x5a, "a ^ c"},       {0x66, "b ^ c"},       {0x96, "a ^ b ^ c"},
      {0x30, "a & ~b"},      {0x0c, "~a & b"},      {0x50, "a & ~c"},
      {0x44, "b & ~c"},      {0xea, "(a & b) | c"}, {0xf8, "a | (b & c)"},
      {0xa8, "(a | b) & c"}, {0xe0, "a & (b | c)"}, {0x6a, "(a & b) ^ c"},
      {0x28, "(a ^ b) & c"}, {0x78, "a ^ (b & c)"}, {0xe8, "majority(a, b, c)"},
      {0xca, "a ? b : c"},   {0xd8, "c ? a : b"},   {0xb8, "b ? a : c"},
      {0x00, "0"},           {0xff, "all ones"},
  };
  for (auto [k, f] : kKnown)
    if (k == v) return std::string(f);
  return {};
}

std::optional<InstructionDoc> describeSass(std::string_view raw) {
  std::string_view line = text::trim(raw);
  if (line.empty() || line.starts_with("//")) return std::nullopt;
  // `/*00c0*/   IMAD.WIDE.U32 R2, R7, 0x4, R2 ;   /* 0x... */`
  if (line.starts_with("/*")) {
    auto end = line.find("*/");
    if (end == std::string_view::npos) return std::nullopt;
    line = text::trim(line.substr(end + 2));
  }
  if (auto enc = line.find("/*"); enc != std::string_view::npos)
    line = text::trim(line.substr(0, enc));
  line = stripTrailingSemicolon(line);
  if (line.empty()) return std::nullopt;
  if (isLabelLine(line))
    return labelDoc(Stage::Sass, line, "A label: a branch target or a function's start.");
  if (line.front() == '.') {
    std::string_view rest = line;
    std::string_view w = takeWord(rest);
    auto meaning = sassDirectiveMeaning(w);
    if (meaning.empty()) return std::nullopt;
    InstructionDoc d;
    d.stage = Stage::Sass;
    d.mnemonic = std::string(w);
    d.written = std::string(w);
    d.category = "directive";
    d.summary = std::string(meaning);
    d.operands = std::string(rest);
    return d;
  }
  std::string_view rest = line;
  InstructionDoc d;
  d.stage = Stage::Sass;
  if (rest.front() == '@') {
    std::string_view g = takeWord(rest);
    bool negated = g.size() > 1 && g[1] == '!';
    std::string_view pred = g.substr(negated ? 2 : 1);
    d.modifiers.push_back({std::string(g), "guard: runs only in the threads where " +
                                               std::string(pred) + " is " +
                                               (negated ? "false" : "true")});
  }
  std::string_view opcode = takeWord(rest);
  auto parts = split(opcode, '.');
  const Opcode* op = findOpcode(docs::sassOpcodes(), parts[0]);
  if (!op) return std::nullopt;
  d.mnemonic = std::string(op->name);
  d.written = std::string(opcode);
  d.category = std::string(op->category);
  d.summary = std::string(op->summary);
  for (size_t i = 1; i < parts.size(); ++i) {
    // Two-part modifiers first (".STRONG.GPU", ".U.128").
    if (i + 1 < parts.size()) {
      std::string two = "." + std::string(parts[i]) + "." + std::string(parts[i + 1]);
      if (const Entry* e = findEntry(docs::sassModifiers(), two)) {
        d.modifiers.push_back({two, std::string(e->meaning)});
        ++i;
        continue;
      }
    }
    std::string one = "." + std::string(parts[i]);
    const Entry* e = findEntry(docs::sassModifiers(), one);
    std::string meaning = e ? std::string(e->meaning) : std::string();
    if (one == ".HI" && (op->name == "LEA" || op->name == "ULEA"))
      meaning = "compute the high word of a 64-bit address";
    if (one == ".X" && (op->name == "LEA" || op->name == "ULEA"))
      meaning = "add the carry from the low-word LEA";
    if (one == ".MMA" && op->name == "HFMA2")
      meaning =
          "issued on the tensor-core pipe; ptxas uses HFMA2.MMA to load constants and balance the "
          "units";
    if (one == ".64" && (op->name == "LDC" || op->name == "ULDC"))
      meaning = "loads 64 bits (such as a pointer parameter) into a register pair";
    d.modifiers.push_back({one, meaning});
  }
  std::vector<std::string> notes;
  std::string ops;
  for (auto operand : splitOperands(rest)) {
    if (operand.ends_with(".reuse")) {
      if (std::none_of(d.modifiers.begin(), d.modifiers.end(),
                       [](const ModifierDoc& m) { return m.text == ".reuse"; }))
        d.modifiers.push_back(
            {".reuse", std::string(findEntry(docs::sassModifiers(), ".reuse")->meaning)});
      operand.remove_suffix(6);
    }
    ops += (ops.empty() ? "" : ", ") + std::string(operand);
    if (auto n = sassOperandNote(operand);
        !n.empty() && std::find(notes.begin(), notes.end(), n) == notes.end())
      notes.push_back(n);
  }
  if (op->name == "LOP3" || op->name == "ULOP3" || op->name == "PLOP3" || op->name == "UPLOP3") {
    auto list = splitOperands(rest);
    size_t lutAt = op->name == "LOP3" || op->name == "ULOP3" ? 4 : 5;
    if (list.size() > lutAt)
      if (auto f = lutFunction(list[lutAt]); !f.empty())
        notes.push_back(std::string(list[lutAt]) + ": the truth table of " + f +
                        " (a, b, c being the three sources)");
  }
  if (!ops.empty()) {
    d.operands = ops;
    for (const auto& n : notes) d.operands += "; " + n;
  }
  return d;
}

// ---------------------------------------------------------------------------------------
// LLVM IR.

bool isFlag(std::string_view w) {
  static constexpr std::string_view kLeading[] = {
      "nuw",  "nsw", "exact", "disjoint", "nneg", "samesign", "inbounds", "nusw",  "fast", "nnan",
      "ninf", "nsz", "arcp",  "contract", "afn",  "reassoc",  "volatile", "atomic"};
  return std::find(std::begin(kLeading), std::end(kLeading), w) != std::end(kLeading);
}

std::optional<InstructionDoc> describeLlvmIr(std::string_view raw) {
  std::string_view line = text::trim(raw);
  if (line.empty() || line.front() == ';' || line.front() == '!' || line == "}" ||
      line.starts_with("attributes ") || line.starts_with("source_filename") ||
      line.starts_with("target ") || line.starts_with("%\""))
    return std::nullopt;
  if (auto c = line.find(" ;"); c != std::string_view::npos) line = text::trim(line.substr(0, c));
  if (line.ends_with(":") ||
      (line.find(':') != std::string_view::npos && line.find(' ') == std::string_view::npos &&
       line.find('=') == std::string_view::npos))
    return labelDoc(Stage::LlvmIr, line.substr(0, line.find(':') + 1),
                    "A basic block label: a branch target.");
  InstructionDoc d;
  d.stage = Stage::LlvmIr;
  if (line.starts_with("define ") || line.starts_with("declare ")) {
    bool def = line.starts_with("define ");
    d.mnemonic = def ? "define" : "declare";
    d.written = d.mnemonic;
    d.category = "declaration";
    d.summary = def ? "Defines a function (ptx_kernel marks a kernel entry point)."
                    : "Declares a function defined elsewhere (or an intrinsic).";
    return d;
  }
  // Drop metadata attachments: ", !dbg !39", ", !noundef !10".
  if (auto md = line.find(", !"); md != std::string_view::npos)
    line = text::trim(line.substr(0, md));
  std::string_view rest = line;
  if (rest.starts_with("%") || rest.starts_with("@")) {
    auto eq = rest.find(" = ");
    if (eq == std::string_view::npos) return std::nullopt;
    rest = rest.substr(eq + 3);
  }
  std::string_view opcode = takeWord(rest);
  std::optional<ModifierDoc> tailFlag;
  if (opcode == "tail" || opcode == "musttail" || opcode == "notail") {
    tailFlag = ModifierDoc{std::string(opcode),
                           std::string(findEntry(docs::llvmFlags(), opcode)->meaning)};
    opcode = takeWord(rest);
  }
  const Opcode* op = findOpcode(docs::llvmInstructions(), opcode);
  if (!op) return std::nullopt;
  d.mnemonic = std::string(op->name);
  d.written = std::string(opcode);
  d.category = std::string(op->category);
  d.summary = std::string(op->summary);
  if (tailFlag) d.modifiers.push_back(*tailFlag);
  // Flags come right after the opcode.
  while (!rest.empty()) {
    std::string_view probe = rest;
    std::string_view w = takeWord(probe);
    if (!isFlag(w)) break;
    d.modifiers.push_back({std::string(w), std::string(findEntry(docs::llvmFlags(), w)->meaning)});
    rest = probe;
  }
  if (opcode == "icmp" || opcode == "fcmp" || opcode == "atomicrmw") {
    std::string_view probe = rest;
    std::string_view w = takeWord(probe);
    if (const Entry* e = findEntry(docs::llvmFlags(), w)) {
      std::string prefix = opcode == "atomicrmw" ? "operation: " : "predicate: ";
      std::string meaning(e->meaning);
      if (opcode == "icmp") meaning = meaning.substr(0, meaning.find(" (fcmp"));
      if (opcode == "fcmp" && w.starts_with("u") && w != "uno")
        meaning = "unordered (either is NaN) or " + std::string(w.substr(1));
      d.modifiers.push_back({std::string(w), prefix + meaning});
    }
  }
  if (opcode == "load" || opcode == "store" || opcode == "atomicrmw" || opcode == "cmpxchg" ||
      opcode == "fence") {
    for (auto w : split(rest, ' ')) {
      w = text::trim(w);
      if (w.ends_with(",")) w.remove_suffix(1);
      if (w == "unordered" || w == "monotonic" || w == "acquire" || w == "release" ||
          w == "acq_rel" || w == "seq_cst")
        d.modifiers.push_back(
            {std::string(w), std::string(findEntry(docs::llvmFlags(), w)->meaning)});
      if (w.starts_with("syncscope("))
        d.modifiers.push_back(
            {std::string(w), std::string(findEntry(docs::llvmFlags(), "syncscope")->meaning)});
    }
  }
  if (auto al = rest.find("align "); al != std::string_view::npos &&
                                     (opcode == "load" || opcode == "store" || opcode == "alloca" ||
                                      opcode == "atomicrmw" || opcode == "cmpxchg")) {
    std::string_view n = rest.substr(al + 6);
    n = n.substr(0, n.find_first_of(", "));
    d.modifiers.push_back(
        {"align " + std::string(n), "the access may assume " + std::string(n) + "-byte alignment"});
  }
  if (opcode == "call" || opcode == "invoke" || opcode == "callbr") {
    if (rest.find(" asm ") != std::string_view::npos || rest.starts_with("asm ")) {
      d.summary = "Inline assembly (asm!): the text is pasted into the PTX as written.";
      d.category = "inline assembly";
      return d;
    }
    auto at = rest.find('@');
    if (at != std::string_view::npos) {
      std::string_view callee = rest.substr(at + 1);
      callee = callee.substr(0, callee.find('('));
      const Entry* best = nullptr;
      for (const Entry& e : docs::llvmIntrinsics())
        if (callee.starts_with(e.name) && (!best || e.name.size() > best->name.size())) best = &e;
      if (best) {
        d.mnemonic = std::string(callee);
        d.category = callee.starts_with("llvm.nvvm.") ? "NVPTX intrinsic" : "intrinsic";
        d.summary = std::string(best->meaning);
      } else {
        d.operands = "callee @" + std::string(callee);
      }
    }
  }
  return d;
}

// ---------------------------------------------------------------------------------------
// MIR.

void addMirPart(InstructionDoc& d, std::string_view text, std::string_view kind) {
  if (const Opcode* k = findOpcode(docs::mirKinds(), kind))
    if (std::none_of(d.modifiers.begin(), d.modifiers.end(),
                     [&](const ModifierDoc& m) { return m.text == text; }))
      d.modifiers.push_back({std::string(text),
                             text == kind ? std::string(k->summary)
                                          : std::string(k->name) + ": " + std::string(k->summary)});
}

/// Notes the operand forms and place projections used in `s`.
void addMirOperands(InstructionDoc& d, std::string_view s) {
  if (s.find("copy ") != std::string_view::npos) addMirPart(d, "copy", "copy");
  if (s.find("move ") != std::string_view::npos) addMirPart(d, "move", "move");
  if (s.find("const ") != std::string_view::npos) addMirPart(d, "const", "const");
  if (s.find("(*_") != std::string_view::npos) addMirPart(d, "(*_n)", "Deref");
  if (s.find(": ") != std::string_view::npos && s.find(".") != std::string_view::npos &&
      s.find("(_") != std::string_view::npos)
    addMirPart(d, "(_n.k: T)", "Field");
  if (s.find("[_") != std::string_view::npos) addMirPart(d, "[_n]", "Index");
  if (s.find(" as Some)") != std::string_view::npos ||
      s.find(" as Ok)") != std::string_view::npos || s.find(" as Err)") != std::string_view::npos)
    addMirPart(d, "(_n as Variant)", "Downcast");
}

void addUnwind(InstructionDoc& d, std::string_view s) {
  if (s.find("unwind unreachable") != std::string_view::npos)
    d.modifiers.push_back(
        {"unwind unreachable", "the call cannot unwind here (kernels are built with panic=abort)"});
  else if (s.find("unwind continue") != std::string_view::npos)
    d.modifiers.push_back(
        {"unwind continue", "if the callee unwinds, unwinding continues in the caller"});
  else if (s.find("unwind terminate") != std::string_view::npos)
    d.modifiers.push_back({"unwind terminate", "unwinding out of here aborts"});
  else if (s.find("unwind: bb") != std::string_view::npos)
    d.modifiers.push_back(
        {"unwind: bbN", "if the callee unwinds, cleanup continues at that block"});
}

InstructionDoc mirDoc(std::string_view kind, std::string_view written) {
  InstructionDoc d;
  d.stage = Stage::Mir;
  const Opcode* k = findOpcode(docs::mirKinds(), kind);
  d.mnemonic = std::string(kind);
  d.written = std::string(written);
  if (k) {
    d.category = std::string(k->category);
    d.summary = std::string(k->summary);
  }
  return d;
}

std::optional<InstructionDoc> describeMirRvalue(std::string_view place, std::string_view rv,
                                                std::string_view written) {
  InstructionDoc d;
  auto assign = [&](InstructionDoc doc) {
    doc.modifiers.insert(doc.modifiers.begin(),
                         ModifierDoc{std::string(place) + " = ...",
                                     "Assign: the value is written into " + std::string(place)});
    addMirOperands(doc, place);
    addMirOperands(doc, rv);
    return doc;
  };
  // Calls: `f(args) -> [return: bb1, unwind unreachable]`.
  if (rv.find(") -> [") != std::string_view::npos || rv.find(") -> bb") != std::string_view::npos ||
      rv.find(") -> unwind") != std::string_view::npos) {
    d = mirDoc("call", written);
    std::string_view callee = rv.substr(0, rv.find('('));
    if (callee.find('<') != std::string_view::npos && rv.find(">::") != std::string_view::npos)
      callee = rv.substr(0, rv.find('(', rv.rfind(">::")));
    d.operands = "callee " + std::string(callee) + "; the result goes to " + std::string(place);
    addUnwind(d, rv);
    return assign(d);
  }
  // Operators: `Add(copy _1, copy _2)`, `Not(move _3)`, `SizeOf(T)`.
  if (auto paren = rv.find('('); paren != std::string_view::npos && paren > 0 &&
                                 std::isupper(static_cast<unsigned char>(rv[0]))) {
    std::string_view name = rv.substr(0, paren);
    if (const Opcode* k = findOpcode(docs::mirKinds(), name); k && k->category == "operator") {
      d = mirDoc(name, written);
      std::string_view group = name == "Not" || name == "Neg" || name == "PtrMetadata" ? "UnaryOp"
                               : name == "SizeOf" || name == "AlignOf" || name == "OffsetOf" ||
                                       name == "UbChecks" || name == "ContractChecks"
                                   ? "NullaryOp"
                                   : "BinaryOp";
      addMirPart(d, group, group);
      return assign(d);
    }
    if (name == "Len" || name == "CopyForDeref" || name == "ShallowInitBox") {
      d = mirDoc(name, written);
      return assign(d);
    }
  }
  if (rv.starts_with("discriminant(")) return assign(mirDoc("Discriminant", written));
  if (rv.starts_with("&raw ")) return assign(mirDoc("RawPtr", written));
  if (rv.starts_with("&")) return assign(mirDoc("Ref", written));
  // Casts: `copy _5 as usize (IntToInt)`.
  if (auto as = rv.find(" as ");
      as != std::string_view::npos && rv.ends_with(")") &&
      rv.rfind(" (") != std::string_view::npos &&
      (rv.starts_with("copy ") || rv.starts_with("move ") || rv.starts_with("const "))) {
    std::string_view kind = rv.substr(rv.rfind(" (") + 2);
    kind.remove_suffix(1);
    std::string_view inner = kind.substr(0, kind.find('('));
    d = mirDoc(inner, written);
    if (d.summary.empty()) d = mirDoc("Cast", written);
    addMirPart(d, "Cast", "Cast");
    d.operands = "to " + std::string(rv.substr(as + 4, rv.rfind(" (") - as - 4));
    return assign(d);
  }
  if (rv.starts_with("[") && rv.find("; ") != std::string_view::npos)
    return assign(mirDoc("Repeat", written));
  if (rv.find(" from (") != std::string_view::npos) {
    d = mirDoc("Aggregate", written);
    d.summary =
        "Builds a (fat) raw pointer from a data pointer and its metadata (a slice's length).";
    return assign(d);
  }
  if (rv.starts_with("(") || rv.find(" { ") != std::string_view::npos || rv.ends_with("}") ||
      (rv.find("::") != std::string_view::npos && rv.ends_with(")") &&
       rv.find('(') != std::string_view::npos))
    return assign(mirDoc("Aggregate", written));
  if (rv.starts_with("copy ") || rv.starts_with("move ") || rv.starts_with("const "))
    return assign(mirDoc("Use", written));
  return assign(mirDoc("Assign", written));
}

std::optional<InstructionDoc> describeMir(std::string_view raw) {
  // The later lines of a multi-line asm! template: `cvta.shared.u64 {2}, x;", const ...,
  // options(...)`.
  if (std::string_view t = text::trim(raw); !t.starts_with("asm!(") &&
                                            t.find("\", ") != std::string_view::npos &&
                                            t.find("options(") != std::string_view::npos) {
    InstructionDoc d = mirDoc("asm", "asm!");
    d.summary += " (This line continues the assembly template of the asm! above.)";
    addUnwind(d, t);
    return d;
  }
  std::string_view line = stripTrailingSemicolon(stripLineComment(raw));
  if (line.empty() || line == "{" || line == "}" || line.starts_with("let ") ||
      line.starts_with("debug ") || line.starts_with("scope ") || line.starts_with("fn ") ||
      line.starts_with("const ") || line.starts_with("static "))
    return std::nullopt;
  if (line.starts_with("bb") && line.ends_with("{")) {
    auto d = labelDoc(Stage::Mir, text::trim(line.substr(0, line.size() - 1)),
                      "A basic block: straight-line statements ending in one terminator.");
    if (line.find("(cleanup)") != std::string_view::npos)
      d.summary += " This one is a cleanup block, run while unwinding.";
    return d;
  }
  std::string_view written = line;
  static constexpr std::pair<std::string_view, std::string_view> kPrefixes[] = {
      {"StorageLive(", "StorageLive"},
      {"StorageDead(", "StorageDead"},
      {"ConstEvalCounter", "ConstEvalCounter"},
      {"Nop", "Nop"},
      {"Retag(", "Retag"},
      {"FakeRead(", "FakeRead"},
      {"PlaceMention(", "PlaceMention"},
      {"AscribeUserType(", "AscribeUserType"},
      {"Coverage", "Coverage"},
      {"Deinit(", "Deinit"},
      {"assume(", "Intrinsic"},
      {"copy_nonoverlapping(", "Intrinsic"},
      {"discriminant(", "SetDiscriminant"},
      {"BackwardIncompatibleDropHint", "BackwardIncompatibleDropHint"},
      {"goto", "goto"},
      {"switchInt(", "switchInt"},
      {"return", "return"},
      {"unreachable", "unreachable"},
      {"resume", "resume"},
      {"abort", "abort"},
      {"drop(", "drop"},
      {"assert(", "assert"},
      {"falseEdge", "falseEdge"},
      {"falseUnwind", "falseUnwind"},
      {"yield(", "yield"},
      {"coroutine_drop", "coroutine_drop"},
      {"asm!(", "asm"},
      {"tailcall ", "tailcall"},
  };
  for (auto [prefix, kind] : kPrefixes) {
    if (!line.starts_with(prefix)) continue;
    InstructionDoc d =
        mirDoc(kind, line.substr(0, std::min(line.size(), line.find('(') == std::string_view::npos
                                                              ? line.size()
                                                              : line.find('('))));
    if (kind == "StorageLive" || kind == "StorageDead")
      d.operands = std::string(line.substr(prefix.size(), line.size() - prefix.size() - 1));
    if (kind == "switchInt") {
      addMirOperands(d, line.substr(0, line.find("->")));
      if (auto arrow = line.find("-> ["); arrow != std::string_view::npos)
        d.operands = "targets " + std::string(line.substr(arrow + 3));
    }
    if (kind == "assert") {
      if (line.find("index out of bounds") != std::string_view::npos)
        d.operands = "the bounds check of an index";
      else if (line.find("overflow") != std::string_view::npos)
        d.operands = "an arithmetic overflow check";
      else if (line.find("divide by zero") != std::string_view::npos)
        d.operands = "a division-by-zero check";
      addUnwind(d, line);
    }
    if (kind == "asm") addUnwind(d, line);
    if (kind == "goto")
      d.operands = std::string(
          line.substr(line.find("->") == std::string_view::npos ? 0 : line.find("->") + 3));
    if (kind == "SetDiscriminant" && line.find(" = ") == std::string_view::npos) continue;
    return d;
  }
  // `place = rvalue` (including calls with a destination).
  if (auto eq = line.find(" = "); eq != std::string_view::npos)
    return describeMirRvalue(text::trim(line.substr(0, eq)), text::trim(line.substr(eq + 3)),
                             written);
  // A call without a destination: `f(args) -> [return: bb1, ...]`.
  if (line.find(") -> ") != std::string_view::npos) {
    InstructionDoc d = mirDoc("call", written);
    d.operands = "callee " + std::string(line.substr(0, line.find('(')));
    addMirOperands(d, line);
    addUnwind(d, line);
    return d;
  }
  return std::nullopt;
}

}  // namespace

std::optional<InstructionDoc> describeInstruction(Stage stage, std::string_view lineText) {
  switch (stage) {
    case Stage::Ptx:
      return describePtx(lineText);
    case Stage::Sass:
      return describeSass(lineText);
    case Stage::LlvmIr:
      return describeLlvmIr(lineText);
    case Stage::Mir:
      return describeMir(lineText);
  }
  return std::nullopt;
}

std::string renderPlain(const InstructionDoc& doc) {
  std::string out = doc.written.empty() || doc.written == doc.mnemonic
                        ? doc.mnemonic
                        : doc.written + " (" + doc.mnemonic + ")";
  if (!doc.category.empty()) out += " - " + doc.category;
  out += "\n" + doc.summary + "\n";
  size_t width = 0;
  for (const auto& m : doc.modifiers) width = std::max(width, m.text.size());
  for (const auto& m : doc.modifiers) {
    out += "  " + m.text;
    if (!m.meaning.empty()) out += std::string(width - m.text.size() + 2, ' ') + m.meaning;
    out += "\n";
  }
  if (!doc.operands.empty()) out += "Operands: " + doc.operands + "\n";
  if (!doc.minPtx.empty()) out += "Needs PTX ISA " + doc.minPtx + ", " + doc.minSm + ".\n";
  return out;
}

std::string renderOneLine(const InstructionDoc& doc) {
  std::string out = doc.mnemonic + ": " + doc.summary;
  std::string mods;
  for (const auto& m : doc.modifiers) {
    if (m.meaning.empty()) continue;
    if (doc.stage == Stage::Mir &&
        (m.text.ends_with("= ...") || m.text == "copy" || m.text == "move" || m.text == "const" ||
         m.text == "BinaryOp" || m.text == "UnaryOp" || m.text == "NullaryOp"))
      continue;  // every MIR assignment has these; the one-line form keeps what is particular
    mods += (mods.empty() ? "" : "; ") + m.text + " " + m.meaning;
  }
  if (!mods.empty()) out += " [" + mods + "]";
  return out;
}

std::vector<PtxInstructionName> documentedPtxInstructions() {
  std::vector<PtxInstructionName> out;
  for (const auto& e : docs::ptxInstructions()) out.push_back({e.section, e.name});
  return out;
}

InstructionDocCounts instructionDocCounts() {
  InstructionDocCounts c;
  c.ptxInstructions = docs::ptxInstructions().size();
  c.ptxDirectives = docs::ptxDirectives().size();
  c.ptxSpecialRegisters = docs::ptxSpecialRegisters().size();
  c.sassOpcodes = docs::sassOpcodes().size();
  c.llvmInstructions = docs::llvmInstructions().size();
  c.llvmIntrinsics = docs::llvmIntrinsics().size();
  c.mirKinds = docs::mirKinds().size();
  return c;
}

}  // namespace ks
