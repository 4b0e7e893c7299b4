// LspServer: the protocol adapter. Decodes JSON-RPC, dispatches through one method
// table, asks the Session which documents compile and recompile (Session.h), drives the
// Scheduler, and encodes what the features compute. Every member runs on the io thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ArtifactView.h"
#include "EditorProcessWatch.h"
#include "Engine.h"
#include "Extensions.h"
#include "FileWatcher.h"
#include "GpuRuns.h"
#include "JobRunner.h"
#include "JsonRpc.h"
#include "PassesCache.h"
#include "Protocol.h"
#include "Scheduler.h"
#include "Session.h"
#include "Settings.h"
#include "SourceText.h"
#include "Transport.h"
#include "Trust.h"
#include "Workspace.h"

namespace ks::server {

class CrateLaunchSpecs;  // GpuFeatures.h

enum class RegisterQuery;  // Features.h: the features are the server's own

template <class T>
using Callback = std::function<void(lsp::Expected<T>)>;

struct ServerOptions {
  SchedulerOptions scheduler;
  /// The compile function; lspMain passes the real pipeline, tests a fake one.
  CompileFunction compile;
  /// The pass-by-pass run (kernelscope/passes); unset: the request fails.
  PassesFunction passes;
  /// A document not asked about for this long has all its results parked (Workspace.h).
  std::chrono::milliseconds parkIdleAfter = Workspace::kIdleBeforeParking;
  /// Parks a result nobody looks at (Workspace::toPark); the engine's has its cache keep it
  /// parked too (Engine::park).
  std::function<std::shared_ptr<const ParkedResult>(const std::shared_ptr<const CompileResult>&)>
      park = [](const std::shared_ptr<const CompileResult>& result) {
        return ParkedResult::park(*result);
      };
  /// Reports durations as 0 (lit-test mode), so that conversation output is stable.
  bool deterministic = false;
  /// Told about every change of settings (the real compiler re-discovers its toolchain
  /// when the rustc path changes).
  std::function<void(const Settings&)> settingsChanged;
  /// How often the server polls the files open kernels use, when the client cannot
  /// watch files for it.
  std::chrono::milliseconds watchInterval{1000};
  /// How often the server checks that the editor named by `initialize`'s `processId` is
  /// still running; it exits when it is not.
  std::chrono::milliseconds editorPollInterval{1000};
  /// Runs kernels on a GPU (kernelscope/run, kernelscope/profile); unset: those requests fail.
  GpuFunction gpu;
  /// When set (`kernelscope lsp --port`), `initialize` must carry it as
  /// `initializationOptions.token`; a client without it is answered with an error and the
  /// server stops, so another local process cannot take the server over.
  std::optional<std::string> requiredToken;
};

/// Points `options` at the real engine: its compiles, pass-by-pass runs and GPU jobs, and
/// each change of settings applied to it at once (the rustc: the settings', else
/// `defaultRustc`, the command line's; the cache's bound). `engine` outlives the server.
void useEngine(ServerOptions& options, Engine& engine, std::string defaultRustc);

class LspServer final : public MessageHandler {
 public:
  LspServer(Transport&, ServerOptions);
  ~LspServer() override;

  // MessageHandler
  void onMessage(std::string_view body) override;
  void onStreamError(const std::string& what) override;
  bool finished() const override { return exited_; }
  bool idle() const override;

  /// The exit status after `exit`: 0 when `shutdown` came first, 1 otherwise.
  int exitCode() const { return shutdownRequested_ ? 0 : 1; }
  const Scheduler& scheduler() const { return *scheduler_; }
  const Settings& settings() const { return settings_; }

  /// Reports long work (building the sysroot) as `$/progress`. `kind` is "begin",
  /// "report" or "end".
  void progress(const std::string& token, std::string_view kind, const std::string& message);

