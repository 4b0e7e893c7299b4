// The editors' copies of the protocol against the server's table (protocol/Extensions.h):
// editors/vscode/src/lsp_ext.ts declares each method it uses with its params and result
// interfaces, editors/nvim/lua/kernelscope/lsp.lua names the methods and stages. Every
// method they name must be the server's, with the same top-level fields as the server's
// example params and result, and every stage name must be one the server knows.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "Artifact.h"
#include "Extensions.h"
#include "Files.h"

namespace ks::test {
namespace {

using nlohmann::json;

std::string readSource(const std::string& rel) {
  std::string text = readWholeFile(std::string(KS_SOURCE_DIR) + "/" + rel);
  REQUIRE_MESSAGE(!text.empty(), "cannot read " << rel);
  return text;
}

const lsp::ExtensionMethod* serverMethod(const std::string& name) {
  for (const auto& m : lsp::extensionMethods())
    if (m.method == name) return &m;
  return nullptr;
}

/// A TypeScript interface's fields: name -> optional.
using Fields = std::map<std::string, bool>;

/// Every `export interface NAME { ... }` of `ts`, with its fields at the first indent.
std::map<std::string, Fields> interfacesOf(const std::string& ts) {
  std::map<std::string, Fields> out;
  static const std::regex head(R"(^export interface (\w+) \{$)"), field(R"(^  (\w+)(\??):)");
  Fields* current = nullptr;
  for (std::string_view view : splitLines(ts)) {
    const std::string line(view);
    std::smatch m;
    if (std::regex_match(line, m, head))
      current = &out[m[1]];
    else if (line == "}")
      current = nullptr;
    else if (current && std::regex_search(line, m, field))
      (*current)[m[1]] = m[2] == "?";
  }
  return out;
}

/// Empty when the example's keys are the interface's fields (optional ones may be left
/// out); otherwise what differs.
std::string fieldDifference(const json& example, const Fields& fields) {
  if (!example.is_object()) return "";
  std::string out;
  for (const auto& [key, value] : example.items())
    if (!fields.count(key)) out += " '" + key + "' is not in the interface;";
  for (const auto& [name, optional] : fields)
    if (!optional && !example.contains(name)) out += " '" + name + "' is not in the server's;";
  return out;
}

std::set<std::string> serverStageNames() {
  std::set<std::string> names;
  for (Stage s : kAllStages) names.insert(std::string(stageName(s)));
  return names;
}

}  // namespace

TEST_CASE("lsp_ext.ts declares the server's methods with the server's fields") {
  const std::string ts = readSource("editors/vscode/src/lsp_ext.ts");
  const auto interfaces = interfacesOf(ts);
  static const std::regex declared(
      R"re(new lc\.(RequestType0?|NotificationType)<([^>]*)>\(\s*"(kernelscope/\w+)")re");
  size_t count = 0;
  for (auto it = std::sregex_iterator(ts.begin(), ts.end(), declared); it != std::sregex_iterator();
       ++it, ++count) {
    const std::string kind = (*it)[1], method = (*it)[3];
    CAPTURE(method);
    const lsp::ExtensionMethod* m = serverMethod(method);
    REQUIRE_MESSAGE(m, method << " is not one of the server's methods");
    CHECK(std::string(m->kind) == (kind == "NotificationType" ? "notification" : "request"));
    std::vector<std::string> types;
    std::stringstream list((*it)[2].str());
    for (std::string t; std::getline(list, t, ',');)
      types.push_back(std::regex_replace(t, std::regex(R"(^\s+|\s+$)"), ""));
    // RequestType<P, R, E>, RequestType0<R, E>, NotificationType<P>.
    const std::string params = kind == "RequestType0" ? "" : types[0];
    const std::string result = kind == "RequestType" ? types[1] : "";
    if (interfaces.count(params))
      CHECK_MESSAGE(fieldDifference(m->exampleParams, interfaces.at(params)) == "",
                    params << ":" << fieldDifference(m->exampleParams, interfaces.at(params)));
    if (interfaces.count(result))
      CHECK_MESSAGE(fieldDifference(m->exampleResult, interfaces.at(result)) == "",
                    result << ":" << fieldDifference(m->exampleResult, interfaces.at(result)));
  }
  CHECK(count >= 5);

  std::smatch stages;
  REQUIRE(std::regex_search(ts, stages,
                            std::regex(R"(ALL_STAGES: readonly Stage\[\] = \[([^\]]*)\])")));
  std::set<std::string> listed;
  const std::string list = stages[1];
  static const std::regex quoted("\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), quoted);
       it != std::sregex_iterator(); ++it)
    listed.insert((*it)[1]);
  CHECK(listed == serverStageNames());
}

TEST_CASE("lsp.lua names the server's methods and stages") {
  const std::string lua = readSource("editors/nvim/lua/kernelscope/lsp.lua");
  auto tableOf = [&](const std::string& name) {
    std::smatch m;
    REQUIRE(std::regex_search(lua, m, std::regex("\nM\\." + name + " = \\{([^}]*)\\}")));
    std::set<std::string> values;
    const std::string body = m[1];
    static const std::regex value(R"re(= "([^"]+)")re");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), value);
         it != std::sregex_iterator(); ++it)
      values.insert((*it)[1]);
    return values;
  };
  const auto methods = tableOf("methods");
  CHECK(methods.size() >= 5);
  for (const auto& m : methods)
    CHECK_MESSAGE(serverMethod(m), m << " is not one of the server's methods");
  CHECK(tableOf("stages") == serverStageNames());
}

}  // namespace ks::test
