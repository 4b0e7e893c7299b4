// LSP 3.17 types used by kernelscope, each followed by its to_json/from_json.
//
// Only the types the server actually uses, with LSP's field spelling. Decoding throws
// nlohmann::json::exception on a missing required field or a wrong type; the method
// binder turns that into an InvalidParams error. Optional fields are omitted when empty.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ks::lsp {

using json = nlohmann::json;

namespace detail {
/// Reads `j[key]` into `out` when present and not null.
template <class T>
void readOptional(const json& j, const char* key, std::optional<T>& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->template get<T>();
}
template <class T>
void readOr(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->template get<T>();
}
template <class T>
void writeOptional(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
}  // namespace detail

struct Position {
  int line = 0;
  int character = 0;  // in the negotiated position encoding's code units
  bool operator==(const Position&) const = default;
  auto operator<=>(const Position&) const = default;
};
inline void to_json(json& j, const Position& p) {
  j = {{"line", p.line}, {"character", p.character}};
}
inline void from_json(const json& j, Position& p) {
  j.at("line").get_to(p.line);
  j.at("character").get_to(p.character);
}

struct Range {
  Position start, end;
  bool operator==(const Range&) const = default;
};
inline void to_json(json& j, const Range& r) { j = {{"start", r.start}, {"end", r.end}}; }
inline void from_json(const json& j, Range& r) {
  j.at("start").get_to(r.start);
  j.at("end").get_to(r.end);
}

struct Location {
  std::string uri;
  Range range;
};
inline void to_json(json& j, const Location& l) { j = {{"uri", l.uri}, {"range", l.range}}; }
inline void from_json(const json& j, Location& l) {
  j.at("uri").get_to(l.uri);
  j.at("range").get_to(l.range);
}

struct TextDocumentIdentifier {
  std::string uri;
};
inline void to_json(json& j, const TextDocumentIdentifier& t) { j = {{"uri", t.uri}}; }
inline void from_json(const json& j, TextDocumentIdentifier& t) { j.at("uri").get_to(t.uri); }

struct VersionedTextDocumentIdentifier {
  std::string uri;
  std::optional<int> version;
};
inline void from_json(const json& j, VersionedTextDocumentIdentifier& t) {
  j.at("uri").get_to(t.uri);
  detail::readOptional(j, "version", t.version);
}

struct TextDocumentItem {
  std::string uri;
  std::string languageId;
  int version = 0;
  std::string text;
};
inline void from_json(const json& j, TextDocumentItem& t) {
  j.at("uri").get_to(t.uri);
  detail::readOr(j, "languageId", t.languageId);
  detail::readOr(j, "version", t.version);
  j.at("text").get_to(t.text);
}

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
};
inline void from_json(const json& j, DidOpenTextDocumentParams& p) {
  j.at("textDocument").get_to(p.textDocument);
}

/// A whole-document replacement when `range` is absent, an incremental edit otherwise.
struct TextDocumentContentChangeEvent {
  std::optional<Range> range;
  std::string text;
};
inline void from_json(const json& j, TextDocumentContentChangeEvent& c) {
  detail::readOptional(j, "range", c.range);
  j.at("text").get_to(c.text);
}

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};
inline void from_json(const json& j, DidChangeTextDocumentParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("contentChanges").get_to(p.contentChanges);
}

struct DidSaveTextDocumentParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> text;
};
inline void from_json(const json& j, DidSaveTextDocumentParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  detail::readOptional(j, "text", p.text);
}

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier textDocument;
};
inline void from_json(const json& j, DidCloseTextDocumentParams& p) {
  j.at("textDocument").get_to(p.textDocument);
}

enum class FileChangeType { Created = 1, Changed = 2, Deleted = 3 };

struct FileEvent {
  std::string uri;
  FileChangeType type = FileChangeType::Changed;
};
inline void from_json(const json& j, FileEvent& e) {
  j.at("uri").get_to(e.uri);
  e.type = static_cast<FileChangeType>(j.at("type").get<int>());
}

