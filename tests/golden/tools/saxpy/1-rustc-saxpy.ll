; ModuleID = 'saxpy.84de6b903f3a2278-cgu.0'
source_filename = "saxpy.84de6b903f3a2278-cgu.0"
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
define ptx_kernel void @saxpy(i32 noundef %n, float noundef %a, ptr noundef readonly captures(none) %x, ptr noundef captures(none) %y) unnamed_addr #1 !dbg !12 {
start:
  %_7 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13
  %_8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !20
  %_6 = mul i32 %_7, %_8, !dbg !19
  %_9 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !23
  %i = add i32 %_6, %_9, !dbg !19
  %_10 = icmp ult i32 %i, %n, !dbg !26
  br i1 %_10, label %bb1, label %bb2, !dbg !26

bb2:                                              ; preds = %bb1, %start
  ret void, !dbg !28

bb1:                                              ; preds = %start
  %i1 = zext i32 %i to i64, !dbg !29
  %_14 = getelementptr inbounds nuw float, ptr %x, i64 %i1, !dbg !30
  %_13 = load float, ptr %_14, align 4, !dbg !38, !noundef !10
  %_12 = fmul float %a, %_13, !dbg !39
  %_16 = getelementptr inbounds nuw float, ptr %y, i64 %i1, !dbg !40
  %_15 = load float, ptr %_16, align 4, !dbg !46, !noundef !10
  %0 = fadd float %_12, %_15, !dbg !47
  store float %0, ptr %_16, align 4, !dbg !47
  br label %bb2, !dbg !48
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

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
!5 = !DIFile(filename: "${SRC}/examples/saxpy.rs/@/saxpy.84de6b903f3a2278-cgu.0", directory: "${TMP1}")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 17, type: !9, scopeLine: 17, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "${SRC}/examples/saxpy.rs", directory: "", checksumkind: CSK_MD5, checksum: "1e8df98f5e1ca0cd45e025e3c53c89ce")
!8 = !DINamespace(name: "saxpy", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 18, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "saxpy", scope: !8, file: !7, line: 8, type: !9, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 83, column: 5, scope: !14, inlinedAt: !19)
!14 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !16, file: !15, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!15 = !DIFile(filename: "${RUST_SRC}/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!16 = !DINamespace(name: "nvptx", scope: !17)
!17 = !DINamespace(name: "core_arch", scope: !18)
!18 = !DINamespace(name: "core", scope: null)
!19 = !DILocation(line: 9, column: 13, scope: !12)
!20 = !DILocation(line: 62, column: 5, scope: !21, inlinedAt: !22)
!21 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_x", scope: !16, file: !15, line: 61, type: !9, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!22 = !DILocation(line: 9, column: 37, scope: !12)
!23 = !DILocation(line: 125, column: 5, scope: !24, inlinedAt: !25)
!24 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !16, file: !15, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!25 = !DILocation(line: 9, column: 61, scope: !12)
!26 = !DILocation(line: 10, column: 8, scope: !27)
!27 = distinct !DILexicalBlock(scope: !12, file: !7, line: 9, column: 5)
!28 = !DILocation(line: 14, column: 2, scope: !12)
!29 = !DILocation(line: 11, column: 17, scope: !27)
!30 = !DILocation(line: 863, column: 18, scope: !31, inlinedAt: !36)
!31 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPf3addCsbpfYr5hF4XQ_5saxpy", scope: !33, file: !32, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!32 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/const_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "48638a38fe414ca30cde797e4a40b3a9")
!33 = !DINamespace(name: "{impl#0}", scope: !34)
!34 = !DINamespace(name: "const_ptr", scope: !35)
!35 = !DINamespace(name: "ptr", scope: !18)
!36 = !DILocation(line: 12, column: 28, scope: !37)
!37 = distinct !DILexicalBlock(scope: !27, file: !7, line: 11, column: 9)
!38 = !DILocation(line: 12, column: 25, scope: !37)
!39 = !DILocation(line: 12, column: 21, scope: !37)
!40 = !DILocation(line: 961, column: 18, scope: !41, inlinedAt: !45)
!41 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr7mut_ptrOf3addCsbpfYr5hF4XQ_5saxpy", scope: !43, file: !42, line: 927, type: !9, scopeLine: 927, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!42 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/mut_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "7c03c8e0ae695174f7f10881dc49d2cb")
!43 = !DINamespace(name: "{impl#0}", scope: !44)
!44 = !DINamespace(name: "mut_ptr", scope: !35)
!45 = !DILocation(line: 12, column: 40, scope: !37)
!46 = !DILocation(line: 12, column: 37, scope: !37)
!47 = !DILocation(line: 12, column: 9, scope: !37)
!48 = !DILocation(line: 10, column: 5, scope: !27)
