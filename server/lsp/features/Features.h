// The user-visible features, each computed from one immutable Snapshot.
//
// One .cpp per feature (Hover, InlayHints, CodeLens, PublishDiagnostics, Artifacts, SourceMap,
// Kernels, RevisionDiff, Passes, Status). They convert and render what the pipeline computed; none
// of them runs a tool or touches the Workspace, so each can be tested on a canned Snapshot.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "Extensions.h"
#include "JsonRpc.h"
#include "Passes.h"
#include "Protocol.h"
#include "Settings.h"
#include "SourceText.h"
#include "Workspace.h"

namespace ks {
class ArtifactView;  // convert/ArtifactView.h
struct ShownLines;   // convert/ArtifactView.h
}  // namespace ks

namespace ks::server {

class CrateLaunchSpecs;  // GpuFeatures.h

// Conversions shared by the features (Convert.cpp).

/// The URI that names the file at `path` for the client: the client's own spelling for a
/// document it opened (`%3a` or `%3A`, its encoding of non-ASCII characters), so that it
/// can compare what the server sends with the URIs it holds; otherwise a `file:` URI.
using UriOf = std::function<std::string(const std::string& path)>;

/// The extension of a stage named on the wire, empty for unknown names.
std::string_view extensionOfStageName(std::string_view name);
/// The virtual document of `stage` for the source at `path`.
std::string virtualUri(Stage stage, const std::string& path, std::optional<int> revision = {});
/// An inline frame for the wire (1-based compiler positions to 0-based LSP ones).
lsp::InlineFrame toInlineFrame(const Frame&, const UriOf&);
/// A stage's outcome in a Snapshot, or an error naming why it is not there.
lsp::Expected<const StageOutcome*> stageOf(const Snapshot&, Stage);
/// What a source line's code is counted as in some stages, alike in the hover, the inlay
/// hints and `kernelscope report`'s source pane: the lines of it that the stages' views show
/// (under their filters); or, on a line whose only shown code in those stages came through an
/// inlined call of the user's own function (`let y = horner(x)`), the shown lines inlined
/// through that call, marked `(inlined)`: without a count it reads as a line that produced
/// nothing.
struct LineCount {
  struct PerStage {
    Stage stage;
    std::vector<uint32_t> lines;    // the lines counted: its own, or inlined (see `inlined`)
    std::vector<uint32_t> inlined;  // the lines inlined through the line besides its own
  };
  std::vector<PerStage> stages;  // the available stages the line has shown code in, in order
  bool inlined = false;          // counted by the lines inlined through a call on it
  const PerStage* find(Stage) const;
  /// ` (inlined)` for a line counted by its inlined code, else nothing.
  std::string_view mark() const { return inlined ? " (inlined)" : ""; }
};
/// The count of `src` in each of `stages` (those available in the result), of the lines that
/// `shown` shows.
LineCount countLine(const CompileResult&, const std::vector<Stage>& stages, const SourceLine& src,
                    const ShownLines& shown);

// Hover.cpp
/// What source line `line` (0-based) became in the hover stages; nullopt when nothing.
/// `markdown` false: plain text, for a client that accepts only plaintext.
/// Counts what `shown` shows (countLine).
std::optional<lsp::Hover> sourceHover(const Snapshot&, int line, const Settings&,
                                      const ShownLines& shown, bool markdown);
/// Where line `line` of a stage's artifact came from.
std::optional<lsp::Hover> artifactHover(const Snapshot&, Stage, int line, bool markdown);

// InlayHints.cpp
/// `4 ptx · 6 sass` at the end of each line of `range` that produced code.
/// Counts what `shown` shows (countLine).
std::vector<lsp::InlayHint> inlayHints(const Snapshot&, const lsp::Range&, const Settings&,
                                       const ShownLines& shown, PositionEncoding);

// CodeLens.cpp
/// A summary lens on each kernel and one lens per available stage to open it.
/// `earlier`: the newest snapshot of the document before `s` whose kernels have their
/// resources, shown (marked updating) while `s`'s are still coming; may be null.
std::vector<lsp::CodeLens> codeLenses(const Snapshot& s, const Snapshot* earlier, PositionEncoding);

// PublishDiagnostics.cpp
/// Where one compile attempt's diagnostics go, by file path. `served` are the Snapshots of
/// the open documents the compile served (one crate's, sharing one result): each gets an
/// entry, empty when it has no diagnostics. A diagnostic in another file of the crate goes
/// to that file, positioned in `textOf(path)` (its text on disk). One without a position,
/// or in a file outside the crate (`core`), goes to every served document. The problems of
/// the launch specs written in each served document (specDiagnostics) go with its own.
std::map<std::string, lsp::PublishDiagnosticsParams> diagnosticsOf(
    const std::vector<const Snapshot*>& served, const Settings&, PositionEncoding,
    const std::function<std::string(const std::string& path)>& textOf, const UriOf&,
    const CrateLaunchSpecs& crateSpecs);
/// A compiler message as LSP says it, positioned in the text of the file its range names
/// (`textOf` gives it, nullptr for a file outside the crate): its code with a link to
/// the code's explanation, its labels and notes at other spans as related information.
lsp::Diagnostic toLspDiagnostic(
    const Diagnostic&, const std::function<const std::string*(const std::string& path)>& textOf,
    PositionEncoding, const UriOf&);

// CodeActions.cpp
/// Quick fixes for the compiler's machine-applicable suggestions on diagnostics of the
/// Snapshot's file whose range meets `range`, and for its launch specs' problems there
/// (specDiagnostics).
std::vector<lsp::CodeAction> codeActions(const Snapshot&, const lsp::Range&, PositionEncoding,
                                         const UriOf&, const CrateLaunchSpecs& crateSpecs);

// Artifacts.cpp
/// The kernelscope/artifact result for one stage of a Snapshot.
lsp::Expected<lsp::ArtifactResult> artifactOf(const Snapshot&, Stage, bool versionedUri,
                                              const UriOf&);

// SourceMap.cpp
lsp::LineMapResult lineMapOf(const Snapshot&, int line);
lsp::SourceLocationResult sourceLocationOf(const Snapshot&, Stage, int line, const UriOf&);

// Kernels.cpp
lsp::KernelsResult kernelsOf(const Snapshot&, PositionEncoding);

// LineCosts.cpp
/// What each line of the Snapshot's file costs (0-based lines), its kernels' register
/// pressure and the lines to look at first.
lsp::LineCostsResult lineCostsOf(const Snapshot&);

// ValueFlow.cpp
/// Where the values SASS line `line` reads come from and which instructions read what it
/// writes, as sites in the SASS view `sassUri` (in `view`'s lines when it has filters) and in
/// the source.
lsp::ValueFlowResult valueFlowOf(const Snapshot&, int line, const std::string& sassUri,
                                 const ArtifactView* view, const UriOf&);
enum class RegisterQuery { Definition, References, ReferencesAndDeclaration };
/// textDocument/definition and references on the register at `character` of SASS line `line`
/// (`viewLine` in the view, whose text the character counts in): a source register's
/// definitions (the instruction itself for one it writes); the instructions that read the
/// value, and with the declaration its definitions.
std::vector<lsp::Location> registerLocations(const Snapshot&, int line, int viewLine, int character,
                                             const std::string& sassUri, const ArtifactView* view,
                                             RegisterQuery);

// RevisionDiff.cpp
lsp::Expected<lsp::DiffResult> diffOf(const Snapshot& base, const Snapshot& current, Stage);
/// What `current` changed against `base` (both compiled): the per-stage summary.
lsp::CompileChanges changesOf(const Snapshot& base, const Snapshot& current);

// Passes.cpp
/// The wire form of a kernel's passes in a Snapshot; `only` keeps one stage's.
lsp::PassesResult passesReplyOf(const Snapshot&, const PassesResult&, std::optional<Stage> only);

// Status.cpp
/// The kernelscope/status of `revision`; `attempt` is its outcome once there is one, and
/// `changes` what it changed against the newest earlier Snapshot that compiled (changesOf,
/// given with a ready status).
lsp::StatusParams statusOf(const std::string& uri, int revision, std::string_view state,
                           const Snapshot* attempt, bool reportDuration,
                           const lsp::CompileChanges* changes = nullptr);

}  // namespace ks::server
