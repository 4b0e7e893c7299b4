// Diagnostics: rustc and ptxas messages at their source ranges, in the file they are about,
// a warning on every kernel that spills registers or uses local memory, and the problems of
// the launch specs written in the documents.
#include "Features.h"

#include <algorithm>

#include "GpuFeatures.h"
#include "Uri.h"

namespace ks::server {
namespace {

lsp::DiagnosticSeverity severityOf(Severity s) {
  switch (s) {
    case Severity::Error:
      return lsp::DiagnosticSeverity::Error;
    case Severity::Warning:
      return lsp::DiagnosticSeverity::Warning;
    case Severity::Note:
      return lsp::DiagnosticSeverity::Information;
    case Severity::Help:
      return lsp::DiagnosticSeverity::Hint;
  }
  return lsp::DiagnosticSeverity::Error;
}

lsp::Range rangeOf(const std::string& text, const SourceRange& r, PositionEncoding enc) {
  lsp::Range out;
  out.start = positionOfCharColumn(text, r.startLine, r.startColumn, enc);
  out.end = r.endLine ? positionOfCharColumn(text, r.endLine, r.endColumn, enc) : out.start;
  if (out.end < out.start) out.end = out.start;
  return out;
}

bool isUnder(const std::string& file, const std::filesystem::path& dir) {
  std::string d = dir.string();
  if (!d.ends_with('/')) d += '/';
  return file.starts_with(d);
}

/// The files of one compile that get diagnostics of their own, with the text to position
/// them in: the served documents (their compiled text) and, read when first needed, the
/// crate's other files.
class Files {
 public:
  Files(const std::vector<const Snapshot*>& served,
        const std::function<std::string(const std::string&)>& textOf)
      : served_(served), textOf_(textOf), result_(*served.front()->result) {
    for (const Snapshot* s : served) texts_[s->path] = s->text;
  }

  /// The text of `file` when it is one of the crate's (or, for a file compiled on its own,
  /// lies next to it), else nullptr: a message about `core` stays with the documents.
  const std::string* textOf(const std::string& file) {
    if (auto it = texts_.find(file); it != texts_.end()) return &it->second;
    if (!ownsFile(file)) return nullptr;
    return &(texts_[file] = textOf_(file));
  }

 private:
  bool ownsFile(const std::string& file) const {
    for (const auto& f : result_.sourceFiles)
      if (f == file) return true;
    if (result_.lineMap && result_.lineMap->isUserFile(file)) return true;
    // A failed compile lists no files: the crate's directory (or the kernel's) is the user's.
    std::filesystem::path home = result_.crateManifest.empty()
                                     ? std::filesystem::path(served_.front()->path).parent_path()
                                     : result_.crateManifest.parent_path();
    return isUnder(file, home);
  }

