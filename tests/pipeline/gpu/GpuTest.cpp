// Launch specs, the gpu-exec protocol, Nsight Compute's CSV on source lines, and `kernelscope
// run|profile` without a GPU. Everything here runs on machines with no GPU or driver; the
// counters are real ones recorded on an H200 (tests/golden/ncu/README.md).
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "ExactLocations.h"
#include "GpuExecProtocol.h"
#include "GpuService.h"
#include "KernelLaunch.h"
#include "LaunchSpec.h"
#include "LineMap.h"
#include "LineProfile.h"
#include "Ncu.h"
#include "Parsers.h"
#include "Process.h"
#include "ProfileBaseline.h"
#include "Runner.h"
#include "TestSupport.h"

using namespace ks;
using namespace ks::gpu;
namespace fs = std::filesystem;

namespace {

/// The PTX signature of an example (recorded golden PTX), named from its source.
KernelSignature exampleSignature(const std::string& name) {
  std::string ptx = readWholeFile(test::sourceDir() / "tests/golden" / name / "k.ptx");
  std::string source = readWholeFile(test::sourceDir() / "examples" / (name + ".rs"));
  Artifact artifact = parsePtx(ptx);
  for (const auto& f : artifact.functions)
    if (f.isKernel && f.symbol == name) {
      KernelSignature sig = ptxSignature(artifact, f);
      size_t at = source.find("fn " + name + "(");
      REQUIRE(at != std::string::npos);
      CHECK(addSourceSignature(sig, source, at + 3, false) == "");
      return sig;
    }
  FAIL("no kernel " << name);
  return {};
}

LaunchSpec exampleSpec(const std::string& name, std::vector<SpecError>& errors) {
  test::Fixture f(test::sourceDir() / "examples" / (name + ".rs"));
  return specFromComments(f.text, f.lineOf("fn " + name + "("), "examples/" + name + ".rs", errors);
}

LaunchSpec specOf(const std::string& text) {
  LaunchSpec spec;
  std::vector<SpecError> errors;
  parseSpecItems(text, "k.rs", 3, spec, errors);
  REQUIRE(errors.empty());
  return spec;
}

/// The errors of resolving `text` against saxpy(n: u32, a: f32, x: *const f32, y: *mut f32).
std::string saxpyErrors(const std::string& text) {
  std::vector<SpecError> errors;
  auto plan = resolveSpec(specOf(text), exampleSignature("saxpy"), errors);
  CHECK(!plan);
  std::string all;
  for (const auto& e : errors) all += e.describe() + "\n";
  return all;
}

const std::string kSaxpyOk =
    "n = 1000; a = 2.0; x = f32[n] ones; y = f32[n] zeros; grid = ceil(n / 256); block = 256";

}  // namespace

TEST_CASE("expressions: arithmetic, ceil, shifts, and errors instead of crashes") {
  std::string err;
  CHECK(evaluateExpression("ceil(1000 / 256)", err) == 4);
  CHECK(evaluateExpression("1 << 20", err) == 1048576);
  CHECK(evaluateExpression("2 + 3 * 4 ** 2", err) == 50);
  CHECK(evaluateExpression("min(3, max(1, 2)) - -1", err) == 3);
  CHECK(evaluateExpression("0x10 + 1_000 + 2.5e1 + 2.0f32", err) == 16 + 1000 + 25 + 2);
  for (const char* bad :
       {"1 / 0", "ceil(1, 2)", "sqrt(4)", "(1 + 2", "1 +", "n", "1 << 70", "3 $ 4", "", "min()",
        "max(1)", "ceil()"}) {  // too few arguments read past them (a fuzzer's find)
    CAPTURE(bad);
    err.clear();
    CHECK_FALSE(evaluateExpression(bad, err));
    CHECK_FALSE(err.empty());
  }
  // Hostile nesting stops at a depth limit with a message.
  err.clear();
  CHECK_FALSE(evaluateExpression(std::string(100000, '(') + "1" + std::string(100000, ')'), err));
  CHECK(err.find("nested too deeply") != std::string::npos);
}

TEST_CASE(
    "every example has a spec above its kernel that checks against its PTX and source signature") {
  for (const char* name :
       {"saxpy", "vector_add", "elementwise_mul", "reduce_sum", "matmul_naive", "matmul_tiled"}) {
    CAPTURE(name);
    std::vector<SpecError> errors;
    LaunchSpec spec = exampleSpec(name, errors);
    CHECK(errors.empty());
    REQUIRE_FALSE(spec.empty());
    auto plan = resolveSpec(spec, exampleSignature(name), errors);
    for (const auto& e : errors) INFO(e.describe());
    REQUIRE(plan);
    CHECK(plan->kernel == name);
    for (const auto& a : plan->args)
      if (a.buffer) CHECK(a.byteSize() > 0);
  }
  std::vector<SpecError> errors;
  auto plan =
      resolveSpec(exampleSpec("matmul_naive", errors), exampleSignature("matmul_naive"), errors);
  REQUIRE(plan);
  CHECK(plan->grid == std::array<uint32_t, 3>{64, 64, 1});
  CHECK(plan->block == std::array<uint32_t, 3>{16, 16, 1});
  REQUIRE(plan->args.size() == 6);
  CHECK(plan->args[0].count == 1024 * 1024);
  CHECK_FALSE(plan->args[0].output);                                            // *const f32
  CHECK(plan->args[2].output);                                                  // *mut f32
  CHECK(plan->args[3].scalar == std::vector<uint8_t>{0x00, 0x04, 0x00, 0x00});  // m = 1024 as u32
  CHECK(*plan->flops == 2.0 * 1024 * 1024 * 1024);
  CHECK(plan->bufferBytes() == 3ull * 4 * 1024 * 1024);
}

