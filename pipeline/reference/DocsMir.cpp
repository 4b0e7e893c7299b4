// MIR lines against the statement, rvalue and terminator kinds. See InstructionDocs.h.
#include <algorithm>
#include <cctype>
#include <string>

#include "Decoding.h"
#include "TextUtil.h"

namespace ks::docs {

namespace {

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

/// A statement or terminator named by how it starts, and the kind of MIR it is.
constexpr std::pair<std::string_view, std::string_view> kMirPrefixes[] = {
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

/// A later line of a multi-line asm! template: `cvta.shared.u64 {2}, x;", const ...,
/// options(...)`.
std::optional<InstructionDoc> asmContinuationDoc(std::string_view raw) {
  std::string_view t = text::trim(raw);
  if (t.starts_with("asm!(") || t.find("\", ") == std::string_view::npos ||
      t.find("options(") == std::string_view::npos)
    return std::nullopt;
  InstructionDoc d = mirDoc("asm", "asm!");
  d.summary += " (This line continues the assembly template of the asm! above.)";
  addUnwind(d, t);
  return d;
}

/// `bbN: {` or `bbN (cleanup): {`.
InstructionDoc blockLabelDoc(std::string_view line) {
  auto d = labelDoc(Stage::Mir, text::trim(line.substr(0, line.size() - 1)),
                    "A basic block: straight-line statements ending in one terminator.");
  if (line.find("(cleanup)") != std::string_view::npos)
    d.summary += " This one is a cleanup block, run while unwinding.";
  return d;
}

/// What a statement of `kind` (kMirPrefixes) says beyond its kind: the local of a storage
/// marker, the targets of a branch, what an assert checks, an unwind edge.
void addStatementDetails(std::string_view kind, std::string_view prefix, std::string_view line,
                         InstructionDoc& d) {
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
}

/// A statement or terminator that kMirPrefixes names by how it starts.
std::optional<InstructionDoc> describeByPrefix(std::string_view line) {
  for (auto [prefix, kind] : kMirPrefixes) {
    if (!line.starts_with(prefix)) continue;
    // `discriminant(PLACE) = N` sets a discriminant; without ` = ` the line is something else.
    if (kind == "SetDiscriminant" && line.find(" = ") == std::string_view::npos) continue;
    InstructionDoc d =
        mirDoc(kind, line.substr(0, std::min(line.size(), line.find('(') == std::string_view::npos
                                                              ? line.size()
                                                              : line.find('('))));
    addStatementDetails(kind, prefix, line, d);
    return d;
  }
  return std::nullopt;
}

}  // namespace

std::optional<InstructionDoc> describeMir(std::string_view raw) {
  if (auto d = asmContinuationDoc(raw)) return d;
  std::string_view line = stripTrailingSemicolon(stripLineComment(raw));
  if (line.empty() || line == "{" || line == "}" || line.starts_with("let ") ||
      line.starts_with("debug ") || line.starts_with("scope ") || line.starts_with("fn ") ||
      line.starts_with("const ") || line.starts_with("static "))
    return std::nullopt;
  if (line.starts_with("bb") && line.ends_with("{")) return blockLabelDoc(line);
  if (auto d = describeByPrefix(line)) return d;
  // `place = rvalue` (including calls with a destination).
  if (auto eq = line.find(" = "); eq != std::string_view::npos)
    return describeMirRvalue(text::trim(line.substr(0, eq)), text::trim(line.substr(eq + 3)), line);
  // A call without a destination: `f(args) -> [return: bb1, ...]`.
  if (line.find(") -> ") != std::string_view::npos) {
    InstructionDoc d = mirDoc("call", line);
    d.operands = "callee " + std::string(line.substr(0, line.find('(')));
    addMirOperands(d, line);
    addUnwind(d, line);
    return d;
  }
  return std::nullopt;
}

}  // namespace ks::docs
