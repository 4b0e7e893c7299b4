// The engine (Engine.h): the one compile service of the CLI and the language server, with
// real compiles.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "Costs.h"
#include "Engine.h"
#include "Files.h"
#include "ParkedResult.h"
#include "Process.h"
#include "ResultStore.h"
#include "StableHash.h"
#include "TestSupport.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

/// saxpy.rs with a module, helper.rs, next to it: a result whose other files are known.
struct KernelWithModule {
  TempDir dir;
  fs::path lib = dir.path() / "k.rs", helper = dir.path() / "helper.rs";
  explicit KernelWithModule(std::string_view prefix) : dir(prefix) {
    std::ofstream(helper) << "pub fn twice(x: f32) -> f32 { x * 2.0 }\n";
    std::ofstream(lib) << readWholeFile(test::sourceDir() / "examples/saxpy.rs")
                       << "\nmod helper;\n";
  }
  const CompileResult& compiled() const {
    CompileOptions ptx;
    ptx.stages = {Stage::Ptx};
    return test::compiled(lib, ptx);
  }
};

/// Everything a reader of `r` sees, as text (below).
std::string dumpResult(const CompileResult& r);

Engine testEngine() {
  return Engine({test::toolchain().rustc.path.string(), {}, test::toolchain().cacheDir.string()});
}

}  // namespace

TEST_CASE("the engine answers an unchanged input from its cache and compiles an edited one") {
  test::requireToolchain();
  Engine engine = testEngine();
  const fs::path saxpy = test::sourceDir() / "examples/saxpy.rs";
  const std::string text = readWholeFile(saxpy);
  CompileOptions ptx;
  ptx.stages = {Stage::Ptx};
  auto first = engine.compile({saxpy, text, {}}, ptx);
  REQUIRE(first->succeeded);
  CHECK(engine.counters().compiled == 1);
  auto again = engine.compile({saxpy, text, {}}, ptx);
  CHECK(again == first);  // the same result, not a copy
  CHECK(engine.counters().compiled == 1);
  CHECK(engine.counters().fromMemory == 1);

  auto edited = engine.compile({saxpy, text + "\n// edited\n", {}}, ptx);
  CHECK(edited != first);
  CHECK(engine.counters().compiled == 2);

  // Saved tool outputs are a side effect: such a compile always runs, and writes them.
  TempDir temps("engine-test");
  CompileOptions saving = ptx;
  saving.saveTempsDir = temps.path();
  auto saved = engine.compile({saxpy, text, {}}, saving);
  CHECK(engine.counters().compiled == 3);
  CHECK(fs::exists(temps.path() / "k.ptx"));

  // A parked result stays in the cache parked: the same input brings it back, as it was.
  auto parked = engine.park(again);
  REQUIRE(parked);
  auto unparked = engine.compile({saxpy, text, {}}, ptx);
  CHECK(engine.counters().compiled == 3);
  CHECK(engine.counters().fromMemory == 2);
  CHECK(unparked != again);
  CHECK(dumpResult(*unparked) == dumpResult(*again));
  CHECK(engine.compile({saxpy, text, {}}, ptx) == unparked);  // kept whole again

  // A smaller bound evicts at once.
  engine.setCacheCapacity(0);
  engine.compile({saxpy, text, {}}, ptx);
  CHECK(engine.counters().compiled == 4);
}

TEST_CASE("an engine given a toolchain compiles with it, until another rustc is set") {
  // A replayed toolchain (tests/golden/tools/): its tools answer from the recording, so this
  // runs without rustc, ptxas or nvdisasm, and a command it does not hold would fail.
  const fs::path saxpy = test::sourceDir() / "examples/saxpy.rs";
  const Toolchain replay = test::replayToolchain(test::recordingOf(saxpy), test::sourceDir());
  Engine engine;
  engine.useToolchain(replay);
  CHECK(engine.toolchain().rustc.path == replay.rustc.path);
  auto r = engine.compile({saxpy, std::nullopt, {}}, {});
  CHECK(std::dynamic_pointer_cast<const test::ReplayingRunner>(replay.runner)->misses().empty());
  REQUIRE(r->succeeded);
  REQUIRE(r->kernels.size() == 1);
  CHECK(r->kernels[0].sassInstructions == test::replayed(saxpy).kernels[0].sassInstructions);
  CHECK(engine.counters().compiled == 1);

  engine.setRustc("/nonexistent/kernelscope-test/rustc");  // discovered again: not found
  CHECK_FALSE(engine.toolchain().rustc.found());
}