struct DidChangeWatchedFilesParams {
  std::vector<FileEvent> changes;
};
inline void from_json(const json& j, DidChangeWatchedFilesParams& p) {
  j.at("changes").get_to(p.changes);
}

struct DidChangeConfigurationParams {
  json settings;
};
inline void from_json(const json& j, DidChangeConfigurationParams& p) {
  detail::readOr(j, "settings", p.settings);
}

/// The parts of the client's capabilities that change what the server does.
struct ClientCapabilities {
  bool watchedFilesDynamicRegistration = false;
  bool workDoneProgress = false;
  /// textDocument.hover.contentFormat, in the client's order of preference: markdown
  /// unless it lists formats and prefers (or accepts only) plaintext.
  bool hoverMarkdown = true;
  bool codeLensRefresh = false;   // workspace.codeLens.refreshSupport
  bool inlayHintRefresh = false;  // workspace.inlayHint.refreshSupport
  std::vector<std::string> positionEncodings;
};
inline void from_json(const json& j, ClientCapabilities& c) {
  auto at = [&](std::initializer_list<const char*> path) -> const json* {
    const json* p = &j;
    for (const char* key : path) {
      if (!p->is_object()) return nullptr;
      auto it = p->find(key);
      if (it == p->end()) return nullptr;
      p = &*it;
    }
    return p;
  };
  if (auto* v = at({"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
      v && v->is_boolean())
    c.watchedFilesDynamicRegistration = v->get<bool>();
  if (auto* v = at({"window", "workDoneProgress"}); v && v->is_boolean())
    c.workDoneProgress = v->get<bool>();
  if (auto* v = at({"workspace", "codeLens", "refreshSupport"}); v && v->is_boolean())
    c.codeLensRefresh = v->get<bool>();
  if (auto* v = at({"workspace", "inlayHint", "refreshSupport"}); v && v->is_boolean())
    c.inlayHintRefresh = v->get<bool>();
  if (auto* v = at({"textDocument", "hover", "contentFormat"}); v && v->is_array() && !v->empty())
    c.hoverMarkdown = v->front() == "markdown";
  if (auto* v = at({"general", "positionEncodings"}); v && v->is_array())
    for (const json& e : *v)
      if (e.is_string()) c.positionEncodings.push_back(e.get<std::string>());
}

struct InitializeParams {
  std::optional<int> processId;  // the editor's process; null when it has none to name
  std::optional<std::string> rootUri;
  json initializationOptions;
  ClientCapabilities capabilities;
  std::string clientName;  // clientInfo.name: "Visual Studio Code", "Neovim", "Eglot", ...
};
inline void from_json(const json& j, InitializeParams& p) {
  if (auto info = j.find("clientInfo"); info != j.end() && info->is_object())
    if (auto name = info->find("name"); name != info->end() && name->is_string())
      p.clientName = name->get<std::string>();
  detail::readOptional(j, "processId", p.processId);
  detail::readOptional(j, "rootUri", p.rootUri);
  detail::readOr(j, "initializationOptions", p.initializationOptions);
  detail::readOr(j, "capabilities", p.capabilities);
}

/// Parameters of requests and notifications that carry none worth decoding.
struct NoParams {};
inline void from_json(const json&, NoParams&) {}

struct CancelParams {
  json id;
};
inline void from_json(const json& j, CancelParams& p) { p.id = j.at("id"); }

struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};
inline void from_json(const json& j, TextDocumentPositionParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("position").get_to(p.position);
}

struct ReferenceParams {
  TextDocumentIdentifier textDocument;
  Position position;
  bool includeDeclaration = false;
};
inline void from_json(const json& j, ReferenceParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("position").get_to(p.position);
  if (auto c = j.find("context"); c != j.end() && c->is_object())
    p.includeDeclaration = c->value("includeDeclaration", false);
}

struct MarkupContent {
  std::string kind = "markdown";  // "markdown" or "plaintext"
  std::string value;
};
inline void to_json(json& j, const MarkupContent& m) { j = {{"kind", m.kind}, {"value", m.value}}; }

struct Hover {
  MarkupContent contents;
  std::optional<Range> range;
};
inline void to_json(json& j, const Hover& h) {
  j = {{"contents", h.contents}};
  detail::writeOptional(j, "range", h.range);
}

struct InlayHintParams {
  TextDocumentIdentifier textDocument;
  Range range;
};
inline void from_json(const json& j, InlayHintParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("range").get_to(p.range);
}

struct InlayHint {
  Position position;
  std::string label;
  bool paddingLeft = true;
  std::optional<std::string> tooltip;
};
inline void to_json(json& j, const InlayHint& h) {
  j = {{"position", h.position}, {"label", h.label}, {"paddingLeft", h.paddingLeft}};
  detail::writeOptional(j, "tooltip", h.tooltip);
}

struct CodeLensParams {
  TextDocumentIdentifier textDocument;
};
inline void from_json(const json& j, CodeLensParams& p) {
  j.at("textDocument").get_to(p.textDocument);
}

struct Command {
  std::string title;
  std::string command;
  json arguments = json::array();
};
inline void to_json(json& j, const Command& c) {
  j = {{"title", c.title}, {"command", c.command}, {"arguments", c.arguments}};
}

struct CodeLens {
  Range range;
  std::optional<Command> command;
};
inline void to_json(json& j, const CodeLens& c) {
  j = {{"range", c.range}};
  detail::writeOptional(j, "command", c.command);
}

struct ExecuteCommandParams {
  std::string command;
  json arguments = json::array();
};
inline void from_json(const json& j, ExecuteCommandParams& p) {
  j.at("command").get_to(p.command);
  detail::readOr(j, "arguments", p.arguments);
}

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
};
inline void to_json(json& j, const DiagnosticRelatedInformation& r) {
  j = {{"location", r.location}, {"message", r.message}};
}

