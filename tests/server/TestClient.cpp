// The in-process test client and the fake compile function.
#include "TestClient.h"

#include <thread>

#include "Uri.h"

namespace ks::test {

namespace {

constexpr std::string_view kCoreFile = "/usr/lib/rustlib/src/rust/library/core/src/ptr/mut_ptr.rs";

struct FakeKernel {
  std::string name;
  uint32_t line;
};

}  // namespace

CompileResult FakeCompiler::operator()(const CompileInput& in, const CompileOptions& asked,
                                       const CancellationToken& cancel) {
  ++calls;
  const ResolvedOptions options = resolveOptions(asked);  // the defaults: no crate here
  const std::string path = in.path.string();
  const std::string text = in.text.value_or("");
  {
    std::lock_guard lock(mutex);
    texts.push_back(text);
  }
  CompileResult r;
  r.arch = options.arch;
  r.optLevel = options.optLevel;
  if (text.find("SLOW") != std::string::npos) {
    slowRunning = true;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!cancel.cancelled() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    slowRunning = false;
    if (cancel.cancelled()) {
      ++cancelled;
      r.cancelled = true;
      return r;
    }
  }
  auto lines = splitLines(text);
  for (uint32_t i = 0; i < lines.size(); ++i) {
    size_t col = lines[i].find("ERROR");
    if (col == std::string_view::npos) continue;
    Diagnostic d;
    d.source = "rustc";
    d.code = "E0425";
    d.message = "cannot find value `ERROR` in this scope";
    d.range = SourceRange{path, i + 1, uint32_t(col) + 1, i + 1, uint32_t(col) + 6};
    r.diagnostics.push_back(d);
  }
  if (!r.diagnostics.empty()) return r;
  r.succeeded = true;

  std::vector<std::string> userFiles{path};
  if (text.find("mod common;") != std::string::npos)
    userFiles.push_back(in.path.parent_path().string() + "/common.rs");
  auto map = std::make_shared<LineMap>(userFiles);

  std::vector<FakeKernel> kernels;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    size_t fn = lines[i].find("fn ");
    if (lines[i].find("pub ") != std::string_view::npos && fn != std::string_view::npos) {
      std::string_view rest = lines[i].substr(fn + 3);
      kernels.push_back({std::string(rest.substr(0, rest.find('('))), i + 1});
    }
  }
  const bool spill = text.find("SPILL") != std::string::npos;

  // One artifact per stage: a header line, then per kernel an entry line and one (PTX)
  // or two (SASS) instructions per assignment in its body.
  auto build = [&](Stage stage) {
    std::vector<ArtifactFunction> functions;
    struct Line {
      std::string text;
      LineKind kind;
      std::vector<Frame> location;
      int function;
    };
    std::vector<Line> out{
        {stage == Stage::Ptx ? ".target sm_90" : "\t.headerflags\t@\"EF_CUDA_SM90\"",
         LineKind::Directive,
         {},
         -1}};
    for (size_t k = 0; k < kernels.size(); ++k) {
      uint32_t first = static_cast<uint32_t>(out.size());
      out.push_back({(stage == Stage::Ptx ? ".visible .entry " : ".text.") + kernels[k].name + "(",
                     LineKind::Header,
                     {},
                     int(k)});
      uint32_t end = k + 1 < kernels.size() ? kernels[k + 1].line : uint32_t(lines.size()) + 1;
      for (uint32_t l = kernels[k].line + 1; l < end; ++l) {
        size_t eq = lines[l - 1].find('=');
        if (eq == std::string_view::npos || lines[l - 1].find("==") != std::string_view::npos)
          continue;
        size_t col = lines[l - 1].find_first_not_of(' ') + 1;
        std::vector<Frame> loc;  // innermost first
        if (lines[l - 1].find("add(") != std::string_view::npos)
          loc.push_back(Frame{std::string(kCoreFile), 1040, 18, "core::ptr::mut_ptr::add"});
        loc.push_back(Frame{path, l, uint32_t(col), kernels[k].name});
        if (stage == Stage::Ptx) {
          out.push_back({"\tadd.s32 \t%r" + std::to_string(l) + ", %r" + std::to_string(l) + ", 1;",
                         LineKind::Instruction, loc, int(k)});
        } else {
          out.push_back({"        /*0000*/ IADD3 R" + std::to_string(l) + ", R1, 0x1, RZ ;",
                         LineKind::Instruction, loc, int(k)});
          out.push_back({"        /*0010*/ MOV R2, R" + std::to_string(l) + " ;",
                         LineKind::Instruction, loc, int(k)});
        }
      }
      out.push_back({"}", LineKind::Other, {}, int(k)});
      ArtifactFunction f;
      f.symbol = kernels[k].name;
      f.demangled = kernels[k].name;
      f.firstLine = first;
      f.lastLine = static_cast<uint32_t>(out.size()) - 1;
      f.isKernel = true;
      functions.push_back(f);
    }
    std::string artifactText;
    std::vector<ArtifactLine> kinds;
    for (const auto& l : out) {
      artifactText += l.text + "\n";
      ArtifactLine line;
      line.kind = l.kind;
      line.function = l.function;
      line.location = l.location;
      kinds.push_back(std::move(line));
    }
    return Artifact(stage, std::move(artifactText), std::move(kinds), std::move(functions));
  };