TEST_CASE("saxpy's spec: scalars, buffers and sizes as the kernel takes them") {
  std::vector<SpecError> errors;
  auto plan = resolveSpec(specOf(kSaxpyOk), exampleSignature("saxpy"), errors);
  REQUIRE(plan);
  CHECK(plan->grid[0] == 4);
  float a = 0;
  REQUIRE(plan->args[1].scalar.size() == 4);
  std::memcpy(&a, plan->args[1].scalar.data(), 4);
  CHECK(a == 2.0f);
  CHECK(plan->args[2].fill.kind == Fill::Kind::Ones);
  CHECK(plan->args[3].byteSize() == 4000);
}

TEST_CASE("spec errors name the spec's line and say what is wrong") {
  CHECK(saxpyErrors(kSaxpyOk + "; x = f64[n] zeros")
            .find("k.rs:3: 'x' points to f32, the spec gives f64") != std::string::npos);
  CHECK(saxpyErrors("n = 10; a = 1; x = f32[n]; grid = 1; block = 32")
            .find("no value for parameter 'y: *mut f32' of saxpy") != std::string::npos);
  CHECK(
      saxpyErrors(kSaxpyOk + "; m = 3")
          .find(
              "no parameter named 'm': saxpy takes (n: u32, a: f32, x: *const f32, y: *mut f32)") !=
      std::string::npos);
  // Read from a line (its column known), the offending part's column follows the line, as
  // compilers print it: `m` follows "; " after the spec written from column 5.
  {
    LaunchSpec spec;
    std::vector<SpecError> errors;
    parseSpecItems(kSaxpyOk + "; m = 3", "k.rs", 3, spec, errors, 5);
    REQUIRE(errors.empty());
    REQUIRE(!resolveSpec(spec, exampleSignature("saxpy"), errors));
    REQUIRE(!errors.empty());
    CHECK(errors[0].describe().rfind(
              "k.rs:3:" + std::to_string(5 + kSaxpyOk.size() + 2) + ": no parameter named 'm'",
              0) == 0);
  }
  CHECK(saxpyErrors(kSaxpyOk + "; x = 5")
            .find("'x' is a pointer (*const f32): give it a buffer, e.g. x = f32[n] zeros") !=
        std::string::npos);
  CHECK(saxpyErrors(kSaxpyOk + "; n = f32[4] zeros").find("'n' is u32, not a pointer") !=
        std::string::npos);
  CHECK(saxpyErrors(kSaxpyOk + "; n = -1").find("does not fit the parameter's u32") !=
        std::string::npos);
  CHECK(saxpyErrors(kSaxpyOk + "; n = 1.5").find("needs a whole number") != std::string::npos);
  CHECK(saxpyErrors(kSaxpyOk + "; block = [64, 32]").find("2048 threads: at most 1024") !=
        std::string::npos);
  CHECK(saxpyErrors(kSaxpyOk + "; grid = n / 3").find("needs a whole number from 1 up (use ceil") !=
        std::string::npos);
  CHECK(saxpyErrors(kSaxpyOk + "; n = n + 1").find("defined in terms of itself") !=
        std::string::npos);
  CHECK(saxpyErrors(kSaxpyOk + "; x = f32[1 << 50] zeros").find("larger than kernelscope allows") !=
        std::string::npos);
  CHECK(saxpyErrors(kSaxpyOk + "; y = f32[n] gaussian").find("unknown contents 'gaussian'") !=
        std::string::npos);
  CHECK(saxpyErrors("n = 10; a = 1; x = f32[n]; y = f32[n]").find("the spec needs 'grid'") !=
        std::string::npos);

  // Text that is not a spec.
  LaunchSpec spec;
  std::vector<SpecError> errors;
  parseSpecItems("n 5; = 3; 9x = 1; y =", "k.rs", 7, spec, errors);
  CHECK(errors.size() == 4);
  CHECK(spec.empty());
  errors.clear();
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "k" + std::to_string(i) + " = 1;";
  parseSpecItems(many, "k.rs", 1, spec, errors);
  REQUIRE_FALSE(errors.empty());
  CHECK(errors.back().message.find("too many spec items") != std::string::npos);
}

TEST_CASE("specs in comments: own lines and trailing an attribute, stopping at code") {
  std::string src =
      "fn helper() {}\n"
      "// kernelscope: n = 4 // not this: code follows\n"
      "let x = 1;\n"
      "/// Adds.\n"
      "// kernelscope: n = 64; block = 32\n"
      "#[no_mangle] // kernelscope: grid = 2\n"
      "pub unsafe extern \"ptx-kernel\" fn k(n: u32) {}\n";
  std::vector<SpecError> errors;
  LaunchSpec spec = specFromComments(src, 7, "k.rs", errors);
  CHECK(errors.empty());
  REQUIRE(spec.items.size() == 3);
  CHECK(spec.items[0].key == "n");
  CHECK(spec.items[0].line == 5);
  CHECK(spec.find("grid")->line == 6);
  CHECK(specFromComments(src, 1, "k.rs", errors).empty());
}

TEST_CASE("CUDA C++ signatures name and type the parameters") {
  std::string src =
      "extern \"C\" __global__ void k(const float* __restrict__ a, float *b, unsigned int n, "
      "size_t m) {}";
  auto param = [](unsigned bytes) {
    KernelParam p;
    p.bytes = bytes;
    return p;
  };
  KernelSignature sig{"k", {param(8), param(8), param(4), param(8)}};
  REQUIRE(addSourceSignature(sig, src, src.find("k("), true) == "");
  CHECK(sig.params[0].name == "a");
  REQUIRE(sig.params[0].pointee);
  CHECK(sig.params[0].pointee->name == "f32");
  CHECK_FALSE(sig.params[0].pointeeMutable);
  CHECK(sig.params[1].pointeeMutable);
  CHECK(sig.params[2].type == ElemType::U32);
  CHECK(sig.params[3].type == ElemType::U64);
  KernelSignature fewer{"k", {param(8)}};
  CHECK(addSourceSignature(fewer, src, src.find("k("), true)
            .find("declares 4 parameters, the PTX 1") != std::string::npos);
}

