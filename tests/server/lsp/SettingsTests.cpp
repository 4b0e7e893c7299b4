// In-process tests of the language server (a fake client over an in-memory transport, a
// fake compile function): settings: the editor's, the workspace's kernelscope.toml, trust.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>

#include "Features.h"
#include "ServerTestSupport.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

TEST_CASE(
    "settings: initializationOptions, didChangeConfiguration recompiles, bad values are reported") {
  TestClient client(TestClient::options(), false);
  client.result("initialize",
                {{"capabilities", json::object()},
                 {"initializationOptions", {{"arch", "sm_80"}, {"hoverStages", {"sass"}}}}});
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  CHECK(client.result("kernelscope/kernels", textDocument(uri))["arch"] == "sm_80");
  std::string md = client.result(
      "textDocument/hover", {{"textDocument", {{"uri", uri}}},
                             {"position", {{"line", 3}, {"character", 0}}}})["contents"]["value"];
  CHECK(md.find("**ptx**") == std::string::npos);
  CHECK(md.find("**sass**") != std::string::npos);
  client.messages();

  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"kernelscope", {{"arch", "sm_89"}, {"optLevel", 7}}}}}});
  client.sync();
  auto sent = client.messages();
  bool warned = false;
  for (const auto& m : sent)
    if (m.value("method", "") == "window/showMessage")
      warned |= m["params"]["message"].get<std::string>().find("optLevel") != std::string::npos;
  CHECK(warned);
  json kernels = client.result("kernelscope/kernels", textDocument(uri));
  CHECK(kernels["arch"] == "sm_89");
  CHECK(kernels["revision"] == 2);

  CHECK(errorCode(client.request("workspace/executeCommand", {{"command", "kernelscope.setArch"},
                                                              {"arguments", {"gfx90a"}}})) ==
        int(lsp::ErrorCode::InvalidParams));
  CHECK(client
            .result("workspace/executeCommand",
                    {{"command", "kernelscope.setArch"}, {"arguments", {"sm_70"}}})
            .is_null());
  CHECK(client.result("kernelscope/kernels", textDocument(uri))["arch"] == "sm_70");
  CHECK(client
            .result("workspace/executeCommand",
                    {{"command", "kernelscope.rebuild"}, {"arguments", json::array()}})
            .is_null());
  CHECK(client.result("kernelscope/kernels", textDocument(uri))["revision"] == 4);
  // The arch pickers' "default" entry: null goes back to the crate's arch, else the default.
  CHECK(client
            .result("workspace/executeCommand",
                    {{"command", "kernelscope.setArch"}, {"arguments", json::array({nullptr})}})
            .is_null());
  CHECK_FALSE(client.server().settings().compile.arch);
  CHECK(client.result("kernelscope/kernels", textDocument(uri))["arch"] ==
        std::string(kDefaultArch));
}

TEST_CASE(
    "settings: arch and optLevel unset (null, or an empty arch) leave the choice to the crate") {
  TestClient client(TestClient::options(), false);
  client.result("initialize", {{"capabilities", json::object()},
                               {"initializationOptions", {{"arch", "sm_80"}, {"optLevel", 2}}}});
  CHECK(client.server().settings().compile.arch == "sm_80");
  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"arch", nullptr}, {"optLevel", nullptr}}}});
  CompileOptions o = client.server().settings().compile;
  CHECK_FALSE(o.arch);
  CHECK_FALSE(o.optLevel);
  CHECK(resolveOptions(o).arch == kDefaultArch);  // without a crate: the default
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"arch", "sm_75"}}}});
  CHECK(client.server().settings().compile.arch == "sm_75");
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"arch", ""}}}});
  CHECK_FALSE(client.server().settings().compile.arch.has_value());
  CHECK(client.notifications("window/showMessage").empty());  // no value was reported as bad
}

