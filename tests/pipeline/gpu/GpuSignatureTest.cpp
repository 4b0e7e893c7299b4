// Kernel signatures as Rust kernels write them: parameters from real compiles' PTX (structs
// and arrays by value, every scalar), laid out as repr(C) and checked against the PTX; launch
// specs with Rust names for them; the skeleton of a kernel without a spec; gpu-exec refusing
// what would crash or hang it.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "Cubin.h"
#include "GpuExecProtocol.h"
#include "KernelLaunch.h"
#include "LaunchSpec.h"
#include "Parsers.h"
#include "Process.h"
#include "SpecSkeleton.h"
#include "TestSupport.h"

using namespace ks;
using namespace ks::gpu;
namespace fs = std::filesystem;

namespace {

const CompileResult& fixture(const std::string& name) {
  return test::compiled(test::sourceDir() / "tests/fixtures/gpu" / name);
}

/// `kernel`'s signature in a fixture, which must be read from the source without a note.
KernelSignature signatureOf(const std::string& file, const std::string& kernel) {
  std::string note;
  auto sig = kernelSignature(fixture(file), kernel, {}, note);
  REQUIRE(sig);
  CHECK(note == "");
  return *sig;
}

/// The spec written above `kernel` in a fixture, resolved; FAILs with the errors if it is not.
LaunchPlan writtenPlan(const std::string& file, const std::string& kernel) {
  std::vector<SpecError> errors;
  LaunchSpec spec = writtenSpec(test::toolchain(), fixture(file), kernel, errors);
  auto plan = resolveSpec(spec, signatureOf(file, kernel), errors);
  for (const auto& e : errors) INFO(e.describe());
  REQUIRE(errors.empty());
  REQUIRE(plan);
  return *plan;
}

/// The errors of resolving `items` against `kernel` of a fixture, one per line.
std::string errorsOf(const std::string& file, const std::string& kernel, const std::string& items) {
  LaunchSpec spec;
  std::vector<SpecError> errors;
  parseSpecItems(items, "--spec", 0, spec, errors);
  CHECK_FALSE(resolveSpec(spec, signatureOf(file, kernel), errors));
  std::string all;
  for (const auto& e : errors) all += e.describe() + "\n";
  return all;
}

template <class T>
T at(const std::vector<uint8_t>& bytes, size_t offset) {
  T v;
  REQUIRE(offset + sizeof(T) <= bytes.size());
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

}  // namespace

TEST_CASE("structs and arrays by value are parameters: read from the parsed PTX, laid out") {
  test::requireToolchain();
  KernelSignature sig = signatureOf("params.rs", "poly_eval");
  REQUIRE(sig.params.size() == 3);
  const KernelParam& p = sig.params[0];
  CHECK(p.name == "p");
  CHECK(p.kind == KernelParam::Kind::Aggregate);
  CHECK(p.bytes == 32);  // .param .align 8 .b8 poly_eval_param_0[32]
  CHECK(p.align == 8);
  REQUIRE(p.aggregate);
  CHECK(p.aggregate->describe() ==
        "Params { coeffs: [f32; 4], shift: f64, n: u32, flip: bool } (32 bytes)");
  std::vector<uint64_t> offsets;
  for (const auto& f : p.aggregate->fields) offsets.push_back(f.offset);
  CHECK(offsets == std::vector<uint64_t>{0, 16, 24, 28});
  CHECK(sig.params[1].typeName() == "*const f32");
  CHECK(sig.params[2].typeName() == "*mut f32");

  // Every scalar, an array and a nested struct; narrow scalars as the PTX passes them.
  KernelSignature all = signatureOf("scalars.rs", "scalars");
  std::vector<std::string> types;
  std::vector<unsigned> sizes;
  for (const auto& q : all.params) types.push_back(q.typeName()), sizes.push_back(q.bytes);
  CHECK(types == std::vector<std::string>{"i8", "u8", "i16", "f16", "bool", "u64", "[f32; 4]",
                                          "Outer", "i64", "f64", "*mut f64"});
  CHECK(sizes == std::vector<unsigned>{1, 1, 2, 2, 1, 8, 16, 40, 8, 8, 8});
  REQUIRE(all.params[7].aggregate);
  CHECK(all.params[7].aggregate->align == 8);
  CHECK(all.params[7].aggregate->fields[1].type->fields[1].offset == 8);  // inner.b after padding
}

TEST_CASE("a spec gives a struct with Rust names: the bytes are the kernel's, padding zero") {
  test::requireToolchain();
  LaunchPlan plan = writtenPlan("params.rs", "poly_eval");
  const std::vector<uint8_t>& p = plan.args[0].scalar;
  REQUIRE(p.size() == 32);
  CHECK(at<float>(p, 0) == 0.5f);
  CHECK(at<float>(p, 12) == 2.0f);
  CHECK(at<double>(p, 16) == 0.125);
  CHECK(at<uint32_t>(p, 24) == 1u << 20);
  CHECK(p[28] == 1);
  CHECK((p[29] == 0 && p[30] == 0 && p[31] == 0));  // padding
  CHECK(plan.args[1].count == 1u << 20);            // f32[p.n]: a field of a struct parameter
  CHECK(plan.grid[0] == 4096);

  // A buffer of structs, filled with a struct's value.
  LaunchPlan adv = writtenPlan("params.rs", "advance");
  const ArgPlan& ps = adv.args[0];
  CHECK(ps.elem == ElemType::Record);
  CHECK(ps.typeName == "Particle");
  CHECK(ps.recordBytes == 8);
  CHECK(ps.fill.kind == Fill::Kind::Pattern);
  CHECK(at<float>(ps.fill.pattern, 4) == 2.0f);

  // f16: a scalar passed in the PTX's .b8 [2] and buffers of halves.
  LaunchPlan half = writtenPlan("half.rs", "axpy_f16");
  CHECK(half.args[0].scalar == std::vector<uint8_t>{0x00, 0x38});  // 0.5 as an f16
  CHECK(half.args[1].elem == ElemType::F16);
  CHECK(half.args[1].byteSize() == 2u << 20);

  // The whole layout through the protocol and back.
  ExecRequest request;
  request.plan = adv;
  request.cubin = "x";
  ExecRequest back;
  REQUIRE(decodeRequest(encodeRequest(request), back) == "");
  CHECK(back.plan.args[0].fill.pattern == ps.fill.pattern);
  CHECK(back.plan.args[0].typeName == "Particle");
}

TEST_CASE("spec errors about structs, arrays and scalars name the real parameters and types") {
  test::requireToolchain();
  const std::string ok = "xs = f32[8] zeros; ys = f32[8] zeros; grid = 1; block = 8; ";
  auto errors = [&](const std::string& p) { return errorsOf("params.rs", "poly_eval", ok + p); };
  CHECK(errors("p = 5").find("'p' is Params { coeffs: [f32; 4], shift: f64, n: u32, flip: bool } "
                             "(32 bytes): give it Params { ... }") != std::string::npos);
  CHECK(errors("p = Params { coeffs: [1.0; 4], shift: 0.0, n: 8 }")
            .find("no value for field 'flip: bool' of Params") != std::string::npos);
  CHECK(errors("p = Params { coeffs: [1.0; 4], shift: 0.0, n: 8, flip: false, m: 1 }")
            .find("Params has no field 'm'") != std::string::npos);
  CHECK(errors("p = Params { coeffs: [1.0, 2.0], shift: 0.0, n: 8, flip: false }")
            .find("'p.coeffs' is [f32; 4]: 2 values given") != std::string::npos);
  CHECK(errors("p = Params { coeffs: [1.0; 4], shift: 0.0, n: -1, flip: false }")
            .find("'p.n': the value -1 does not fit the parameter's u32") != std::string::npos);
  CHECK(errors("p = Params { coeffs: [1.0; 4], shift: 0.0, n: 8, flip: 2 }")
            .find("'p.flip': a bool is true or false") != std::string::npos);
  CHECK(errors("p = Other { n: 1 }").find("give it Params { ... }") != std::string::npos);
  CHECK(errors("p = Params { coeffs: [1.0; 4], shift: 0.0, n: 8, flip: false }; q = 1")
            .find("poly_eval takes (p: Params, xs: *const f32, ys: *mut f32)") !=
        std::string::npos);
  CHECK(
      errorsOf("params.rs", "advance", "n = 4; dt = 1; ps = Particle[n] iota; grid = 1; block = 4")
          .find("a buffer of Particle takes zeros, fill(Particle { ... }) or file(\"PATH\")") !=
      std::string::npos);
  CHECK(errorsOf("params.rs", "advance", "n = 4; dt = 1; ps = f32[n] zeros; grid = 1; block = 4")
            .find("'ps' points to Particle, the spec gives f32") != std::string::npos);
}

TEST_CASE("the skeleton of a kernel without a spec is made from its real parameters and resolves") {
  test::requireToolchain();
  struct Case {
    const char* file;
    const char* kernel;
    const char* skeleton;
  };
  const Case cases[] = {
      {"params.rs", "poly_eval",
       "p = Params { coeffs: [1.0; 4], shift: 1.0, n: 1 << 20, flip: true }; xs = f32[p.n] "
       "uniform(-1, 1, seed = 1); ys = f32[p.n] zeros; grid = ceil(p.n / 256); block = 256"},
      {"params.rs", "advance",
       "ps = Particle[n] zeros; n = 1 << 20; dt = 1.0; grid = ceil(n / 256); block = 256"},
      {"half.rs", "axpy_f16",
       "a = 1.0; x = f16[n] uniform(-1, 1, seed = 1); y = f16[n] zeros; n = 1 << 20; "
       "grid = ceil(n / 256); block = 256"},
      {"scalars.rs", "scalars",
       "a = 1; b = 1; c = 1024; d = 1.0; e = true; f = 1 << 20; g = [1.0; 4]; h = Outer { x: "
       "1024, inner: Inner { a: 1, b: 1.0 }, arr: [1.0; 3], flag: true }; i = 1024; j = 1.0; o = "
       "f64[f] zeros; grid = ceil(f / 256); block = 256"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.kernel);
    KernelSignature sig = signatureOf(c.file, c.kernel);
    std::string skeleton = specSkeleton(sig);
    CHECK(skeleton == c.skeleton);
    LaunchSpec spec;
    std::vector<SpecError> errors;
    parseSpecItems(skeleton, "skeleton", 0, spec, errors);
    auto plan = resolveSpec(spec, sig, errors);
    for (const auto& e : errors) INFO(e.describe());
    CHECK(plan);
  }
  // A kernel known from its PTX alone: a literal size, parenthesized (`<<` binds looser).
  KernelSignature bare{"k", {}};
  bare.params.resize(1);
  bare.params[0].name = "param_0";
  bare.params[0].bytes = 8;
  CHECK(specSkeleton(bare) ==
        "param_0 = f32[1 << 20] zeros; grid = ceil((1 << 20) / 256); block = 256");
  // The CLI's message proposes it.
  auto r = test::runKernelscope({"run", "tests/fixtures/gpu/scalars.rs"});
  CHECK(r.exitCode == 1);
  CHECK(r.err.find(std::string("`// kernelscope: ") + cases[3].skeleton + "`") !=
        std::string::npos);
}

TEST_CASE("expressions bind as Rust's, and name fields of struct parameters") {
  std::string err;
  CHECK(evaluateExpression("1 << 20 + 1", err) == 1 << 21);  // + before <<, as in Rust
  CHECK(evaluateExpression("ceil((1 << 20) / 256)", err) == 4096);
  CHECK(evaluateExpression("2 * 3 + 4 << 1", err) == 20);
  CHECK(evaluateExpression("true + false + 1i8 + 2.5f16", err) == 4.5);
  err.clear();
  CHECK_FALSE(evaluateExpression("ceil(1 << 20 / 256)", err));  // 1 << (20 / 256)
  CHECK(err.find("the shift amount is 0.078125, not a whole number: / binds tighter than << and "
                 ">> (as in Rust) and divides exactly: to shift first") != std::string::npos);

  // Where: the shift, and the shift done first for it; a name without a value, at the name.
  ExpressionError e;
  CHECK_FALSE(evaluateExpression("ceil(1 << 20 / 256 ) + 1", nullptr, e));
  CHECK(e.shiftPrecedence);
  CHECK(e.begin == 5);
  CHECK(e.end == 18);
  CHECK(e.rewrite == "(1 << 20) / 256");
  e = {};
  CHECK_FALSE(evaluateExpression("1 << (20 / 256)", nullptr, e));  // no shift to do first
  CHECK_FALSE(e.shiftPrecedence);
  CHECK(e.rewrite.empty());
  e = {};
  CHECK_FALSE(evaluateExpression("2 * m + 1", nullptr, e));
  CHECK_FALSE(e.shiftPrecedence);
  CHECK(e.message == "unknown name 'm'");
  CHECK(e.begin == 4);
  CHECK(e.end == 5);
}

TEST_CASE("spec items know their columns, and errors their kind and place") {
  const std::string source =
      "#[no_mangle] // kernelscope: n = 1 << 20; grid = 1 << 20 / 256; block 256; m = 1\n"
      "pub unsafe extern \"ptx-kernel\" fn k(n: u32) {}\n";
  std::vector<SpecError> errors;
  LaunchSpec spec = specFromComments(source, 2, "k.rs", errors);
  REQUIRE(spec.items.size() == 3);
  CHECK(spec.items[0].keyColumn == 30);  // 1-based, in bytes
  CHECK(spec.items[0].valueColumn == 34);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].kind == SpecErrorKind::Syntax);
  CHECK(source.substr(errors[0].column - 1, errors[0].endColumn - errors[0].column) == "block 256");
  KernelSignature sig;
  sig.name = "k";
  KernelParam n;
  n.name = "n";
  n.bytes = n.align = 4;
  n.kind = KernelParam::Kind::Integer;
  n.type = ElemType::U32;
  sig.params.push_back(n);
  errors.clear();
  CHECK_FALSE(resolveSpec(spec, sig, errors));
  std::map<SpecErrorKind, const SpecError*> byKind;
  for (const auto& err : errors) byKind[err.kind] = &err;
  REQUIRE(byKind.count(SpecErrorKind::UnknownName));
  const SpecError& unknown = *byKind[SpecErrorKind::UnknownName];
  CHECK(unknown.key == "m");
  CHECK(source.substr(unknown.column - 1, unknown.endColumn - unknown.column) == "m");
  REQUIRE(byKind.count(SpecErrorKind::ShiftPrecedence));
  const SpecError& shift = *byKind[SpecErrorKind::ShiftPrecedence];
  CHECK(source.substr(shift.column - 1, shift.endColumn - shift.column) == "1 << 20 / 256");
  CHECK(shift.rewrite == "(1 << 20) / 256");
  REQUIRE(byKind.count(SpecErrorKind::MissingLaunch));
  CHECK(byKind[SpecErrorKind::MissingLaunch]->key == "block");
  CHECK(byKind[SpecErrorKind::MissingLaunch]->column == 0);  // the whole spec
  CHECK(specErrorCode(SpecErrorKind::ShiftPrecedence) == "spec-shift-precedence");
}