TEST_CASE("file(...) buffers: .npy and raw files inside the workspace only") {
  TempDir dir("ks-gpu-test");
  fs::path ws = dir.path() / "ws";
  fs::create_directories(ws / "data");
  auto writeNpy = [](const fs::path& p, const std::string& descr, const std::string& payload) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (4,), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::ofstream out(p, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    out.put(static_cast<char>(header.size()));
    out.put(0);
    out << header << payload;
  };
  std::string payload(16, '\x01');
  writeNpy(ws / "data/x.npy", "<f4", payload);
  writeNpy(ws / "data/d.npy", "<f8", payload);
  std::ofstream(ws / "data/raw.bin", std::ios::binary) << payload;
  std::ofstream(dir.path() / "outside.bin", std::ios::binary) << payload;
  ArgPlan arg;
  arg.buffer = true;
  arg.elem = ElemType::F32;
  arg.count = 4;
  arg.fill.kind = Fill::Kind::File;
  std::string data;
  auto read = [&](const std::string& file) {
    arg.fill.file = file;
    data.clear();
    return readBufferFile(arg, ws, ws, data);
  };
  CHECK(read("data/x.npy") == "");
  CHECK(data == payload);
  CHECK(read("data/raw.bin") == "");
  CHECK(read("data/d.npy").find("holds <f8, the buffer is f32") != std::string::npos);
  CHECK(read("../outside.bin").find("outside the workspace") != std::string::npos);
  CHECK(read((dir.path() / "outside.bin").string()).find("outside the workspace") !=
        std::string::npos);
  CHECK(read("data").find("not a regular file") != std::string::npos);
  fs::create_symlink(dir.path() / "outside.bin", ws / "data/link.bin");
  CHECK(read("data/link.bin").find("outside the workspace") != std::string::npos);
  arg.count = 2;
  CHECK(read("data/raw.bin").find("holds 16 bytes, more than the buffer's 8") != std::string::npos);
}

TEST_CASE("the gpu-exec protocol carries plan, cubin and file data there, results and dumps back") {
  std::vector<SpecError> errors;
  auto plan = resolveSpec(specOf(kSaxpyOk + "; y = f32[n] uniform(-1, 1, seed = 7)"),
                          exampleSignature("saxpy"), errors);
  REQUIRE(plan);
  ExecRequest req;
  req.plan = *plan;
  req.cubin = std::string(
      "\x7f"
      "ELF\0\1\2",
      7);
  req.argData.resize(plan->args.size());
  req.runs = 5;
  std::string wire = encodeRequest(req);
  ExecRequest back;
  REQUIRE(decodeRequest(wire, back) == "");
  CHECK(back.cubin == req.cubin);
  CHECK(back.runs == 5);
  CHECK(back.plan.grid == plan->grid);
  REQUIRE(back.plan.args.size() == 4);
  CHECK(back.plan.args[0].scalar == plan->args[0].scalar);
  CHECK(back.plan.args[3].fill.seed == 7);
  CHECK(fillBuffer(back.plan.args[3], "") == fillBuffer(plan->args[3], ""));
  CHECK(decodeRequest(wire.substr(0, wire.size() - 2), back).find("truncated") !=
        std::string::npos);
  CHECK(decodeRequest("{\"protocol\": 99}\n", back).find("protocol version 99") !=
        std::string::npos);
  CHECK(decodeRequest("garbage", back) != "");

  RunResult r;
  r.ok = true;
  r.device.name = "NVIDIA H200";
  r.timesMs = {1.5, 1.0, 2.0};
  r.blobs = {std::string("\0\0\x80?", 4)};
  r.buffers.push_back({"y", ElemType::F32, "f32", 1, true, 1.0, {1.0}, 0});
  RunResult rb;
  REQUIRE(decodeResult(encodeResult(r), rb) == "");
  CHECK(rb.device.name == "NVIDIA H200");
  // A fractional number where a whole one goes (1e19 as `major`: casting it to an int is
  // undefined) is refused, as a fuzzer found; the fields that are fractional stay so.
  {
    std::string bad = encodeResult(r);
    const size_t at = bad.find("\"major\":0");
    REQUIRE(at != std::string::npos);
    bad.replace(at, 9, "\"major\":1e19");
    RunResult out;
    CHECK(decodeResult(bad, out) == "a fractional number where a whole one goes");
  }
  CHECK(rb.blobs == r.blobs);
  CHECK(rb.buffers[0].output);
  auto t = timeStats(rb.timesMs);
  CHECK(t.min == 1.0);
  CHECK(t.median == 1.5);
  CHECK(t.max == 2.0);
}

