// `kernelscope lsp`: option parsing and wiring of transport, compiler and server.
#include "LspMain.h"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "Files.h"
#include "LspServer.h"
#include "PipelineCompiler.h"
#include "TextUtil.h"
#include "Transport.h"

namespace ks {
namespace {

constexpr const char* kUsage = R"(usage: kernelscope lsp [options]
  --port N          serve one client on 127.0.0.1:N instead of stdio; the client must
                    send the token of $KERNELSCOPE_LSP_TOKEN (or of --token-file) as
                    initializationOptions.token
  --token-file FILE the token for --port, read from FILE (only its owner may read it)
  --lit-test [FILE] read `---`-separated JSON messages (from FILE or stdin) and print
                    every message the server sends as pretty JSON; compiles run inline
                    and durations are reported as 0
  --debounce-ms N   wait N ms after an edit before compiling (default: adaptive)
  --workers N       compile on N threads (default: the number of cores; 0: inline)
  --rustc PATH      the rustc to use (default: discovered)
)";

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

}  // namespace

int lspMain(int argc, char** argv) {
  std::optional<long> port, debounceMs, workers;
  bool litTest = false;
  std::string litFile, tokenFile;
  std::optional<std::string> token;  // --port: what initialize must carry
  ToolchainSettings toolchain;
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
      if (!value(1, 65535, port)) return 2;
    } else if (arg == "--debounce-ms") {
      if (!value(0, 600000, debounceMs)) return 2;
    } else if (arg == "--workers") {
      if (!value(0, 256, workers)) return 2;
    } else if (arg == "--lit-test") {
      litTest = true;
      if (i + 1 < argc && argv[i + 1][0] != '-') litFile = argv[++i];
    } else if (arg == "--token-file" && i + 1 < argc) {
      tokenFile = argv[++i];
    } else if (arg == "--rustc" && i + 1 < argc) {
      toolchain.rustc = argv[++i];
    } else if (arg == "--stdio") {
      // The default; accepted because editors' clients like to pass it.
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "kernelscope lsp: unknown option " << arg << "\n" << kUsage;
      return 2;
    }
  }
  // A client that closes the pipe must not kill the server with SIGPIPE mid-write.
  std::signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<server::Transport> transport;
  std::ifstream litInput;
  if (litTest) {
    if (!litFile.empty()) {
      litInput.open(litFile);
      if (!litInput) {
        std::cerr << "kernelscope lsp: cannot read " << litFile << "\n";
        return 2;
      }
    }
    transport = server::makeLitTestTransport(litFile.empty() ? std::cin : litInput, std::cout);
  } else if (port) {
    // Any local process can connect to a port: only the holder of the token is served.
    auto t = portToken(tokenFile);
    if (!t.error.empty()) {
      std::cerr << "kernelscope lsp: " << t.error << "\n";
      return 2;
    }
    token = t.token;
    std::string error;
    transport = server::makeTcpTransport(static_cast<unsigned short>(*port), error);
    if (!transport) {
      std::cerr << "kernelscope lsp: " << error << "\n";
      return 1;
    }
  } else {
    transport = server::makeStdioTransport();
  }

  server::LspServer* serverPtr = nullptr;
  server::Transport* transportPtr = transport.get();
  server::PipelineCompiler compiler(
      toolchain, [transportPtr, &serverPtr](std::string_view kind, const std::string& message) {
        transportPtr->post([&serverPtr, kind = std::string(kind), message] {
          if (serverPtr) serverPtr->progress("kernelscope/sysroot", kind, message);
        });
      });

  server::ServerOptions options;
  options.deterministic = litTest;
  options.requiredToken = token;
  if (litTest) options.scheduler.workers = 0;
  if (workers) options.scheduler.workers = static_cast<unsigned>(*workers);
  if (debounceMs) options.scheduler.debounce.fixed = std::chrono::milliseconds(*debounceMs);
  options.compile = [&compiler](const CompileInput& in, const CompileOptions& o,
                                const CancellationToken& c) { return compiler.compile(in, o, c); };
  options.passes = [&compiler](const CompileInput& in, const CompileOptions& o,
                               const std::string& kernel, const CancellationToken& c) {
    return compiler.passes(in, o, kernel, c);
  };
  options.gpu = [&compiler](const server::GpuJob& job, const server::GpuProgress& progress,
                            const CancellationToken& c) {
    return server::runGpuJob(compiler.toolchain(), job, progress, c);
  };
  options.settingsChanged = [&compiler, cliRustc = toolchain.rustc](const server::Settings& s) {
    compiler.setRustc(s.rustc.empty() ? cliRustc : s.rustc);
  };

  int status;
  {
    server::LspServer server(*transport, std::move(options));
    serverPtr = &server;
    transport->run(server);
    serverPtr = nullptr;
    status = server.exitCode();
  }
  std::cout.flush();
  return litTest ? 0 : status;
}

}  // namespace ks