TEST_CASE("PTX parameters of every form, and a source layout that disagrees is not used") {
  Artifact ptx = parsePtx(
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(\n"
      "\t.param .align 4 .b8 k_param_0[12],\n"
      "\t.param .u64 .ptr .global .align 4 k_param_1,\n"
      "\t.param .f32 k_param_2, .param .b16 k_param_3\n"
      ")\n{\n\tret;\n}\n");
  REQUIRE(ptx.functions.size() == 1);
  auto params = ptxParams(ptx, ptx.functions[0]);
  REQUIRE(params.size() == 4);
  CHECK((params[0].aggregate && params[0].bytes == 12 && params[0].align == 4));
  CHECK((!params[1].aggregate && params[1].bytes == 8 && params[1].align == 4));
  CHECK((params[2].bytes == 4 && params[3].bytes == 2));
  KernelSignature sig = ptxSignature(ptx, ptx.functions[0]);
  const std::string source =
      "#[repr(C)]\nstruct P { a: f64, b: u32 }\n"
      "pub unsafe extern \"ptx-kernel\" fn k(p: P, x: *mut f32, s: f32, h: f16) {}\n";
  CHECK(
      addSourceSignature(sig, source, source.find("k("), false) ==
      "'p': P is 16 bytes aligned to 8 in the source, the PTX parameter is 12 bytes aligned to 4");
  CHECK(sig.params[0].name == "param_0");  // not taken over
  const std::string notReprC =
      "struct P { a: f32, b: f32, c: f32 }\nfn k(p: P, x: *mut f32, s: "
      "f32, h: f16) {}\n";
  CHECK(addSourceSignature(sig, notReprC, notReprC.find("k("), false).find("P is not #[repr(C)]") !=
        std::string::npos);
  std::string problem;
  CHECK_FALSE(rustType("Loop", "#[repr(C)] struct Loop { a: Loop }", problem));
  CHECK(problem == "struct Loop contains itself");
}

TEST_CASE("half and bfloat16 values round to nearest even, both ways") {
  CHECK(halfFromDouble(1.0) == 0x3c00);
  CHECK(halfFromDouble(-2.5) == 0xc100);
  CHECK(halfFromDouble(65504) == 0x7bff);
  CHECK(halfFromDouble(1e6) == 0x7c00);                    // overflow: infinity
  CHECK(halfFromDouble(5.960464477539063e-08) == 0x0001);  // the smallest subnormal
  CHECK(halfFromDouble(1.0 + 1.0 / 2048) == 0x3c00);       // a tie rounds to even
  for (uint32_t bits = 0; bits < 0x7c00; ++bits)           // every finite positive half round-trips
    if (halfFromDouble(halfToDouble(static_cast<uint16_t>(bits))) != bits) FAIL(bits);
  CHECK(bfloat16FromDouble(1.0) == 0x3f80);
  CHECK(bfloat16ToDouble(0x4049) == 3.140625);
  CHECK(bfloat16FromDouble(3.14159) == 0x4049);
}

TEST_CASE("gpu-exec refuses a truncated cubin, a FIFO and endless input, with a message") {
  test::requireToolchain();
  const CompileResult& r = fixture("half.rs");
  REQUIRE(cubinOf(r, "axpy_f16"));
  const std::string& cubin = *cubinOf(r, "axpy_f16");
  CHECK(checkCubin(cubin) == "");
  CHECK(checkCubin(cubin.substr(0, cubin.size() / 2)).find("the cubin is truncated") == 0);
  CHECK(checkCubin(cubin.substr(0, 40)) == "the cubin is not an ELF file");
  CHECK(checkCubin("not a cubin at all, but long enough to have an ELF header's sixty-four bytes")
            .find("not an ELF file") != std::string::npos);

  // A request whose cubin is cut short, its sizes consistent: refused before the driver.
  ExecRequest request;
  request.plan = writtenPlan("half.rs", "axpy_f16");
  request.cubin = cubin.substr(0, cubin.size() - 100);
  request.argData.resize(request.plan.args.size());
  ProcessSpec p;
  p.argv = {KS_BINARY, "gpu-exec"};
  p.stdinText = encodeRequest(request);
  ProcessResult truncated = runProcess(p);
  CHECK(truncated.exitCode == 0);
  RunResult result;
  REQUIRE(decodeResult(truncated.out, result) == "");
  CHECK(result.errorKind == "load");
  CHECK(result.error.find("the cubin is truncated") == 0);

  // A FIFO as --request: refused at once instead of waiting for a writer.
  TempDir dir("gpu-exec-test");
  fs::path fifo = dir.path() / "fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  ProcessSpec f;
  f.argv = {KS_BINARY, "gpu-exec", "--request", fifo.string()};
  f.timeout = std::chrono::seconds(20);
  ProcessResult viaFifo = runProcess(f);
  CHECK_FALSE(viaFifo.timedOut);
  REQUIRE(decodeResult(viaFifo.out, result) == "");
  CHECK(result.error.find("is not a regular file") != std::string::npos);

  // /dev/zero on stdin: no header in the first 16 MiB, and gpu-exec stops reading there.
  ProcessSpec z;
  z.argv = {"sh", "-c", std::string("exec '") + KS_BINARY + "' gpu-exec < /dev/zero"};
  z.timeout = std::chrono::seconds(60);
  ProcessResult zeros = runProcess(z);
  CHECK_FALSE(zeros.timedOut);
  REQUIRE(decodeResult(zeros.out, result) == "");
  CHECK(result.error.find("no message header in the first 16 MiB") == 0);
}

TEST_CASE("real H200 results: a struct parameter, a buffer of structs and f16, replayed") {
  test::requireToolchain();
  // Recorded by tests/bench/gpu/run_device.py, each output checked there against a CPU
  // reference (tests/golden/gpu/params-device-log.txt: every difference 0).
  auto poly = test::runKernelscope({"run", "tests/fixtures/gpu/params.rs", "--kernel", "poly_eval",
                                    "--replay", "tests/golden/gpu/poly_eval.run.result"});
  REQUIRE_MESSAGE(poly.exitCode == 0, poly.err);
  CHECK(poly.out.find("poly_eval on NVIDIA H200 (sm_90, 132 SMs)") != std::string::npos);
  CHECK(poly.out.find("ys        f32[1048576]      output   sum -743001") != std::string::npos);
  auto adv = test::runKernelscope({"run", "tests/fixtures/gpu/params.rs", "--kernel", "advance",
                                   "--replay", "tests/golden/gpu/advance.run.result", "--json"});
  REQUIRE_MESSAGE(adv.exitCode == 0, adv.err);
  auto doc = nlohmann::json::parse(adv.out);
  CHECK(doc["buffers"][0]["type"] == "Particle");
  CHECK(doc["launch"]["grid"][0] == 512);
  auto half = test::runKernelscope(
      {"run", "tests/fixtures/gpu/half.rs", "--replay", "tests/golden/gpu/axpy_f16.run.result"});
  REQUIRE_MESSAGE(half.exitCode == 0, half.err);
  CHECK(half.out.find("y         f16[1048576]      output   sum 771.9278") != std::string::npos);
  auto profile =
      test::runKernelscope({"profile", "tests/fixtures/gpu/params.rs", "--kernel", "poly_eval",
                            "--replay", "tests/golden/gpu/poly_eval.profile.result", "--json"});
  REQUIRE_MESSAGE(profile.exitCode == 0, profile.err);
  auto lines = nlohmann::json::parse(profile.out)["lines"];
  REQUIRE_FALSE(lines.empty());
  CHECK(lines[0]["text"] ==
        "let y = (c[0] + x * (c[1] + x * (c[2] + x * c[3]))) as f64 + p.shift;");
}
