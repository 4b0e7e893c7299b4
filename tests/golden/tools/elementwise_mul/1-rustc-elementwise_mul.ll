; ModuleID = 'elementwise_mul.89da2d027197774-cgu.0'
source_filename = "elementwise_mul.89da2d027197774-cgu.0"
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

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite)
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

; uselistorder directives
  uselistorder label %bb4, { 1, 0 }
  uselistorder i64 %4, { 1, 0 }
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() unnamed_addr #2

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { nofree norecurse nosync nounwind memory(argmem: readwrite) "target-cpu"="sm_90" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "${SRC}/examples/elementwise_mul.rs/@/elementwise_mul.89da2d027197774-cgu.0", directory: "${TMP1}")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 30, type: !9, scopeLine: 30, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "${SRC}/examples/elementwise_mul.rs", directory: "", checksumkind: CSK_MD5, checksum: "129a5bfc1cabf7b665f7a9740d2b5444")
!8 = !DINamespace(name: "elementwise_mul", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 31, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "elementwise_mul", scope: !8, file: !7, line: 17, type: !9, scopeLine: 17, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 83, column: 5, scope: !14, inlinedAt: !19)
!14 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !16, file: !15, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!15 = !DIFile(filename: "${RUST_SRC}/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!16 = !DINamespace(name: "nvptx", scope: !17)
!17 = !DINamespace(name: "core_arch", scope: !18)
!18 = !DINamespace(name: "core", scope: null)
!19 = distinct !DILocation(line: 11, column: 18, scope: !20, inlinedAt: !21)
!20 = distinct !DISubprogram(name: "grid_stride", linkageName: "_RNvCsJRpFRGMtQC_15elementwise_mul11grid_stride", scope: !8, file: !7, line: 10, type: !9, scopeLine: 10, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!21 = distinct !DILocation(line: 21, column: 27, scope: !22)
!22 = distinct !DILexicalBlock(scope: !23, file: !7, line: 20, column: 5)
!23 = distinct !DILexicalBlock(scope: !24, file: !7, line: 19, column: 5)
!24 = distinct !DILexicalBlock(scope: !12, file: !7, line: 18, column: 5)
!25 = !DILocation(line: 62, column: 5, scope: !26, inlinedAt: !27)
!26 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_x", scope: !16, file: !15, line: 61, type: !9, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!27 = distinct !DILocation(line: 11, column: 42, scope: !20, inlinedAt: !21)
!28 = !DILocation(line: 11, column: 18, scope: !20, inlinedAt: !21)
!29 = !DILocation(line: 125, column: 5, scope: !30, inlinedAt: !31)
!30 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !16, file: !15, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!31 = distinct !DILocation(line: 11, column: 66, scope: !20, inlinedAt: !21)
!32 = !DILocation(line: 11, column: 17, scope: !20, inlinedAt: !21)
!33 = !DILocation(line: 104, column: 5, scope: !34, inlinedAt: !35)
!34 = distinct !DISubprogram(name: "_grid_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx11__grid_dim_x", scope: !16, file: !15, line: 103, type: !9, scopeLine: 103, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!35 = distinct !DILocation(line: 12, column: 19, scope: !36, inlinedAt: !21)
!36 = distinct !DILexicalBlock(scope: !20, file: !7, line: 11, column: 5)
!37 = !DILocation(line: 12, column: 18, scope: !36, inlinedAt: !21)
!38 = !DILocation(line: 23, column: 11, scope: !39)
!39 = distinct !DILexicalBlock(scope: !40, file: !7, line: 22, column: 5)
!40 = distinct !DILexicalBlock(scope: !22, file: !7, line: 21, column: 5)
!41 = !DILocation(line: 27, column: 2, scope: !12)
!42 = !DILocation(line: 24, column: 18, scope: !39)
!43 = !DILocation(line: 24, column: 25, scope: !39)
!44 = !DILocation(line: 24, column: 9, scope: !39)
!45 = !DILocation(line: 25, column: 9, scope: !39)
