// `kernelscope lsp`: option parsing and wiring of transport, compiler and server.
#include "LspMain.h"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "CliFlags.h"
#include "Engine.h"
#include "Files.h"
#include "LspServer.h"
#include "Process.h"
#include "TextUtil.h"
#include "Transport.h"

namespace ks {
namespace {

/// `kernelscope lsp --help`: the option lines come from the table of flags (CliFlags.h).
std::string usage() { return "usage: kernelscope lsp [options]\n" + cliFlagLines("lsp"); }

struct PortToken {
  std::string token, error;
};

/// The token `--port` requires: from --token-file (a regular file only its owner can read)
/// or $KERNELSCOPE_LSP_TOKEN; at least 16 characters.
PortToken portToken(const std::string& tokenFile) {
  PortToken t;
  if (!tokenFile.empty()) {
    struct stat st {};
    FileText f = readRegularFile(tokenFile, 4096);
    if (!f.ok()) return {"", "--token-file " + tokenFile + ": " + f.error};
    if (::stat(tokenFile.c_str(), &st) != 0 || st.st_uid != ::getuid() || (st.st_mode & 077) != 0)
      return {"", "--token-file " + tokenFile +
                      " must belong to this user and be readable by it alone (chmod 600)"};
    t.token = std::string(text::trim(f.text));
  } else if (const char* env = std::getenv("KERNELSCOPE_LSP_TOKEN")) {
    t.token = env;
  }
  if (t.token.size() < 16)
    t.error =
        t.token.empty()
            ? "--port needs a token: set KERNELSCOPE_LSP_TOKEN or pass --token-file FILE, and "
              "have the editor send it as initializationOptions.token"
            : "the --port token must have at least 16 characters";
  return t;
}

bool parseInt(const char* s, long min, long max, long& out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!*s || *end || v < min || v > max) return false;
  out = v;
  return true;
}

/// The options of `kernelscope lsp`.
struct LspArgs {
  std::optional<long> port, debounceMs, workers;
  bool litTest = false;
  std::string litFile, tokenFile;
  ToolchainSettings toolchain;
};

/// Reads the options; nullopt with `exitCode` set when the command ends here (help, or a bad
/// option, said on stderr).
std::optional<LspArgs> parseArgs(int argc, char** argv, int& exitCode) {
  LspArgs a;
  exitCode = 2;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](long min, long max, std::optional<long>& out) {
      long v = 0;
      if (i + 1 >= argc || !parseInt(argv[i + 1], min, max, v)) {
        std::cerr << "kernelscope lsp: " << arg << " needs a number from " << min << " to " << max
                  << "\n";
        return false;
      }
      out = v;
      ++i;
      return true;
    };
    if (arg == "--port") {
      if (!value(1, 65535, a.port)) return std::nullopt;
    } else if (arg == "--debounce-ms") {
      if (!value(0, 600000, a.debounceMs)) return std::nullopt;
    } else if (arg == "--workers") {
      if (!value(0, 256, a.workers)) return std::nullopt;
    } else if (arg == "--lit-test") {
      a.litTest = true;
      if (i + 1 < argc && argv[i + 1][0] != '-') a.litFile = argv[++i];
    } else if (arg == "--token-file" && i + 1 < argc) {
      a.tokenFile = argv[++i];
    } else if (arg == "--rustc" && i + 1 < argc) {
      a.toolchain.rustc = argv[++i];
    } else if (arg == "--stdio") {
      // The default; accepted because editors' clients like to pass it.
    } else if (arg == "-h" || arg == "--help") {
      std::cout << usage();
      exitCode = 0;
      return std::nullopt;
    } else {
      std::cerr << "kernelscope lsp: unknown option " << arg << "\n" << usage();
      return std::nullopt;
    }
  }
  return a;
}

/// The transport the options ask for: the lit-test mode (from `litInput` or stdin), loopback
/// TCP (setting `token`, which initialize must carry), else stdio. Nullptr with `exitCode` set
/// when it cannot be made (said on stderr).
std::unique_ptr<server::Transport> makeTransport(const LspArgs& a, std::ifstream& litInput,
                                                 std::optional<std::string>& token, int& exitCode) {
  exitCode = 2;
  if (a.litTest) {
    if (!a.litFile.empty()) {
      litInput.open(a.litFile);
      if (!litInput) {
        std::cerr << "kernelscope lsp: cannot read " << a.litFile << "\n";
        return nullptr;
      }
    }
    return server::makeLitTestTransport(a.litFile.empty() ? std::cin : litInput, std::cout);
  }
  if (!a.port) return server::makeStdioTransport();
  // Any local process can connect to a port: only the holder of the token is served.
  auto t = portToken(a.tokenFile);
  if (!t.error.empty()) {
    std::cerr << "kernelscope lsp: " << t.error << "\n";
    return nullptr;
  }
  token = t.token;
  std::string error;
  auto transport = server::makeTcpTransport(static_cast<unsigned short>(*a.port), error);
  if (!transport) {
    std::cerr << "kernelscope lsp: " << error << "\n";
    exitCode = 1;
  }
  return transport;
}

/// The server's options over the real pipeline of `engine`.
server::ServerOptions serverOptions(const LspArgs& a, Engine& engine) {
  server::ServerOptions options;
  options.deterministic = a.litTest;
  if (a.litTest) options.scheduler.workers = 0;
  if (a.workers) options.scheduler.workers = static_cast<unsigned>(*a.workers);
  if (a.debounceMs) options.scheduler.debounce.fixed = std::chrono::milliseconds(*a.debounceMs);
  server::useEngine(options, engine, a.toolchain.rustc);
  return options;
}

}  // namespace

int lspMain(int argc, char** argv) {
  int exitCode = 0;
  std::optional<LspArgs> args = parseArgs(argc, argv, exitCode);
  if (!args) return exitCode;
  // A client that closes the pipe must not kill the server with SIGPIPE mid-write.
  std::signal(SIGPIPE, SIG_IGN);

  std::ifstream litInput;
  std::optional<std::string> token;  // --port: what initialize must carry
  std::unique_ptr<server::Transport> transport = makeTransport(*args, litInput, token, exitCode);
  if (!transport) return exitCode;

  server::LspServer* serverPtr = nullptr;
  server::Transport* transportPtr = transport.get();
  // The toolchain is discovered on the first compile (not at start-up, so that `initialize`
  // is answered at once), and the nvptx64 core is built then if it is missing, its progress
  // reported.
  Engine engine(args->toolchain,
                [transportPtr, &serverPtr](std::string_view kind, const std::string& message) {
                  transportPtr->post([&serverPtr, kind = std::string(kind), message] {
                    if (serverPtr) serverPtr->progress("kernelscope/sysroot", kind, message);
                  });
                });
  server::ServerOptions options = serverOptions(*args, engine);
  options.requiredToken = token;

  int status;
  {
    server::LspServer server(*transport, std::move(options));
    serverPtr = &server;
    transport->run(server);
    // `exit`, the editor gone or the connection closed: whatever still runs (a compile, the
    // build of the nvptx64 core) is ended now, so that the process exits at once, its
    // temporary directories removed, well before an editor's patience runs out.
    stopAllTools();
    serverPtr = nullptr;
    status = server.exitCode();
  }
  std::cout.flush();
  return args->litTest ? 0 : status;
}

}  // namespace ks