  for (Stage stage : options.stages) {
    StageOutcome& o = r.stages[stage];
    if (stage == Stage::Ptx || stage == Stage::Sass) {
      o.available = true;
      o.setArtifact(build(stage));
      map->addArtifact(*o.artifact);
    } else {
      o.unavailableReason = "the test compiler makes PTX and SASS only";
    }
  }
  r.lineMap = map;
  for (const auto& k : kernels) {
    KernelInfo info;
    info.symbol = k.name;
    info.demangled = k.name;
    info.definition = Frame{path, k.line, 1, k.name};
    KernelResources res;
    res.name = k.name;
    res.arch = options.arch;
    res.registers = 10;
    res.constantMemory = 380;
    if (spill) {
      res.spillStores = 8;
      res.spillLoads = 8;
      res.localMemory = 16;
    }
    res.isEntry = true;
    info.resources = res;
    if (const StageOutcome* ptx = r.stage(Stage::Ptx))
      info.ptxInstructions = ptx->artifact->instructionCount();
    r.kernels.push_back(info);
  }
  return r;
}

server::ServerOptions TestClient::options(unsigned workers,
                                          std::optional<std::chrono::milliseconds> debounce) {
  server::ServerOptions o;
  o.deterministic = true;
  o.scheduler.workers = workers;
  o.scheduler.debounce.fixed = debounce.value_or(std::chrono::milliseconds(0));
  return o;
}

TestClient::TestClient(server::ServerOptions options, bool initialize) {
  auto compiler = compiler_;
  if (!options.compile)
    options.compile = [compiler](const CompileInput& in, const CompileOptions& o,
                                 const CancellationToken& c) { return (*compiler)(in, o, c); };
  server_ = std::make_unique<server::LspServer>(transport_, std::move(options));
  if (initialize) {
    result("initialize", {{"processId", nullptr},
                          {"rootUri", nullptr},
                          {"capabilities", {{"window", {{"workDoneProgress", true}}}}}});
    notify("initialized", json::object());
    messages();
  }
}

TestClient::~TestClient() { server_.reset(); }

void TestClient::sync() {
  bool ok = transport_.drainUntil([&] { return server_->idle(); });
  REQUIRE_MESSAGE(ok, "the server did not become idle within 60 s");
}

bool TestClient::syncUntil(const std::function<bool()>& condition) {
  return transport_.drainUntil([&] { return condition() && server_->idle(); });
}

bool TestClient::drainUntil(const std::function<bool()>& condition) {
  return transport_.drainUntil([&] { return condition(); });
}

std::vector<json> TestClient::messages() {
  auto sent = transport_.take();
  unread_.insert(unread_.end(), sent.begin(), sent.end());
  std::vector<json> out;
  out.swap(unread_);
  return out;
}

std::vector<json> TestClient::notifications(const std::string& method) {
  std::vector<json> out;
  for (auto& m : messages())
    if (m.value("method", "") == method && !m.contains("id")) out.push_back(m["params"]);
  return out;
}

json TestClient::request(const std::string& method, json params) {
  int id = ++nextId_;
  server_->onMessage(lsp::makeRequest(id, method, std::move(params)).dump());
  sync();
  auto sent = transport_.take();
  unread_.insert(unread_.end(), sent.begin(), sent.end());
  for (auto it = unread_.begin(); it != unread_.end(); ++it) {
    if (it->contains("id") && (*it)["id"] == id && !it->contains("method")) {
      json response = *it;
      unread_.erase(it);
      return response;
    }
  }
  FAIL("no response to " << method);
  return {};
}

json TestClient::requestNow(const std::string& method, json params) {
  int id = ++nextId_;
  server_->onMessage(lsp::makeRequest(id, method, std::move(params)).dump());
  json response;
  auto answered = [&] {
    auto sent = transport_.take();
    unread_.insert(unread_.end(), sent.begin(), sent.end());
    for (auto it = unread_.begin(); it != unread_.end(); ++it)
      if (it->contains("id") && (*it)["id"] == id && !it->contains("method")) {
        response = *it;
        unread_.erase(it);
        return true;
      }
    return false;
  };
  const bool ok = answered() || drainUntil(answered);
  REQUIRE_MESSAGE(ok, "no response to " << method);
  return response;
}

json TestClient::result(const std::string& method, json params) {
  json response = request(method, std::move(params));
  REQUIRE_MESSAGE(response.contains("result"), method << " failed: " << response.dump());
  return response["result"];
}

void TestClient::notify(const std::string& method, json params) {
  server_->onMessage(lsp::makeNotification(method, std::move(params)).dump());
}

void TestClient::sendBytes(std::string_view bytes) {
  reader_.feed(bytes);
  while (auto item = reader_.next()) {
    if (item->ok)
      server_->onMessage(item->body);
    else
      server_->onStreamError(item->error);
  }
}

std::string TestClient::open(const std::string& path, const std::string& text, int version) {
  std::string uri = lsp::pathToFileUri(path);
  notify("textDocument/didOpen",
         {{"textDocument",
           {{"uri", uri}, {"languageId", "rust"}, {"version", version}, {"text", text}}}});
  return uri;
}

void TestClient::change(const std::string& uri, const std::string& text, int version) {
  notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", version}}},
                                    {"contentChanges", json::array({{{"text", text}}})}});
}

}  // namespace ks::test