struct Diagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::Error;
  std::string code;             // omitted when empty
  std::string codeDescription;  // the code's explanation (codeDescription.href); omitted when empty
  std::string source;           // "rustc", "ptxas", "kernelscope"
  std::string message;
  std::vector<DiagnosticRelatedInformation> relatedInformation;  // omitted when empty
};
inline void to_json(json& j, const Diagnostic& d) {
  j = {{"range", d.range},
       {"severity", static_cast<int>(d.severity)},
       {"source", d.source},
       {"message", d.message}};
  if (!d.code.empty()) j["code"] = d.code;
  if (!d.codeDescription.empty()) j["codeDescription"] = {{"href", d.codeDescription}};
  if (!d.relatedInformation.empty()) j["relatedInformation"] = d.relatedInformation;
}

// textDocument/codeAction: quick fixes from the compiler's machine-applicable suggestions.
struct CodeActionParams {
  TextDocumentIdentifier textDocument;
  Range range;
};
inline void from_json(const json& j, CodeActionParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("range").get_to(p.range);
}

struct TextEdit {
  Range range;
  std::string newText;
};
inline void to_json(json& j, const TextEdit& e) {
  j = {{"range", e.range}, {"newText", e.newText}};
}

struct CodeAction {
  std::string title;
  std::string kind = "quickfix";
  std::vector<Diagnostic> diagnostics;                   // the diagnostic it fixes
  std::map<std::string, std::vector<TextEdit>> changes;  // WorkspaceEdit.changes, by URI
  bool isPreferred = false;
};
inline void to_json(json& j, const CodeAction& a) {
  j = {{"title", a.title},
       {"kind", a.kind},
       {"diagnostics", a.diagnostics},
       {"edit", {{"changes", a.changes}}},
       {"isPreferred", a.isPreferred}};
}

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<int> version;
  std::vector<Diagnostic> diagnostics;
};
inline void to_json(json& j, const PublishDiagnosticsParams& p) {
  j = {{"uri", p.uri}, {"diagnostics", p.diagnostics}};
  detail::writeOptional(j, "version", p.version);
}

}  // namespace ks::lsp