 private:
  // Lifecycle.
  void onInitialize(const lsp::InitializeParams&, Callback<lsp::json>);
  void onInitialized(const lsp::NoParams&);
  void onShutdown(const lsp::NoParams&, Callback<lsp::json>);
  void onExit(const lsp::NoParams&);
  void onCancelRequest(const lsp::CancelParams&);
  void onSync(const lsp::NoParams&, Callback<lsp::json>);
  // Documents and workspace.
  void onDidOpen(const lsp::DidOpenTextDocumentParams&);
  void onDidChange(const lsp::DidChangeTextDocumentParams&);
  void onDidSave(const lsp::DidSaveTextDocumentParams&);
  void onDidClose(const lsp::DidCloseTextDocumentParams&);
  void onDidChangeWatchedFiles(const lsp::DidChangeWatchedFilesParams&);
  /// Parks, off the io thread, the results nobody looks at (Workspace::toPark); after each
  /// compile.
  void parkUnused();
  /// The editor asks about `d` or changes it: its parked result comes back (Workspace::use),
  /// and it compiles again if it could not.
  void use(Document& d);
  /// Recompiles the open kernels that use any of `paths` (files changed on disk).
  void recompileUsersOf(const std::vector<std::string>& paths);
  /// Points the server's own watcher at the files the open kernels use.
  void updateWatchedFiles();
  void onDidChangeConfiguration(const lsp::DidChangeConfigurationParams&);
  void onExecuteCommand(const lsp::ExecuteCommandParams&, Callback<lsp::json>);
  // Features.
  void onHover(const lsp::TextDocumentPositionParams&, Callback<std::optional<lsp::Hover>>);
  void onInlayHint(const lsp::InlayHintParams&, Callback<std::vector<lsp::InlayHint>>);
  void onCodeLens(const lsp::CodeLensParams&, Callback<std::vector<lsp::CodeLens>>);
  void onCodeAction(const lsp::CodeActionParams&, Callback<std::vector<lsp::CodeAction>>);
  void onArtifact(const lsp::ArtifactParams&, Callback<lsp::ArtifactResult>);
  void onLineMap(const lsp::LineMapParams&, Callback<lsp::LineMapResult>);
  void onSourceLocation(const lsp::SourceLocationParams&, Callback<lsp::SourceLocationResult>);
  void onKernels(const lsp::KernelsParams&, Callback<lsp::KernelsResult>);
  void onLineCosts(const lsp::LineCostsParams&, Callback<lsp::LineCostsResult>);
  void onValueFlow(const lsp::ValueFlowParams&, Callback<lsp::ValueFlowResult>);
  void onDefinition(const lsp::TextDocumentPositionParams&, Callback<std::vector<lsp::Location>>);
  void onReferences(const lsp::ReferenceParams&, Callback<std::vector<lsp::Location>>);
  /// Definition and references on a register of a SASS view (none elsewhere).
  void registerQuery(const std::string& uri, const lsp::Position&, RegisterQuery,
                     Callback<std::vector<lsp::Location>>);
  void onDiff(const lsp::DiffParams&, Callback<lsp::DiffResult>);
  void onPasses(const lsp::PassesParams&, Callback<lsp::PassesResult>);
  void onRun(const lsp::GpuRunParams&, Callback<lsp::json>);
  void onProfile(const lsp::GpuRunParams&, Callback<lsp::json>);
  void startGpuJob(const lsp::GpuRunParams&, bool profile, Callback<lsp::json>);
  /// A profile's result, its editor side, and the profile shown while `uri`'s text is `text`.
  lsp::json showProfile(const std::string& uri, const std::string& path, const std::string& text,
                        gpu::GpuOutcome& outcome, const lsp::ArtifactFilters& filters);
  /// kernelscope.insertLaunchSpec: a spec skeleton above a kernel (workspace/applyEdit).
  void insertLaunchSpec(const lsp::json& args, Callback<lsp::json>);
  /// The profile shown on `d`, while its text is the one profiled.
  std::shared_ptr<const ShownProfile> shownProfile(const Document& d) const;

  // The method table.
  using RequestHandler = std::function<void(const lsp::json& params, const lsp::json& id)>;
  using NotificationHandler = std::function<void(const lsp::json& params)>;
  template <class Param, class Result>
  void bind(std::string_view method, void (LspServer::*)(const Param&, Callback<Result>));
  template <class Param>
  void bind(std::string_view method, void (LspServer::*)(const Param&));
  void bindMethods();

  void dispatch(const lsp::json& message);
  void reply(const lsp::json& id, lsp::json result);
  void replyError(const lsp::json& id, lsp::ErrorCode, std::string_view message);
  void notify(std::string_view method, lsp::json params);
  /// Runs a function on the io thread later (from any thread): where work handed off reports.
  PostFunction postToIoThread();
  /// Sends a request to the client; its response is ignored.
  void request(std::string_view method, lsp::json params);
  void log(int type, const std::string& message);

  // Compiles: which, decided by session_; when, by the Scheduler.
  /// Stops the compiles the plan cancels and schedules its compiles (none after
  /// `shutdown`); each open file a scheduled compile serves is told it is queued.
  void schedule(CompilePlan);
  /// Publishes a compile's diagnostics for the files they are about, and clears those of
  /// files that the compiles of `r.key` diagnosed before and that have none now.
  void publishDiagnostics(const CompileRequest& r, const std::vector<const Snapshot*>& served);
  void clearDiagnostics(const std::string& path);
  void onCompileStarted(const CompileRequest&);
  void onCompileFinished(const CompileRequest&, std::shared_ptr<const CompileResult>,
                         std::chrono::milliseconds);
  /// Records a compile's result (final, or published early with stages still to come) as
  /// the Snapshot of each open file it served and tells the client: diagnostics, status,
  /// lens and hint refresh. Returns the Snapshots recorded.
  std::vector<std::shared_ptr<const Snapshot>> serveResult(const CompileRequest&,
                                                           std::shared_ptr<const CompileResult>,
                                                           std::chrono::milliseconds);
  void sendStatus(const Document&, int revision, std::string_view state, const Snapshot* attempt,
                  const lsp::CompileChanges* changes = nullptr);
  /// Sends `current`'s ready status once what it changed against `base` is known: the diff
  /// runs on changeSummaries_, off the io thread. A status sent for the document meanwhile
  /// supersedes it.
  void sendReadyWithChanges(std::shared_ptr<const Snapshot> current,
                            std::shared_ptr<const Snapshot> base);
  /// No compile is pending or running and no status waits for its diff.
  bool compilesSettled() const;
  void finishSyncsIfIdle();
  void postCheckSyncs();
  /// Applies the editor's settings (initializationOptions, didChangeConfiguration).
  void applySettingsJson(const lsp::json&);
  /// Reads the workspace's kernelscope.toml again; true when the settings changed.
  bool loadSettingsFile();
  /// settings_ from its layers: the defaults, kernelscope.toml, the editor's.
  void rebuildSettings();
  /// Tells the user of bad settings (log and message), one by one.
  void reportSettingsProblems(const std::vector<std::string>& problems);

