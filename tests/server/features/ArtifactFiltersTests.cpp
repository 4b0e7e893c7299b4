// Filtered views of artifacts, on recorded compiles of the examples (Recorded.h; no toolchain
// needed): each stage's view of a kernel with every filter on and the lines each filter
// hides, table by table, the mapping between view and artifact lines, and linked
// highlighting through the server (on an engine replaying the recording) that stays exact
// with filters on and off.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ArtifactView.h"
#include "Engine.h"
#include "Parsers.h"
#include "RealPipeline.h"
#include "Recorded.h"
#include "TestClient.h"

namespace ks::test {
namespace {

namespace fs = std::filesystem;

lsp::ArtifactFilters allFilters() { return {true, true, true, true, true, true, true}; }

constexpr const char* kElementwiseMul = "examples/elementwise_mul.rs";

/// The artifact of `stage` of a recorded kernel's compile (Recorded.h).
const Artifact& recordedArtifact(const std::string& kernel, Stage stage) {
  const StageOutcome* o = recordedSnapshot(kernel)->result->stage(stage);
  REQUIRE(o);
  REQUIRE(o->available);
  return *o->artifact;
}

std::string_view trimView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

/// Every view line shows the artifact line it says it shows, and back.
void checkMapping(const Artifact& a, const ArtifactView& view, bool compacted) {
  auto lines = splitLines(view.text());
  REQUIRE(lines.size() == view.size());
  for (size_t v = 0; v < lines.size(); ++v) {
    int l = view.artifactLine(static_cast<int>(v));
    REQUIRE(l >= 0);
    CHECK(view.viewLine(l) == static_cast<int>(v));
    // A compacted line (SASS without padding, MIR without its scope span) begins the same.
    if (!compacted)
      CHECK(lines[v] == a.lineText(l));
    else
      CHECK(a.lineText(l).find(trimView(lines[v]).substr(0, 8)) != std::string_view::npos);
  }
}

/// SASS's padding: the NOPs, and the branch to itself that ends a kernel.
bool isPadding(const Artifact& a, uint32_t l) {
  const std::string_view t = a.lineText(l);
  if (t.find("NOP") != t.npos) return true;
  const std::string_view label = l == 0 ? std::string_view() : trimView(a.lineText(l - 1));
  return label.ends_with(':') &&
         t.find("BRA `(" + std::string(label.substr(0, label.size() - 1)) + ")") != t.npos;
}

/// The artifact's lines that `view` leaves out, one a line, or `(none)`.
std::string hiddenLines(const Artifact& a, const ArtifactView& view) {
  std::string out;
  for (size_t l = 0; l < a.lines().size(); ++l)
    if (view.viewLine(static_cast<int>(l)) < 0) out += std::string(a.lineText(l)) + "\n";
  return out.empty() ? "(none)" : out;
}

}  // namespace

TEST_CASE("filters: the filtered PTX, SASS, MIR and LLVM IR of a recorded kernel") {
  struct Row {
    const char* kernel;
    Stage stage;
    Expect view;  // with every filter on
  };
  const Row rows[] = {
      {kElementwiseMul, Stage::Ptx, EXPECT(R"~(
.visible .entry elementwise_mul(
	.param .u64 .ptr .align 1 elementwise_mul_param_0,
	.param .u64 .ptr .align 1 elementwise_mul_param_1,
	.param .u64 .ptr .align 1 elementwise_mul_param_2,
	.param .u64 elementwise_mul_param_3
)
{
	ld.param.b64 	%rd6, [elementwise_mul_param_3];
	ld.param.b64 	%rd7, [elementwise_mul_param_0];
	cvta.to.global.u64 	%rd1, %rd7;
	ld.param.b64 	%rd8, [elementwise_mul_param_1];
	cvta.to.global.u64 	%rd2, %rd8;
	ld.param.b64 	%rd9, [elementwise_mul_param_2];
	cvta.to.global.u64 	%rd3, %rd9;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	cvt.u64.u32 	%rd14, %r4;
	setp.le.u64 	%p1, %rd6, %rd14;
	@%p1 bra 	$L__BB1_3;
	mov.u32 	%r5, %nctaid.x;
	mul.lo.s32 	%r6, %r5, %r2;
	cvt.u64.u32 	%rd4, %r6;
	shl.b64 	%rd13, %rd14, 2;
	shl.b64 	%rd5, %rd4, 2;
$L__BB1_2:
	add.s64 	%rd10, %rd1, %rd13;
	ld.global.b32 	%r7, [%rd10];
	add.s64 	%rd11, %rd2, %rd13;
	ld.global.b32 	%r8, [%rd11];
	add.s64 	%rd12, %rd3, %rd13;
	mul.rn.f32 	%r9, %r7, %r8;
	st.global.b32 	[%rd12], %r9;
	add.s64 	%rd14, %rd14, %rd4;
	add.s64 	%rd13, %rd13, %rd5;
	setp.lt.u64 	%p2, %rd14, %rd6;
	@%p2 bra 	$L__BB1_2;
$L__BB1_3:
	ret;
}
)~")},
      {kElementwiseMul, Stage::Sass, EXPECT(R"~(
elementwise_mul:
/*0000*/ LDC R1, c[0x0][0x28] ;
/*0010*/ S2UR UR4, SR_CTAID.X ;
/*0020*/ LDC R2, c[0x0][RZ] ;
/*0030*/ ULDC UR6, c[0x0][0x228] ;
/*0040*/ ULDC UR7, c[0x0][0x22c] ;
/*0050*/ S2R R3, SR_TID.X ;
/*0060*/ IMAD R0, R2, UR4, R3 ;
/*0070*/ ISETP.GE.U32.AND P0, PT, R0, UR6, PT ;
/*0080*/ ISETP.GE.U32.AND.EX P0, PT, RZ, UR7, PT, P0 ;
/*0090*/ @P0 EXIT ;
/*00a0*/ ULDC UR4, c[0x0][0xc] ;
/*00b0*/ IMAD.MOV.U32 R15, RZ, RZ, R0 ;
/*00c0*/ IMAD.MOV.U32 R8, RZ, RZ, RZ ;
/*00d0*/ IMAD.SHL.U32 R11, R15, 0x4, RZ ;
/*00e0*/ SHF.L.U64.HI R13, R15, 0x2, R8 ;
/*00f0*/ IMAD R0, R2, UR4, RZ ;
/*0100*/ ULDC.64 UR4, c[0x0][0x208] ;
.L_x_1:
/*0110*/ ULDC UR10, c[0x0][0x218] ;
/*0120*/ ULDC UR8, c[0x0][0x210] ;
/*0130*/ IADD3 R4, P1, R11.reuse, UR10, RZ ;
/*0140*/ ULDC UR9, c[0x0][0x214] ;
/*0150*/ IADD3 R2, P0, R11, UR8, RZ ;
/*0160*/ ULDC UR8, c[0x0][0x21c] ;
/*0170*/ IADD3.X R5, R13.reuse, UR8, RZ, P1, !PT ;
/*0180*/ ULDC UR8, c[0x0][0x220] ;
/*0190*/ IADD3.X R3, R13, UR9, RZ, P0, !PT ;
/*01a0*/ LDG.E R5, [R4.64] ;
/*01b0*/ LDG.E R2, [R2.64] ;
/*01c0*/ IADD3 R6, P0, R11, UR8, RZ ;
/*01d0*/ ULDC UR8, c[0x0][0x224] ;
/*01e0*/ IADD3.X R7, R13, UR8, RZ, P0, !PT ;
/*01f0*/ IADD3 R15, P0, R0, R15, RZ ;
/*0200*/ IMAD.X R8, RZ, RZ, R8, P0 ;
/*0210*/ ISETP.GE.U32.AND P0, PT, R15, UR6, PT ;
/*0220*/ ISETP.GE.U32.AND.EX P0, PT, R8, UR7, PT, P0 ;
/*0230*/ LEA R11, P1, R0, R11, 0x2 ;
/*0240*/ LEA.HI.X R13, R0, R13, RZ, 0x2, P1 ;
/*0250*/ FMUL R9, R2, R5 ;
/*0260*/ STG.E [R6.64], R9 ;
/*0270*/ @!P0 BRA `(.L_x_1) ;
/*0280*/ EXIT ;
)~")},
      {kElementwiseMul, Stage::Mir, EXPECT(R"~(
fn grid_stride() -> (usize, usize) {
    let mut _0: (usize, usize);
    let _1: usize;
    let mut _2: u32;
    let mut _3: u32;
    let mut _4: u32;
    let mut _5: u32;
    let mut _6: u32;
    let mut _8: u32;
    let mut _9: u32;
    let mut _10: u32;
    scope 1 {
        debug start => _1;
        let _7: usize;
        scope 2 {
            debug stride => _7;
        }
        scope 6 (inlined _grid_dim_x) {
        }
        scope 7 (inlined _block_dim_x) {
        }
    }
    scope 3 (inlined _block_idx_x) {
    }
    scope 4 (inlined _block_dim_x) {
    }
    scope 5 (inlined _thread_idx_x) {
    }
    bb0: {
        StorageLive(_2);
        StorageLive(_3);
        StorageLive(_4);
        _4 = core::core_arch::nvptx::block_idx_x() -> [return: bb1, unwind unreachable];
    }
    bb1: {
        StorageLive(_5);
        _5 = core::core_arch::nvptx::block_dim_x() -> [return: bb2, unwind unreachable];
    }
    bb2: {
        _3 = Mul(move _4, move _5);
        StorageDead(_5);
        StorageDead(_4);
        StorageLive(_6);
        _6 = core::core_arch::nvptx::thread_idx_x() -> [return: bb3, unwind unreachable];
    }
    bb3: {
        _2 = Add(move _3, move _6);
        StorageDead(_6);
        StorageDead(_3);
        _1 = move _2 as usize (IntToInt);
        StorageDead(_2);
        StorageLive(_8);
        StorageLive(_9);
        _9 = core::core_arch::nvptx::grid_dim_x() -> [return: bb4, unwind unreachable];
    }
    bb4: {
        StorageLive(_10);
        _10 = core::core_arch::nvptx::block_dim_x() -> [return: bb5, unwind unreachable];
    }
    bb5: {
        _8 = Mul(move _9, move _10);
        StorageDead(_10);
        StorageDead(_9);
        _7 = move _8 as usize (IntToInt);
        StorageDead(_8);
        _0 = (copy _1, copy _7);
        return;
    }
}
fn elementwise_mul(_1: *const f32, _2: *const f32, _3: *mut f32, _4: usize) -> () {
    debug a => _1;
    debug b => _2;
    debug out => _3;
    debug n => _4;
    let mut _0: ();
    let mut _7: (usize, usize);
    let mut _8: bool;
    let mut _9: usize;
    let mut _10: f32;
    let _11: usize;
    let mut _12: bool;
    let mut _13: f32;
    let _14: usize;
    let mut _15: bool;
    let _16: usize;
    let mut _17: bool;
    scope 1 {
        debug a => _18;
        scope 2 {
            debug b => _19;
            scope 3 {
                debug out => _20;
                let _5: usize;
                let _6: usize;
                scope 4 {
                    debug start => _5;
                    debug stride => _6;
                    scope 5 {
                        debug i => _5;
                    }
                }
            }
            scope 20 (inlined #[track_caller] core::slice::from_raw_parts_mut::<'_, f32>) {
                let mut _20: *mut [f32];
                scope 21 (inlined ub_checks::check_language_ub) {
                    scope 22 (inlined ub_checks::check_language_ub::runtime) {
                    }
                }
                scope 23 (inlined core::mem::size_of::<f32>) {
                }
                scope 24 (inlined core::mem::align_of::<f32>) {
                }
                scope 25 (inlined slice_from_raw_parts_mut::<f32>) {
                    scope 26 (inlined core::ptr::from_raw_parts_mut::<[f32], f32>) {
                    }
                }
            }
        }
        scope 13 (inlined #[track_caller] core::slice::from_raw_parts::<'_, f32>) {
            let _19: *const [f32];
            scope 14 (inlined ub_checks::check_language_ub) {
                scope 15 (inlined ub_checks::check_language_ub::runtime) {
                }
            }
            scope 16 (inlined core::mem::size_of::<f32>) {
            }
            scope 17 (inlined core::mem::align_of::<f32>) {
            }
            scope 18 (inlined slice_from_raw_parts::<f32>) {
                scope 19 (inlined core::ptr::from_raw_parts::<[f32], f32>) {
                }
            }
        }
    }
    scope 6 (inlined #[track_caller] core::slice::from_raw_parts::<'_, f32>) {
        let _18: *const [f32];
        scope 7 (inlined ub_checks::check_language_ub) {
            scope 8 (inlined ub_checks::check_language_ub::runtime) {
            }
        }
        scope 9 (inlined core::mem::size_of::<f32>) {
        }
        scope 10 (inlined core::mem::align_of::<f32>) {
        }
        scope 11 (inlined slice_from_raw_parts::<f32>) {
            scope 12 (inlined core::ptr::from_raw_parts::<[f32], f32>) {
            }
        }
    }
    bb0: {
        _18 = *const [f32] from (copy _1, copy _4);
        _19 = *const [f32] from (copy _2, copy _4);
        _20 = *mut [f32] from (copy _3, copy _4);
        StorageLive(_7);
        _7 = grid_stride() -> [return: bb1, unwind unreachable];
    }
    bb1: {
        _5 = copy (_7.0: usize);
        _6 = copy (_7.1: usize);
        StorageDead(_7);
        goto -> bb2;
    }
    bb2: {
        StorageLive(_8);
        StorageLive(_9);
        _9 = copy _5;
        _8 = Lt(move _9, copy _4);
        switchInt(move _8) -> [0: bb7, otherwise: bb3];
    }
    bb3: {
        StorageDead(_9);
        StorageLive(_10);
        StorageLive(_11);
        _11 = copy _5;
        _12 = Lt(copy _11, copy _4);
        assert(move _12, "index out of bounds: the length is {} but the index is {}", copy _4, copy _11) -> [success: bb4, unwind unreachable];
    }
    bb4: {
        _10 = copy (*_18)[_11];
        StorageLive(_13);
        StorageLive(_14);
        _14 = copy _5;
        _15 = Lt(copy _14, copy _4);
        assert(move _15, "index out of bounds: the length is {} but the index is {}", copy _4, copy _14) -> [success: bb5, unwind unreachable];
    }
    bb5: {
        _13 = copy (*_19)[_14];
        StorageLive(_16);
        _16 = copy _5;
        _17 = Lt(copy _16, copy _4);
        assert(move _17, "index out of bounds: the length is {} but the index is {}", copy _4, copy _16) -> [success: bb6, unwind unreachable];
    }
    bb6: {
        (*_20)[_16] = Mul(move _10, move _13);
        StorageDead(_13);
        StorageDead(_10);
        StorageDead(_16);
        StorageDead(_14);
        StorageDead(_11);
        _5 = Add(copy _5, copy _6);
        StorageDead(_8);
        goto -> bb2;
    }
    bb7: {
        StorageDead(_9);
        StorageDead(_8);
        return;
    }
}
fn panic(_1: &PanicInfo<'_>) -> ! {
    let mut _0: !;
    bb0: {
        goto -> bb1;
    }
    bb1: {
        goto -> bb1;
    }
}
)~")},
      {kElementwiseMul, Stage::LlvmIr, EXPECT(R"~(
define ptx_kernel void @elementwise_mul(ptr noundef readonly captures(none) %a, ptr noundef readonly captures(none) %b, ptr noundef writeonly captures(none) %out, i64 noundef %n) unnamed_addr #1 !dbg !12 {
start:
  %_4.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13
  %_5.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !25
  %_3.i = mul i32 %_4.i, %_5.i, !dbg !28
  %_6.i = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !29
  %_2.i = add i32 %_3.i, %_6.i, !dbg !32
  %start1.i = zext i32 %_2.i to i64, !dbg !32
  %_9.i = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x(), !dbg !33
  %_8.i = mul i32 %_9.i, %_5.i, !dbg !37
  %stride.i = zext i32 %_8.i to i64, !dbg !37
  %_88 = icmp ugt i64 %n, %start1.i, !dbg !38
  br i1 %_88, label %bb4, label %bb7, !dbg !38
bb7:                                              ; preds = %bb4, %start
  ret void, !dbg !41
bb4:                                              ; preds = %start, %bb4
  %start1.sroa.0.09 = phi i64 [ %4, %bb4 ], [ %start1.i, %start ]
  %0 = getelementptr inbounds nuw float, ptr %a, i64 %start1.sroa.0.09, !dbg !42
  %_10 = load float, ptr %0, align 4, !dbg !42, !noundef !10
  %1 = getelementptr inbounds nuw float, ptr %b, i64 %start1.sroa.0.09, !dbg !43
  %_13 = load float, ptr %1, align 4, !dbg !43, !noundef !10
  %2 = getelementptr inbounds nuw float, ptr %out, i64 %start1.sroa.0.09, !dbg !44
  %3 = fmul float %_10, %_13, !dbg !44
  store float %3, ptr %2, align 4, !dbg !44
  %4 = add i64 %start1.sroa.0.09, %stride.i, !dbg !45
  %_8 = icmp ult i64 %4, %n, !dbg !38
  br i1 %_8, label %bb4, label %bb7, !dbg !38
}
)~")},
  };
  for (const Row& row : rows) {
    CAPTURE(row.kernel);
    CAPTURE(stageName(row.stage));
    const Artifact& a = recordedArtifact(row.kernel, row.stage);
    // Filters off: the artifact as it is.
    ArtifactView whole(a, lsp::ArtifactFilters{});
    CHECK(whole.text() == a.shownText());
    CHECK(whole.size() == a.lines().size());

    ArtifactView view(a, allFilters());
    checkMapping(a, view, row.stage == Stage::Sass || row.stage == Stage::Mir);
    row.view.check(portable(view.text()));
    CHECK(view.size() < a.lines().size());
    // Every instruction of the kernels survives.
    size_t kernelInstructions = 0, shownInstructions = 0;
    for (const ArtifactFunction& f : a.functions)
      if (f.isKernel)
        for (uint32_t l = f.firstLine; l <= f.lastLine; ++l) {
          if (a.lines()[l].kind != LineKind::Instruction) continue;
          if (isPadding(a, l)) continue;
          ++kernelInstructions;
          shownInstructions += view.viewLine(l) >= 0;
        }
    CHECK((kernelInstructions > 0 || row.stage == Stage::Mir));  // MIR has statements
    CHECK(shownInstructions == kernelInstructions);
  }
}

TEST_CASE("filters: each one hides what it names, and nothing else") {
  // Each filter alone on a recorded kernel's stage: the lines it leaves out, every one.
  struct Row {
    Stage stage;
    bool lsp::ArtifactFilters::*filter;
    Expect hidden;
  };
  const Row rows[] = {
      {Stage::Ptx, &lsp::ArtifactFilters::debugLocations, EXPECT(R"~(
	.loc	1 31 5
	.loc	1 17 0
	.loc	2 83 5
	.loc	2 62 5
	.loc	2 125 5
	.loc	1 11 17
	.loc	1 23 11
	.loc	1 0 0
	.loc	1 23 11
	.loc	1 24 18
	.loc	1 24 25
	.loc	1 24 9
	.loc	1 25 9
	.loc	1 23 11
	.loc	1 27 2
	.section	.debug_macinfo	{	}
	.file	1 "${SRC}/examples/elementwise_mul.rs"
	.file	2 "${SYSROOT}/lib/rustlib/src/rust/library/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs"
)~")},
      {Stage::Ptx, &lsp::ArtifactFilters::unusedLabels, EXPECT(R"~(
$L__func_begin0:
$L__tmp0:
$L__func_end0:
$L__func_begin1:
$L__tmp1:
$L__tmp2:
$L__tmp3:
$L__tmp4:
$L__tmp5:
$L__tmp6:
$L__tmp7:
$L__tmp8:
$L__tmp9:
$L__func_end1:
)~")},
      {Stage::Ptx, &lsp::ArtifactFilters::directives, EXPECT(R"~(
.version 7.8
.target sm_90
.address_size 64
	.reg .pred 	%p<3>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<15>;
)~")},
      {Stage::Ptx, &lsp::ArtifactFilters::libraryFunctions, EXPECT(R"~(
.visible .func _RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind(
	.param .b64 _RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind_param_0
)
.noreturn
{

$L__func_begin0:

$L__BB0_1:
	.loc	1 31 5
	bra.uni 	$L__BB0_1;
$L__tmp0:
$L__func_end0:

}
)~")},
      {Stage::Sass, &lsp::ArtifactFilters::padding, EXPECT(R"~(
.L_x_2:
        /*0290*/                   BRA `(.L_x_2);
        /*02a0*/                   NOP;
        /*02b0*/                   NOP;
        /*02c0*/                   NOP;
        /*02d0*/                   NOP;
        /*02e0*/                   NOP;
        /*02f0*/                   NOP;
        /*0300*/                   NOP;
        /*0310*/                   NOP;
        /*0320*/                   NOP;
        /*0330*/                   NOP;
        /*0340*/                   NOP;
        /*0350*/                   NOP;
        /*0360*/                   NOP;
        /*0370*/                   NOP;
.L_x_0:
)~")},
      {Stage::Sass, &lsp::ArtifactFilters::compactSass, EXPECT(R"~((none))~")},
      {Stage::Mir, &lsp::ArtifactFilters::debugLocations, EXPECT(R"~((none))~")},
  };
  auto only = [](bool lsp::ArtifactFilters::*member) {
    lsp::ArtifactFilters f;
    f.*member = true;
    return f;
  };
  for (const Row& row : rows) {
    CAPTURE(stageName(row.stage));
    const Artifact& a = recordedArtifact(kElementwiseMul, row.stage);
    ArtifactView view(a, only(row.filter));
    checkMapping(a, view, row.stage == Stage::Sass || row.stage == Stage::Mir);
    row.hidden.check(portable(hiddenLines(a, view)));
  }

  // SASS compacted: every line stays, without its column padding.
  const Artifact& sass = recordedArtifact(kElementwiseMul, Stage::Sass);
  std::string compact = ArtifactView(sass, only(&lsp::ArtifactFilters::compactSass)).text();
  CHECK(compact.find("\n/*0090*/ @P0 EXIT ;\n") != std::string::npos);
  CHECK(splitLines(compact).size() == sass.lines().size());

  // MIR: rustc's banner goes with the comments, derived impls with the library functions.
  Artifact mir = parseMir(
      "// WARNING: This output format is intended for human consumers only\n"
      "fn <impl at d.rs:1:10: 1:15>::clone(_1: &P) -> P {\n"
      "    let mut _0: P;\n"
      "    bb0: {\n"
      "        _0 = copy (*_1);\n"
      "        return;\n"
      "    }\n"
      "}\n"
      "\n"
      "fn k(_1: P) -> f32 {\n"
      "    let mut _0: f32;\n"
      "    bb0: {\n"
      "        _0 = copy (_1.0: f32);\n"
      "        return;\n"
      "    }\n"
      "}\n");
  std::string mirText = ArtifactView(mir, allFilters()).text();
  CHECK(mirText.find("WARNING") == std::string::npos);
  CHECK(mirText.find("clone") == std::string::npos);
  CHECK(mirText.find("fn k(_1: P) -> f32 {") != std::string::npos);

  // MIR's scope spans end most lines with an absolute path: debugLocations cuts those
  // tails, keeping the lines (and so every line's mapping) and any other comment.
  const Artifact& scoped = recordedArtifact(kElementwiseMul, Stage::Mir);
  ArtifactView spans(scoped, only(&lsp::ArtifactFilters::debugLocations));
  CHECK(spans.size() == scoped.lines().size());
  CHECK(spans.text().find(" at /") == std::string::npos);
  CHECK(spans.text().find("scope 0 at") == std::string::npos);
  CHECK(spans.text().find("    let mut _0: ();\n") != std::string::npos);
  CHECK(scoped.text().find("in scope 0 at") != std::string::npos);
  Artifact other = parseMir("fn k() -> () {\n    let mut _0: (); // a note of mine\n}\n");
  CHECK(ArtifactView(other, only(&lsp::ArtifactFilters::debugLocations)).text() == other.text());
}

TEST_CASE("filters: a view's segments and kernels count the view's lines") {
  lsp::ArtifactResult r;
  r.text = "a\n.loc 1 2 3\nb\n.loc 1 3 3\nc\n";
  r.segments = {{0, 2, {}, {}}, {3, 3, {}, {}}, {4, 4, {}, {}}};
  r.kernels = {{"k", 0, 4}};
  Artifact a = parsePtx(r.text);
  ArtifactView view(a, lsp::ArtifactFilters{false, true});
  lsp::ArtifactResult f = filterArtifact(r, view);
  CHECK(f.text == "a\nb\nc\n");
  REQUIRE(f.segments.size() == 2);  // the segment of the `.loc` alone is gone
  CHECK(f.segments[0].start == 0);
  CHECK(f.segments[0].end == 1);
  CHECK(f.segments[1].start == 2);
  CHECK(f.segments[1].end == 2);
  CHECK(f.kernels[0].start == 0);
  CHECK(f.kernels[0].end == 2);
}

TEST_CASE("filters: the editors' views start with defaultViewFilters(), as the report's panes do") {
  const fs::path root(KS_SOURCE_DIR);
  const json package = json::parse(readWholeFile(root / "editors/vscode/package.json"));
  json vscode = json::object();
  for (const auto& [key, setting] : package["contributes"]["configuration"]["properties"].items())
    if (key.starts_with("kernelscope.filters."))
      vscode[key.substr(std::string_view("kernelscope.filters.").size())] = setting["default"];
  // Neovim's config.lua: `filters = {` then one `name = true,` a line up to `},`.
  std::istringstream config(readWholeFile(root / "editors/nvim/lua/kernelscope/config.lua"));
  json nvim = json::object();
  bool inFilters = false;
  for (std::string line; std::getline(config, line);) {
    std::string_view t = trimView(line);
    if (t.starts_with("filters = {")) {
      inFilters = true;
    } else if (inFilters && t.starts_with("}")) {
      break;
    } else if (inFilters && t.find(" = ") != t.npos) {
      const std::string_view name = t.substr(0, t.find(" = "));
      nvim[std::string(name)] = t.find("true") != t.npos;
    }
  }
  CHECK(vscode.size() == 7);
  CHECK(nvim == vscode);
  CHECK(vscode.get<lsp::ArtifactFilters>() == defaultViewFilters());
}

TEST_CASE("filters: bad filters are refused, naming the key") {
  TestClient client(TestClient::options());
  std::string uri = client.open("/tmp/kernelscope-test/src/saxpy.rs", kFakeSaxpy);
  client.sync();
  json r = client.request(
      "kernelscope/artifact",
      {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}, {"filters", {{"comments", "yes"}}}});
  CHECK(r["error"]["code"] == int(lsp::ErrorCode::InvalidParams));
  CHECK(r["error"]["message"].get<std::string>().find("filters.comments") != std::string::npos);
}

TEST_CASE("recorded pipeline: linked highlighting is exact with filters on and off") {
  Engine* compiler = nullptr;
  TestClient client(replayedOptions(compiler, kElementwiseMul));
  const std::string path = KS_SOURCE_DIR "/examples/elementwise_mul.rs";
  const std::string source = readWholeFile(path);
  std::string uri = client.open(path, source);
  client.sync();
  const json filters = {{"directives", true},  {"debugLocations", true},   {"unusedLabels", true},
                        {"comments", true},    {"libraryFunctions", true}, {"padding", true},
                        {"compactSass", false}};
  for (const char* stage : {"ptx", "sass"}) {
    CAPTURE(stage);
    json whole =
        client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", stage}});
    json view =
        client.result("kernelscope/artifact",
                      {{"textDocument", {{"uri", uri}}}, {"stage", stage}, {"filters", filters}});
    const std::string wholeText = whole["text"], viewText = view["text"];
    auto wholeLines = splitLines(wholeText);
    auto viewLines = splitLines(viewText);
    CHECK(viewLines.size() < wholeLines.size());
    int lines = static_cast<int>(splitLines(source).size());
    int highlighted = 0;
    for (int line = 0; line < lines; ++line) {
      json a =
          client.result("kernelscope/lineMap", {{"textDocument", {{"uri", uri}}}, {"line", line}});
      json b =
          client.result("kernelscope/lineMap",
                        {{"textDocument", {{"uri", uri}}}, {"line", line}, {"filters", filters}});
      // The same instructions of the kernels light up, in either view (the panic handler,
      // which no kernel calls, is a library function the view leaves out).
      auto inKernel = [&](int l) {
        for (const json& k : whole["kernels"])
          if (k["start"] <= l && l <= k["end"]) return true;
        return false;
      };
      std::vector<std::string> inWhole, inView;
      for (const json& r : a["stages"][stage])
        for (int l = r["start"]; l <= r["end"]; ++l) {
          std::string_view t = wholeLines[l];
          if (inKernel(l) && t.find(".loc") == t.npos && t.find("//## File") == t.npos)
            inWhole.emplace_back(t);
        }
      for (const json& r : b["stages"][stage])
        for (int l = r["start"]; l <= r["end"]; ++l) inView.emplace_back(viewLines[l]);
      CHECK(inWhole == inView);
      highlighted += !inView.empty();
      // Back from the view's lines: the same source line and chain as the whole text's.
      for (const json& r : b["stages"][stage]) {
        json fromView =
            client.result("kernelscope/sourceLocation",
                          {{"uri", view["uri"]}, {"line", r["start"]}, {"filters", filters}});
        REQUIRE(!fromView["location"].is_null());
        CHECK(fromView["location"]["range"]["start"]["line"] == line);
      }
    }
    CHECK(highlighted > 3);
    // Segments of the view point at the view's lines: each names the source line that
    // lineMap (with the same filters) maps to it.
    for (const json& seg : view["segments"]) {
      json loc =
          client.result("kernelscope/sourceLocation",
                        {{"uri", view["uri"]}, {"line", seg["start"]}, {"filters", filters}});
      if (loc["location"].is_null()) continue;
      CHECK(loc["location"]["range"]["start"]["line"] == seg["source"]["line"]);
    }
    // Hover on the view (the server remembers its filters) explains the view's line.
    json seg = view["segments"][0];
    json hover = client.result("textDocument/hover",
                               {{"textDocument", {{"uri", view["uri"]}}},
                                {"position", {{"line", seg["start"]}, {"character", 0}}}});
    std::string shown(trimView(viewLines[seg["start"].get<int>()]));
    // A hover shows SASS compact, whatever the view's compactSass.
    if (std::string_view(stage) == "sass") shown = compactSassLine(shown);
    CAPTURE(shown);
    CAPTURE(hover.dump());
    CHECK(hover["contents"]["value"].get<std::string>().find(shown) != std::string::npos);
  }
}

TEST_CASE("recorded pipeline: a view's filters are forgotten when the view closes, or its source") {
  Engine* compiler = nullptr;
  TestClient client(replayedOptions(compiler, kElementwiseMul));
  const std::string path = KS_SOURCE_DIR "/examples/elementwise_mul.rs";
  const std::string source = readWholeFile(path);
  std::string uri = client.open(path, source);
  client.sync();
  const json params = {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}};
  json filtered = params;
  filtered["filters"] = {{"directives", true}, {"debugLocations", true}};
  const std::string wholeText = client.result("kernelscope/artifact", params)["text"];
  const json view = client.result("kernelscope/artifact", filtered);
  const std::string viewText = view["text"];
  auto wholeLines = splitLines(wholeText), viewLines = splitLines(viewText);
  // A view line that shows another instruction than the same line of the whole text.
  int line = -1;
  for (const json& seg : view["segments"]) {
    const int l = seg["start"];
    std::string_view w = trimView(wholeLines[l]);
    if (!w.empty() && std::isalpha(static_cast<unsigned char>(w[0])) &&
        w != trimView(viewLines[l])) {
      line = l;
      break;
    }
  }
  REQUIRE(line >= 0);
  const std::string inView(trimView(viewLines[line])), inWhole(trimView(wholeLines[line]));
  CAPTURE(inView);
  CAPTURE(inWhole);
  auto hoverOnView = [&] {
    json r =
        client.result("textDocument/hover", {{"textDocument", {{"uri", view["uri"]}}},
                                             {"position", {{"line", line}, {"character", 0}}}});
    return r.is_null() ? std::string() : r["contents"]["value"].get<std::string>();
  };
  CHECK(hoverOnView().find(inView) != std::string::npos);

  // The view's document closes (its URI spelt with an escape): the hover reads the whole text.
  std::string spelt = view["uri"];
  spelt.replace(spelt.find("elementwise_mul"), 15, "elementwise%5Fmul");
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", spelt}}}});
  CHECK(hoverOnView().find(inWhole) != std::string::npos);

  // The source closes (a client that never opens its views as documents): reopened, the
  // view's filters are gone too.
  client.result("kernelscope/artifact", filtered);
  CHECK(hoverOnView().find(inView) != std::string::npos);
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  client.open(path, source, 2);
  client.sync();
  CHECK(hoverOnView().find(inWhole) != std::string::npos);
}

TEST_CASE(
    "recorded pipeline: hovers and inlay hints count what the views show, under the views' "
    "filters") {
  Engine* compiler = nullptr;
  TestClient client(replayedOptions(compiler, "examples/saxpy.rs"), /*initialize=*/false);
  client.result("initialize",
                {{"capabilities", {{"workspace", {{"inlayHint", {{"refreshSupport", true}}}}}}}});
  client.notify("initialized", json::object());
  const std::string path = KS_SOURCE_DIR "/examples/saxpy.rs";
  const std::string source = readWholeFile(path);
  const std::string uri = client.open(path, source);
  client.sync();
  const int lines = static_cast<int>(splitLines(source).size());
  // The panic handler's `loop {}`: it made PTX, in a function no kernel calls.
  int loop = 0;
  while (loop < lines && trimView(splitLines(source)[loop]) != "loop {}") ++loop;
  REQUIRE(loop < lines);
  auto hints = [&] {
    json range = {{"start", {{"line", 0}, {"character", 0}}},
                  {"end", {{"line", lines}, {"character", 0}}}};
    std::map<int, std::string> byLine;
    for (const json& h : client.result("textDocument/inlayHint",
                                       {{"textDocument", {{"uri", uri}}}, {"range", range}}))
      byLine[h["position"]["line"]] = h["label"];
    return byLine;
  };
  auto hover = [&](int line) {
    json h = client.result(
        "textDocument/hover",
        {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", 4}}}});
    return h.is_null() ? std::string() : h["contents"]["value"].get<std::string>();
  };
  // Each line's hint and hover say the PTX and SASS lines that kernelscope/lineMap with the
  // same filters counts (nothing where it counts none).
  auto agreeWithLineMap = [&](const json& filters) {
    const auto byLine = hints();
    for (int line = 0; line < lines; ++line) {
      CAPTURE(line);
      json params = {{"textDocument", {{"uri", uri}}}, {"line", line}};
      if (!filters.is_null()) params["filters"] = filters;
      const json map = client.result("kernelscope/lineMap", params);
      std::string want;
      for (const char* stage : {"ptx", "sass"})
        if (map["counts"].value(stage, 0) > 0)
          want += (want.empty() ? "" : " · ") + std::to_string(map["counts"][stage].get<int>()) +
                  " " + stage;
      auto hint = byLine.find(line);
      const std::string label = hint == byLine.end() ? "" : hint->second;
      CAPTURE(label);
      if (want.empty()) {
        // Nothing of its own: no hint, or one counting inlined code, which lineMap does not.
        CHECK((label.empty() || label.find("(inlined)") != std::string::npos));
        continue;
      }
      CHECK(label.starts_with(want));
      const std::string h = hover(line);
      CAPTURE(h);
      for (const char* stage : {"ptx", "sass"})
        if (map["counts"].value(stage, 0) > 0)
          CHECK(h.find("**" + std::string(stage) + "** · " +
                       std::to_string(map["counts"][stage].get<int>()) + " line") !=
                std::string::npos);
    }
    return byLine;
  };
  json defaults = json::object();
  for (const ViewFilter& f : viewFilters()) defaults[f.name] = defaultViewFilters().*f.field;
  // Before any view is asked for: the filters the editors' views start with.
  auto byLine = agreeWithLineMap(defaults);
  CHECK(byLine.count(loop) == 0);
  CHECK(hover(loop).empty());
  // A view asked without filters shows every line: now the loop counts its PTX.
  client.messages();
  client.result("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", "ptx"}});
  bool refreshed = false;
  for (const json& m : client.messages())
    refreshed |= m.value("method", "") == "workspace/inlayHint/refresh";
  CHECK(refreshed);
  byLine = agreeWithLineMap(nullptr);
  REQUIRE(byLine.count(loop) == 1);
  CHECK(byLine[loop].starts_with("1 ptx"));
  CHECK(hover(loop).find("**ptx** · 1 line") != std::string::npos);
  // And with the views' filters again, as the editors ask after a toggle.
  client.result("kernelscope/artifact",
                {{"textDocument", {{"uri", uri}}}, {"stage", "sass"}, {"filters", defaults}});
  byLine = agreeWithLineMap(defaults);
  CHECK(byLine.count(loop) == 0);
}

}  // namespace ks::test