TEST_CASE("a result must answer its request: the plan's buffers, sizes, and no terminal escapes") {
  std::vector<SpecError> errors;
  auto plan = resolveSpec(specOf(kSaxpyOk + "; y = f32[n] uniform(-1, 1, seed = 7)"),
                          exampleSignature("saxpy"), errors);
  REQUIRE(plan);
  ExecRequest req;
  req.plan = *plan;
  req.dump = true;
  RunResult good;
  good.ok = true;
  good.device.name = "NVIDIA H200";
  for (const auto& a : plan->args)
    if (a.buffer) {
      good.buffers.push_back(
          {a.name, a.elem, a.typeName, a.count, a.output, 0, {}, int(good.blobs.size())});
      good.blobs.push_back(std::string(a.byteSize(), '\0'));
    }
  REQUIRE(good.buffers.size() == 2);
  RunResult decoded;
  CHECK(decodeResultFor(req, encodeResult(good), decoded) == "");
  CHECK(decoded.buffers[1].name == "y");

  // Each way a runner's output (or a replayed file) could name a file other than the plan's.
  auto problem = [&](auto change) {
    RunResult r = good;
    change(r);
    RunResult out;
    std::string why = decodeResultFor(req, encodeResult(r), out);
    CHECK(out.buffers.empty());  // nothing of a refused result is kept
    return why;
  };
  CHECK(problem([](RunResult& r) {
          r.buffers[1].name = "../../.ssh/authorized_keys";
        }).find("not the plan's y (f32[") != std::string::npos);
  CHECK(problem([](RunResult& r) { r.buffers[1].name = std::string("y\0.npy", 6); }) != "");
  CHECK(problem([](RunResult& r) { r.buffers[0].elem = ElemType::F64; }) != "");
  CHECK(problem([](RunResult& r) { r.buffers[0].count += 1; }) != "");
  CHECK(problem([](RunResult& r) { r.buffers.pop_back(); }).find("lists 1 buffers, the plan 2") !=
        std::string::npos);
  CHECK(problem([](RunResult& r) { r.blobs[1].pop_back(); }).find("bytes, not") !=
        std::string::npos);
  CHECK(problem([](RunResult& r) { r.buffers[1].blob = 0; }).find("same contents") !=
        std::string::npos);
  req.dump = false;
  CHECK(problem([](RunResult&) {}).find("unasked") != std::string::npos);
  req.dump = true;

  // A failed run carries no buffers to check; its text reaches the terminal neutralised.
  RunResult failed = RunResult::failure("launch", "bad\x1b]0;owned\x07 launch\nsecond line");
  failed.device.name = "GPU\x1b[2J";
  RunResult out;
  CHECK(decodeResultFor(req, encodeResult(failed), out) == "");
  CHECK(out.error == "bad?]0;owned? launch\nsecond line");
  CHECK(out.device.name == "GPU?[2J");
  // The wire may hold the plan's buffers and room for the header, no more.
  CHECK(resultSizeLimit(req) >= plan->bufferBytes());
  req.dump = false;
  CHECK(resultSizeLimit(req) < plan->bufferBytes() + (size_t(256) << 20));
}

TEST_CASE("buffer contents: the same values on every machine") {
  // splitmix64, as in launch_bench.cpp and run_device.py (computed independently in Python).
  CHECK(uniformAt(1, 0) == doctest::Approx(0.5665615751722809).epsilon(1e-15));
  CHECK(uniformAt(7, 1000) == doctest::Approx(0.1866177920564055).epsilon(1e-15));
  ArgPlan a;
  a.buffer = true;
  a.elem = ElemType::I32;
  a.count = 5;
  a.fill.kind = Fill::Kind::Iota;
  std::string bytes = fillBuffer(a, "");
  BufferResult b;
  summarize(bytes, a.elem, b);
  CHECK(b.checksum == 10);
  CHECK(b.first == std::vector<double>{0, 1, 2, 3, 4});
  a.elem = ElemType::F64;
  a.fill.kind = Fill::Kind::Constant;
  a.fill.value = 2.5;
  summarize(fillBuffer(a, ""), a.elem, b);
  CHECK(b.checksum == 12.5);
}

namespace {
/// The recorded SASS of an example, with its exact inline chains (as ParserGoldenTest reads it).
Artifact goldenSass(const std::string& name) {
  fs::path dir = test::sourceDir() / "tests/golden" / name;
  Artifact ptx = parsePtx(readWholeFile(dir / "k.ptx"));
  std::string irText = readWholeFile(dir / "k.ll");
  assignExactChains(ptx, irText, "sm_90", 3);
  // As the pipeline does: complete the chains, then decode the ids ptxas was given.
  Artifact ir = parseLlvmIr(irText, nullptr);
  std::string userFile;
  for (const auto& l : ir.lines())
    for (const auto& f : l.location)
      if (fs::path(f.file.str()).filename() == name + ".rs") userFile = f.file;
  LineMap users({userFile});
  recoverInlineChains(ptx, ir, users);
  Artifact sass = parseSass(readWholeFile(dir / "k.sass"));
  decodeSassLineIds(sass, ptx);
  return sass;
}

bool isExample(const std::string& file) { return file.find("/examples/") != std::string::npos; }

std::string dumpProfile(const KernelLineProfile& p) {
  std::ostringstream out;
  out << p.kernel << ": " << p.totalSamples << " samples\n";
  for (const auto& l : p.lines) {
    out << (l.line ? fs::path(l.file).filename().string() + ":" + std::to_string(l.line)
                   : "(no line)")
        << " samples " << l.stallSamples << " instrs " << l.instructions << " executed "
        << l.executed << " threads " << l.threadsActive() << " l2 " << l.l2Sectors << "/"
        << l.l2SectorsIdeal << " conflicts " << l.sharedConflictWays << " top";
    for (const auto& [reason, v] : l.topStalls(3)) out << " " << reason << "=" << v;
    out << "\n";
  }
  return out.str();
}
}  // namespace

TEST_CASE("recorded ncu source counters land on the Rust lines, inline-aware, nothing lost") {
  for (const char* name : {"matmul_naive", "matmul_tiled", "reduce_sum"}) {
    CAPTURE(name);
    NcuSourceProfile source;
    REQUIRE(parseNcuSourceCsv(readWholeFile(test::sourceDir() / "tests/golden/ncu" /
                                            (std::string(name) + "_cubin.csv")),
                              source) == "");
    CHECK(source.kernel == name);
    double total = 0;
    for (const auto& i : source.instructions) total += i.stallSamples;
    std::string problem;
    auto profile = attributeToLines(source, name, goldenSass(name), isExample, problem);
    REQUIRE_MESSAGE(profile, problem);
    CHECK(profile->totalSamples == total);
    double sum = 0;
    size_t instructions = 0;
    for (const auto& l : profile->lines) sum += l.stallSamples, instructions += l.instructions;
    CHECK(sum == total);  // every sample on exactly one line
    CHECK(instructions == source.instructions.size());
    test::checkGolden(
        test::sourceDir() / "tests/golden/ncu" / (std::string(name) + ".lines.expected"),
        dumpProfile(*profile));
  }
  // The hot line of the naive matmul is its inner product (loads from a and b through
  // core::ptr::add, counted on the user's line); its loads of b are coalesced, those of a are not.
  NcuSourceProfile source;
  REQUIRE(parseNcuSourceCsv(
              readWholeFile(test::sourceDir() / "tests/golden/ncu/matmul_naive_cubin.csv"),
              source) == "");
  std::string problem;
  auto naive =
      attributeToLines(source, "matmul_naive", goldenSass("matmul_naive"), isExample, problem);
  REQUIRE(naive);
  const LineCounters* hot = &naive->lines.front();
  for (const auto& l : naive->lines)
    if (l.stallSamples > hot->stallSamples) hot = &l;
  test::Fixture f(test::sourceDir() / "examples/matmul_naive.rs");
  CHECK(hot->line == f.lineOf("sum += *a.add(row * k + e) * *b.add(e * n + col);"));
  CHECK(naive->share(*hot) > 0.8);
}