  const std::vector<const Snapshot*>& served_;
  const std::function<std::string(const std::string&)>& textOf_;
  const CompileResult& result_;
  std::map<std::string, std::string> texts_;
};

/// rustc's error codes have a page each; lints (`unused_variables`) do not.
std::string explanationOf(const std::string& code) {
  bool errorCode =
      code.size() == 5 && code[0] == 'E' &&
      std::all_of(code.begin() + 1, code.end(), [](char c) { return c >= '0' && c <= '9'; });
  return errorCode ? "https://doc.rust-lang.org/error_codes/" + code + ".html" : std::string();
}

}  // namespace

lsp::Diagnostic toLspDiagnostic(
    const Diagnostic& d, const std::function<const std::string*(const std::string& path)>& textOf,
    PositionEncoding enc, const UriOf& uriOf) {
  lsp::Diagnostic diag;
  diag.severity = severityOf(d.severity);
  diag.source = d.source;
  diag.code = d.code;
  if (d.source == "rustc") diag.codeDescription = explanationOf(d.code);
  diag.message = d.message;
  auto positioned = [&](const SourceRange& r) {
    if (const std::string* text = r.file.empty() ? nullptr : textOf(r.file))
      return rangeOf(*text, r, enc);
    // A file outside the crate (`core`): its lines and columns as the compiler counts them.
    lsp::Range out;
    out.start = {r.startLine > 0 ? int(r.startLine) - 1 : 0,
                 r.startColumn > 0 ? int(r.startColumn) - 1 : 0};
    out.end = {r.endLine > 0 ? int(r.endLine) - 1 : out.start.line,
               r.endColumn > 0 ? int(r.endColumn) - 1 : out.start.character};
    return out;
  };
  if (d.range) diag.range = positioned(*d.range);
  for (const RelatedNote& n : d.related)
    if (!n.range.file.empty())
      diag.relatedInformation.push_back({{uriOf(n.range.file), positioned(n.range)}, n.message});
  return diag;
}

std::map<std::string, lsp::PublishDiagnosticsParams> diagnosticsOf(
    const std::vector<const Snapshot*>& served, const Settings& settings, PositionEncoding enc,
    const std::function<std::string(const std::string& path)>& textOf, const UriOf& uriOf,
    const CrateLaunchSpecs& crateSpecs) {
  std::map<std::string, lsp::PublishDiagnosticsParams> out;
  for (const Snapshot* s : served) out[s->path].uri = s->uri;
  if (served.empty() || !served.front()->result) return out;
  const CompileResult& result = *served.front()->result;
  Files files(served, textOf);
  auto add = [&](const std::string& file, lsp::Diagnostic d) {
    auto& p = out[file];
    if (p.uri.empty()) p.uri = lsp::pathToFileUri(file);
    p.diagnostics.push_back(std::move(d));
  };
  // Without a file of its own a message is about the whole compile: every document shows it.
  auto addToServed = [&](const lsp::Diagnostic& d) {
    for (const Snapshot* s : served) add(s->path, d);
  };

  auto textIn = [&](const std::string& file) { return files.textOf(file); };
  for (const Diagnostic& d : result.diagnostics) {
    lsp::Diagnostic diag = toLspDiagnostic(d, textIn, enc, uriOf);
    const std::string* text =
        d.range && !d.range->file.empty() ? files.textOf(d.range->file) : nullptr;
    if (text) {
      add(d.range->file, std::move(diag));
      continue;
    }
    diag.range = {};                        // shown at the top of each document
    if (d.range && !d.range->file.empty())  // a file outside the crate (`core`): named
      diag.message += " (at " + d.range->file + ":" + std::to_string(d.range->startLine) + ")";
    addToServed(diag);
  }
  for (const KernelInfo& k : result.kernels) {
    if (!k.resources) continue;
    const KernelResources& r = *k.resources;
    if (r.spillStores == 0 && r.spillLoads == 0 && r.localMemory == 0) continue;
    lsp::Diagnostic diag;
    diag.severity = lsp::DiagnosticSeverity::Warning;
    diag.source = "kernelscope";
    diag.message = "kernel `" + (k.demangled.empty() ? k.symbol : k.demangled) + "` on " +
                   result.arch + ": " + std::to_string(r.spillStores) + " B spill stores, " +
                   std::to_string(r.spillLoads) + " B spill loads, " +
                   std::to_string(r.localMemory) + " B local memory";
    const std::string& file =
        k.definition.file.empty() ? served.front()->path : k.definition.file.str();
    const std::string* text = k.definition.line ? files.textOf(file) : nullptr;
    if (!text) {
      addToServed(diag);
      continue;
    }
    diag.range.start = diag.range.end = positionOfCharColumn(*text, k.definition.line, 1, enc);
    add(file, std::move(diag));
  }
  for (const Snapshot* s : served)
    for (SpecDiagnostic& d : specDiagnostics(*s, enc, crateSpecs))
      add(s->path, std::move(d.diagnostic));
  if (settings.compile.remarks) {
    for (const Remark& r : result.remarks) {
      if (r.kind != Remark::Kind::Missed || !r.location) continue;
      const std::string* text = files.textOf(r.location->file);
      if (!text) continue;
      lsp::Diagnostic diag;
      diag.severity = lsp::DiagnosticSeverity::Hint;
      diag.source = "llvm " + r.pass;
      diag.message = r.message;
      diag.range.start = diag.range.end =
          positionOfCharColumn(*text, r.location->line, r.location->column, enc);
      add(r.location->file, std::move(diag));
    }
  }
  return out;
}

}  // namespace ks::server
