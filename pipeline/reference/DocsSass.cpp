// SASS lines against the SASS opcode table: opcodes, modifiers, operands. See InstructionDocs.h.
#include <algorithm>
#include <cctype>
#include <string>

#include "Decoding.h"
#include "TextUtil.h"

namespace ks::docs {

namespace {

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

/// A directive of nvdisasm's listing (`.section`, `.headerflags`); nullopt for one the
/// table does not know.
std::optional<InstructionDoc> directiveDoc(std::string_view line) {
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

/// A `@P0` / `@!P0` guard in front of the opcode; advances past it.
void addGuard(std::string_view& rest, InstructionDoc& d) {
  if (rest.front() != '@') return;
  std::string_view g = takeWord(rest);
  bool negated = g.size() > 1 && g[1] == '!';
  std::string_view pred = g.substr(negated ? 2 : 1);
  d.modifiers.push_back({std::string(g), "guard: runs only in the threads where " +
                                             std::string(pred) + " is " +
                                             (negated ? "false" : "true")});
}

/// What a one-part modifier means on this opcode: the table's meaning, or the opcode's own
/// where the same suffix means something else there.
std::string modifierMeaning(std::string_view modifier, std::string_view opcode) {
  const Entry* e = findEntry(docs::sassModifiers(), modifier);
  std::string meaning = e ? std::string(e->meaning) : std::string();
  if (modifier == ".HI" && (opcode == "LEA" || opcode == "ULEA"))
    meaning = "compute the high word of a 64-bit address";
  if (modifier == ".X" && (opcode == "LEA" || opcode == "ULEA"))
    meaning = "add the carry from the low-word LEA";
  if (modifier == ".MMA" && opcode == "HFMA2")
    meaning =
        "issued on the tensor-core pipe; ptxas uses HFMA2.MMA to load constants and balance the "
        "units";
  if (modifier == ".64" && (opcode == "LDC" || opcode == "ULDC"))
    meaning = "loads 64 bits (such as a pointer parameter) into a register pair";
  return meaning;
}

/// The modifiers after the opcode (`parts` is the opcode split at its dots), two-part
/// modifiers first (".STRONG.GPU", ".U.128").
void addModifiers(const std::vector<std::string_view>& parts, const Opcode& op, InstructionDoc& d) {
  for (size_t i = 1; i < parts.size(); ++i) {
    if (i + 1 < parts.size()) {
      std::string two = "." + std::string(parts[i]) + "." + std::string(parts[i + 1]);
      if (const Entry* e = findEntry(docs::sassModifiers(), two)) {
        d.modifiers.push_back({two, std::string(e->meaning)});
        ++i;
        continue;
      }
    }
    std::string one = "." + std::string(parts[i]);
    d.modifiers.push_back({one, modifierMeaning(one, op.name)});
  }
}

/// The operands as written, then a note on each kind that needs one (constant banks,
/// special registers, addresses) and on a LOP3's truth table; a `.reuse` flag on an operand
/// becomes a modifier.
void addOperands(std::string_view rest, const Opcode& op, InstructionDoc& d) {
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
  if (op.name == "LOP3" || op.name == "ULOP3" || op.name == "PLOP3" || op.name == "UPLOP3") {
    auto list = splitOperands(rest);
    size_t lutAt = op.name == "LOP3" || op.name == "ULOP3" ? 4 : 5;
    if (list.size() > lutAt)
      if (auto f = lutFunction(list[lutAt]); !f.empty())
        notes.push_back(std::string(list[lutAt]) + ": the truth table of " + f +
                        " (a, b, c being the three sources)");
  }
  if (!ops.empty()) {
    d.operands = ops;
    for (const auto& n : notes) d.operands += "; " + n;
  }
}

}  // namespace

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
  if (line.front() == '.') return directiveDoc(line);
  std::string_view rest = line;
  InstructionDoc d;
  d.stage = Stage::Sass;
  addGuard(rest, d);
  std::string_view opcode = takeWord(rest);
  auto parts = split(opcode, '.');
  const Opcode* op = findOpcode(docs::sassOpcodes(), parts[0]);
  if (!op) return std::nullopt;
  d.mnemonic = std::string(op->name);
  d.written = std::string(opcode);
  d.category = std::string(op->category);
  d.summary = std::string(op->summary);
  addModifiers(parts, *op, d);
  addOperands(rest, *op, d);
  return d;
}

}  // namespace ks::docs