TEST_CASE("a profile of other code than the listing (the driver's JIT of the PTX) is refused") {
  NcuSourceProfile source;
  REQUIRE(parseNcuSourceCsv(
              readWholeFile(test::sourceDir() / "tests/golden/ncu/matmul_naive_ptx.csv"), source) ==
          "");
  std::string problem;
  CHECK_FALSE(
      attributeToLines(source, "matmul_naive", goldenSass("matmul_naive"), isExample, problem));
  CHECK(problem.find("ncu listed 152 instructions of matmul_naive, kernelscope's SASS has 408") !=
        std::string::npos);
  NcuSourceProfile empty;
  CHECK(parseNcuSourceCsv("==PROF== Disconnected\n", empty).find("no source table") !=
        std::string::npos);
}

// --- The commands, as a user runs them. Where there is no GPU, `run` must say so; the
// results of real H200 runs (tests/golden/gpu, recorded by tests/bench/gpu/run_device.py)
// are shown with --replay.

namespace {
bool noDriverHere(const ProcessResult& r) {
  return r.err.find("no CUDA driver on this machine") != std::string::npos;
}
}  // namespace

TEST_CASE("kernelscope run without a GPU says so and how to use one elsewhere") {
  test::requireToolchain();
  auto r = test::runKernelscope({"run", "examples/saxpy.rs", "--runs", "3"});
  if (!noDriverHere(r)) {
    MESSAGE("this machine has a CUDA driver: the launch itself is checked");
    CHECK(r.exitCode == 0);
    CHECK(r.out.find("saxpy on ") != std::string::npos);
    return;
  }
  CHECK(r.exitCode == 1);
  CHECK(r.err.find("set a runner to use a GPU elsewhere") != std::string::npos);
  // The same through a runner prefix: the request goes through `env` to a second process.
  auto viaRunner = test::runKernelscope(
      {"run", "examples/saxpy.rs", "--runner", "env KS_TEST=1", "--remote-kernelscope", KS_BINARY});
  CHECK(viaRunner.exitCode == 1);
  CHECK(noDriverHere(viaRunner));
  auto badRunner =
      test::runKernelscope({"run", "examples/saxpy.rs", "--runner", "no-such-runner-program"});
  CHECK(badRunner.exitCode == 1);
  CHECK(badRunner.err.find("cannot start gpu-exec through the runner 'no-such-runner-program'") !=
        std::string::npos);
}

TEST_CASE("run and profile read --runner and --ncu as the settings gpuRunner and ncu are read") {
  // The options table's words for a missing value, the runner's own for one it cannot split.
  auto noNcu = test::runKernelscope({"profile", "examples/saxpy.rs", "--ncu"});
  CHECK(noNcu.exitCode == 2);
  CHECK(noNcu.err.find("kernelscope profile: --ncu needs a path") != std::string::npos);
  auto noRunner = test::runKernelscope({"run", "examples/saxpy.rs", "--runner"});
  CHECK(noRunner.exitCode == 2);
  CHECK(noRunner.err.find("--runner needs a command prefix such as \"ssh gpu-box\"") !=
        std::string::npos);
  auto unbalanced = test::runKernelscope({"run", "examples/saxpy.rs", "--runner", "ssh 'gpu"});
  CHECK(unbalanced.exitCode == 2);
  CHECK(unbalanced.err.find("kernelscope run: ") != std::string::npos);
  // run has no --ncu: an unknown option there.
  CHECK(test::runKernelscope({"run", "examples/saxpy.rs", "--ncu", "x"}).exitCode == 2);
}

TEST_CASE("kernelscope run: spec errors from the command line, and a request that is not one") {
  test::requireToolchain();
  auto r = test::runKernelscope({"run", "examples/saxpy.rs", "--spec", "x = f64[n] zeros"});
  CHECK(r.exitCode == 1);
  CHECK(r.err.find("--spec: 'x' points to f32, the spec gives f64") != std::string::npos);
  auto several = test::runKernelscope({"run", "tests/fixtures/atomics.rs"});
  CHECK(several.exitCode != 0);
  CHECK_FALSE(several.err.empty());

  ProcessSpec p;
  p.argv = {KS_BINARY, "gpu-exec"};
  p.stdinText = "not a request";
  ProcessResult exec = runProcess(p);
  CHECK(exec.exitCode == 0);
  RunResult result;
  REQUIRE(decodeResult(exec.out, result) == "");
  CHECK_FALSE(result.ok);
  CHECK(result.errorKind == "request");
}

