// InstructionDocs: decodes one line of MIR, LLVM IR, PTX or SASS against the reference
// tables and says what its instruction and each of its modifiers mean.
//
// One decoder per stage (DocsPtx.cpp, DocsSass.cpp, DocsLlvmIr.cpp, DocsMir.cpp; shared
// helpers in Decoding.cpp); this file dispatches and renders.
//
// The decoders read the text as the tools print it (the same text the parsers see), so
// the CLI and the server can explain any line of any stage without re-parsing an
// artifact. They never fail loudly: a part they do not know is listed without a meaning.
#include "InstructionDocs.h"

#include <algorithm>
#include <cctype>

#include "Decoding.h"
#include "TextUtil.h"

namespace ks {

using docs::describeLlvmIr;
using docs::describeMir;
using docs::describePtx;
using docs::describeSass;

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