TEST_CASE("the engine applies the crate's defaults and watches its Cargo.toml") {
  test::requireToolchain();
  Engine engine = testEngine();
  const fs::path math = test::sourceDir() / "examples/crate/src/math.rs";
  CompileOptions unset;  // examples/crate says sm_90 and opt-level 3
  unset.stages = {Stage::Ptx};
  ResolvedOptions effective = engine.optionsFor(math, unset);
  CHECK(effective.arch == "sm_90");
  CHECK(effective.optLevel == 3);
  auto r = engine.compile({math, std::nullopt, {}}, unset);
  REQUIRE(r->succeeded);
  CHECK(r->arch == "sm_90");
  CHECK(r->optLevel == 3);
  const fs::path manifest = test::sourceDir() / "examples/crate/Cargo.toml";
  CHECK(std::count(r->sourceFiles.begin(), r->sourceFiles.end(), manifest) == 1);
}

TEST_CASE("a .cu file has PTX and SASS from the engine unless the stages were chosen") {
  test::requireToolchain();
  Engine engine = testEngine();
  const fs::path cu = test::sourceDir() / "examples/cuda/saxpy.cu";
  CompileOptions unchosen;
  CHECK(engine.optionsFor(cu, unchosen).stages == std::vector<Stage>{Stage::Ptx, Stage::Sass});
  CompileOptions chosen;
  chosen.stages = {Stage::Mir, Stage::Ptx};
  CHECK(engine.optionsFor(cu, chosen).stages == *chosen.stages);
  // A Rust file keeps all four.
  CHECK(engine.optionsFor(test::sourceDir() / "examples/saxpy.rs", unchosen).stages.size() == 4);

  if (!test::toolchain().nvcc.found()) {
    MESSAGE("skipped the .cu compile: no nvcc (" << test::toolchain().nvcc.problem << ")");
    return;
  }
  auto r = engine.compile({cu, std::nullopt, {}}, unchosen);
  REQUIRE(r->succeeded);
  CHECK(r->stage(Stage::Mir) == nullptr);  // not asked of a .cu: no "unavailable" to report
  CHECK(r->stage(Stage::LlvmIr) == nullptr);
  CHECK(r->stage(Stage::Ptx)->available);
  auto explicitMir = engine.compile({cu, std::nullopt, {}}, chosen);
  REQUIRE(explicitMir->stage(Stage::Mir) != nullptr);
  CHECK_FALSE(explicitMir->stage(Stage::Mir)->available);
  CHECK(explicitMir->stage(Stage::Mir)->unavailableReason.find("Rust stage") != std::string::npos);
}

