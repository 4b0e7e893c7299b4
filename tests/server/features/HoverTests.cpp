// Hover, on a source line and on a virtual document's line: through the protocol (a fake
// client over an in-memory transport, a fake compile function), and table by table on
// recorded compiles of the examples (Recorded.h).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>

#include "Features.h"
#include "Recorded.h"
#include "ServerTestSupport.h"
#include "TestClient.h"
#include "Uri.h"

namespace ks::test {

TEST_CASE("hover on a source line and on a virtual document line") {
  TestClient client(TestClient::options());
  std::string uri = client.open(kPath, kSaxpy);
  client.sync();
  json hover = client.result("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                                    {"position", {{"line", 3}, {"character", 5}}}});
  std::string md = hover["contents"]["value"];
  CHECK(md.find("**ptx** · 1 line") != std::string::npos);
  CHECK(md.find("add.s32 \t%r4, %r4, 1;") != std::string::npos);
  CHECK(md.find("**sass** · 2 lines") != std::string::npos);
  CHECK(md.find("inlined from `core::ptr::mut_ptr::add` at mut_ptr.rs:1040:18") !=
        std::string::npos);
  CHECK(client
            .result("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                           {"position", {{"line", 0}, {"character", 0}}}})
            .is_null());

  std::string ptxUri = "kernelscope:/ptx" + kPath + ".ptx";
  json vhover = client.result(
      "textDocument/hover",
      {{"textDocument", {{"uri", ptxUri}}}, {"position", {{"line", 3}, {"character", 0}}}});
  std::string vmd = vhover["contents"]["value"];
  CHECK(vmd.find("from saxpy.rs:4:5") != std::string::npos);
  CHECK(vmd.find("inline chain") != std::string::npos);
}

TEST_CASE("hover on a source line of a recorded kernel: what it became in PTX and SASS") {
  const SourceRow rows[] = {
      {"examples/saxpy.rs", "*y.add(i) = a * $0*x.add(i) + *y.add(i);", EXPECT(R"~(
**ptx** · 8 lines
```ptx
mul.wide.u32 	%rd5, %r1, 4;
add.s64 	%rd6, %rd1, %rd5;
ld.global.b32 	%r7, [%rd6];
mul.rn.f32 	%r8, %r2, %r7;
add.s64 	%rd7, %rd2, %rd5;
ld.global.b32 	%r9, [%rd7];
add.rn.f32 	%r10, %r8, %r9;
st.global.b32 	[%rd7], %r10;
```
- inlined from `<*const f32>::add` at const_ptr.rs:863:18
- inlined from `<*mut f32>::add` at mut_ptr.rs:961:18

**sass** · 11 lines
```sass
/*0080*/ LDC.64 R2, c[0x0][0x218] ;
/*0090*/ ULDC.64 UR4, c[0x0][0x208] ;
/*00a0*/ ULDC UR6, c[0x0][0x214] ;
/*00b0*/ LDC.64 R4, c[0x0][0x220] ;
/*00c0*/ IMAD.WIDE.U32 R2, R7, 0x4, R2 ;
/*00d0*/ LDG.E R2, [R2.64] ;
/*00e0*/ IMAD.WIDE.U32 R4, R7, 0x4, R4 ;
/*00f0*/ LDG.E R7, [R4.64] ;
/*0100*/ FMUL R0, R2, UR6 ;
/*0110*/ FADD R7, R0, R7 ;
/*0120*/ STG.E [R4.64], R7 ;
```
- inlined from `<*const f32>::add` at const_ptr.rs:863:18
- inlined from `<*mut f32>::add` at mut_ptr.rs:961:18
**cost**: peak 6 registers live, 3 uniform; global: 2 loads 1 store (32-bit); global load f32 ×2: coalesced (4 sectors per request); global store f32 ×1: coalesced (4 sectors per request); issue ≥ 32 cycles (stall counts: a lower bound)

*sm_90*
)~")},
      {"examples/saxpy.rs", "$0#![no_std]", EXPECT(R"~((none))~")},
      // A line whose code is an inlined call of the user's own function counts the lines
      // inlined through it, marked so; the inlined body's line keeps its own count.
      {"examples/elementwise_mul.rs", "let (start, stride) = $0grid_stride();", EXPECT(R"~(
**ptx** · 5 lines (inlined)
```ptx
mov.u32 	%r1, %ctaid.x;
mov.u32 	%r2, %ntid.x;
mov.u32 	%r3, %tid.x;
mad.lo.s32 	%r4, %r1, %r2, %r3;
cvt.u64.u32 	%rd14, %r4;
```

**sass** · 6 lines (inlined)
```sass
/*0010*/ S2UR UR4, SR_CTAID.X ;
/*0020*/ LDC R2, c[0x0][RZ] ;
/*0050*/ S2R R3, SR_TID.X ;
/*0060*/ IMAD R0, R2, UR4, R3 ;
/*00b0*/ IMAD.MOV.U32 R15, RZ, RZ, R0 ;
/*00c0*/ IMAD.MOV.U32 R8, RZ, RZ, RZ ;
```
**cost**: peak 4 registers live, 3 uniform; issue ≥ 20 cycles (stall counts: a lower bound)

*sm_90*
)~")},
      {"examples/elementwise_mul.rs", "let start = $0(nvptx::_block_idx_x()", EXPECT(R"~(
**ptx** · 5 lines
```ptx
mov.u32 	%r1, %ctaid.x;
mov.u32 	%r2, %ntid.x;
mov.u32 	%r3, %tid.x;
mad.lo.s32 	%r4, %r1, %r2, %r3;
cvt.u64.u32 	%rd14, %r4;
```
- inlined from `core::core_arch::nvptx::_block_dim_x` at mod.rs:62:5
- inlined from `core::core_arch::nvptx::_block_idx_x` at mod.rs:83:5
- inlined from `core::core_arch::nvptx::_thread_idx_x` at mod.rs:125:5

**sass** · 6 lines
```sass
/*0010*/ S2UR UR4, SR_CTAID.X ;
/*0020*/ LDC R2, c[0x0][RZ] ;
/*0050*/ S2R R3, SR_TID.X ;
/*0060*/ IMAD R0, R2, UR4, R3 ;
/*00b0*/ IMAD.MOV.U32 R15, RZ, RZ, R0 ;
/*00c0*/ IMAD.MOV.U32 R8, RZ, RZ, RZ ;
```
- inlined from `core::core_arch::nvptx::_block_dim_x` at mod.rs:62:5
- inlined from `core::core_arch::nvptx::_block_idx_x` at mod.rs:83:5
- inlined from `core::core_arch::nvptx::_thread_idx_x` at mod.rs:125:5
**cost**: peak 4 registers live, 3 uniform; issue ≥ 20 cycles (stall counts: a lower bound)

*sm_90*
)~")},
  };
  checkRows(rows, [](const server::Snapshot& s, int line) {
    return hoverText(server::sourceHover(s, line, server::Settings{}, shownByDefault(s), true));
  });
}

TEST_CASE("hover on a line of a recorded kernel's PTX or SASS: the source line it came from") {
  const ArtifactRow rows[] = {
      {"examples/saxpy.rs", Stage::Ptx, "$0mul.rn.f32", EXPECT(R"~(
```ptx
mul.rn.f32 	%r8, %r2, %r7;
```
```text
mul.rn.f32 (mul) - floating point
Floating-point multiplication, rounded as the rounding modifier says (an explicit one forbids fusing into an fma).
  .rn   round to nearest, ties to even
  .f32  32-bit IEEE single-precision float
Operands: destination %r8; sources %r2, %r7
Needs PTX ISA 1.0, all targets.
```
from saxpy.rs:12:21
)~")},
      {"examples/saxpy.rs", Stage::Sass, "$0FMUL", EXPECT(R"~(
```sass
/*0100*/ FMUL R0, R2, UR6 ;
```
```text
FMUL - floating point
32-bit float multiply.
Operands: R0, R2, UR6; UR6: a uniform register (one value for the whole warp)
```
from saxpy.rs:12:21
live across it: 6 registers, 0 predicates, 3 uniform
control: S04 - W- R- wait{2}: stall 4 cycles; waits on SB2: the LDG.E at 0x00d0 — line 12
values: R2 from the LDG.E at 0x00d0 — line 12; UR6 from the ULDC at 0x00a0 — line 12; R0 used by the FADD at 0x0110 — line 12
)~")},
      {"examples/saxpy.rs", Stage::Ptx, "$0.version", EXPECT(R"~(
```ptx
.version 7.8
```
```text
.version - directive
The PTX ISA version the module is written in.
Operands: 7.8
```
)~")},
      // The body of an inlined user function: its line, and the call it was inlined through.
      {"examples/elementwise_mul.rs", Stage::Ptx, "$0mov.u32", EXPECT(R"~(
```ptx
mov.u32 	%r1, %ctaid.x;
```
```text
mov.u32 (mov) - data movement and conversion
Copies a value (a register, an immediate, a special register or the address of a variable) into a register; also packs and unpacks vectors.
  .u32  32-bit unsigned integer
Operands: destination %r1; sources %ctaid.x; %ctaid.x (the x component of %ctaid): The block's index within the grid (x, y, z); blockIdx in CUDA, block_idx_* in Rust.
Needs PTX ISA 1.0, all targets.
```
from elementwise_mul.rs:11:18

inline chain (innermost first):
- `core::core_arch::nvptx::_block_idx_x` at mod.rs:83:5
- `elementwise_mul::grid_stride` at elementwise_mul.rs:11:18
- `elementwise_mul` at elementwise_mul.rs:21:27
)~")},
  };
  checkRows(rows, [](const server::Snapshot& s, Stage stage, int line) {
    return hoverText(server::artifactHover(s, stage, line, true));
  });
}

}  // namespace ks::test
