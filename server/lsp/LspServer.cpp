// LspServer: lifecycle, the method table and every handler: documents, compiles, the
// features, kernelscope/passes and the GPU jobs, over the session (server/session).
#include "LspServer.h"

#include <malloc.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ArtifactView.h"
#include "CompileCache.h"
#include "Features.h"
#include "Files.h"
#include "GpuArch.h"
#include "GpuFeatures.h"
#include "GpuResults.h"
#include "Runner.h"
#include "Trust.h"
#include "Uri.h"

namespace ks::server {

using lsp::ErrorCode;
using lsp::json;

namespace {

template <class T>
json toJson(const T& v) {
  return json(v);
}
template <class T>
json toJson(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
template <class T>
json toJson(const std::vector<T>& v) {
  json a = json::array();
  for (const auto& x : v) a.push_back(x);
  return a;
}

constexpr std::string_view kVirtualScheme = "kernelscope:";
// Window message types of window/logMessage and window/showMessage.
constexpr int kError = 1, kWarning = 2, kInfo = 3;

bool isVirtual(std::string_view uri) {
  return uri.substr(0, kVirtualScheme.size()) == kVirtualScheme;
}

/// A file's text; empty when it is missing, not a regular file (a FIFO never hangs the
/// server) or too large.
std::string readFileText(const std::string& path) { return readRegularFile(path).text; }

/// The answer to a request that names no stage kernelscope knows.
lsp::ResponseError unknownStage(const std::string& name) {
  return {ErrorCode::InvalidParams,
          "unknown stage '" + name + "' (known: " + stageNameList() + ")"};
}

/// The key of a view in `viewFilters_`: its source path and stage, whatever the URI's
/// spelling (percent-encoding, a `?rev=`); nullopt for a URI that is no view.
std::optional<std::pair<std::string, std::string>> viewKey(const std::string& uri) {
  auto v = lsp::parseVirtualUri(uri, &extensionOfStageName);
  if (!v) return std::nullopt;
  return std::pair(normalizePath(v->path), v->stage);
}

/// glibc's malloc as a server that compiles for hours wants it. A compile allocates and frees
/// tens of MiB (tool outputs, rustc's IR parsed into LLVM, the back end) between the results
/// it keeps; with the defaults, the freed memory stayed in the process as holes between kept
/// results: over edit/compile cycles of a 40-kernel file, RSS was 345 MiB with 201 MiB in use
/// (ks_bench_scale). Allocations of 128 KiB and more are mmapped and given back when freed
/// (glibc raises that threshold to the largest block freed unless it is set), and two arenas
/// serve all threads (one per thread left a worker's freed memory where the next compile's
/// thread did not reuse it): 302 MiB; malloc_trim after each compile (onCompileFinished) gives
/// back the free pages left between kept blocks. The price is CPU: a compile's large buffers
/// fault their pages in afresh and threads wait for the two arenas, about 0.4 s of a 40-kernel
/// edit cycle's 1.4-1.6 s (a 2 MiB threshold: 7% less CPU, 17 MiB more; untuned or another
/// allocator: a third less, 20-90 MiB more; README, "Performance").
void tuneAllocator() {
  static const bool tuned = [] {
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
    mallopt(M_ARENA_MAX, 2);
    return true;
  }();
  (void)tuned;
}

}  // namespace

LspServer::LspServer(Transport& transport, ServerOptions options)
    : transport_(transport), options_(std::move(options)) {
  tuneAllocator();
  SchedulerListener listener;
  listener.started = [this](const CompileRequest& r) { onCompileStarted(r); };
  listener.finished = [this](const CompileRequest& r, std::shared_ptr<const CompileResult> result,
                             std::chrono::milliseconds elapsed) {
    onCompileFinished(r, std::move(result), elapsed);
  };
  listener.published = [this](const CompileRequest& r, std::shared_ptr<const CompileResult> result,
                              std::chrono::milliseconds elapsed) {
    serveResult(r, std::move(result), elapsed);
  };
  listener.cancelled = [this](const CompileRequest&) { postCheckSyncs(); };
  // After each compile, on its worker: the crate's launch specs, which the lenses show.
  crateSpecs_ = std::make_shared<CrateLaunchSpecs>();
  CompileFunction compile = [compile = options_.compile, specs = crateSpecs_](
                                const CompileInput& in, const CompileOptions& o,
                                const CancellationToken& c) {
    SharedResult result = compile(in, o, c);
    if (result.result && !result.result->crateManifest.empty())
      specs->read(result.result->crateManifest);
    return result;
  };
  scheduler_ = std::make_unique<Scheduler>(
      std::move(compile), [&transport](std::function<void()> fn) { transport.post(std::move(fn)); },
      std::move(listener), options_.scheduler);
  session_.setCompileOptions(settings_.compile);
  bindMethods();
}

LspServer::~LspServer() {
  watcher_.reset();  // its thread posts to us
  editorWatch_.reset();
  *alive_ = false;
  scheduler_.reset();  // joins the workers before the members they report to go away
}

// ---------------------------------------------------------------------------------------
// The method table.

template <class Param, class Result>
void LspServer::bind(std::string_view method,
                     void (LspServer::*handler)(const Param&, Callback<Result>)) {
  requests_[std::string(method)] = [this, handler, name = std::string(method)](const json& params,
                                                                               const json& id) {
    Param p;
    try {
      p = params.get<Param>();
    } catch (const json::exception& e) {
      replyError(id, ErrorCode::InvalidParams, name + ": invalid params: " + e.what());
      return;
    }
    (this->*handler)(p, [this, id, alive = alive_](lsp::Expected<Result> r) {
      if (!*alive) return;
      if (r)
        reply(id, toJson(*r));
      else
        replyError(id, r.error().code, r.error().message);
    });
  };
}

template <class Param>
void LspServer::bind(std::string_view method, void (LspServer::*handler)(const Param&)) {
  notifications_[std::string(method)] = [this, handler,
                                         name = std::string(method)](const json& params) {
    Param p;
    try {
      p = params.get<Param>();
    } catch (const json::exception& e) {
      log(kError, name + ": invalid params: " + e.what());
      return;
    }
    (this->*handler)(p);
  };
}

void LspServer::bindMethods() {
  bind("initialize", &LspServer::onInitialize);
  bind("initialized", &LspServer::onInitialized);
  bind("shutdown", &LspServer::onShutdown);
  bind("exit", &LspServer::onExit);
  bind("$/cancelRequest", &LspServer::onCancelRequest);
  bind("textDocument/didOpen", &LspServer::onDidOpen);
  bind("textDocument/didChange", &LspServer::onDidChange);
  bind("textDocument/didSave", &LspServer::onDidSave);
  bind("textDocument/didClose", &LspServer::onDidClose);
  bind("workspace/didChangeWatchedFiles", &LspServer::onDidChangeWatchedFiles);
  bind("workspace/didChangeConfiguration", &LspServer::onDidChangeConfiguration);
  bind("workspace/executeCommand", &LspServer::onExecuteCommand);
  bind("textDocument/hover", &LspServer::onHover);
  bind("textDocument/inlayHint", &LspServer::onInlayHint);
  bind("textDocument/codeLens", &LspServer::onCodeLens);
  bind("textDocument/codeAction", &LspServer::onCodeAction);
  bind("kernelscope/artifact", &LspServer::onArtifact);
  bind("kernelscope/lineMap", &LspServer::onLineMap);
  bind("kernelscope/sourceLocation", &LspServer::onSourceLocation);
  bind("kernelscope/kernels", &LspServer::onKernels);
  bind("kernelscope/lineCosts", &LspServer::onLineCosts);
  bind("kernelscope/valueFlow", &LspServer::onValueFlow);
  bind("textDocument/definition", &LspServer::onDefinition);
  bind("textDocument/references", &LspServer::onReferences);
  bind("kernelscope/diff", &LspServer::onDiff);
  bind("kernelscope/passes", &LspServer::onPasses);
  bind("kernelscope/run", &LspServer::onRun);
  bind("kernelscope/profile", &LspServer::onProfile);
  bind("kernelscope/sync", &LspServer::onSync);
}

// ---------------------------------------------------------------------------------------
// Messages in and out.

void LspServer::onMessage(std::string_view body) {
  if (lsp::nestsDeeperThan(body)) {
    replyError(nullptr, ErrorCode::InvalidRequest,
               "the message nests deeper than " + std::to_string(lsp::kMaxJsonDepth) + " levels");
    return;
  }
  json message = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    replyError(nullptr, ErrorCode::ParseError, "the message is not valid JSON");
    return;
  }
  dispatch(message);
}

void LspServer::onStreamError(const std::string& what) { log(kError, "malformed input: " + what); }

void LspServer::dispatch(const json& message) {
  if (!message.is_object()) {
    replyError(nullptr, ErrorCode::InvalidRequest, "a message must be a JSON object");
    return;
  }
  auto idIt = message.find("id");
  bool hasId = idIt != message.end();
  json id = hasId ? *idIt : json(nullptr);
  if (hasId && !id.is_string() && !id.is_number_integer()) {
    replyError(nullptr, ErrorCode::InvalidRequest, "the id must be a string or an integer");
    return;
  }
  auto methodIt = message.find("method");
  if (methodIt == message.end()) {
    // A response to one of our requests (registerCapability, progress): nothing to do.
    if (hasId && (message.contains("result") || message.contains("error"))) return;
    replyError(id, ErrorCode::InvalidRequest, "a message needs a method");
    return;
  }
  if (!methodIt->is_string()) {
    replyError(id, ErrorCode::InvalidRequest, "the method must be a string");
    return;
  }
  const std::string method = methodIt->get<std::string>();
  auto paramsIt = message.find("params");
  const json params = paramsIt == message.end() ? json(nullptr) : *paramsIt;

  if (hasId) {
    if (!initialized_ && method != "initialize") {
      replyError(id, ErrorCode::ServerNotInitialized,
                 method + ": the server is not initialized yet");
      return;
    }
    if (initialized_ && method == "initialize") {
      replyError(id, ErrorCode::InvalidRequest, "initialize: the server is already initialized");
      return;
    }
    if (shutdownRequested_) {
      replyError(id, ErrorCode::InvalidRequest, method + ": the server is shutting down");
      return;
    }
    auto it = requests_.find(method);
    if (it == requests_.end()) {
      replyError(id, ErrorCode::MethodNotFound, "unknown method " + method);
      return;
    }
    currentId_ = id;
    try {
      it->second(params, id);
    } catch (const std::exception& e) {
      replyError(id, ErrorCode::InternalError, method + ": " + e.what());
    }
    return;
  }
  // Notifications before initialize are dropped, except exit (LSP 3.17).
  if (!initialized_ && method != "exit") return;
  auto it = notifications_.find(method);
  if (it == notifications_.end()) {
    if (!method.starts_with("$/")) log(kInfo, "ignored unknown notification " + method);
    return;
  }
  try {
    it->second(params);
  } catch (const std::exception& e) {
    log(kError, method + ": " + e.what());
  }
}

void LspServer::reply(const json& id, json result) {
  transport_.send(lsp::makeResponse(id, std::move(result)));
}

void LspServer::replyError(const json& id, ErrorCode code, std::string_view message) {
  transport_.send(lsp::makeErrorResponse(id, code, message));
}

void LspServer::notify(std::string_view method, json params) {
  transport_.send(lsp::makeNotification(method, std::move(params)));
}

void LspServer::request(std::string_view method, json params) {
  transport_.send(lsp::makeRequest("kernelscope-" + std::to_string(++nextRequestId_), method,
                                   std::move(params)));
}

void LspServer::log(int type, const std::string& message) {
  notify("window/logMessage", {{"type", type}, {"message", message}});
}

void useEngine(ServerOptions& options, Engine& engine, std::string defaultRustc) {
  options.compile = [&engine](const CompileInput& in, const CompileOptions& o,
                              const CancellationToken& c) { return engine.compile(in, o, c); };
  options.passes = [&engine](const CompileInput& in, const CompileOptions& o,
                             const std::string& kernel, const CancellationToken& c) {
    return engine.passes(in, o, kernel, {}, c);
  };
  options.gpu = [&engine](const GpuJob& job, const GpuProgress& progress,
                          const CancellationToken& c) {
    return gpu::runOnGpu(engine, job, progress, c);
  };
  options.park = [&engine](const std::shared_ptr<const CompileResult>& result) {
    return engine.park(result);
  };
  options.settingsChanged = [&engine, defaultRustc = std::move(defaultRustc)](const Settings& s) {
    engine.setRustc(s.rustc.empty() ? defaultRustc : s.rustc);
    engine.setCacheCapacity(s.compileCacheMB << 20);
  };
}

void LspServer::parkUnused() {
  for (auto& result : workspace_.toPark(std::chrono::steady_clock::now(), options_.parkIdleAfter)) {
    ++parksInFlight_;
    auto parkIt = [this, alive = alive_, result, park = options_.park] {
      auto parked = park(result);
      transport_.post([this, alive, result, parked] {
        if (!*alive) return;
        --parksInFlight_;
        workspace_.parked(result, parked, std::chrono::steady_clock::now(), options_.parkIdleAfter);
      });
    };
    // Inline mode: after what the io thread is doing now, as a worker's would come.
    if (options_.scheduler.workers == 0)
      transport_.post(parkIt);
    else
      parking_.run(parkIt);
  }
}

void LspServer::use(Document& d) {
  if (!workspace_.use(d)) schedule(session_.compile(d, /*immediate=*/true));
}

PostFunction LspServer::postToIoThread() {
  return [this](std::function<void()> fn) { transport_.post(std::move(fn)); };
}

bool LspServer::idle() const {
  return compilesSettled() && parksInFlight_ == 0 && !(gpu_ && gpu_->running());
}

bool LspServer::compilesSettled() const { return scheduler_->idle() && summariesInFlight_ == 0; }

// ---------------------------------------------------------------------------------------
// Lifecycle.

void LspServer::onInitialize(const lsp::InitializeParams& params, Callback<json> reply) {
  if (options_.requiredToken) {
    const json& options = params.initializationOptions;
    const json* token =
        options.is_object() && options.contains("token") ? &options["token"] : nullptr;
    std::string given = token && token->is_string() ? token->get<std::string>() : "";
    // Compared in constant time: the answer's timing says nothing about the token.
    const std::string& wanted = *options_.requiredToken;
    unsigned char diff = given.size() != wanted.size();
    for (size_t i = 0; i < given.size() && i < wanted.size(); ++i) diff |= given[i] ^ wanted[i];
    if (diff) {
      reply(lsp::ResponseError{ErrorCode::InvalidRequest,
                               "initialize: this server needs the token it was started with "
                               "(initializationOptions.token)"});
      exited_ = true;  // the connection is dropped
      return;
    }
  }
  client_ = params.capabilities;
  trustHint_ = trustHintFor(params.clientName);
  runnerHint_ = runnerHintFor(params.clientName);
  if (params.processId && *params.processId > 0)
    editorWatch_ = std::make_unique<EditorProcessWatch>(
        *params.processId, options_.editorPollInterval,
        [this, alive = alive_, pid = *params.processId] {
          transport_.post([this, alive, pid] {
            if (!*alive) return;
            log(kInfo, "the editor (process " + std::to_string(pid) + ") is gone: exiting");
            for (Document* d : workspace_.documents()) scheduler_->cancel(d->path);
            exited_ = true;
          });
        });
  std::string encoding = "utf-16";
  for (const auto& e : client_.positionEncodings) {
    if (e == "utf-16") break;
    if (e == "utf-8") {
      encoding = e;
      encoding_ = PositionEncoding::Utf8;
      break;
    }
  }
  // The workspace's kernelscope.toml, under the editor's settings.
  if (params.rootUri)
    if (auto root = lsp::fileUriToPath(*params.rootUri))
      settingsFile_ = normalizePath(*root) + "/kernelscope.toml";
  loadSettingsFile();
  applySettingsJson(params.initializationOptions);
  initialized_ = true;

  json extensions = json::array();
  for (const auto& m : lsp::extensionMethods()) extensions.push_back(m.method);
  // The arch catalogue, from which the editors build their arch pickers.
  json archs = json::array();
  for (const GpuArchInfo& a : gpuArchs()) archs.push_back({{"name", a.name()}, {"gpus", a.gpus}});
  json stages = json::array();
  for (Stage st : kAllStages) stages.push_back(stageName(st));
  json capabilities = {
      {"positionEncoding", encoding},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", true}}}}},
      {"hoverProvider", true},
      {"definitionProvider", true},
      {"referencesProvider", true},
      {"inlayHintProvider", true},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
      {"executeCommandProvider",
       {{"commands",
         {"kernelscope.rebuild", "kernelscope.setArch", "kernelscope.insertLaunchSpec"}}}},
      {"experimental",
       {{"kernelscope",
         {{"methods", extensions},
          {"stages", stages},
          {"archs", archs},
          {"defaultArch", kDefaultArch}}}}},
  };
  reply(json{{"capabilities", capabilities},
             {"serverInfo", {{"name", "kernelscope"}, {"version", "0.1.0"}}}});
}

void LspServer::onInitialized(const lsp::NoParams&) {
  if (!client_.watchedFilesDynamicRegistration) {
    watcher_ = std::make_unique<FileWatcher>(
        [this, alive = alive_](std::vector<std::string> paths) {
          transport_.post([this, alive, paths = std::move(paths)] {
            if (*alive) recompileUsersOf(paths);
          });
        },
        options_.watchInterval);
    updateWatchedFiles();  // kernelscope.toml, before any compile
  } else {
    // Modules and path dependencies, the crates' manifests ([package.metadata.kernelscope]),
    // what else cargo reads (the lock file, configuration files, also one created later)
    // and the workspace's settings.
    json watchers = json::array({{{"globPattern", "**/*.rs"}},
                                 {{"globPattern", "**/Cargo.toml"}},
                                 {{"globPattern", "**/Cargo.lock"}},
                                 {{"globPattern", "**/.cargo/config.toml"}},
                                 {{"globPattern", "**/.cargo/config"}},
                                 {{"globPattern", "**/kernelscope.toml"}}});
    request("client/registerCapability",
            {{"registrations", json::array({{{"id", "kernelscope-watch-rs"},
                                             {"method", "workspace/didChangeWatchedFiles"},
                                             {"registerOptions", {{"watchers", watchers}}}}})}});
  }
}

void LspServer::onShutdown(const lsp::NoParams&, Callback<json> reply) {
  shutdownRequested_ = true;
  for (Document* d : workspace_.documents()) scheduler_->cancel(d->path);
  reply(json(nullptr));
}

void LspServer::onExit(const lsp::NoParams&) { exited_ = true; }

void LspServer::onCancelRequest(const lsp::CancelParams& params) {
  if (passes_ && passes_->cancel(params.id.dump()))
    return;                                            // a kernelscope/passes waiting for its run
  if (gpu_ && gpu_->cancel(params.id.dump())) return;  // answered once its processes are gone
  auto it = deferred_.find(params.id.dump());
  if (it == deferred_.end()) return;  // already answered: every other request answers at once
  Callback<json> cb = std::move(it->second);
  deferred_.erase(it);
  cb(lsp::ResponseError{ErrorCode::RequestCancelled, "cancelled"});
}

void LspServer::onSync(const lsp::NoParams&, Callback<json> reply) {
  if (compilesSettled()) {
    reply(json(nullptr));
    return;
  }
  deferred_[currentId_.dump()] = std::move(reply);
}

void LspServer::finishSyncsIfIdle() {
  if (deferred_.empty() || !compilesSettled()) return;
  auto waiting = std::move(deferred_);
  deferred_.clear();
  for (auto& [id, cb] : waiting) cb(json(nullptr));
}

void LspServer::postCheckSyncs() {
  // Runs after the scheduler's own posted task has finished counting as outstanding.
  transport_.post([this, alive = alive_] {
    if (*alive) finishSyncsIfIdle();
  });
}

void LspServer::progress(const std::string& token, std::string_view kind,
                         const std::string& message) {
  if (!client_.workDoneProgress) {
    log(kInfo, message);
    return;
  }
  if (!progressTokens_.count(token)) {
    request("window/workDoneProgress/create", {{"token", token}});
    progressTokens_.insert(token);
  }
  json value = {{"kind", kind}, {"message", message}};
  if (kind == "begin") value["title"] = "kernelscope";
  notify("$/progress", {{"token", token}, {"value", value}});
  if (kind == "end") progressTokens_.erase(token);
}

// ---------------------------------------------------------------------------------------
// Documents and settings.

void LspServer::schedule(CompilePlan plan) {
  for (const std::string& key : plan.cancel) scheduler_->cancel(key);
  if (shutdownRequested_) return;  // after `shutdown`, nothing new starts
  for (CompileRequest& r : plan.schedule) {
    const std::map<std::string, int> documents = r.documents;
    if (scheduler_->schedule(std::move(r)))
      for (Document* d : workspace_.documents())
        if (auto it = documents.find(d->path); it != documents.end())
          sendStatus(*d, it->second, "queued", nullptr);
    postCheckSyncs();
  }
}

void LspServer::onDidOpen(const lsp::DidOpenTextDocumentParams& p) {
  const auto& item = p.textDocument;
  if (isVirtual(item.uri)) return;  // our own virtual documents are views, not sources
  auto path = lsp::fileUriToPath(item.uri);
  if (!path) {
    log(kWarning, "not compiling " + item.uri + ": kernelscope compiles file: documents only");
    return;
  }
  schedule(
      session_.opened(item.uri, normalizePath(*path), item.languageId, item.version, item.text));
}

void LspServer::onDidChange(const lsp::DidChangeTextDocumentParams& p) {
  Document* d = workspace_.find(p.textDocument.uri);
  if (!d) {
    if (!isVirtual(p.textDocument.uri))
      log(kWarning, "didChange for a document that is not open: " + p.textDocument.uri);
    return;
  }
  for (const auto& change : p.contentChanges) {
    if (!change.range)
      d->text = change.text;
    else if (!applyEdit(d->text, *change.range, change.text, encoding_))
      log(kError, "didChange: an edit's range ends before it starts; edit ignored");
  }
  if (p.textDocument.version) d->version = *p.textDocument.version;
  // A profile describes the text that ran: the first edit takes its hints away.
  if (gpu_ && gpu_->dropIfStale(d->uri, d->text) && client_.inlayHintRefresh)
    request("workspace/inlayHint/refresh", nullptr);
  use(*d);
  schedule(session_.changed(*d));
}

void LspServer::onDidSave(const lsp::DidSaveTextDocumentParams& p) {
  Document* d = workspace_.find(p.textDocument.uri);
  if (!d) {
    if (!isVirtual(p.textDocument.uri))
      log(kWarning, "didSave for a document that is not open: " + p.textDocument.uri);
    return;
  }
  use(*d);
  schedule(session_.saved(*d, p.text));
}

void LspServer::onDidClose(const lsp::DidCloseTextDocumentParams& p) {
  Document* d = workspace_.find(p.textDocument.uri);
  if (!d) {
    if (auto view = viewKey(p.textDocument.uri))
      viewFilters_.erase(*view);
    else if (!isVirtual(p.textDocument.uri))
      log(kWarning, "didClose for a document that is not open: " + p.textDocument.uri);
    return;
  }
  const std::string uri = d->uri, path = d->path;
  // Its views go with it (a client that never opens them as documents closes only this).
  for (auto it = viewFilters_.lower_bound({path, ""});
       it != viewFilters_.end() && it->first.first == path;)
    it = viewFilters_.erase(it);
  Session::Closed closed = session_.closed(*d);
  if (closed.clearOwnDiagnostics)
    notify("textDocument/publishDiagnostics", lsp::PublishDiagnosticsParams{uri, std::nullopt, {}});
  schedule(std::move(closed.compiles));
  for (const std::string& file : closed.clearDiagnostics) clearDiagnostics(file);
  updateWatchedFiles();
  postCheckSyncs();
}

void LspServer::onDidChangeWatchedFiles(const lsp::DidChangeWatchedFilesParams& p) {
  std::vector<std::string> paths;
  for (const auto& change : p.changes)
    if (auto path = lsp::fileUriToPath(change.uri)) paths.push_back(normalizePath(*path));
  recompileUsersOf(paths);
}

void LspServer::recompileUsersOf(const std::vector<std::string>& paths) {
  if (std::find(paths.begin(), paths.end(), settingsFile_) != paths.end() && loadSettingsFile())
    schedule(session_.recompile(workspace_.documents(), /*immediate=*/true));
  else
    schedule(session_.filesChanged(paths));
}

void LspServer::updateWatchedFiles() {
  if (!watcher_) return;
  std::set<std::string> files = session_.filesRead();
  if (!settingsFile_.empty()) files.insert(settingsFile_);
  if (files == watched_) return;
  watched_ = files;
  watcher_->watch(files);
}

void LspServer::reportSettingsProblems(const std::vector<std::string>& problems) {
  for (const auto& problem : problems) {
    log(kWarning, "settings: " + problem);
    notify("window/showMessage",
           {{"type", kWarning}, {"message", "kernelscope settings: " + problem}});
  }
}

void LspServer::applySettingsJson(const json& j) {
  std::vector<std::string> problems;
  std::optional<SettingChanges> changes = decodeEditorSettings(j, problems);
  reportSettingsProblems(problems);
  if (!changes) return;
  settingsLayers_.changeEditorValues(*changes);
  rebuildSettings();
}

bool LspServer::loadSettingsFile() {
  if (settingsFile_.empty()) return false;
  std::vector<std::string> problems;
  FileText file = readRegularFile(settingsFile_);
  if (!file.ok() && !file.missing)
    problems.push_back("kernelscope.toml " + file.error + ": not read");
  SettingValues values = parseSettingsFile(file.text, problems);
  reportSettingsProblems(problems);
  settingsLayers_.setFileValues(std::move(values));
  Settings before = settings_;
  rebuildSettings();
  return !(before == settings_);
}

void LspServer::rebuildSettings() {
  SettingsLayers::Layered layered = settingsLayers_.layered();
  if (layered.withheld != withheldSettings_ && !layered.withheld.empty()) {
    std::string message = "kernelscope.toml: not applied:";
    for (const auto& w : layered.withheld) message += " " + w + ";";
    if (!layered.trusted) message += " " + trustHint_;
    log(kWarning, message);
    notify("window/showMessage", {{"type", kWarning}, {"message", message}});
  }
  withheldSettings_ = std::move(layered.withheld);
  Settings next = std::move(layered.settings);
  DebouncePolicy policy = options_.scheduler.debounce;
  if (next.debounce) policy.fixed = *next.debounce;
  scheduler_->setDebounce(policy);
  bool changed = !(next == settings_);
  settings_ = std::move(next);
  session_.setCompileOptions(settings_.compile);
  if (changed && options_.settingsChanged) options_.settingsChanged(settings_);
}

void LspServer::onDidChangeConfiguration(const lsp::DidChangeConfigurationParams& p) {
  Settings before = settings_;
  applySettingsJson(p.settings);
  if (before == settings_) return;
  schedule(session_.recompile(workspace_.documents(), /*immediate=*/true));
}

void LspServer::onExecuteCommand(const lsp::ExecuteCommandParams& p, Callback<json> reply) {
  const json& args = p.arguments;
  if (p.command == "kernelscope.rebuild") {
    std::optional<std::string> only;
    if (args.is_array() && !args.empty()) {
      const json& a = args[0];
      if (a.is_string())
        only = a.get<std::string>();
      else if (a.is_object() && a.contains("uri") && a["uri"].is_string())
        only = a["uri"].get<std::string>();
    }
    std::vector<Document*> docs;
    for (Document* d : workspace_.documents())
      if (!only || d->uri == *only) docs.push_back(d);
    schedule(session_.recompile(docs, /*immediate=*/true));
    reply(json(nullptr));
    return;
  }
  if (p.command == "kernelscope.insertLaunchSpec") return insertLaunchSpec(args, reply);
  if (p.command == "kernelscope.setArch") {
    // null or "" goes back to the default: the crate's arch, else the server's.
    if (!args.is_array() || args.empty() || !(args[0].is_string() || args[0].is_null())) {
      reply(lsp::ResponseError{ErrorCode::InvalidParams,
                               "kernelscope.setArch takes one argument, such as \"sm_90\", or "
                               "null for the default"});
      return;
    }
    if (auto why = args[0].is_null() || args[0] == "" ? std::nullopt
                                                      : validateArch(args[0].get<std::string>())) {
      reply(lsp::ResponseError{ErrorCode::InvalidParams, "kernelscope.setArch: " + *why});
      return;
    }
    onDidChangeConfiguration(lsp::DidChangeConfigurationParams{json{{"arch", args[0]}}});
    reply(json(nullptr));
    return;
  }
  reply(lsp::ResponseError{ErrorCode::InvalidParams, "unknown command " + p.command});
}

// ---------------------------------------------------------------------------------------
// Compiles.

void LspServer::sendStatus(const Document& d, int revision, std::string_view state,
                           const Snapshot* attempt, const lsp::CompileChanges* changes) {
  lsp::StatusParams status =
      statusOf(d.uri, revision, state, attempt, !options_.deterministic, changes);
  status.workspaceTrusted = settings_.compile.workspaceTrusted;
  for (auto& w : status.withheld) w = inEditorTerms(std::move(w), trustHint_);
  for (const auto& w : withheldSettings_) status.withheld.push_back("kernelscope.toml: " + w);
  ++statusesSent_[d.path];
  notify("kernelscope/status", status);
}

void LspServer::sendReadyWithChanges(std::shared_ptr<const Snapshot> current,
                                     std::shared_ptr<const Snapshot> base) {
  // The diff of a large file takes a while (every stage's lines): hovers and the rest go on
  // being answered meanwhile.
  ++summariesInFlight_;
  auto send = [this, alive = alive_, current, sent = statusesSent_[current->path]](
                  std::shared_ptr<const lsp::CompileChanges> changes) {
    if (!*alive) return;
    --summariesInFlight_;
    const Document* d = workspace_.findByPath(current->path);
    if (d && statusesSent_[current->path] == sent)
      sendStatus(*d, current->revision, "ready", current.get(), changes.get());
    postCheckSyncs();
  };
  auto diff = [current, base] {
    return std::make_shared<const lsp::CompileChanges>(changesOf(*base, *current));
  };
  // Inline mode: after what the io thread is doing now, as a worker's would come.
  if (options_.scheduler.workers == 0) return transport_.post([send, diff] { send(diff()); });
  changeSummaries_.run([&transport = transport_, send, diff] {
    transport.post([send, changes = diff()] { send(changes); });
  });
}

void LspServer::onCompileStarted(const CompileRequest& r) {
  if (firstCompile_ == FirstCompile::NotStarted && client_.workDoneProgress) {
    firstCompile_ = FirstCompile::Running;
    progress("kernelscope/firstCompile", "begin",
             "compiling " + r.input.path.filename().string() + " (first compile)");
  }
  for (const auto& [path, revision] : r.documents)
    if (Document* d = workspace_.findByPath(path)) sendStatus(*d, revision, "compiling", nullptr);
  postCheckSyncs();
}

void LspServer::onCompileFinished(const CompileRequest& r,
                                  std::shared_ptr<const CompileResult> result,
                                  std::chrono::milliseconds elapsed) {
  postCheckSyncs();
  if (firstCompile_ == FirstCompile::Running) {
    firstCompile_ = FirstCompile::Done;
    progress("kernelscope/firstCompile", "end",
             "first compile done in " + std::to_string(elapsed.count()) + " ms");
  }
  std::vector<std::shared_ptr<const Snapshot>> served = serveResult(r, result, elapsed);
  parkUnused();
  // The compile's own memory, any Snapshot it replaced and a parked one's are freed now (see
  // tuneAllocator).
  malloc_trim(0);
  if (served.empty()) return;
  updateWatchedFiles();
  schedule(session_.recompileIfStale(r, *result, *workspace_.findByPath(served.front()->path)));
}

std::vector<std::shared_ptr<const Snapshot>> LspServer::serveResult(
    const CompileRequest& r, std::shared_ptr<const CompileResult> result,
    std::chrono::milliseconds elapsed) {
  // One Snapshot per open file the compile served, each with the text it compiled.
  std::vector<std::shared_ptr<const Snapshot>> served;
  // What the document's kept Snapshots hold is bounded by it (Workspace::kKeptSnapshotBytes);
  // counted once per compile, on its final result (the stages published before share their
  // artifacts with it, and its Snapshot replaces theirs).
  const size_t bytes = result->succeeded && result->pending.empty() ? footprint(*result) : 0;
  for (const auto& [path, revision] : r.documents) {
    Document* d = workspace_.findByPath(path);
    if (!d) continue;
    auto snapshot = std::make_shared<Snapshot>();
    snapshot->uri = d->uri;
    snapshot->path = path;
    snapshot->revision = revision;
    auto overlay = r.input.overlays.find(path);
    snapshot->text = path == r.input.path.string()       ? r.input.text.value_or(std::string())
                     : overlay != r.input.overlays.end() ? overlay->second
                                                         : std::string();
    snapshot->result = result;
    snapshot->duration = elapsed;
    snapshot->bytes = bytes;
    if (workspace_.record(path, snapshot)) served.push_back(std::move(snapshot));
  }
  if (served.empty()) return served;
  std::vector<const Snapshot*> views;
  for (const auto& s : served) views.push_back(s.get());
  publishDiagnostics(r, views);
  for (const auto& snapshot : served) {
    const Document& d = *workspace_.findByPath(snapshot->path);
    // A ready status says what changed against the newest earlier revision that compiled
    // (once every stage is there), unless that one is parked (a crate's file out of view).
    auto base = result->succeeded && result->pending.empty()
                    ? Workspace::before(d, snapshot->revision)
                    : nullptr;
    if (base && base->parked) base = nullptr;
    if (base)
      sendReadyWithChanges(snapshot, std::move(base));
    else
      sendStatus(d, snapshot->revision, result->succeeded ? "ready" : "failed", snapshot.get());
  }
  // Lenses (registers, occupancy) and hints (instruction counts) follow the new code;
  // clients that cache them are asked to ask again.
  if (result->succeeded) {
    if (client_.codeLensRefresh) request("workspace/codeLens/refresh", nullptr);
    if (client_.inlayHintRefresh) request("workspace/inlayHint/refresh", nullptr);
  }
  return served;
}

void LspServer::publishDiagnostics(const CompileRequest& r,
                                   const std::vector<const Snapshot*>& served) {
  auto byFile = diagnosticsOf(served, settings_, encoding_, readFileText, uriOf(), *crateSpecs_);
  std::set<std::string> diagnosed;
  for (const auto& [path, params] : byFile) diagnosed.insert(path);
  Session::DiagnosticsRoute route = session_.routeDiagnostics(r, diagnosed);
  for (const std::string& path : route.publish) {
    lsp::PublishDiagnosticsParams& params = byFile.at(path);
    for (auto& d : params.diagnostics) d.message = inEditorTerms(std::move(d.message), trustHint_);
    if (Document* d = workspace_.findByPath(path)) {
      params.uri = d->uri;  // the client's spelling of it
      auto member = r.documents.find(path);
      if (member != r.documents.end() && member->second == d->revision) params.version = d->version;
    }
    notify("textDocument/publishDiagnostics", params);
  }
  for (const std::string& path : route.clear) clearDiagnostics(path);
}

void LspServer::clearDiagnostics(const std::string& path) {
  notify("textDocument/publishDiagnostics",
         lsp::PublishDiagnosticsParams{lsp::pathToFileUri(path), std::nullopt, {}});
}

// ---------------------------------------------------------------------------------------
// Features.

lsp::Expected<std::pair<Document*, std::shared_ptr<const Snapshot>>> LspServer::snapshotFor(
    const std::string& uri) {
  Document* d = workspace_.find(uri);
  if (!d && isVirtual(uri)) {
    auto target = resolveVirtual(uri);
    if (!target) return target.error();
    return std::make_pair(target->document, target->snapshot);
  }
  if (!d)
    return lsp::ResponseError{ErrorCode::InvalidParams,
                              "unknown document " + uri + " (it is not open)"};
  use(*d);
  auto s = Workspace::latest(*d);
  if (!s) {
    bool failed = d->lastAttempt && !d->lastAttempt->result->succeeded;
    return lsp::ResponseError{ErrorCode::RequestFailed,
                              failed ? "the document does not compile yet (see its diagnostics)"
                                     : "the first compile of the document has not finished yet"};
  }
  return std::make_pair(d, s);
}

lsp::Expected<LspServer::VirtualTarget> LspServer::resolveVirtual(const std::string& uri) {
  auto v = lsp::parseVirtualUri(uri, &extensionOfStageName);
  if (!v)
    return lsp::ResponseError{ErrorCode::InvalidParams, "not a kernelscope document URI: " + uri};
  auto stage = stageFromName(v->stage);
  // Only a document the server compiled can be named; the path is never opened.
  Document* d = workspace_.findByPath(normalizePath(v->path));
  if (!stage || !d)
    return lsp::ResponseError{
        ErrorCode::InvalidParams,
        "no open kernel for " + uri + ": virtual documents name only what kernelscope compiled"};
  use(*d);
  std::shared_ptr<const Snapshot> s;
  if (v->revision) {
    s = workspace_.unparked(*d, Workspace::at(*d, *v->revision));
    if (!s)
      return lsp::ResponseError{ErrorCode::ContentModified,
                                "revision " + std::to_string(*v->revision) +
                                    " is gone; the newest is " + std::to_string(d->revision)};
  } else {
    s = Workspace::latest(*d);
    if (!s)
      return lsp::ResponseError{ErrorCode::RequestFailed, "the document has not compiled yet"};
  }
  return VirtualTarget{d, s, *stage};
}

int LspServer::artifactLineOf(const VirtualTarget& t, int line,
                              const std::optional<lsp::ArtifactFilters>& filters) {
  if (!filters) return line;
  const StageOutcome* outcome = t.snapshot->result ? t.snapshot->result->stage(t.stage) : nullptr;
  if (!outcome || !outcome->available) return line;
  return ArtifactView(*outcome->artifact, *filters).artifactLine(line);
}

std::function<std::string(const std::string&)> LspServer::uriOf() {
  return [this](const std::string& path) {
    const Document* open = workspace_.findByPath(path);
    return open ? open->uri : lsp::pathToFileUri(path);
  };
}

ShownLines LspServer::shownLines(const Snapshot& s) {
  ShownLines shown;
  shown.filters = filterBits(countFilters_);
  if (!s.result || !shown.filters) return shown;
  for (Stage stage : settings_.hoverStages)
    if (const StageOutcome* o = s.result->stage(stage); o && o->available)
      shown.lineFilters[stage] = lineFilters_.of(o->artifact);
  return shown;
}

void LspServer::onHover(const lsp::TextDocumentPositionParams& p,
                        Callback<std::optional<lsp::Hover>> reply) {
  if (isVirtual(p.textDocument.uri)) {
    // A pass-by-pass document is a report of diffs, not one artifact: nothing to explain.
    if (lsp::parsePassesUri(p.textDocument.uri)) return reply(std::optional<lsp::Hover>());
    auto t = resolveVirtual(p.textDocument.uri);
    if (!t) return reply(t.error());
    auto key = viewKey(p.textDocument.uri);
    auto view = key ? viewFilters_.find(*key) : viewFilters_.end();
    const int line =
        artifactLineOf(*t, p.position.line,
                       view == viewFilters_.end() ? std::nullopt : std::optional(view->second));
    return reply(artifactHover(*t->snapshot, t->stage, line, client_.hoverMarkdown));
  }
  auto s = snapshotFor(p.textDocument.uri);
  if (!s)
    return s.error().code == ErrorCode::RequestFailed ? reply(std::optional<lsp::Hover>())
                                                      : reply(s.error());
  auto hover = sourceHover(*s->second, p.position.line, settings_, shownLines(*s->second),
                           client_.hoverMarkdown);
  if (auto profile = shownProfile(*s->first)) {
    std::string counters = profileHoverText(*profile, p.position.line);
    if (!counters.empty() && hover)
      hover->contents.value += "\n\n" + counters;
    else if (!counters.empty())
      hover = lsp::Hover{lsp::MarkupContent{"plaintext", counters}, std::nullopt};
  }
  reply(hover);
}

void LspServer::onInlayHint(const lsp::InlayHintParams& p,
                            Callback<std::vector<lsp::InlayHint>> reply) {
  if (isVirtual(p.textDocument.uri)) return reply(std::vector<lsp::InlayHint>{});
  auto s = snapshotFor(p.textDocument.uri);
  if (!s)
    return s.error().code == ErrorCode::RequestFailed ? reply(std::vector<lsp::InlayHint>{})
                                                      : reply(s.error());
  // A shown profile's hints come first: editors cut a line's hints to a length (VS Code's
  // editor.inlayHints.maximumLength, 43 by default), and the measured cost matters most.
  std::vector<lsp::InlayHint> hints;
  if (auto profile = shownProfile(*s->first)) hints = profileHints(*profile, p.range, encoding_);
  auto compiled = inlayHints(*s->second, p.range, settings_, shownLines(*s->second), encoding_);
  hints.insert(hints.end(), compiled.begin(), compiled.end());
  reply(hints);
}

void LspServer::onCodeLens(const lsp::CodeLensParams& p,
                           Callback<std::vector<lsp::CodeLens>> reply) {
  if (isVirtual(p.textDocument.uri)) return reply(std::vector<lsp::CodeLens>{});
  auto s = snapshotFor(p.textDocument.uri);
  if (!s)
    return s.error().code == ErrorCode::RequestFailed ? reply(std::vector<lsp::CodeLens>{})
                                                      : reply(s.error());
  // The newest earlier snapshot with resources, for the lens while ptxas runs.
  const Snapshot* earlier = nullptr;
  if (s->first)
    for (auto it = s->first->snapshots.rbegin(); it != s->first->snapshots.rend(); ++it)
      if ((*it)->result && (*it)->result->pending.empty() && *it != s->second) {
        earlier = it->get();
        break;
      }
  auto lenses = codeLenses(*s->second, earlier, encoding_);
  auto gpu = gpuLenses(*s->second, encoding_, *crateSpecs_);
  lenses.insert(lenses.end(), gpu.begin(), gpu.end());
  reply(lenses);
}

void LspServer::onCodeAction(const lsp::CodeActionParams& p,
                             Callback<std::vector<lsp::CodeAction>> reply) {
  Document* d = isVirtual(p.textDocument.uri) ? nullptr : workspace_.find(p.textDocument.uri);
  if (d) use(*d);
  // The newest compile's suggestions, also (above all) when it failed.
  // Its edits are positioned in the text that compiled: none once the text moved on.
  if (!d || !d->lastAttempt || d->lastAttempt->revision != d->revision)
    return reply(std::vector<lsp::CodeAction>{});
  reply(codeActions(*d->lastAttempt, p.range, encoding_, uriOf(), *crateSpecs_));
}

void LspServer::onArtifact(const lsp::ArtifactParams& p, Callback<lsp::ArtifactResult> reply) {
  auto stage = stageFromName(p.stage);
  if (!stage) return reply(unknownStage(p.stage));
  auto s = snapshotFor(p.textDocument.uri);
  if (!s) return reply(s.error());
  std::shared_ptr<const Snapshot> snapshot = s->second;
  if (p.revision) {
    Document& d = *s->first;
    snapshot = workspace_.unparked(d, Workspace::at(d, *p.revision));
    if (!snapshot) {
      if (*p.revision > d.revision)
        return reply(
            lsp::ResponseError{ErrorCode::InvalidParams,
                               "there is no revision " + std::to_string(*p.revision) + " yet"});
      return reply(lsp::ResponseError{ErrorCode::ContentModified,
                                      "revision " + std::to_string(*p.revision) +
                                          " was superseded and is gone; the newest is " +
                                          std::to_string(d.revision)});
    }
  }
  auto result = artifactOf(*snapshot, *stage, p.revision.has_value(), uriOf());
  if (!result) return reply(result);
  // The hints and hovers count what the views show: with other filters, other counts.
  const lsp::ArtifactFilters asked = p.filters.value_or(lsp::ArtifactFilters{});
  if (asked != countFilters_) {
    countFilters_ = asked;
    if (client_.inlayHintRefresh) request("workspace/inlayHint/refresh", nullptr);
  }
  // Hovers on the view speak of its lines: they use the filters it was last asked with.
  const auto view = std::pair(s->first->path, std::string(p.stage));
  if (!p.filters) {
    viewFilters_.erase(view);
    return reply(result);
  }
  viewFilters_[view] = *p.filters;
  reply(filterArtifact(std::move(*result),
                       ArtifactView(*(*stageOf(*snapshot, *stage))->artifact, *p.filters)));
}

void LspServer::onLineMap(const lsp::LineMapParams& p, Callback<lsp::LineMapResult> reply) {
  auto s = snapshotFor(p.textDocument.uri);
  if (!s) return reply(s.error());
  lsp::LineMapResult map = lineMapOf(*s->second, p.line);
  reply(p.filters && s->second->result
            ? filterLineMap(std::move(map), *s->second->result, *p.filters)
            : map);
}

void LspServer::onSourceLocation(const lsp::SourceLocationParams& p,
                                 Callback<lsp::SourceLocationResult> reply) {
  auto t = resolveVirtual(p.uri);
  if (!t) return reply(t.error());
  reply(sourceLocationOf(*t->snapshot, t->stage, artifactLineOf(*t, p.line, p.filters), uriOf()));
}

void LspServer::onKernels(const lsp::KernelsParams& p, Callback<lsp::KernelsResult> reply) {
  auto s = snapshotFor(p.textDocument.uri);
  if (!s) return reply(s.error());
  reply(kernelsOf(*s->second, encoding_));
}

void LspServer::onLineCosts(const lsp::LineCostsParams& p, Callback<lsp::LineCostsResult> reply) {
  auto s = snapshotFor(p.textDocument.uri);
  if (!s) return reply(s.error());
  reply(lineCostsOf(*s->second));
}

void LspServer::onValueFlow(const lsp::ValueFlowParams& p, Callback<lsp::ValueFlowResult> reply) {
  const std::string& uri = p.textDocument.uri;
  std::shared_ptr<const Snapshot> snapshot;
  std::string sassUri;
  int line = p.line;
  if (isVirtual(uri)) {
    auto t = resolveVirtual(uri);
    if (!t) return reply(t.error());
    if (t->stage != Stage::Sass)
      return reply(lsp::ResponseError{
          ErrorCode::InvalidParams, "value flow is read off SASS: " + uri + " is not a SASS view"});
    snapshot = t->snapshot;
    sassUri = uri;
    line = artifactLineOf(*t, p.line, p.filters);
  } else {
    auto s = snapshotFor(uri);
    if (!s) return reply(s.error());
    snapshot = s->second;
    sassUri = virtualUri(Stage::Sass, s->first->path);
    if (p.filters) {
      auto sass = stageOf(*snapshot, Stage::Sass);
      if (!sass) return reply(sass.error());
      line = ArtifactView(*(*sass)->artifact, *p.filters).artifactLine(p.line);
    }
  }
  std::optional<ArtifactView> view;
  if (p.filters)
    if (auto sass = stageOf(*snapshot, Stage::Sass)) view.emplace(*(*sass)->artifact, *p.filters);
  reply(valueFlowOf(*snapshot, line, sassUri, view ? &*view : nullptr, uriOf()));
}

void LspServer::registerQuery(const std::string& uri, const lsp::Position& at, RegisterQuery query,
                              Callback<std::vector<lsp::Location>> reply) {
  std::vector<lsp::Location> none;
  if (!isVirtual(uri) || lsp::parsePassesUri(uri)) return reply(none);
  auto t = resolveVirtual(uri);
  if (!t) return reply(t.error());
  if (t->stage != Stage::Sass) return reply(none);
  // The view's lines and text are those of the filters it was last asked with.
  auto key = viewKey(uri);
  auto filters = key ? viewFilters_.find(*key) : viewFilters_.end();
  std::optional<ArtifactView> view;
  if (filters != viewFilters_.end())
    if (auto sass = stageOf(*t->snapshot, Stage::Sass))
      view.emplace(*(*sass)->artifact, filters->second);
  const int line = view ? view->artifactLine(at.line) : at.line;
  reply(registerLocations(*t->snapshot, line, at.line, at.character, uri, view ? &*view : nullptr,
                          query));
}

void LspServer::onDefinition(const lsp::TextDocumentPositionParams& p,
                             Callback<std::vector<lsp::Location>> reply) {
  registerQuery(p.textDocument.uri, p.position, RegisterQuery::Definition, std::move(reply));
}

void LspServer::onReferences(const lsp::ReferenceParams& p,
                             Callback<std::vector<lsp::Location>> reply) {
  registerQuery(
      p.textDocument.uri, p.position,
      p.includeDeclaration ? RegisterQuery::ReferencesAndDeclaration : RegisterQuery::References,
      std::move(reply));
}

void LspServer::onDiff(const lsp::DiffParams& p, Callback<lsp::DiffResult> reply) {
  auto stage = stageFromName(p.stage);
  if (!stage) return reply(unknownStage(p.stage));
  auto s = snapshotFor(p.textDocument.uri);
  if (!s) return reply(s.error());
  Document& d = *s->first;
  const std::shared_ptr<const Snapshot>& current = s->second;
  std::shared_ptr<const Snapshot> base;
  if (p.base) {
    base = workspace_.unparked(d, Workspace::at(d, *p.base));
    if (!base)
      return reply(lsp::ResponseError{
          ErrorCode::ContentModified,
          "revision " + std::to_string(*p.base) + " is gone or did not compile"});
  } else {
    // The previous save for the same target: an arch or opt-level switch is not an edit.
    base = workspace_.unparked(d, Workspace::beforeForSameTarget(d, *current));
    if (!base)
      return reply(lsp::ResponseError{ErrorCode::RequestFailed,
                                      "no earlier save has compiled for " + current->result->arch +
                                          " at opt-level " +
                                          std::to_string(current->result->optLevel)});
  }
  reply(diffOf(*base, *current, *stage));
}

// ---------------------------------------------------------------------------------------
// kernelscope/passes (PassesCache.h).

void LspServer::onPasses(const lsp::PassesParams& p, Callback<lsp::PassesResult> reply) {
  if (!options_.passes)
    return reply(lsp::ResponseError{ErrorCode::RequestFailed,
                                    "this server cannot run the compiler's passes"});
  std::optional<Stage> only;
  if (p.stage) {
    only = stageFromName(*p.stage);
    if (!only || (*only != Stage::LlvmIr && *only != Stage::Mir))
      return reply(lsp::ResponseError{
          ErrorCode::InvalidParams, "passes are shown for llvm-ir or mir, not '" + *p.stage + "'"});
  }
  const std::string uri = p.uri ? *p.uri : p.textDocument ? p.textDocument->uri : std::string();
  if (uri.empty())
    return reply(lsp::ResponseError{ErrorCode::InvalidParams,
                                    "kernelscope/passes needs textDocument or uri"});
  std::optional<std::string> kernel = p.kernel;
  std::string sourceUri = uri;
  if (uri.starts_with(
          "kernelscope:")) {  // kernelscope:/passes/<path>.passes?kernel=NAME names both
    auto v = lsp::parsePassesUri(uri);
    Document* d = v ? workspace_.findByPath(normalizePath(v->path)) : nullptr;
    if (!d)
      return reply(lsp::ResponseError{
          ErrorCode::InvalidParams,
          "no open kernel for " + uri + ": virtual documents name only what kernelscope compiled"});
    sourceUri = d->uri;
    if (!kernel) kernel = v->kernel;
  }
  if (!kernel || kernel->empty())
    return reply(lsp::ResponseError{ErrorCode::InvalidParams, "kernelscope/passes needs a kernel"});
  auto s = snapshotFor(sourceUri);
  if (!s) return reply(s.error());
  std::shared_ptr<const Snapshot> snapshot = s->second;

  // The kernel as the compile knows it: its symbol, demangled path, or last segment.
  const KernelInfo* found = findKernel(*snapshot->result, *kernel);
  std::string names;
  for (const KernelInfo& k : snapshot->result->kernels)
    names += (names.empty() ? "" : ", ") + k.demangled;
  if (!found)
    return reply(lsp::ResponseError{
        ErrorCode::InvalidParams,
        "unknown kernel '" + *kernel + "'" +
            (names.empty() ? ": the document has no kernels" : " (kernels: " + names + ")")});

  // What the document's compile compiled: its text then, the other open files' now.
  CompileInput input = session_.inputFor(*s->first);
  input.text = snapshot->text;
  CompileOptions options = settings_.compile;
  options.remarks = false;

  if (!passes_)
    passes_ = std::make_unique<PassesCache>(options_.passes, postToIoThread(),
                                            options_.scheduler.workers == 0);
  passes_->get(snapshot, input, options, found->symbol, currentId_.dump(),
               [reply, snapshot, only, alive = alive_](const PassesResult* r) {
                 if (!*alive) return;
                 if (!r) return reply(lsp::ResponseError{ErrorCode::RequestCancelled, "cancelled"});
                 if (!r->error.empty())
                   return reply(lsp::ResponseError{ErrorCode::RequestFailed, r->error});
                 reply(passesReplyOf(*snapshot, *r, only));
               });
}

// ---------------------------------------------------------------------------------------
// kernelscope/run and kernelscope/profile (GpuRuns.h), and launch specs.

void LspServer::onRun(const lsp::GpuRunParams& p, Callback<json> reply) {
  startGpuJob(p, /*profile=*/false, std::move(reply));
}

void LspServer::onProfile(const lsp::GpuRunParams& p, Callback<json> reply) {
  startGpuJob(p, /*profile=*/true, std::move(reply));
}

void LspServer::startGpuJob(const lsp::GpuRunParams& p, bool profile, Callback<json> reply) {
  const char* method = profile ? "kernelscope/profile" : "kernelscope/run";
  if (!options_.gpu)
    return reply(lsp::ResponseError{
        ErrorCode::RequestFailed, std::string("this server cannot run kernels (") + method + ")"});
  if (p.kernel.empty())
    return reply(
        lsp::ResponseError{ErrorCode::InvalidParams, std::string(method) + " needs a kernel"});
  Document* d = workspace_.find(p.textDocument.uri);
  if (!d)
    return reply(lsp::ResponseError{ErrorCode::InvalidParams,
                                    "unknown document " + p.textDocument.uri + " (open it first)"});
  GpuJob job;
  job.profile = profile;
  job.kernel = p.kernel;
  job.input = session_.inputFor(*d);
  // A launch spec is read from the kernel's file or its crate's Cargo.toml as the editor has it.
  job.launch.unsavedText.insert(job.input.overlays.begin(), job.input.overlays.end());
  job.launch.unsavedText[d->path] = d->text;
  job.options = settings_.compile;
  job.launch.specItems = p.spec;
  job.launch.specOrigin = std::string(method) + " spec";
  if (p.baseline != "last" && p.baseline != "none")
    return reply(lsp::ResponseError{ErrorCode::InvalidParams,
                                    std::string(method) + ": baseline is \"last\" or \"none\""});
  // Compared with the last profile of this file, kernel and spec when there is one.
  if (p.baseline == "last") job.baseline = "last";
  job.baselineOptional = true;
  if (p.runs) job.launch.runs = *p.runs;
  job.launch.ncu = settings_.ncu;
  if (std::string why = gpu::splitRunner(settings_.gpuRunner, job.launch.runner); !why.empty())
    return reply(lsp::ResponseError{ErrorCode::InvalidParams, "gpuRunner: " + why});

  // Progress goes to the client's token, else to one of ours when the client takes them.
  const bool clientToken = !p.workDoneToken.is_null();
  const std::string token = clientToken
                                ? (p.workDoneToken.is_string() ? p.workDoneToken.get<std::string>()
                                                               : p.workDoneToken.dump())
                                : std::string(method) + "/" + currentId_.dump();
  auto report = [this, clientToken, token, tokenJson = p.workDoneToken](
                    std::string_view kind, const std::string& message) {
    if (!clientToken) return progress(token, kind, message);
    json value = {{"kind", kind}, {"message", message}};
    if (kind == "begin") value["title"] = "kernelscope", value["cancellable"] = true;
    notify("$/progress", {{"token", tokenJson}, {"value", value}});
  };
  report("begin", profile ? "profiling " + p.kernel : "running " + p.kernel);
  if (!gpu_)
    gpu_ =
        std::make_unique<GpuRuns>(options_.gpu, postToIoThread(), options_.scheduler.workers == 0);
  const std::string uri = d->uri;
  gpu_->start(
      currentId_.dump(), std::move(job),
      [report](const std::string& message) { report("report", message); },
      [this, report, reply, uri, profile, path = d->path, text = d->text, filters = p.filters,
       alive = alive_](gpu::GpuOutcome outcome) {
        if (!*alive) return;
        if (outcome.cancelled) {
          report("end", "cancelled");
          return reply(lsp::ResponseError{ErrorCode::RequestCancelled, "cancelled"});
        }
        if (!outcome.ok()) {
          // gpu-exec says what to do in the CLI's words (kNoDriverHint); the reply says it in
          // the editor's (runnerHintFor).
          std::string error = outcome.message();
          report("end", "failed");
          if (size_t at = error.find(gpu::kNoDriverHint); at != std::string::npos)
            error.replace(at, std::string_view(gpu::kNoDriverHint).size(), runnerHint_);
          return reply(lsp::ResponseError{ErrorCode::RequestFailed, error});
        }
        report("end", "done");
        if (!profile) return reply(json(runResultOf(path, *outcome.plan, outcome.run)));
        reply(showProfile(uri, path, text, outcome, filters.value_or(lsp::ArtifactFilters{})));
      });
}

json LspServer::showProfile(const std::string& uri, const std::string& path,
                            const std::string& text, gpu::GpuOutcome& outcome,
                            const lsp::ArtifactFilters& filters) {
  lsp::ProfileResult profiled =
      profileResultOf(path, *outcome.lines, outcome.run.device, *outcome.plan);
  if (outcome.deltas) profiled.baseline = profileDeltasOf(*outcome.deltas, outcome.since);
  json result = profiled;
  std::shared_ptr<const ShownProfile> shown = ShownProfile::of(path, text, outcome);
  Document* doc = workspace_.find(uri);
  const bool current = doc && doc->text == shown->text;
  result["editor"] = profileEditorJson(*shown, uri, current, filters);
  if (current) {
    gpu_->show(uri, shown);
    if (client_.inlayHintRefresh) request("workspace/inlayHint/refresh", nullptr);
  }
  return result;
}

std::shared_ptr<const ShownProfile> LspServer::shownProfile(const Document& d) const {
  return gpu_ ? gpu_->shown(d.uri, d.text) : nullptr;
}

void LspServer::insertLaunchSpec(const json& args, Callback<json> reply) {
  const json a = args.is_array() && !args.empty() ? args[0] : json();
  if (!a.is_object() || !a.contains("uri") || !a["uri"].is_string() || !a.contains("kernel") ||
      !a["kernel"].is_string())
    return reply(lsp::ResponseError{ErrorCode::InvalidParams,
                                    "kernelscope.insertLaunchSpec takes {uri, kernel}"});
  const std::string uri = a["uri"].get<std::string>();
  auto s = snapshotFor(uri);
  if (!s) return reply(s.error());
  if (s->second->text != s->first->text)
    return reply(lsp::ResponseError{ErrorCode::ContentModified,
                                    "the document changed since it compiled; try again"});
  std::string problem;
  auto ins = specInsertion(*s->second, a["kernel"].get<std::string>(), encoding_, problem);
  if (!ins) return reply(lsp::ResponseError{ErrorCode::InvalidParams, problem});
  json edit = {{"range", {{"start", ins->at}, {"end", ins->at}}}, {"newText", ins->text}};
  request("workspace/applyEdit",
          {{"label", "Add launch spec"}, {"edit", {{"changes", {{uri, json::array({edit})}}}}}});
  reply(json(nullptr));
}

}  // namespace ks::server