TEST_CASE("settings: the workspace's kernelscope.toml applies under the editor's settings") {
  TempDir root("kernelscope-test");
  const std::string file = (root.path() / "kernelscope.toml").string();
  std::ofstream(file) << "# the workspace's choice\narch = \"sm_80\"  # an A100\nhoverStages = "
                         "[\"sass\"]\nnot a setting\n";
  TestClient client(TestClient::options(), false);
  client.result("initialize",
                {{"rootUri", lsp::pathToFileUri(root.path().string())},
                 {"capabilities",
                  {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}}}});
  client.notify("initialized", json::object());
  bool reported = false;
  for (const auto& m : client.notifications("window/showMessage"))
    reported |= m["message"].get<std::string>().find("kernelscope.toml:4") != std::string::npos;
  CHECK(reported);
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  auto arch = [&] { return client.result("kernelscope/kernels", textDocument(uri))["arch"]; };
  CHECK(arch() == "sm_80");
  CHECK(client.server().settings().hoverStages == std::vector<Stage>{Stage::Sass});

  // The editor's value wins; taken back (null), the file's applies again.
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"arch", "sm_75"}}}});
  client.sync();
  CHECK(arch() == "sm_75");
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"arch", nullptr}}}});
  client.sync();
  CHECK(arch() == "sm_80");

  // A change of the file recompiles with its new values.
  std::ofstream(file, std::ios::trunc) << "arch = \"sm_86\"\n";
  client.notify("workspace/didChangeWatchedFiles",
                {{"changes", {{{"uri", lsp::pathToFileUri(file)}, {"type", 2}}}}});
  client.sync();
  CHECK(arch() == "sm_86");
  CHECK(client.server().settings().hoverStages == server::Settings().hoverStages);
}

TEST_CASE(
    "trust: kernelscope.toml may not name a program or unsafe flags until the user trusts the "
    "workspace") {
  TempDir root("kernelscope-test");
  const std::string file = (root.path() / "kernelscope.toml").string();
  std::ofstream(file)
      << "arch = \"sm_80\"\nrustc = \"/tmp/planted/rustc\"\ntoolchainProfile = \"cuda-oxide\"\n"
         "extraRustcFlags = [\"-Zcodegen-backend=/tmp/evil.so\", \"--cfg\", \"fast\", \"-W\", "
         "\"@/abs/flags.txt\"]\n"
         "workspaceTrusted = true\ngpuRunner = \"ssh planted-box\"\nncu = \"/tmp/planted/ncu\"\n";
  server::ServerOptions options = TestClient::options();
  std::vector<std::string> rustcs;
  options.settingsChanged = [&](const server::Settings& s) { rustcs.push_back(s.rustc); };
  TestClient client(options, false);
  client.result("initialize", {{"rootUri", lsp::pathToFileUri(root.path().string())},
                               {"capabilities", json::object()}});
  client.notify("initialized", json::object());
  // Safe values apply; the others are withheld and the user is told.
  const server::Settings& s = client.server().settings();
  CHECK(s.compile.arch == "sm_80");
  CHECK(s.rustc.empty());
  CHECK(s.gpuRunner.empty());  // a runner is a program to run, like rustc
  CHECK(s.ncu.empty());
  CHECK_FALSE(s.compile.profile);
  CHECK(s.compile.extraRustcFlags == std::vector<std::string>{"--cfg", "fast"});
  CHECK_FALSE(s.compile.workspaceTrusted);  // a workspace cannot trust itself
  std::string told;
  for (const auto& m : client.notifications("window/showMessage"))
    told += m["message"].get<std::string>() + "\n";
  INFO(told);
  CHECK(told.find("not applied") != std::string::npos);
  CHECK(told.find("/tmp/planted/rustc") != std::string::npos);
  CHECK(told.find("-Zcodegen-backend=/tmp/evil.so") != std::string::npos);
  CHECK(told.find("cuda-oxide") != std::string::npos);
  CHECK(told.find("gpuRunner = \"ssh planted-box\"") != std::string::npos);
  CHECK(told.find("ncu = \"/tmp/planted/ncu\"") != std::string::npos);
  CHECK(told.find("-W @/abs/flags.txt (an argument beginning with @") != std::string::npos);
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  json status;
  for (const auto& m : client.notifications("kernelscope/status")) status = m;
  CHECK(status["workspaceTrusted"] == false);
  // rustc, the runner, ncu, the profile, the flag, the @file flag and workspaceTrusted itself
  CHECK(status["withheld"].size() == 7);
  CHECK_FALSE(client.server().settings().compile.workspaceTrusted);

  // The user grants trust (VS Code's trust API, or their own setting): everything applies.
  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"kernelscope", {{"workspaceTrusted", true}}}}}});
  client.sync();
  CHECK(s.rustc == "/tmp/planted/rustc");
  CHECK(s.gpuRunner == "ssh planted-box");
  CHECK(s.ncu == "/tmp/planted/ncu");
  CHECK(s.compile.profile == ToolchainProfile::CudaOxide);
  // An @file argument is never passed, even then.
  CHECK(s.compile.extraRustcFlags ==
        std::vector<std::string>{"-Zcodegen-backend=/tmp/evil.so", "--cfg", "fast"});
  CHECK(s.compile.workspaceTrusted);
  REQUIRE_FALSE(rustcs.empty());
  CHECK(rustcs.back() == "/tmp/planted/rustc");
}

