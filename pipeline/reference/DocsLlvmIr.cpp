// LLVM IR lines against the instruction and NVVM intrinsic tables. See InstructionDocs.h.
#include <algorithm>
#include <cctype>
#include <string>

#include "Decoding.h"
#include "TextUtil.h"

namespace ks::docs {

namespace {

bool isFlag(std::string_view w) {
  static constexpr std::string_view kLeading[] = {
      "nuw",  "nsw", "exact", "disjoint", "nneg", "samesign", "inbounds", "nusw",  "fast", "nnan",
      "ninf", "nsz", "arcp",  "contract", "afn",  "reassoc",  "volatile", "atomic"};
  return std::find(std::begin(kLeading), std::end(kLeading), w) != std::end(kLeading);
}

/// A flag or keyword of the LLVM flags table, as written: `key` names its entry when the
/// word itself does not (`syncscope("...")`).
ModifierDoc llvmFlag(std::string_view written, std::string_view key) {
  return {std::string(written), std::string(findEntry(docs::llvmFlags(), key)->meaning)};
}
ModifierDoc llvmFlag(std::string_view written) { return llvmFlag(written, written); }

/// A function's `define` or `declare` line.
InstructionDoc declarationDoc(bool definition) {
  InstructionDoc d;
  d.stage = Stage::LlvmIr;
  d.mnemonic = definition ? "define" : "declare";
  d.written = d.mnemonic;
  d.category = "declaration";
  d.summary = definition ? "Defines a function (ptx_kernel marks a kernel entry point)."
                         : "Declares a function defined elsewhere (or an intrinsic).";
  return d;
}

/// The flags right after the opcode (`nuw nsw`, `fast`, `volatile`); advances past them.
void addFlags(std::string_view& rest, InstructionDoc& d) {
  while (!rest.empty()) {
    std::string_view probe = rest;
    std::string_view w = takeWord(probe);
    if (!isFlag(w)) break;
    d.modifiers.push_back(llvmFlag(w));
    rest = probe;
  }
}

/// The predicate of `icmp`/`fcmp`, the operation of `atomicrmw`.
void addPredicate(std::string_view opcode, std::string_view rest, InstructionDoc& d) {
  if (opcode != "icmp" && opcode != "fcmp" && opcode != "atomicrmw") return;
  std::string_view w = takeWord(rest);
  const Entry* e = findEntry(docs::llvmFlags(), w);
  if (!e) return;
  std::string prefix = opcode == "atomicrmw" ? "operation: " : "predicate: ";
  std::string meaning(e->meaning);
  if (opcode == "icmp") meaning = meaning.substr(0, meaning.find(" (fcmp"));
  if (opcode == "fcmp" && w.starts_with("u") && w != "uno")
    meaning = "unordered (either is NaN) or " + std::string(w.substr(1));
  d.modifiers.push_back({std::string(w), prefix + meaning});
}

/// The memory ordering and synchronization scope of an atomic access or fence.
void addOrdering(std::string_view opcode, std::string_view rest, InstructionDoc& d) {
  if (opcode != "load" && opcode != "store" && opcode != "atomicrmw" && opcode != "cmpxchg" &&
      opcode != "fence")
    return;
  for (auto w : split(rest, ' ')) {
    w = text::trim(w);
    if (w.ends_with(",")) w.remove_suffix(1);
    if (w == "unordered" || w == "monotonic" || w == "acquire" || w == "release" ||
        w == "acq_rel" || w == "seq_cst")
      d.modifiers.push_back(llvmFlag(w));
    if (w.starts_with("syncscope(")) d.modifiers.push_back(llvmFlag(w, "syncscope"));
  }
}

/// The `align N` of a memory access or allocation.
void addAlignment(std::string_view opcode, std::string_view rest, InstructionDoc& d) {
  if (opcode != "load" && opcode != "store" && opcode != "alloca" && opcode != "atomicrmw" &&
      opcode != "cmpxchg")
    return;
  auto al = rest.find("align ");
  if (al == std::string_view::npos) return;
  std::string_view n = rest.substr(al + 6);
  n = n.substr(0, n.find_first_of(", "));
  d.modifiers.push_back(
      {"align " + std::string(n), "the access may assume " + std::string(n) + "-byte alignment"});
}

/// A call: inline assembly, an intrinsic the tables know (the longest matching prefix), or
/// a call of an ordinary function, named as its operand.
void describeCall(std::string_view rest, InstructionDoc& d) {
  if (rest.find(" asm ") != std::string_view::npos || rest.starts_with("asm ")) {
    d.summary = "Inline assembly (asm!): the text is pasted into the PTX as written.";
    d.category = "inline assembly";
    return;
  }
  auto at = rest.find('@');
  if (at == std::string_view::npos) return;
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

}  // namespace

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
  if (line.starts_with("define ") || line.starts_with("declare "))
    return declarationDoc(line.starts_with("define "));
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
    tailFlag = llvmFlag(opcode);
    opcode = takeWord(rest);
  }
  const Opcode* op = findOpcode(docs::llvmInstructions(), opcode);
  if (!op) return std::nullopt;
  InstructionDoc d;
  d.stage = Stage::LlvmIr;
  d.mnemonic = std::string(op->name);
  d.written = std::string(opcode);
  d.category = std::string(op->category);
  d.summary = std::string(op->summary);
  if (tailFlag) d.modifiers.push_back(*tailFlag);
  addFlags(rest, d);
  addPredicate(opcode, rest, d);
  addOrdering(opcode, rest, d);
  addAlignment(opcode, rest, d);
  if (opcode == "call" || opcode == "invoke" || opcode == "callbr") describeCall(rest, d);
  return d;
}

}  // namespace ks::docs