namespace {

/// Everything a reader of `r` sees, as text: each stage's lines with their locations, what
/// every source line became in it (direct and inlined, with each line's origin), the code
/// with no source line, the diagnostics, remarks and kernels.
std::string dumpResult(const CompileResult& r) {
  std::ostringstream o;
  o << r.succeeded << r.arch << r.optLevel << int(r.profile) << r.failure << "\n";
  for (const auto& f : r.sourceFiles) o << "source " << f.string() << "\n";
  // Each kernel's code and registers in the cubin it runs from (a group's own, or a merged
  // module's that holds other groups' kernels too: PtxBackend.h).
  for (const auto& [kernel, cubin] : r.cubins) {
    const CubinFunctions code = cubin ? cubinFunctions(*cubin) : CubinFunctions{};
    const auto it = code.find(kernel);
    o << "cubin " << kernel << " "
      << (it == code.end()
              ? "none"
              : stableDigest({std::string(it->second.code), std::to_string(it->second.registers)}))
      << "\n";
  }
  o << "cubin problem " << r.cubinProblem << "\n";
  for (const LinkedFunction& f : r.linkedFunctions)
    o << "linked " << f.symbol << " " << f.demangled << " " << f.library << "\n";
  for (const auto& [stage, st] : r.stages) {
    o << "== " << stageName(stage) << " " << st.available << " " << st.unavailableReason << "\n"
      << test::dumpArtifact(*st.artifact);
    if (!st.available || !r.lineMap) continue;
    for (const SourceLine& src : r.lineMap->sourceLinesWithCode(stage)) {
      const StageLines& sl = r.lineMap->linesFor(stage, src);
      o << src.file << ":" << src.line << " ->";
      for (uint32_t l : sl.direct) o << " " << l;
      o << " |";
      for (uint32_t l : sl.inlined) {
        const LineOrigin& origin = r.lineMap->origin(stage, l);
        o << " " << l << "@" << origin.user.line << (origin.viaLibrary ? "v" : "")
          << origin.outerUserFrames.size();
      }
      o << "\n";
    }
    for (uint32_t l : r.lineMap->compilerGenerated(stage)) o << "generated " << l << "\n";
  }
  for (const Diagnostic& d : r.diagnostics) {
    o << "diag " << int(d.severity) << d.source << d.code << d.message
      << (d.range ? d.range->file + std::to_string(d.range->startLine) : "")
      << (d.ptxLine ? *d.ptxLine : 0) << d.related.size() << d.fixes.size() << "\n";
    for (const auto& n : d.related) o << "  " << n.range.file << n.range.endColumn << n.message;
    for (const auto& f : d.fixes)
      for (const auto& [range, text] : f.edits) o << "  " << f.title << range.startColumn << text;
  }
  for (const Remark& m : r.remarks)
    o << "remark " << int(m.kind) << m.pass << m.name << m.function << m.message
      << (m.location ? m.location->line : 0) << (m.userLocation ? m.userLocation->line : 0)
      << m.viaLibrary << m.count << "\n";
  for (const KernelInfo& k : r.kernels) {
    o << "kernel " << k.symbol << k.demangled << k.definition.line << k.ptxInstructions << " "
      << k.sassInstructions << " " << (k.resources ? k.resources->registers : 0) << " "
      << (k.resources ? k.resources->spillStores : 0);
    if (k.occupancy)
      o << " " << k.occupancy->atBlockSize.percent() << k.occupancy->atBlockSize.limitText()
        << k.occupancy->best.blockSize;
    o << "\n";
  }
  if (r.costs) {  // what the SASS view and hover show of the costs
    const SassCosts& c = *r.costs;
    o << "costs " << c.liveCounts << c.controlCodes << " " << c.lines.size() << "\n";
    for (const InstructionCost& l : c.lines)
      o << l.hasLive << l.gpr << "/" << l.pred << "/" << l.ugpr << l.hasControl
        << int(l.control.stall) << int(l.control.waitMask) << l.address << int(l.local) << ";";
    for (const MemoryAccess& m : c.access.accesses)
      o << "\naccess " << m.function << ":" << m.line.line << " " << m.head() << ", " << m.how();
    for (const LocalArray& l : c.arrays) o << "\nlocal " << l.function << l.name << l.bytes;
    o << "\nanalyzed " << c.access.analyzed << c.access.error << c.access.branches.size() << "\n";
  }
  return o.str();
}

}  // namespace

TEST_CASE("a stored result reads back as the compile made it") {
  test::requireToolchain();
  CompileOptions all;
  all.remarks = true;
  std::vector<fs::path> files;
  for (const auto& k : test::compilingKernels()) files.push_back(test::sourceDir() / k);
  files.push_back(test::sourceDir() / "examples/crate/src/math.rs");    // a helper used by kernels
  files.push_back(test::sourceDir() / "tests/fixtures/broken.rs");      // diagnostics, no code
  files.push_back(test::sourceDir() / "tests/fixtures/core_calls.rs");  // core linked in
  if (test::toolchain().nvcc.found()) files.push_back(test::sourceDir() / "examples/cuda/saxpy.cu");
  for (const fs::path& f : files) {
    CAPTURE(f);
    const CompileResult& r = test::compiled(f, all);
    const std::string bytes = serializeResult(r);
    auto back = deserializeResult(bytes);
    REQUIRE(back);
    CHECK(dumpResult(*back) == dumpResult(r));
    // A damaged entry is refused, never half read.
    CHECK_FALSE(deserializeResult(bytes.substr(0, bytes.size() / 2)));
    CHECK_FALSE(deserializeResult("not a result"));
    std::string flipped = bytes;  // one byte changed anywhere: its digest no longer matches
    flipped[flipped.size() / 3] ^= 0x20;
    CHECK_FALSE(deserializeResult(flipped));
    CHECK_FALSE(deserializeResult(bytes + "x"));
    // Parked (in memory, compressed), it comes back the same; a failure is not parked.
    auto parked = ParkedResult::park(r);
    REQUIRE(parked.operator bool() == r.succeeded);
    if (!parked) continue;
    CHECK(parked->bytes() < parked->serializedBytes());
    auto unparked = parked->unpark();
    REQUIRE(unparked);
    CHECK(dumpResult(*unparked) == dumpResult(r));
  }
}