TEST_CASE("trust: what was withheld says how to trust the workspace in the editor's own terms") {
  for (const auto& editorAndHint : std::vector<std::pair<std::string, std::string>>{
           {"Visual Studio Code", "Workspaces: Manage Workspace Trust"},
           {"code-server", "Workspaces: Manage Workspace Trust"},
           {"Neovim", "require('kernelscope').setup{ settings = { workspaceTrusted = true } }"},
           {"Eglot", "(setq kernelscope-initialization-options '(:workspaceTrusted t))"},
           {"ale", "let g:ale_rust_kernelscope_config = {'workspaceTrusted': v:true}"},
           {"some editor", "set workspaceTrusted in your own editor settings"}}) {
    // No structured binding: clang 14 cannot capture one in CAPTURE's lambda.
    const std::string& editor = editorAndHint.first;
    const std::string& hint = editorAndHint.second;
    CAPTURE(editor);
    TempDir root("kernelscope-test");
    std::ofstream(root.path() / "kernelscope.toml") << "rustc = \"/tmp/planted/rustc\"\n";
    TestClient client(TestClient::options(), false);
    client.result("initialize", {{"rootUri", lsp::pathToFileUri(root.path().string())},
                                 {"clientInfo", {{"name", editor}}},
                                 {"capabilities", json::object()}});
    client.notify("initialized", json::object());
    std::string told;
    for (const auto& m : client.notifications("window/showMessage"))
      told += m["message"].get<std::string>();
    CHECK(told.find("the workspace is not trusted") != std::string::npos);
    CHECK(told.find(hint) != std::string::npos);
  }
  CHECK(server::inEditorTerms(std::string("x: ") + kTrustHint + "; y: " + kTrustHint, "Z") ==
        "x: Z; y: Z");
}

TEST_CASE("a machine without a driver: the runner setting in the editor's own terms") {
  CHECK(server::runnerHintFor("Visual Studio Code") ==
        "set kernelscope.gpu.runner to use a GPU elsewhere");
  CHECK(server::runnerHintFor("code-server") == server::runnerHintFor("Visual Studio Code"));
  CHECK(server::runnerHintFor("Neovim").ends_with(
      "require('kernelscope').setup{ gpu = { runner = 'ssh gpu-box' } }"));
  CHECK(server::runnerHintFor("Eglot").ends_with(
      "(setq kernelscope-initialization-options '(:gpuRunner \"ssh gpu-box\"))"));
  CHECK(server::runnerHintFor("ale").ends_with(
      "let g:ale_rust_kernelscope_config = {'gpuRunner': 'ssh gpu-box'}"));
  CHECK(server::runnerHintFor("some editor") == "set the gpuRunner setting to use a GPU elsewhere");
}

TEST_CASE("kernelscope.toml is TOML: literal strings, multi-line arrays; bad lines are reported") {
  std::vector<std::string> problems;
  server::SettingValues s = server::parseSettingsFile(
      "arch = 'sm_80'  # a literal string\n"
      "hoverStages = [\n  \"ptx\",\n  \"sass\",\n]\n"
      "[section]\n"
      "debounceMs = 40\n",
      problems);
  CHECK(std::get<std::string>(s.at("arch")) == "sm_80");
  CHECK(std::get<std::vector<Stage>>(s.at("hoverStages")) ==
        std::vector<Stage>{Stage::Ptx, Stage::Sass});
  REQUIRE(problems.size() == 1);  // the table: not a setting
  CHECK(problems[0].find("kernelscope.toml:6: section:") == 0);

  problems.clear();
  s = server::parseSettingsFile("arch = \"sm_75\"\nnot a setting\noptLevel = 2\n", problems);
  // The rest of the file still applies.
  CHECK(s == server::SettingValues{{"arch", std::string("sm_75")}, {"optLevel", 2LL}});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].starts_with("kernelscope.toml:2:"));

  // Values of the wrong kind are reported in the table's words after the file's lines.
  problems.clear();
  s = server::parseSettingsFile("optLevel = \"3\"\nremarks = true\narch = ''\n", problems);
  CHECK(s == server::SettingValues{{"remarks", true}});  // an empty arch: unset
  CHECK(problems == std::vector<std::string>{"optLevel must be 0, 1, 2 or 3"});
}