TEST_CASE("run --dump writes only the plan's buffers, whatever a replayed result names") {
  test::requireToolchain();
  TempDir dir("kernelscope-dump-test");
  // The recorded saxpy result with its output buffer renamed to a path outside the folder.
  std::string message = readWholeFile(test::sourceDir() / "tests/golden/gpu/saxpy.run.result");
  const std::string renamed = "\"name\": \"../escaped\"";
  message.replace(message.find("\"name\": \"y\""), 11, renamed);
  std::ofstream(dir.path() / "hostile.result", std::ios::binary) << message;
  const std::string hostile = (dir.path() / "hostile.result").string();
  auto r = test::runKernelscope({"run", "examples/saxpy.rs", "--replay", hostile});
  CHECK(r.exitCode == 1);
  CHECK(r.err.find("a result that does not answer this request: buffer 2 of the result is not "
                   "the plan's y") != std::string::npos);
  auto dumped = test::runKernelscope(
      {"run", "examples/saxpy.rs", "--replay", hostile, "--dump", (dir.path() / "out").string()});
  CHECK(dumped.exitCode == 1);
  CHECK(dumped.err.find("does not answer this request") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "escaped.npy"));
  // A FIFO as the replayed file is refused at once, not read forever.
  REQUIRE(::mkfifo((dir.path() / "fifo").c_str(), 0600) == 0);
  auto fifo = test::runKernelscope(
      {"run", "examples/saxpy.rs", "--replay", (dir.path() / "fifo").string()});
  CHECK(fifo.exitCode == 1);
  CHECK(fifo.err.find("FIFO") != std::string::npos);
}

