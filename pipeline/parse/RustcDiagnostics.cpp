// Parser for rustc's JSON diagnostics (`--error-format=json`).
#include <nlohmann/json.hpp>

#include "Diagnostics.h"
#include "TextUtil.h"

namespace ks {

namespace {

Severity severityOf(const std::string& level) {
  if (level == "warning") return Severity::Warning;
  if (level == "note" || level == "failure-note") return Severity::Note;
  if (level == "help") return Severity::Help;
  return Severity::Error;  // "error", "error: internal compiler error"
}

std::optional<SourceRange> primarySpan(const nlohmann::json& spans) {
  if (!spans.is_array()) return std::nullopt;
  const nlohmann::json* best = nullptr;
  for (const auto& s : spans) {
    if (s.value("is_primary", false)) {
      best = &s;
      break;
    }
    if (!best) best = &s;
  }
  if (!best) return std::nullopt;
  // A span inside a macro expansion points into the macro; the user's line is the
  // outermost expansion site.
  const nlohmann::json* s = best;
  while (s->contains("expansion") && (*s)["expansion"].is_object() &&
         (*s)["expansion"].contains("span"))
    s = &(*s)["expansion"]["span"];
  SourceRange r;
  r.file = normalizePath(s->value("file_name", ""));
  r.startLine = s->value("line_start", 0u);
  r.startColumn = s->value("column_start", 0u);
  r.endLine = s->value("line_end", r.startLine);
  r.endColumn = s->value("column_end", r.startColumn);
  return r;
}

bool isSummary(const Diagnostic& d) {
  // Summaries that repeat what the other messages say carry no span.
  return !d.range && (d.message.starts_with("aborting due to") ||
                      d.message.starts_with("For more information") ||
                      d.message.find("warning emitted") != std::string::npos ||
                      d.message.find("warnings emitted") != std::string::npos);
}

/// One JSON object as a Diagnostic; throws nlohmann::json exceptions on unexpected shapes.
std::optional<Diagnostic> toDiagnostic(const nlohmann::json& j) {
  if (j.value("$message_type", "diagnostic") != "diagnostic") return std::nullopt;
  Diagnostic d;
  d.source = "rustc";
  d.severity = severityOf(j.value("level", "error"));
  d.message = j.value("message", "");
  if (j.contains("code") && j["code"].is_object()) d.code = j["code"].value("code", "");
  d.rendered = j.value("rendered", "");
  if (j.contains("spans")) d.range = primarySpan(j["spans"]);
  if (isSummary(d)) return std::nullopt;
  // Child notes and help without their own span read best as part of the message.
  if (j.contains("children") && j["children"].is_array()) {
    for (const auto& c : j["children"]) {
      if (c.contains("spans") && c["spans"].is_array() && !c["spans"].empty()) continue;
      d.message += "\n" + c.value("level", std::string("note")) + ": " + c.value("message", "");
    }
  }
  return d;
}

}  // namespace

std::vector<Diagnostic> parseRustcDiagnostics(std::string_view input) {
  std::vector<Diagnostic> out;
  for (std::string_view line : splitLines(input)) {
    line = text::trim(line);
    if (!line.starts_with("{")) continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    try {
      if (auto d = toDiagnostic(j)) out.push_back(std::move(*d));
    } catch (const nlohmann::json::exception&) {
      // JSON, but not a diagnostic of the documented shape: not ours to read.
    }
  }
  return out;
}

}  // namespace ks