  /// The source document and its newest Snapshot for a `file:` URI, or the error to
  /// answer with (unknown document, not compiled yet).
  lsp::Expected<std::pair<Document*, std::shared_ptr<const Snapshot>>> snapshotFor(
      const std::string& uri);
  /// The same for a `kernelscope:` virtual document, with its stage.
  struct VirtualTarget {
    Document* document;
    std::shared_ptr<const Snapshot> snapshot;
    Stage stage;
  };
  lsp::Expected<VirtualTarget> resolveVirtual(const std::string& uri);
  /// The artifact line that line `line` of the view with `filters` shows (-1: none).
  static int artifactLineOf(const VirtualTarget&, int line,
                            const std::optional<lsp::ArtifactFilters>& filters);
  /// The client's own URI for an open document's path, else a `file:` URI of it.
  std::function<std::string(const std::string& path)> uriOf();
  /// The lines the hover stages' views of `s` show under countFilters_, which the hovers
  /// and inlay hints count.
  ShownLines shownLines(const Snapshot& s);

  Transport& transport_;
  ServerOptions options_;
  Workspace workspace_;
  Session session_{workspace_};
  Settings settings_;
  SettingsLayers settingsLayers_;
  std::string settingsFile_;  // <workspace root>/kernelscope.toml
  /// kernelscope.toml's values not applied because the workspace is not trusted, in words
  /// (reported when they change, and in every kernelscope/status).
  std::vector<std::string> withheldSettings_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<PassesCache> passes_;  // made on the first kernelscope/passes
  std::unique_ptr<GpuRuns> gpu_;         // made on the first kernelscope/run or /profile
  /// The crates' launch specs for the lenses, read by the compile's workers.
  std::shared_ptr<CrateLaunchSpecs> crateSpecs_;
  /// The diffs behind ready statuses' change summaries, one at a time, in order.
  JobRunner changeSummaries_{1};
  /// Parks the results nobody looks at (parkUnused), one at a time.
  JobRunner parking_{1};
  int parksInFlight_ = 0;
  int summariesInFlight_ = 0;
  /// The statuses sent per document path: a summary finishing late is sent only when no
  /// newer status went out while its diff ran.
  std::map<std::string, int> statusesSent_;
  std::map<std::string, RequestHandler, std::less<>> requests_;
  std::map<std::string, NotificationHandler, std::less<>> notifications_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  lsp::ClientCapabilities client_;
  /// How this editor's user trusts a workspace (trustHintFor), ending withheld messages.
  std::string trustHint_ = kTrustHint;
  /// How this editor's user sets a GPU runner (runnerHintFor), ending no-driver messages.
  std::string runnerHint_ = runnerHintFor("");

  bool initialized_ = false;  // `initialize` was answered
  // The session's first compile also discovers the toolchain: it is shown as work-done
  // progress, begun when it starts and ended when its result (of any revision) arrives.
  enum class FirstCompile { NotStarted, Running, Done } firstCompile_ = FirstCompile::NotStarted;
  bool shutdownRequested_ = false;
  bool exited_ = false;
  int nextRequestId_ = 0;
  lsp::json currentId_;  // the id of the request being dispatched
  std::set<std::string> progressTokens_;

  /// Requests answered later (kernelscope/sync), by id, so $/cancelRequest can answer them.
  std::map<std::string, Callback<lsp::json>> deferred_;
  /// The server's own file watching, when the client does not watch for it.
  std::unique_ptr<FileWatcher> watcher_;
  /// The filters of the newest kernelscope/artifact request per view (its source path and
  /// stage, however the URI spells them), so that hovers on the view find the line it
  /// shows. Dropped when the view's document closes, or its source does.
  std::map<std::pair<std::string, std::string>, lsp::ArtifactFilters> viewFilters_;
  /// The filters the hovers and inlay hints count the views' lines with: those of the newest
  /// kernelscope/artifact request (none without `filters`), the views' defaults before one.
  /// Clients ask every view with the same filters, so one set serves every stage.
  lsp::ArtifactFilters countFilters_ = defaultViewFilters();
  LineFiltersCache lineFilters_;
  /// Watches the editor's process (`processId`), when it named one.
  std::unique_ptr<EditorProcessWatch> editorWatch_;
  std::set<std::string> watched_;
  /// Guards tasks posted to the transport against running after destruction.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace ks::server