TEST_CASE("real H200 results: run, a faulting launch, and the naive vs tiled matmul profiles") {
  test::requireToolchain();
  auto run = test::runKernelscope(
      {"run", "examples/saxpy.rs", "--replay", "tests/golden/gpu/saxpy.run.result"});
  REQUIRE(run.exitCode == 0);
  CHECK(run.out.find("saxpy on NVIDIA H200 (sm_90, 132 SMs)") != std::string::npos);
  CHECK(run.out.find("us median (min") != std::string::npos);
  CHECK(run.out.find("% of 4.81 TB/s peak") != std::string::npos);
  CHECK(run.out.find("y         f32[16777216]     output") != std::string::npos);

  auto fault = test::runKernelscope({"run", "examples/saxpy.rs", "--replay",
                                     "tests/golden/gpu/saxpy_out_of_bounds.fault.result"});
  CHECK(fault.exitCode == 1);
  CHECK(
      fault.err.find("kernel saxpy (grid (1048576, 1, 1), block (256, 1, 1)) failed while running: "
                     "CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos);

  for (const char* name : {"matmul_naive", "matmul_tiled"}) {
    CAPTURE(name);
    std::string file = std::string("examples/") + name + ".rs";
    std::string recorded = std::string("tests/golden/gpu/") + name + ".profile.result";
    auto text = test::runKernelscope({"profile", file, "--replay", recorded});
    REQUIRE_MESSAGE(text.exitCode == 0, text.err);
    test::checkGolden(
        test::sourceDir() / "tests/golden/gpu" / (std::string(name) + ".profile.expected"),
        text.out);
    auto j = test::runKernelscope({"profile", file, "--replay", recorded, "--json"});
    REQUIRE(j.exitCode == 0);
    auto doc = nlohmann::json::parse(j.out);
    double sum = 0;
    for (const auto& l : doc["lines"]) sum += l["stallSamples"].get<double>();
    CHECK(sum == doc["kernel"]["stallSamples"].get<double>());  // nothing lost or counted twice
    CHECK(doc["kernel"]["durationNs"].get<double>() > 0);
    CHECK(doc["kernel"]["achievedOccupancyPct"].get<double>() > 50);
  }
}

TEST_CASE("compare --run and --profile: the Rust kernel and its CUDA C++ twin, real H200 results") {
  test::requireToolchain();
  auto run = test::runKernelscope({"compare", "examples/saxpy.rs", "examples/cuda/saxpy.cu",
                                   "--run", "--replay", "tests/golden/gpu/saxpy.run.result",
                                   "--replay", "tests/golden/gpu/saxpy_cuda.run.result"});
  REQUIRE_MESSAGE(run.exitCode == 0, run.err);
  CHECK(run.out.find("saxpy: Rust (examples/saxpy.rs) and CUDA C++ (examples/cuda/saxpy.cu)") !=
        std::string::npos);
  CHECK(run.out.find("time (median)") != std::string::npos);
  CHECK(run.out.find("y checksum") != std::string::npos);
  auto profile =
      test::runKernelscope({"compare", "examples/matmul_naive.rs", "examples/cuda/matmul_naive.cu",
                            "--profile", "--replay", "tests/golden/gpu/matmul_naive.profile.result",
                            "--replay", "tests/golden/gpu/matmul_naive_cuda.profile.result"});
  REQUIRE_MESSAGE(profile.exitCode == 0, profile.err);
  CHECK(profile.out.find("hottest lines (stalls)  line 32 97.7%") != std::string::npos);
  CHECK(profile.out.find("achieved occupancy") != std::string::npos);
}

TEST_CASE("run --sweep: each configuration of real H200 runs, time against predicted occupancy") {
  test::requireToolchain();
  // The fake GPU runner answers each configuration with the result recorded for its launch.
  const std::string fake = "tests/gpu/fake/fake-gpu-runner.py --mode run tests/golden/gpu/sweep/";
  auto saxpy = test::runKernelscope(
      {"run", "examples/saxpy.rs", "--sweep", "block=64,128,256,512,1024", "--spec",
       "grid = ceil(n / block)", "--runner", fake + "saxpy.block{block}.run.result", "--json"});
  REQUIRE_MESSAGE(saxpy.exitCode == 0, saxpy.err);
  auto doc = nlohmann::json::parse(saxpy.out);
  REQUIRE(doc["configurations"].size() == 5);
  CHECK(doc["device"] == "NVIDIA H200 (sm_90, 132 SMs), driver 13.0");
  CHECK(doc["configurations"][0]["grid"][0] == 262144);  // the grid follows the block
  CHECK(doc["configurations"][4]["grid"][0] == 16384);
  CHECK(doc["configurations"][0]["predictedOccupancy"]["blocksPerSm"] == 32);
  CHECK(doc["configurations"][4]["predictedOccupancy"]["blocksPerSm"] == 2);
  CHECK(doc["best"] == 2);  // 256 threads: 65.7 us, against 164 us at 64
  CHECK(doc["reference"] == 2);
  CHECK(doc["referenceIsOwnSpec"] == true);  // saxpy's own spec has block = 256
  CHECK(doc["outputsEqual"] == true);

  // reduce_sum's shared buffer and tree are sized by its BLOCK constant: another block gives
  // another sum (or faults), and the faster wrong configuration is not named the best.
  auto reduce =
      test::runKernelscope({"run", "examples/reduce_sum.rs", "--sweep", "block=128,256,512",
                            "--runner", fake + "reduce_sum.grid{grid}.block{block}.run.result"});
  REQUIRE_MESSAGE(reduce.exitCode == 0, reduce.err);
  CHECK(reduce.out.find("fastest: block = 256 (33.58 us median)") != std::string::npos);
  CHECK(reduce.out.find("outputs differ from block = 256, the kernel's own spec: out at block = "
                        "128") != std::string::npos);
  CHECK(reduce.out.find("did not run: kernel reduce_sum (grid (1024, 1, 1), block (512, 1, 1)) "
                        "failed while running: CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos);

  // Two axes: the cartesian product, the last fastest; a value that is not the kernel's type
  // is that configuration's error, not the sweep's.
  auto both = test::runKernelscope(
      {"run", "examples/reduce_sum.rs", "--sweep", "grid=132,1024", "--sweep", "n=1 << 24,x",
       "--runner", fake + "reduce_sum.grid{grid}.block{block}.run.result", "--json"});
  REQUIRE_MESSAGE(both.exitCode == 0, both.err);
  auto two = nlohmann::json::parse(both.out);
  REQUIRE(two["configurations"].size() == 4);
  CHECK(two["configurations"][1]["label"] == "grid = 132, n = x");
  CHECK(two["configurations"][1]["error"].get<std::string>().find("'x'") != std::string::npos);
  CHECK(two["configurations"][2]["label"] == "grid = 1024, n = 1 << 24");
  CHECK(two["best"] == 2);
  CHECK(two["outputsEqual"] == true);  // sums of the same numbers in another order

  auto bad = test::runKernelscope({"run", "examples/saxpy.rs", "--sweep", "block"});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("--sweep takes NAME=V1,V2,...") != std::string::npos);
  auto replayed = test::runKernelscope({"run", "examples/saxpy.rs", "--sweep", "block=64",
                                        "--replay", "tests/golden/gpu/saxpy.run.result"});
  CHECK(replayed.exitCode == 2);
}

TEST_CASE("several kernels of a file: each profiled or run, --jobs at once, in one report") {
  test::requireToolchain();
  // The fake GPU runner answers each kernel's request with the H200 result recorded for it.
  const std::string fake = "tests/gpu/fake/fake-gpu-runner.py --mode ";
  const std::string file = "tests/fixtures/gpu/two_matmuls.rs";
  auto all =
      test::runKernelscope({"profile", file, "--all-kernels", "--jobs", "2", "--json", "--runner",
                            fake + "profile tests/golden/gpu/{kernel}.profile.result"});
  REQUIRE_MESSAGE(all.exitCode == 0, all.err);
  auto docs = nlohmann::json::parse(all.out);
  REQUIRE(docs.size() == 2);
  std::set<std::string> kernels;
  for (const auto& doc : docs) {
    kernels.insert(doc["kernel"]["name"].get<std::string>());
    double sum = 0;
    for (const auto& l : doc["lines"]) sum += l["stallSamples"].get<double>();
    CHECK(sum == doc["kernel"]["stallSamples"].get<double>());
  }
  CHECK(kernels == std::set<std::string>{"matmul_naive", "matmul_tiled"});

  // As text, each kernel's table; the naive kernel's hot line is its own inner loop's.
  auto text =
      test::runKernelscope({"profile", file, "--kernel", "matmul_tiled", "--kernel", "matmul_naive",
                            "--runner", fake + "profile tests/golden/gpu/{kernel}.profile.result"});
  REQUIRE_MESSAGE(text.exitCode == 0, text.err);
  CHECK(text.out.find("matmul_naive on NVIDIA H200") != std::string::npos);
  CHECK(text.out.find("matmul_tiled on NVIDIA H200") != std::string::npos);
  CHECK(text.out.find("sum += *a.add(row * k + e) * *b.add(e * n + col);") != std::string::npos);

  auto runs = test::runKernelscope({"run", file, "--all-kernels", "--jobs", "2", "--runner",
                                    fake + "run tests/golden/gpu/{kernel}.run.result"});
  REQUIRE_MESSAGE(runs.exitCode == 0, runs.err);
  CHECK(runs.out.find("matmul_naive on NVIDIA H200") != std::string::npos);
  CHECK(runs.out.find("matmul_tiled on NVIDIA H200") != std::string::npos);

  // One kernel that fails fails the command, the others still shown.
  auto oneFails =
      test::runKernelscope({"run", file, "--kernel", "matmul_naive", "--kernel", "no_such_kernel",
                            "--runner", fake + "run tests/golden/gpu/{kernel}.run.result"});
  CHECK(oneFails.exitCode == 1);
  CHECK(oneFails.out.find("matmul_naive on NVIDIA H200") != std::string::npos);
  CHECK(oneFails.err.find("no_such_kernel did not run") != std::string::npos);

  auto none = test::runKernelscope({"profile", "tests/fixtures/atomics.rs", "--all-kernels"});
  CHECK(none.exitCode == 1);
  CHECK(none.err.find("has no kernel with a launch spec") != std::string::npos);
  auto sweep = test::runKernelscope({"run", file, "--all-kernels", "--sweep", "block=64,128"});
  CHECK(sweep.exitCode == 2);
  CHECK(sweep.err.find("take one --kernel") != std::string::npos);
}

TEST_CASE("profile --baseline: per-line changes through an edit that fixes an uncoalesced access") {
  test::requireToolchain();
  // The H200's profiles of tests/fixtures/gpu/coalesce: before.rs numbers the matrix down the
  // columns, after.rs along the rows; the edit also drops a comment line, so every line below
  // it moved up by one and must still be matched with its old self.
  TempDir dir("kernelscope-baseline-test");
  const fs::path file = dir.path() / "scale.rs";
  const fs::path fixtures = test::sourceDir() / "tests/fixtures/gpu/coalesce";
  fs::copy_file(fixtures / "before.rs", file);
  auto first = test::runKernelscope({"profile", file.string(), "--replay",
                                     "tests/golden/gpu/scale_matrix_before.profile.result"});
  REQUIRE_MESSAGE(first.exitCode == 0, first.err);
  auto saved =
      test::runKernelscope({"profile", file.string(), "--replay",
                            "tests/golden/gpu/scale_matrix_before.profile.result", "--json"});
  REQUIRE(saved.exitCode == 0);
  std::ofstream(dir.path() / "before.json") << saved.out;

  fs::copy_file(fixtures / "after.rs", file, fs::copy_options::overwrite_existing);
  auto last = test::runKernelscope({"profile", file.string(), "--replay",
                                    "tests/golden/gpu/scale_matrix_after.profile.result",
                                    "--baseline", "last", "--json"});
  REQUIRE_MESSAGE(last.exitCode == 0, last.err);
  auto doc = nlohmann::json::parse(last.out);
  REQUIRE(doc.contains("baseline"));
  std::map<uint32_t, nlohmann::json> byLine;
  for (const auto& d : doc["baseline"]) byLine[d["line"].get<uint32_t>()] = d;
  // The load and store: line 19 before, 18 after; 8x fewer L2 sectors, 75% fewer stalls.
  REQUIRE(byLine.count(18));
  CHECK(byLine[18]["beforeLine"] == 19);
  CHECK(byLine[18]["before"]["l2Sectors"].get<double>() ==
        doctest::Approx(8 * byLine[18]["after"]["l2Sectors"].get<double>()).epsilon(0.01));
  CHECK(byLine[18]["hint"] == "\u221275% stalls since last profile");
  // The edited line has no history; the old one is reported removed (line 0).
  CHECK(byLine[16]["beforeLine"].is_null());
  CHECK(byLine[16]["hint"] == "new since last profile");
  CHECK(byLine.count(0) == 1);
  CHECK(byLine[0]["beforeLine"] == 17);

  // A saved profile (--json's output) as the baseline gives the same changes.
  auto fromFile = test::runKernelscope({"profile", file.string(), "--replay",
                                        "tests/golden/gpu/scale_matrix_after.profile.result",
                                        "--baseline", (dir.path() / "before.json").string()});
  REQUIRE_MESSAGE(fromFile.exitCode == 0, fromFile.err);
  CHECK(fromFile.out.find("since the baseline (lines matched through the edit)") !=
        std::string::npos);
  CHECK(fromFile.out.find("\u221275% stalls since baseline") != std::string::npos);
  auto missing = test::runKernelscope({"profile", file.string(), "--replay",
                                       "tests/golden/gpu/scale_matrix_after.profile.result",
                                       "--baseline", (dir.path() / "nothing.json").string()});
  CHECK(missing.exitCode == 1);
  CHECK(missing.err.find("--baseline: ") != std::string::npos);
}

TEST_CASE("the GPU service keeps every profile and compares the next with the kept one") {
  test::requireToolchain();
  // As the language server asks (an optional "last", the editor's unsaved text): the H200's
  // profiles of tests/fixtures/gpu/coalesce before and after its fix, in a file of its own
  // so that nothing is kept for it yet.
  TempDir dir("kernelscope-keep-test");
  const fs::path file = dir.path() / "scale.rs";
  const fs::path fixtures = test::sourceDir() / "tests/fixtures/gpu/coalesce";
  fs::copy_file(fixtures / "before.rs", file);
  Engine engine({test::toolchain().rustc.path.string(), {}, test::toolchain().cacheDir.string()});
  GpuRequest req;
  req.profile = true;
  req.input = {file, std::nullopt, {}};
  req.replay = test::sourceDir() / "tests/golden/gpu/scale_matrix_before.profile.result";
  req.baseline = "last";
  req.baselineOptional = true;
  GpuOutcome first = runOnGpu(engine, req);
  REQUIRE_MESSAGE(first.ok(), first.message());
  CHECK(first.baselineProblem.empty());  // none kept yet, and none needed
  CHECK(!first.deltas);
  CHECK(first.since.empty());
  REQUIRE(first.snapshot);
  CHECK(first.snapshot->spec.find("rows = 4096; ") != std::string::npos);
  const fs::path kept = keptProfilePath(engine.toolchain().cacheDir, *first.snapshot);
  CHECK(fs::is_regular_file(kept));

  // The edit, not saved: the snapshot is of the text profiled, the lines matched through it.
  std::ifstream in(fixtures / "after.rs");
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  req.input.text = after;
  req.replay = test::sourceDir() / "tests/golden/gpu/scale_matrix_after.profile.result";
  req.baselineOptional = false;
  GpuOutcome second = runOnGpu(engine, req);
  REQUIRE_MESSAGE(second.ok(), second.message());
  CHECK(second.baselineProblem.empty());
  CHECK(second.since == "last profile");
  REQUIRE(second.deltas);
  CHECK(second.snapshot->source == after);
  const LineDelta* store = nullptr;
  for (const auto& d : *second.deltas)
    if (d.line == 18) store = &d;
  REQUIRE(store);
  CHECK(store->beforeLine == 19u);
  CHECK(store->hint(second.since) == "\u221275% stalls since last profile");
  // The second is kept in its place: compared with itself, nothing changed.
  GpuOutcome third = runOnGpu(engine, req);
  REQUIRE(third.deltas);
  for (const auto& d : *third.deltas) CHECK(d.stallChange().value_or(0) == 0);

  // A baseline asked for that is not there is a problem the caller reports; the profile is
  // still kept.
  req.baseline = (dir.path() / "nothing.json").string();
  GpuOutcome missing = runOnGpu(engine, req);
  CHECK(missing.ok());
  CHECK(missing.baselineProblem.find("nothing.json: ") != std::string::npos);
  CHECK(!missing.deltas);
}
