// What the stage decoders of InstructionDocs.cpp share: the text helpers, the table
// lookups, and the decoders themselves, one file per stage (DocsPtx.cpp, DocsSass.cpp,
// DocsLlvmIr.cpp, DocsMir.cpp). Private to pipeline/reference.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "InstructionDocs.h"
#include "InstructionTables.h"

namespace ks::docs {

// --- Small text helpers.

std::vector<std::string_view> split(std::string_view s, char sep);
/// Splits operands at top-level commas (not inside brackets, braces or parentheses).
std::vector<std::string_view> splitOperands(std::string_view s);
/// Takes the first blank-separated word of `s` and advances past it.
std::string_view takeWord(std::string_view& s);
std::string_view stripTrailingSemicolon(std::string_view s);
/// The line without its `//` comment (one inside a string literal is no comment).
std::string_view stripLineComment(std::string_view s);

template <typename Table>
const Entry* findEntry(const Table& table, std::string_view name) {
  for (const Entry& e : table)
    if (e.name == name) return &e;
  return nullptr;
}
const Opcode* findOpcode(std::span<const Opcode> table, std::string_view name);
bool isLabelLine(std::string_view s);
InstructionDoc labelDoc(Stage stage, std::string_view label, std::string_view what);

// --- The decoders, one per stage: nullopt for a line that is no instruction or directive.

std::optional<InstructionDoc> describePtx(std::string_view raw);
std::optional<InstructionDoc> describeSass(std::string_view raw);
std::optional<InstructionDoc> describeLlvmIr(std::string_view raw);
std::optional<InstructionDoc> describeMir(std::string_view raw);

}  // namespace ks::docs
