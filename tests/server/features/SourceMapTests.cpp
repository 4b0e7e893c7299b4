// kernelscope/lineMap and kernelscope/sourceLocation on recorded compiles of the examples
// (Recorded.h): what a source line became in every stage, and where a generated line came
// from with its inline chain, table by table.
#include <doctest/doctest.h>

#include "Recorded.h"

namespace ks::test {

namespace {

std::string fileName(const std::string& uriOrPath) {
  return uriOrPath.substr(uriOrPath.rfind('/') + 1);
}

/// Per stage, the count and the trimmed text of each line the source line became (`inlined:`
/// before the lines inlined through a call on it).
std::string lineMapText(const server::Snapshot& s, const lsp::LineMapResult& map) {
  std::string out;
  for (Stage stage : kAllStages) {
    const std::string name(stageName(stage));
    auto direct = map.stages.find(name), inlined = map.inlined.find(name);
    if (direct == map.stages.end() && inlined == map.inlined.end()) continue;
    auto count = map.counts.find(name);
    out += name + " (" + std::to_string(count == map.counts.end() ? 0 : count->second) + ")\n";
    const Artifact& artifact = *s.result->stage(stage)->artifact;
    auto lines = [&](const std::vector<lsp::LineRange>& ranges, const char* mark) {
      for (const lsp::LineRange& r : ranges)
        for (int l = r.start; l <= r.end; ++l)
          out += std::string("  ") + mark + std::string(text::trim(artifact.lineText(l))) + "\n";
    };
    if (direct != map.stages.end()) lines(direct->second, "");
    if (inlined != map.inlined.end()) lines(inlined->second, "inlined: ");
  }
  return portable(out);
}

/// `file:line:character`, then the inline chain a frame a line.
std::string sourceLocationText(const lsp::SourceLocationResult& r) {
  if (!r.location) return "(none)";
  std::string out = fileName(r.location->uri) + ":" + std::to_string(r.location->range.start.line) +
                    ":" + std::to_string(r.location->range.start.character) + "\n";
  for (const lsp::InlineFrame& f : r.inlineChain)
    out += "  " + f.function + " at " + fileName(f.uri) + ":" + std::to_string(f.line) + ":" +
           std::to_string(f.character) + "\n";
  return out;
}

}  // namespace

TEST_CASE("the line map of a source line of a recorded kernel, stage by stage") {
  const SourceRow rows[] = {
      {"examples/saxpy.rs", "$0*y.add(i) = a * *x.add(i) + *y.add(i);", EXPECT(R"~(
mir (14)
  StorageLive(_12);                // scope 2 at ${SRC}/examples/saxpy.rs:12:21: 12:34
  StorageLive(_13);                // scope 2 at ${SRC}/examples/saxpy.rs:12:25: 12:34
  StorageLive(_14);                // scope 2 at ${SRC}/examples/saxpy.rs:12:26: 12:34
  _14 = Offset(copy _3, copy _11); // scope 6 at ${SYSROOT}/lib/rustlib/src/rust/library/core/src/ptr/const_ptr.rs:863:18: 863:49
  _13 = copy (*_14);               // scope 2 at ${SRC}/examples/saxpy.rs:12:25: 12:34
  _12 = Mul(copy _2, move _13);    // scope 2 at ${SRC}/examples/saxpy.rs:12:21: 12:34
  StorageDead(_13);                // scope 2 at ${SRC}/examples/saxpy.rs:12:33: 12:34
  StorageLive(_15);                // scope 2 at ${SRC}/examples/saxpy.rs:12:37: 12:46
  _16 = Offset(copy _4, copy _11); // scope 7 at ${SYSROOT}/lib/rustlib/src/rust/library/core/src/ptr/mut_ptr.rs:961:18: 961:49
  _15 = copy (*_16);               // scope 2 at ${SRC}/examples/saxpy.rs:12:37: 12:46
  (*_16) = Add(move _12, move _15); // scope 2 at ${SRC}/examples/saxpy.rs:12:9: 12:46
  StorageDead(_15);                // scope 2 at ${SRC}/examples/saxpy.rs:12:45: 12:46
  StorageDead(_12);                // scope 2 at ${SRC}/examples/saxpy.rs:12:45: 12:46
  StorageDead(_14);                // scope 2 at ${SRC}/examples/saxpy.rs:12:46: 12:47
llvm-ir (7)
  %_14 = getelementptr inbounds nuw float, ptr %x, i64 %i1, !dbg !30
  %_13 = load float, ptr %_14, align 4, !dbg !38, !noundef !10
  %_12 = fmul float %a, %_13, !dbg !39
  %_16 = getelementptr inbounds nuw float, ptr %y, i64 %i1, !dbg !40
  %_15 = load float, ptr %_16, align 4, !dbg !46, !noundef !10
  %0 = fadd float %_12, %_15, !dbg !47
  store float %0, ptr %_16, align 4, !dbg !47
ptx (8)
  mul.wide.u32 	%rd5, %r1, 4;
  add.s64 	%rd6, %rd1, %rd5;
  ld.global.b32 	%r7, [%rd6];
  mul.rn.f32 	%r8, %r2, %r7;
  add.s64 	%rd7, %rd2, %rd5;
  ld.global.b32 	%r9, [%rd7];
  add.rn.f32 	%r10, %r8, %r9;
  st.global.b32 	[%rd7], %r10;
sass (11)
  /*0080*/                   LDC.64 R2, c[0x0][0x218] ;
  /*0090*/                   ULDC.64 UR4, c[0x0][0x208] ;
  /*00a0*/                   ULDC UR6, c[0x0][0x214] ;
  /*00b0*/                   LDC.64 R4, c[0x0][0x220] ;
  /*00c0*/                   IMAD.WIDE.U32 R2, R7, 0x4, R2 ;
  /*00d0*/                   LDG.E R2, [R2.64] ;
  /*00e0*/                   IMAD.WIDE.U32 R4, R7, 0x4, R4 ;
  /*00f0*/                   LDG.E R7, [R4.64] ;
  /*0100*/                   FMUL R0, R2, UR6 ;
  /*0110*/                   FADD R7, R0, R7 ;
  /*0120*/                   STG.E [R4.64], R7 ;
)~")},
      {"examples/saxpy.rs", "$0use core::arch::nvptx;", EXPECT(R"~(
mir (0)
llvm-ir (0)
ptx (0)
sass (0)
)~")},
      {"examples/elementwise_mul.rs", "$0let (start, stride) = grid_stride();", EXPECT(R"~(
mir (5)
  StorageLive(_7);                 // scope 3 at ${SRC}/examples/elementwise_mul.rs:21:27: 21:40
  _7 = grid_stride() -> [return: bb1, unwind unreachable]; // scope 3 at ${SRC}/examples/elementwise_mul.rs:21:27: 21:40
  _5 = copy (_7.0: usize);         // scope 3 at ${SRC}/examples/elementwise_mul.rs:21:10: 21:15
  _6 = copy (_7.1: usize);         // scope 3 at ${SRC}/examples/elementwise_mul.rs:21:17: 21:23
  StorageDead(_7);                 // scope 3 at ${SRC}/examples/elementwise_mul.rs:21:40: 21:41
llvm-ir (0)
  inlined: %_4.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13
  inlined: %_5.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !25
  inlined: %_3.i = mul i32 %_4.i, %_5.i, !dbg !28
  inlined: %_6.i = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !29
  inlined: %_2.i = add i32 %_3.i, %_6.i, !dbg !32
  inlined: %start1.i = zext i32 %_2.i to i64, !dbg !32
  inlined: %_9.i = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x(), !dbg !33
  inlined: %_8.i = mul i32 %_9.i, %_5.i, !dbg !37
  inlined: %stride.i = zext i32 %_8.i to i64, !dbg !37
ptx (0)
  inlined: mov.u32 	%r1, %ctaid.x;
  inlined: mov.u32 	%r2, %ntid.x;
  inlined: mov.u32 	%r3, %tid.x;
  inlined: mad.lo.s32 	%r4, %r1, %r2, %r3;
  inlined: cvt.u64.u32 	%rd14, %r4;
sass (0)
  inlined: /*0010*/                   S2UR UR4, SR_CTAID.X ;
  inlined: /*0020*/                   LDC R2, c[0x0][RZ] ;
  inlined: /*0050*/                   S2R R3, SR_TID.X ;
  inlined: /*0060*/                   IMAD R0, R2, UR4, R3 ;
  inlined: /*00b0*/                   IMAD.MOV.U32 R15, RZ, RZ, R0 ;
  inlined: /*00c0*/                   IMAD.MOV.U32 R8, RZ, RZ, RZ ;
)~")},
  };
  checkRows(rows, [](const server::Snapshot& s, int line) {
    return lineMapText(s, server::lineMapOf(s, line));
  });
}

TEST_CASE("where a line of a recorded kernel's PTX or SASS came from, with its inline chain") {
  const ArtifactRow rows[] = {
      {"examples/saxpy.rs", Stage::Ptx, "$0mul.rn.f32", EXPECT(R"~(
saxpy.rs:11:20
  saxpy at saxpy.rs:11:20
)~")},
      {"examples/saxpy.rs", Stage::Sass, "$0STG.E", EXPECT(R"~(
saxpy.rs:11:8
  saxpy at saxpy.rs:11:8
)~")},
      {"examples/saxpy.rs", Stage::Ptx, "$0.target", EXPECT(R"~((none))~")},
  };
  const server::UriOf uriOf = [](const std::string& path) { return lsp::pathToFileUri(path); };
  checkRows(rows, [&](const server::Snapshot& s, Stage stage, int line) {
    return sourceLocationText(server::sourceLocationOf(s, stage, line, uriOf));
  });
}

}  // namespace ks::test