TEST_CASE("a kept pass-by-pass view reads back whole, and goes stale with the crate's files") {
  test::requireToolchain();
  const fs::path math = test::sourceDir() / "examples/crate/src/math.rs";
  Engine engine = testEngine();
  const PassesResult r = engine.passes({math, std::nullopt, {}}, {}, "scaled_saxpy");
  INFO(r.error);
  REQUIRE(r.error.empty());
  // The crate's modules, its path dependency and its Cargo.toml: what makes a kept view stale.
  for (const char* f : {"examples/crate/src/lib.rs", "examples/crate/src/math.rs",
                        "examples/crate-util/src/lib.rs", "examples/crate/Cargo.toml"})
    CHECK_MESSAGE(std::count(r.sourceFiles.begin(), r.sourceFiles.end(),
                             fs::path(normalizePath((test::sourceDir() / f).string()))) == 1,
                  f);
  auto back = deserializePasses(serializePasses(r));
  REQUIRE(back);
  CHECK(renderPasses(*back, "t") == renderPasses(r, "t"));
  CHECK(back->finalModuleIr == r.finalModuleIr);
  CHECK(back->kernels == r.kernels);
  CHECK(back->sourceFiles == r.sourceFiles);
  CHECK_FALSE(deserializePasses(serializeResult(test::compiled(math))));  // another kind

  TempDir dir("result-store-passes");
  ResultStore store(dir.path() / "results", uintmax_t{64} << 20);
  CHECK(store.savePasses("p", r).empty());
  REQUIRE(store.loadPasses("p"));
  CHECK(renderPasses(*store.loadPasses("p"), "t") == renderPasses(r, "t"));
  PassesResult failed = r;
  failed.error = "unknown kernel 'x'";  // an error is not kept
  CHECK(store.savePasses("failed", failed).empty());
  CHECK_FALSE(store.loadPasses("failed"));
}

TEST_CASE("the result store: hits while the other files are unchanged, bounded, whole entries") {
  test::requireToolchain();
  TempDir dir("result-store-test");
  KernelWithModule crate("result-store-crate");
  const fs::path& helper = crate.helper;
  const CompileResult& r = crate.compiled();
  REQUIRE(r.succeeded);
  REQUIRE(std::count(r.sourceFiles.begin(), r.sourceFiles.end(), helper) == 1);

  ResultStore store(dir.path() / "results", uintmax_t{64} << 20);
  CHECK(store.load("k") == nullptr);
  CHECK(store.save("k", r).empty());
  auto hit = store.load("k");
  REQUIRE(hit);
  CHECK(dumpResult(*hit) == dumpResult(r));
  // A module changed on disk: the entry is stale.
  std::ofstream(helper) << "pub fn twice(x: f32) -> f32 { x + x }\n";
  CHECK(store.load("k") == nullptr);

  // A failed compile is not kept.
  CompileResult failed;
  CHECK(store.save("failed", failed).empty());
  CHECK_FALSE(fs::exists(dir.path() / "results/failed"));

  // A store that cannot be written says why, and nothing is left behind.
  ResultStore blocked(helper / "results", uintmax_t{64} << 20);
  const std::string why = blocked.save("k", r);
  CHECK(why.find("not kept between runs") != std::string::npos);
  CHECK(why.find(helper.string()) != std::string::npos);
}

