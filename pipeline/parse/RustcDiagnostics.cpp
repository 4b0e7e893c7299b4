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

/// A span's range. A span inside a macro expansion points into the macro; the user's line
/// is the outermost expansion site.
SourceRange rangeOf(const nlohmann::json& span) {
  const nlohmann::json* s = &span;
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

/// The primary span (the first span when none is marked primary).
const nlohmann::json* primarySpan(const nlohmann::json& spans) {
  if (!spans.is_array()) return nullptr;
  const nlohmann::json* best = nullptr;
  for (const auto& s : spans) {
    if (s.value("is_primary", false)) return &s;
    if (!best) best = &s;
  }
  return best;
}

std::string labelOf(const nlohmann::json& span) {
  return span.contains("label") && span["label"].is_string() ? span["label"].get<std::string>()
                                                             : std::string();
}

bool isSummary(const Diagnostic& d) {
  // Summaries that repeat what the other messages say carry no span.
  return !d.range && (d.message.starts_with("aborting due to") ||
                      d.message.starts_with("For more information") ||
                      d.message.starts_with("Some errors have detailed explanations") ||
                      d.message.find("warning emitted") != std::string::npos ||
                      d.message.find("warnings emitted") != std::string::npos);
}

/// A note or help child: folded into the message without a span; with spans, a related
/// note at the first, and a fix when rustc marks its replacements machine-applicable.
void addChild(Diagnostic& d, const nlohmann::json& c) {
  const std::string level = c.value("level", std::string("note"));
  const std::string message = c.value("message", "");
  const nlohmann::json* spans = c.contains("spans") ? &c["spans"] : nullptr;
  if (!spans || !spans->is_array() || spans->empty()) {
    d.message += "\n" + level + ": " + message;
    return;
  }
  SuggestedFix fix;
  std::string replacements;
  for (const auto& s : *spans) {
    if (!s.contains("suggested_replacement") || !s["suggested_replacement"].is_string() ||
        s.value("suggestion_applicability", "") != "MachineApplicable")
      continue;
    const std::string replacement = s["suggested_replacement"].get<std::string>();
    fix.edits.emplace_back(rangeOf(s), replacement);
    if (std::string_view r = text::trim(replacement); !r.empty() && replacements.empty())
      replacements = ": `" + std::string(r) + "`";
  }
  if (!fix.edits.empty()) {
    fix.title = message + replacements;
    d.fixes.push_back(std::move(fix));
  }
  const nlohmann::json& first = *primarySpan(*spans);
  std::string label = labelOf(first);
  d.related.push_back(
      {rangeOf(first), level + ": " + message + (label.empty() ? "" : " (" + label + ")")});
}

/// One JSON object as Diagnostics, one per primary span (as rust-analyzer maps them: an
/// unused pair of parentheses is two spans, each its own squiggle), each with its span's label,
/// the first span when none is primary; throws nlohmann::json exceptions on unexpected shapes.
std::vector<Diagnostic> toDiagnostics(const nlohmann::json& j) {
  if (j.value("$message_type", "diagnostic") != "diagnostic") return {};
  Diagnostic d;
  d.source = "rustc";
  d.severity = severityOf(j.value("level", "error"));
  d.message = j.value("message", "");
  if (j.contains("code") && j["code"].is_object()) d.code = j["code"].value("code", "");
  const nlohmann::json* spans = j.contains("spans") ? &j["spans"] : nullptr;
  const nlohmann::json* first = spans ? primarySpan(*spans) : nullptr;
  std::vector<const nlohmann::json*> primaries;
  if (first)
    for (const auto& s : *spans) {
      if (&s == first || s.value("is_primary", false))
        primaries.push_back(&s);
      else if (!labelOf(s).empty())
        d.related.push_back({rangeOf(s), labelOf(s)});
    }
  if (primaries.empty() && isSummary(d)) return {};
  Diagnostic children;  // the notes and helps, after each primary span's label
  if (j.contains("children") && j["children"].is_array())
    for (const auto& c : j["children"]) addChild(children, c);
  d.related.insert(d.related.end(), children.related.begin(), children.related.end());
  d.fixes = std::move(children.fixes);
  if (primaries.empty()) {
    d.message += children.message;
    return {std::move(d)};
  }
  std::vector<Diagnostic> out;
  for (const nlohmann::json* span : primaries) {
    Diagnostic& one = out.emplace_back(d);
    one.range = rangeOf(*span);
    // The primary label says what is wrong where: "expected `u32`, found `f32`".
    if (std::string label = labelOf(*span); !label.empty()) one.message += "\n" + label;
    one.message += children.message;
  }
  return out;
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
      for (Diagnostic& d : toDiagnostics(j)) out.push_back(std::move(d));
    } catch (const nlohmann::json::exception&) {
      // JSON, but not a diagnostic of the documented shape: not ours to read.
    }
  }
  return out;
}

}  // namespace ks
