; ModuleID = 'vector_add.dc5de8bc1b5541c4-cgu.0'
source_filename = "vector_add.dc5de8bc1b5541c4-cgu.0"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; __rustc::rust_begin_unwind
; Function Attrs: nofree norecurse noreturn nosync nounwind memory(none)
define void @_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind(ptr noalias noundef readonly align 8 captures(none) dereferenceable(24) %_1) unnamed_addr #0 !dbg !6 {
start:
  br label %bb1, !dbg !11

bb1:                                              ; preds = %bb1, %start
  br label %bb1, !dbg !11
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define ptx_kernel void @vector_add(ptr noundef readonly captures(none) %a, ptr noundef readonly captures(none) %b, ptr noundef writeonly captures(none) %c, i32 noundef %n) unnamed_addr #1 !dbg !12 {
start:
  %_6 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !13
  %_8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !20
  %_9 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !23
  %_7 = mul i32 %_8, %_9, !dbg !22
  %idx = add i32 %_7, %_6, !dbg !19
  %_10 = icmp ult i32 %idx, %n, !dbg !26
  br i1 %_10, label %bb1, label %bb2, !dbg !26

bb2:                                              ; preds = %bb1, %start
  ret void, !dbg !28

bb1:                                              ; preds = %start
  %i = zext i32 %idx to i64
  %_17 = getelementptr inbounds nuw float, ptr %c, i64 %i
  %_16 = getelementptr inbounds nuw float, ptr %b, i64 %i
  %_14 = getelementptr inbounds nuw float, ptr %a, i64 %i
  %_13 = load float, ptr %_14, align 4, !dbg !29, !noundef !10
  %_15 = load float, ptr %_16, align 4, !dbg !31, !noundef !10
  %sum = fadd float %_13, %_15, !dbg !29
  store float %sum, ptr %_17, align 4, !dbg !32
  br label %bb2, !dbg !34
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #2

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "target-cpu"="sm_90" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "/work/main/examples/vector_add.rs/@/vector_add.dc5de8bc1b5541c4-cgu.0", directory: "/tmp/kernelscope-build-1Ds9zr")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 18, type: !9, scopeLine: 18, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "/work/main/examples/vector_add.rs", directory: "", checksumkind: CSK_MD5, checksum: "e45fe8fb3011bf02b328eba6080c4fe8")
!8 = !DINamespace(name: "vector_add", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 19, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "vector_add", scope: !8, file: !7, line: 8, type: !9, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 125, column: 5, scope: !14, inlinedAt: !19)
!14 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !16, file: !15, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!15 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!16 = !DINamespace(name: "nvptx", scope: !17)
!17 = !DINamespace(name: "core_arch", scope: !18)
!18 = !DINamespace(name: "core", scope: null)
!19 = !DILocation(line: 9, column: 15, scope: !12)
!20 = !DILocation(line: 83, column: 5, scope: !21, inlinedAt: !22)
!21 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !16, file: !15, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!22 = !DILocation(line: 9, column: 40, scope: !12)
!23 = !DILocation(line: 62, column: 5, scope: !24, inlinedAt: !25)
!24 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_x", scope: !16, file: !15, line: 61, type: !9, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!25 = !DILocation(line: 9, column: 64, scope: !12)
!26 = !DILocation(line: 10, column: 8, scope: !27)
!27 = distinct !DILexicalBlock(scope: !12, file: !7, line: 9, column: 5)
!28 = !DILocation(line: 15, column: 2, scope: !12)
!29 = !DILocation(line: 12, column: 19, scope: !30)
!30 = distinct !DILexicalBlock(scope: !27, file: !7, line: 11, column: 9)
!31 = !DILocation(line: 12, column: 31, scope: !30)
!32 = !DILocation(line: 13, column: 9, scope: !33)
!33 = distinct !DILexicalBlock(scope: !30, file: !7, line: 12, column: 9)
!34 = !DILocation(line: 10, column: 5, scope: !27)