TEST_CASE("kernelscope.toml's [budget] tables are the check's, not settings") {
  const std::string text =
      "arch = 'sm_80'\n[budget]\nregisters = 64\n[budget.gather]\nstack = 0\n"
      "block-size = 512\nbogus = 1\n";
  std::vector<std::string> problems;
  server::SettingValues s = server::parseSettingsFile(text, problems);
  CHECK(s == server::SettingValues{{"arch", std::string("sm_80")}});
  CHECK(problems.empty());  // no "not a setting" for the budget
  const auto budgets = server::settingsFileBudgets(text, problems);
  REQUIRE(budgets.size() == 2);
  CHECK(budgets.at("").limits.at("registers") == 64);
  CHECK(budgets.at("gather").limits.at("stack") == 0);
  CHECK(budgets.at("gather").blockSize == 512u);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].starts_with("kernelscope.toml [budget].gather: unknown key 'bogus'"));
  problems.clear();
  CHECK(server::settingsFileBudgets("budget = 3\n", problems).empty());
  CHECK(problems == std::vector<std::string>{"kernelscope.toml [budget] must be a table"});
}

TEST_CASE("kernelscope.toml of many unreadable lines is read in linear time") {
  // 400 KB of lines TOML cannot read, between two settings: each line used to cost a reading
  // of the whole file again (40 KB held initialize for seconds).
  std::string text = "arch = 'sm_80'\n";
  for (int i = 0; i < 20000; ++i) text += "not toml " + std::to_string(i) + "\n";
  text += "optLevel = 1\n";
  std::vector<std::string> problems;
  const auto start = std::chrono::steady_clock::now();
  server::SettingValues s = server::parseSettingsFile(text, problems);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(took < std::chrono::seconds(2));
  CHECK(s.empty());  // too broken to trust any line of it, and said so
  REQUIRE_FALSE(problems.empty());
  CHECK(problems.size() <= 17);
  CHECK(problems.back().find("lines TOML cannot read: no setting of the file is used") !=
        std::string::npos);
  CHECK(problems.front().starts_with("kernelscope.toml:2:"));

  // A few bad lines are still left out one by one.
  problems.clear();
  s = server::parseSettingsFile("arch = 'sm_80'\nbad 1\nbad 2\nbad 3\noptLevel = 1\n", problems);
  CHECK(s == server::SettingValues{{"arch", std::string("sm_80")}, {"optLevel", 1LL}});
  CHECK(problems.size() == 3);
}

TEST_CASE("a kernelscope.toml that is a FIFO or deeply nested: initialize answers and says why") {
  TempDir root("kernelscope-test");
  REQUIRE(::mkfifo((root.path() / "kernelscope.toml").c_str(), 0600) == 0);
  TestClient client(TestClient::options(), false);
  json r = client.request("initialize", {{"rootUri", lsp::pathToFileUri(root.path().string())},
                                         {"capabilities", json::object()}});
  CHECK(r.contains("result"));
  std::string told;
  for (const auto& m : client.notifications("window/showMessage"))
    told += m["message"].get<std::string>();
  CHECK(told.find("kernelscope.toml is a FIFO, not a regular file: not read") != std::string::npos);

  TempDir nested("kernelscope-test");
  std::ofstream(nested.path() / "kernelscope.toml")
      << "stages = " << std::string(200000, '[') << std::string(200000, ']') << "\n";
  TestClient second(TestClient::options(), false);
  CHECK(second
            .request("initialize", {{"rootUri", lsp::pathToFileUri(nested.path().string())},
                                    {"capabilities", json::object()}})
            .contains("result"));
  CHECK(second.server().settings().compile.stages == server::Settings().compile.stages);
}

}  // namespace ks::test
