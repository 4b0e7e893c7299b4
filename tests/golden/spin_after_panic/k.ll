; ModuleID = 'spin_after_panic.24192788288512ec-cgu.0'
source_filename = "spin_after_panic.24192788288512ec-cgu.0"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@alloc_5cb24f2fbe32e7dd1ea015f3bdffac39 = private unnamed_addr constant [14 x i8] c"bad index %u\0A\00", align 1

; __rustc::rust_begin_unwind
; Function Attrs: nofree norecurse noreturn nosync nounwind memory(none)
define void @_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind(ptr noalias noundef readonly align 8 captures(none) dereferenceable(24) %_1) unnamed_addr #0 !dbg !6 {
start:
  br label %bb1, !dbg !11

bb1:                                              ; preds = %bb1, %start
  br label %bb1, !dbg !11
}

; Function Attrs: convergent nounwind
define ptx_kernel void @checked_copy(ptr noundef readonly captures(none) %src, ptr noundef writeonly captures(none) %dst, i32 noundef %n, i32 noundef %limit) unnamed_addr #1 !dbg !12 {
start:
  %_7 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13
  %_8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !20
  %_6 = mul i32 %_7, %_8, !dbg !19
  %_9 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !23
  %i = add i32 %_6, %_9, !dbg !19
  %_10.not = icmp ult i32 %i, %n, !dbg !26
  br i1 %_10.not, label %bb2, label %bb6, !dbg !26

bb2:                                              ; preds = %start
  %_13 = zext i32 %i to i64, !dbg !28
  %_12 = getelementptr inbounds nuw i32, ptr %src, i64 %_13, !dbg !29
  %v = load i32, ptr %_12, align 4, !dbg !36, !noundef !10
  %_14.not = icmp ult i32 %v, %limit, !dbg !37
  br i1 %_14.not, label %bb5, label %bb3, !dbg !37

bb5:                                              ; preds = %bb2
  %_16 = shl i32 %v, 1, !dbg !39
  %_17 = getelementptr inbounds nuw i32, ptr %dst, i64 %_13, !dbg !40
  %0 = or disjoint i32 %_16, 1, !dbg !46
  store i32 %0, ptr %_17, align 4, !dbg !46
  br label %bb6, !dbg !47

bb3:                                              ; preds = %bb2
  tail call void @report_bad_index(i32 noundef %v) #4, !dbg !48
  br label %bb4, !dbg !48

bb6:                                              ; preds = %start, %bb5
  ret void, !dbg !47

bb4:                                              ; preds = %bb4, %bb3
  br label %bb4, !dbg !49

; uselistorder directives
  uselistorder label %bb6, { 1, 0 }
}

; Function Attrs: convergent noinline nounwind
define void @report_bad_index(i32 noundef %0) unnamed_addr #2 !dbg !50 {
start:
  %i = alloca [4 x i8], align 4
  store i32 %0, ptr %i, align 4
  %_2 = call noundef i32 @vprintf(ptr noundef nonnull @alloc_5cb24f2fbe32e7dd1ea015f3bdffac39, ptr noundef nonnull %i) #5, !dbg !51
  ret void, !dbg !52
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #3

; Function Attrs: convergent nounwind
declare noundef i32 @vprintf(ptr noundef, ptr noundef) unnamed_addr #1

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { convergent nounwind "target-cpu"="sm_90" }
attributes #2 = { convergent noinline nounwind "target-cpu"="sm_90" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { noinline nounwind }
attributes #5 = { nounwind }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "/work/main/tests/fixtures/spin_after_panic.rs/@/spin_after_panic.24192788288512ec-cgu.0", directory: "/tmp/kernelscope-build-4496-1224222-4026531836-2g5Ra1")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 31, type: !9, scopeLine: 31, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "/work/main/tests/fixtures/spin_after_panic.rs", directory: "", checksumkind: CSK_MD5, checksum: "809b1ee3afd0a9cd2b3a21a66b9c29cd")
!8 = !DINamespace(name: "spin_after_panic", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 32, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "checked_copy", scope: !8, file: !7, line: 17, type: !9, scopeLine: 17, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 83, column: 5, scope: !14, inlinedAt: !19)
!14 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !16, file: !15, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!15 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!16 = !DINamespace(name: "nvptx", scope: !17)
!17 = !DINamespace(name: "core_arch", scope: !18)
!18 = !DINamespace(name: "core", scope: null)
!19 = !DILocation(line: 18, column: 13, scope: !12)
!20 = !DILocation(line: 62, column: 5, scope: !21, inlinedAt: !22)
!21 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_x", scope: !16, file: !15, line: 61, type: !9, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!22 = !DILocation(line: 18, column: 37, scope: !12)
!23 = !DILocation(line: 125, column: 5, scope: !24, inlinedAt: !25)
!24 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !16, file: !15, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!25 = !DILocation(line: 18, column: 61, scope: !12)
!26 = !DILocation(line: 19, column: 8, scope: !27)
!27 = distinct !DILexicalBlock(scope: !12, file: !7, line: 18, column: 5)
!28 = !DILocation(line: 22, column: 22, scope: !27)
!29 = !DILocation(line: 863, column: 18, scope: !30, inlinedAt: !35)
!30 = distinct !DISubprogram(name: "add<u32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPm3addCs369jk16OTN0_16spin_after_panic", scope: !32, file: !31, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!31 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/ptr/const_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "48638a38fe414ca30cde797e4a40b3a9")
!32 = !DINamespace(name: "{impl#0}", scope: !33)
!33 = !DINamespace(name: "const_ptr", scope: !34)
!34 = !DINamespace(name: "ptr", scope: !18)
!35 = !DILocation(line: 22, column: 18, scope: !27)
!36 = !DILocation(line: 22, column: 13, scope: !27)
!37 = !DILocation(line: 23, column: 8, scope: !38)
!38 = distinct !DILexicalBlock(scope: !27, file: !7, line: 22, column: 5)
!39 = !DILocation(line: 27, column: 28, scope: !38)
!40 = !DILocation(line: 961, column: 18, scope: !41, inlinedAt: !45)
!41 = distinct !DISubprogram(name: "add<u32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr7mut_ptrOm3addCs369jk16OTN0_16spin_after_panic", scope: !43, file: !42, line: 927, type: !9, scopeLine: 927, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!42 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/ptr/mut_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "7c03c8e0ae695174f7f10881dc49d2cb")
!43 = !DINamespace(name: "{impl#0}", scope: !44)
!44 = !DINamespace(name: "mut_ptr", scope: !34)
!45 = !DILocation(line: 27, column: 10, scope: !38)
!46 = !DILocation(line: 27, column: 5, scope: !38)
!47 = !DILocation(line: 28, column: 2, scope: !12)
!48 = !DILocation(line: 24, column: 9, scope: !38)
!49 = !DILocation(line: 25, column: 9, scope: !38)
!50 = distinct !DISubprogram(name: "report_bad_index", scope: !8, file: !7, line: 12, type: !9, scopeLine: 12, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!51 = !DILocation(line: 13, column: 14, scope: !50)
!52 = !DILocation(line: 14, column: 2, scope: !50)
