// docs/lsp-extensions.md as data: each `## \`kernelscope/...\`` section's kind and JSON
// examples, and a comparison of JSON shapes, for the tests that hold the docs, the protocol
// table and the server's real answers to each other.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "Files.h"
#include "TextUtil.h"

namespace ks::test {

using json = nlohmann::json;

struct DocSection {
  std::string kind;  // the "**Kind:**" line
  std::optional<json> request, response;
};

/// Reads every `## \`kernelscope/...\`` section: its kind and its JSON examples.
inline std::map<std::string, DocSection> readContract(const std::string& path) {
  const std::string doc = readWholeFile(path);
  REQUIRE_MESSAGE(!doc.empty(), "cannot read " << path);
  std::map<std::string, DocSection> sections;
  DocSection* current = nullptr;
  std::string pending, block;
  bool inBlock = false;
  for (std::string_view view : splitLines(doc)) {
    const std::string line(view);
    if (inBlock) {
      if (line == "```") {
        inBlock = false;
        json j = json::parse(block, nullptr, false);
        REQUIRE_MESSAGE(!j.is_discarded(), "invalid JSON example in " << path << ":\n" << block);
        if (current && pending == "request") current->request = j;
        if (current && pending == "response") current->response = j;
        pending.clear();
      } else {
        block += line + "\n";
      }
      continue;
    }
    if (line.rfind("## `", 0) == 0) {
      std::string name = line.substr(4, line.find('`', 4) - 4);
      current = name.rfind("kernelscope/", 0) == 0 ? &sections[name] : nullptr;
    } else if (line.rfind("## ", 0) == 0) {
      current = nullptr;
    } else if (current && line.rfind("**Kind:** ", 0) == 0) {
      current->kind = line.substr(10);
    } else if (line.rfind("**Request:**", 0) == 0 || line.rfind("**Params:**", 0) == 0) {
      pending = "request";
    } else if (line.rfind("**Response:**", 0) == 0) {
      pending = "response";
    } else if (line == "```json") {
      inBlock = true;
      block.clear();
    }
  }
  return sections;
}

/// Empty when `doc` has the shape of `code` (same keys, same kinds of values, arrays
/// compared by their first elements); otherwise where they differ.
inline std::string shapeDifference(const json& doc, const json& code, const std::string& where) {
  auto kind = [](const json& j) -> std::string {
    if (j.is_number()) return "number";
    return j.type_name();
  };
  if (kind(doc) != kind(code))
    return where + ": the doc has " + kind(doc) + ", the code " + kind(code);
  if (doc.is_object()) {
    for (auto& [k, v] : code.items())
      if (!doc.contains(k)) return where + ": the doc lacks field '" + k + "'";
    for (auto& [k, v] : doc.items()) {
      if (!code.contains(k)) return where + ": the code has no field '" + k + "'";
      if (auto d = shapeDifference(v, code[k], where + "." + k); !d.empty()) return d;
    }
  }
  if (doc.is_array() && !doc.empty() && !code.empty())
    return shapeDifference(doc[0], code[0], where + "[0]");
  return "";
}

}  // namespace ks::test