TEST_CASE("a result store entry is covered whole by its digest, and read without blocking") {
  test::requireToolchain();
  TempDir dir("result-store-whole");
  KernelWithModule crate("result-store-whole-crate");
  const fs::path& helper = crate.helper;
  const CompileResult& r = crate.compiled();
  REQUIRE(r.succeeded);
  const std::string key = stableDigest({"whole"});
  ResultStore store(dir.path() / "results", uintmax_t{64} << 20);
  REQUIRE(store.save(key, r).empty());
  REQUIRE(store.load(key));
  const fs::path file = dir.path() / "results" / key / "result";
  const std::string bytes = readWholeFile(file);
  REQUIRE(bytes.find(helper.string()) != std::string::npos);

  // The list of the other files is covered: with the helper's line taken out (so that its
  // edits would go unseen), the entry is refused.
  {
    std::string edited = bytes;
    const size_t at = edited.find(helper.string());
    const size_t lineStart = edited.rfind('\n', at) + 1;
    edited.erase(lineStart, edited.find('\n', at) + 1 - lineStart);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << edited;
    CHECK(store.load(key) == nullptr);
  }
  // Cut short, or a byte changed anywhere: refused.
  for (size_t at : {size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    std::string edited = bytes;
    edited[at] = static_cast<char>(edited[at] ^ 1);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << edited;
    CHECK(store.load(key) == nullptr);
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 3);
  CHECK(store.load(key) == nullptr);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  REQUIRE(store.load(key));

  // A FIFO or a link to /dev/zero in the entry's place: refused at once, nothing read.
  auto timed = [&] {
    const auto start = std::chrono::steady_clock::now();
    CHECK(store.load(key) == nullptr);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  };
  fs::remove(file);
  REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
  timed();
  fs::remove(file);
  fs::create_symlink("/dev/zero", file);
  timed();
  // A listed file that became a FIFO, or a link to /dev/zero, is a changed file.
  fs::remove(file);
  std::ofstream(file, std::ios::binary) << bytes;
  REQUIRE(store.load(key));
  fs::remove(helper);
  REQUIRE(::mkfifo(helper.c_str(), 0600) == 0);
  timed();
  fs::remove(helper);
  fs::create_symlink("/dev/zero", helper);
  timed();
}

TEST_CASE("a stored result's counts are never trusted beyond its bytes, digest or not") {
  test::requireToolchain();
  CompileOptions ptx;
  ptx.stages = {Stage::Ptx};
  const std::string bytes =
      serializeResult(test::compiled(test::sourceDir() / "examples/saxpy.rs", ptx));
  REQUIRE(deserializeResult(bytes));
  // The first count (the tag's length) made 2^40, and the digest made again: refused at
  // once, without allocating a terabyte.
  std::string content = bytes.substr(0, bytes.size() - 32);
  const uint64_t huge = uint64_t{1} << 40;
  std::memcpy(content.data(), &huge, sizeof huge);
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(deserializeResult(content + bytesDigest(content)));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  // Cut short and sealed again: refused too.
  const std::string cut = content.substr(0, content.size() / 2);
  CHECK_FALSE(deserializeResult(cut + bytesDigest(cut)));
}

TEST_CASE("the result store evicts only the entries it made") {
  test::requireToolchain();
  TempDir dir("result-store-evict");
  const fs::path results = dir.path() / "results";
  CompileOptions ptx;
  ptx.stages = {Stage::Ptx};
  const CompileResult& r = test::compiled(test::sourceDir() / "examples/saxpy.rs", ptx);
  REQUIRE(r.succeeded);
  const uintmax_t entryBytes = serializeResult(r).size();
  ResultStore store(results, entryBytes * 2 + 8192);  // two entries, with their lists
  const std::string old = stableDigest({"old"}), fresh = stableDigest({"fresh"});
  REQUIRE(store.save(old, r).empty());
  // A user's folders under results/: one named like an entry, one like anything.
  fs::create_directories(results / stableDigest({"user"}));
  std::ofstream(results / stableDigest({"user"}) / "notes.txt") << std::string(entryBytes, 'x');
  fs::create_directories(results / "photos");
  std::ofstream(results / "photos/a.jpg") << std::string(entryBytes, 'x');
  const auto longAgo = fs::file_time_type::clock::now() - std::chrono::hours(5);
  for (const fs::path& p : {results / old, results / stableDigest({"user"}), results / "photos"})
    fs::last_write_time(p, longAgo);
  // The user's folders hold more than the bound: still only kernelscope's entries count.
  REQUIRE(store.save(fresh, r).empty());
  CHECK(fs::exists(results / old));
  CHECK(fs::exists(results / fresh));
  const std::string third = stableDigest({"third"});
  REQUIRE(store.save(third, r).empty());
  CHECK_FALSE(fs::exists(results / old));  // the least recent of its own
  CHECK(fs::exists(results / fresh));
  CHECK(fs::exists(results / third));
  CHECK(fs::exists(results / stableDigest({"user"}) / "notes.txt"));
  CHECK(fs::exists(results / "photos/a.jpg"));

  // Staging folders: a killed kernelscope's go on the next save (its pid is free), this
  // process's stay (a save may be under way), and so does a name that only looks alike.
  pid_t ended = ::fork();
  if (ended == 0) ::_exit(0);
  REQUIRE(ended > 0);
  ::waitpid(ended, nullptr, 0);
  const fs::path killed = results / (fresh + ".tmp-" + std::to_string(ended));
  const fs::path ours = results / stagingName(third);
  const fs::path user = results / "drafts.tmp-notes";
  for (const fs::path& p : {killed, ours, user}) {
    fs::create_directories(p);
    std::ofstream(p / "result") << "half";
  }
  REQUIRE(store.save(stableDigest({"fourth"}), r).empty());
  CHECK_FALSE(fs::exists(killed));
  CHECK(fs::exists(ours));
  CHECK(fs::exists(user));
}

TEST_CASE("the compile key covers the environment that decides the tools") {
  CompileInput input{"/k.rs", std::string("fn main() {}"), {}};
  const std::string before = compileKey(test::toolchain(), input, {});
  const char* had = std::getenv("CUDA_PATH");
  const std::string was = had ? had : "";
  ::setenv("CUDA_PATH", "/opt/another-cuda", 1);
  const std::string with = compileKey(test::toolchain(), input, {});
  ::unsetenv("CUDA_PATH");
  const std::string without = compileKey(test::toolchain(), input, {});
  if (had) ::setenv("CUDA_PATH", was.c_str(), 1);
  CHECK(with != without);
  CHECK(compileKey(test::toolchain(), input, {}) == before);
}

TEST_CASE(
    "a cargo-built crate's result goes stale when its Cargo.lock or cargo configuration changes") {
  test::requireToolchain();
  TempDir dir("engine-cargo-lock");
  fs::copy(test::sourceDir() / "examples/crate", dir.path() / "crate", fs::copy_options::recursive);
  fs::copy(test::sourceDir() / "examples/crate-util", dir.path() / "crate-util",
           fs::copy_options::recursive);
  const fs::path lock = dir.path() / "crate/Cargo.lock";
  std::ofstream(lock) << "version = 3\n";
  Engine engine = testEngine();
  CompileOptions trusted;  // cargo builds only a trusted workspace's crates
  trusted.workspaceTrusted = true;
  trusted.stages = {Stage::Ptx};
  const fs::path math = dir.path() / "crate/src/math.rs";
  auto first = engine.compile({math, std::nullopt, {}}, trusted);
  REQUIRE(first->succeeded);
  CHECK(std::count(first->sourceFiles.begin(), first->sourceFiles.end(), lock) == 1);
  engine.compile({math, std::nullopt, {}}, trusted);
  CHECK(engine.counters().compiled == 1);

  // Another version of a dependency in the lock file: compiled again.
  std::ofstream(lock, std::ios::app) << "# another resolution\n";
  engine.compile({math, std::nullopt, {}}, trusted);
  CHECK(engine.counters().compiled == 2);

  // A cargo configuration file that exists is an input too.
  fs::create_directories(dir.path() / "crate/.cargo");
  const fs::path config = dir.path() / "crate/.cargo/config.toml";
  std::ofstream(config) << "[build]\n";
  std::ofstream(lock, std::ios::app) << "# and once more\n";
  auto withConfig = engine.compile({math, std::nullopt, {}}, trusted);
  REQUIRE(withConfig->succeeded);
  CHECK(engine.counters().compiled == 3);
  CHECK(std::count(withConfig->sourceFiles.begin(), withConfig->sourceFiles.end(), config) == 1);
  std::ofstream(config, std::ios::app) << "# edited\n";
  engine.compile({math, std::nullopt, {}}, trusted);
  CHECK(engine.counters().compiled == 4);
}

TEST_CASE("an edit sequence gives the results a clean compile gives, unchanged stages shared") {
  test::requireToolchain();
  const fs::path saxpy = test::sourceDir() / "examples/saxpy.rs";
  const std::string text = readWholeFile(saxpy);
  const std::string edited = text + "\n// edited\n";
  auto options = [](const std::string& arch) {
    CompileOptions o;
    o.stages = {Stage::Mir, Stage::LlvmIr, Stage::Ptx};
    o.arch = arch;
    return o;
  };
  Engine engine = testEngine();
  auto first = engine.compile({saxpy, text, {}}, options("sm_80"));
  auto switched = engine.compile({saxpy, text, {}}, options("sm_90"));
  auto after = engine.compile({saxpy, edited, {}}, options("sm_90"));
  REQUIRE(first->succeeded);
  REQUIRE(switched->succeeded);
  REQUIRE(after->succeeded);
  CHECK(engine.counters().compiled == 3);

  // An arch switch leaves the MIR as it was: the new result holds the earlier one's artifact;
  // the PTX, which names the arch, is its own.
  const auto& mir = first->stage(Stage::Mir)->artifact;
  CHECK(switched->stage(Stage::Mir)->artifact == mir);
  CHECK(switched->stage(Stage::Ptx)->artifact != first->stage(Stage::Ptx)->artifact);
  // After an edit, a stage whose text came out the same is shared, a changed one is not.
  for (Stage s : {Stage::Mir, Stage::LlvmIr, Stage::Ptx}) {
    const auto& now = after->stage(s)->artifact;
    const auto& then = switched->stage(s)->artifact;
    CHECK((now == then) == (now->text() == then->text()));
  }

  // Each result reads as a clean compile of its input does, in an engine of its own (but for
  // the LLVM IR's name of the compile's own temporary directory).
  auto dump = [](const CompileResult& r) {
    return test::withNamesReplaced(dumpResult(r), "kernelscope-build-", "kernelscope-build-*");
  };
  CHECK(dump(*switched) == dump(*testEngine().compile({saxpy, text, {}}, options("sm_90"))));
  CHECK(dump(*after) == dump(*testEngine().compile({saxpy, edited, {}}, options("sm_90"))));

  // The compile cache counts the shared MIR once.
  CompileCache cache;
  cache.insert("first", first);
  cache.insert("switched", switched);
  CHECK(cache.bytes() == footprint(*first) + footprint(*switched) - footprint(*mir, true));
  // Evicting the result that made the artifact leaves it counted for the one that shares it.
  cache.setCapacity(footprint(*switched));
  CHECK_FALSE(cache.find("first"));
  CHECK(cache.bytes() == footprint(*switched));
}

namespace {

/// 21 kernels (three modules of ptxas's, KernelModules.h) sharing a function ptxas keeps
/// apart; kernel k multiplies by `k.5` and the shared function adds 0.5.
std::string manyKernels() {
  std::string text =
      "#![no_std]\n#![feature(abi_ptx, stdarch_nvptx)]\nuse core::arch::nvptx;\n"
      "#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! {\n    loop {}\n}\n"
      "#[inline(never)]\nfn shared(v: f32, n: usize) -> f32 {\n"
      "    let mut a = v;\n    for _ in 0..n {\n        a = a * a + 0.5;\n    }\n    a\n}\n";
  for (int k = 0; k < 21; ++k)
    text += "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn k" + std::to_string(k) +
            "(x: *mut f32, n: usize) {\n    let i = nvptx::_thread_idx_x() as usize;\n"
            "    if i < n {\n        *x.add(i) = shared(*x.add(i), n) * " +
            std::to_string(k) + ".5;\n    }\n}\n";
  return text;
}

/// dumpResult, but for the LLVM IR's name of the compile's own temporary directory.
std::string dumpWithoutBuildDir(const CompileResult& r) {
  return test::withNamesReplaced(dumpResult(r), "kernelscope-build-", "kernelscope-build-*");
}

}  // namespace

TEST_CASE("an edit assembles only the kernels it changed, and reads as a clean compile") {
  // manyKernels: each edit is compiled through the engine, whose kernel images (KernelImages.h)
  // answer the modules it left alone, and compared with a clean compile that assembles and
  // disassembles every kernel afresh. Two tools at a time: three groups that all miss are
  // assembled as two modules, and an image cut from a merged module reads as its own.
  test::requireToolchain();
  TempDir dir("kernelscope-kernel-images");
  const fs::path file = dir.path() / "many.rs";
  std::string text = manyKernels();
  std::ofstream(file) << text;
  auto replaced = [](std::string s, const std::string& from, const std::string& to) {
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  auto dump = dumpWithoutBuildDir;
  Engine engine = testEngine();
  CompileOptions options;
  options.remarks = true;
  options.backEndJobs = 2;
  const auto images = engine.optionsFor(file, options).kernelImages;
  REQUIRE(images);
  size_t hits = images->counters().hits, misses = images->counters().misses;
  // Each edit, and how many of the three modules it may assemble again at most.
  const std::pair<std::string, size_t> edits[] = {
      {text, 3},
      {replaced(text, "* 7.5;", "* 7.25;"), 1},  // only k7's code changed
      {replaced(text, "* 3.5;", "* 3.25;"), 1},  // k3's, of a group assembled merged at first
      {"// a line more\n" + replaced(text, "* 7.5;", "* 7.25;"), 0},  // only lines moved
      {text + "// the end\n", 0}};  // the first text's kernels again
  for (const auto& e : edits) {
    // Named, not bound: CAPTURE's lambda cannot capture a structured binding before C++20's
    // later compilers (clang 14 refuses it).
    const std::string& edit = e.first;
    const size_t assembledAtMost = e.second;
    CAPTURE(assembledAtMost);
    auto incremental = engine.compile({file, edit, {}}, options);
    REQUIRE(incremental->succeeded);
    REQUIRE(incremental->kernels.size() == 21);
    const size_t newHits = images->counters().hits - hits;
    const size_t newMisses = images->counters().misses - misses;
    hits += newHits;
    misses += newMisses;
    CHECK(newHits + newMisses == 3);
    CHECK(newMisses <= assembledAtMost);
    ResolvedOptions clean = engine.optionsFor(file, options);
    clean.kernelImages = nullptr;
    CompileResult fresh = compileKernel(engine.toolchain(), {file, edit, {}}, clean);
    REQUIRE(fresh.succeeded);
    REQUIRE(fresh.stage(Stage::Sass)->available);
    CHECK(fresh.cubins.size() == 21);
    CHECK(dump(*incremental) == dump(fresh));
    // The clean compile's groups came from two cubins, the merged module's and the other's.
    std::set<std::string> cubins;
    for (const auto& [kernel, cubin] : fresh.cubins) cubins.insert(*cubin);
    CHECK(cubins.size() == 2);
  }
  // Every group assembled alone: three cubins, each kernel's code as in the merged one.
  ResolvedOptions apart = engine.optionsFor(file, options);
  apart.kernelImages = nullptr;
  apart.backEndJobs = 3;
  CompileResult alone = compileKernel(engine.toolchain(), {file, text, {}}, apart);
  REQUIRE(alone.succeeded);
  std::set<std::string> cubins;
  for (const auto& [kernel, cubin] : alone.cubins) cubins.insert(*cubin);
  CHECK(cubins.size() == 3);
  apart.backEndJobs = 2;
  CHECK(dump(alone) == dump(compileKernel(engine.toolchain(), {file, text, {}}, apart)));
}

TEST_CASE("random edit sequences read as clean compiles, stage by stage") {
  // Edits drawn at random (a kernel's constant, the shared function's, a line added that
  // moves the code below it, an undo to an earlier text), each compiled through one engine
  // (its result cache and kernel images answering what they can) and compared with a clean
  // compile of the same text. KS_EDIT_SEED replays a sequence; the seed is in every failure.
  test::requireToolchain();
  const char* seedText = std::getenv("KS_EDIT_SEED");
  const unsigned seed = seedText ? static_cast<unsigned>(std::strtoul(seedText, nullptr, 10))
                                 : static_cast<unsigned>(std::random_device{}());
  CAPTURE(seed);
  std::mt19937 random(seed);
  auto below = [&](size_t n) { return static_cast<size_t>(random() % n); };
  TempDir dir("kernelscope-edit-sequence");
  const fs::path file = dir.path() / "edits.rs";
  std::vector<std::string> history = {manyKernels()};
  std::ofstream(file) << history.back();
  Engine engine = testEngine();
  CompileOptions options;
  options.remarks = true;
  options.backEndJobs = 2;
  for (int step = 0; step < 5; ++step) {
    std::string text = history.back();
    std::string edit;
    switch (below(4)) {
      case 0: {  // another constant for one kernel
        const size_t at = text.find(") * ", below(text.size() / 2) + text.size() / 4);
        if (at == std::string::npos) continue;
        text.insert(at + 4, std::to_string(below(9) + 1));
        edit = "a kernel's constant";
        break;
      }
      case 1: {  // the function every kernel calls
        const size_t at = text.find("a * a + ");
        text.insert(at + 8, std::to_string(below(9) + 1));
        edit = "the shared function";
        break;
      }
      case 2: {  // a line added: the code below it moves
        const size_t at = text.find('\n', below(text.size()));
        if (at == std::string::npos) continue;
        text.insert(at + 1, "// moved\n");
        edit = "a line added";
        break;
      }
      default:  // undone: an earlier text again
        text = history[below(history.size())];
        edit = "an undo";
    }
    CAPTURE(step);
    CAPTURE(edit);
    history.push_back(text);
    auto incremental = engine.compile({file, text, {}}, options);
    REQUIRE(incremental->succeeded);
    ResolvedOptions clean = engine.optionsFor(file, options);
    clean.kernelImages = nullptr;
    CompileResult fresh = compileKernel(engine.toolchain(), {file, text, {}}, clean);
    REQUIRE(fresh.succeeded);
    CHECK(dumpWithoutBuildDir(*incremental) == dumpWithoutBuildDir(fresh));
  }
}
