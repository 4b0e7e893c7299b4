; ModuleID = 'jump_table.3cdbe167bf2beb2e-cgu.0'
source_filename = "jump_table.3cdbe167bf2beb2e-cgu.0"
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
define ptx_kernel void @dispatch(ptr noundef readonly captures(none) %ops, ptr noundef readonly captures(none) %a, ptr noundef readonly captures(none) %b, ptr noundef writeonly captures(none) %out, i32 noundef %n) unnamed_addr #1 !dbg !12 {
start:
  %_9 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13
  %_10 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !20
  %_8 = mul i32 %_9, %_10, !dbg !19
  %_11 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !23
  %_7 = add i32 %_8, %_11, !dbg !26
  %i = zext i32 %_7 to i64, !dbg !26
  %_12.not = icmp ult i32 %_7, %n, !dbg !27
  br i1 %_12.not, label %bb2, label %bb15, !dbg !27

bb2:                                              ; preds = %start
  %_15 = getelementptr inbounds nuw float, ptr %a, i64 %i, !dbg !29
  %x = load float, ptr %_15, align 4, !dbg !36, !noundef !10
  %_17 = getelementptr inbounds nuw float, ptr %b, i64 %i, !dbg !37
  %y = load float, ptr %_17, align 4, !dbg !39, !noundef !10
  %_19 = getelementptr inbounds nuw i32, ptr %ops, i64 %i, !dbg !40
  %0 = load i32, ptr %_19, align 4, !dbg !44, !noundef !10
  switch i32 %0, label %bb14 [
    i32 0, label %bb13
    i32 1, label %bb12
    i32 2, label %bb11
    i32 3, label %bb10
    i32 4, label %bb9
    i32 5, label %bb8
    i32 6, label %bb7
    i32 7, label %bb6
    i32 8, label %bb5
    i32 9, label %bb4
  ], !dbg !44

bb13:                                             ; preds = %bb2
  %1 = fadd float %x, %y, !dbg !45
  br label %bb14, !dbg !46

bb12:                                             ; preds = %bb2
  %2 = fsub float %x, %y, !dbg !47
  br label %bb14, !dbg !48

bb11:                                             ; preds = %bb2
  %3 = fmul float %x, %y, !dbg !49
  br label %bb14, !dbg !50

bb10:                                             ; preds = %bb2
  %4 = fdiv float %x, %y, !dbg !51
  br label %bb14, !dbg !52

bb9:                                              ; preds = %bb2
  %_20 = fmul float %x, %x, !dbg !53
  %5 = fadd float %_20, %y, !dbg !53
  br label %bb14, !dbg !54

bb8:                                              ; preds = %bb2
  %_21 = fmul float %y, %y, !dbg !55
  %6 = fsub float %_21, %x, !dbg !55
  br label %bb14, !dbg !56

bb7:                                              ; preds = %bb2
  %_22 = fadd float %x, 1.000000e+00, !dbg !57
  %_23 = fadd float %y, -1.000000e+00, !dbg !58
  %7 = fmul float %_22, %_23, !dbg !57
  br label %bb14, !dbg !59

bb6:                                              ; preds = %bb2
  %_24 = fmul float %x, 3.000000e+00, !dbg !60
  %_25 = fmul float %y, 2.000000e+00, !dbg !61
  %8 = fsub float %_24, %_25, !dbg !60
  br label %bb14, !dbg !62

bb5:                                              ; preds = %bb2
  %9 = tail call nsz float @llvm.maximumnum.f32(float %x, float %y), !dbg !63
  br label %bb14, !dbg !63

bb4:                                              ; preds = %bb2
  %10 = tail call nsz float @llvm.minimumnum.f32(float %x, float %y), !dbg !69
  br label %bb14, !dbg !69

bb14:                                             ; preds = %bb2, %bb4, %bb5, %bb6, %bb7, %bb8, %bb9, %bb10, %bb11, %bb12, %bb13
  %r.sroa.0.0 = phi float [ %10, %bb4 ], [ %1, %bb13 ], [ %2, %bb12 ], [ %3, %bb11 ], [ %4, %bb10 ], [ %5, %bb9 ], [ %6, %bb8 ], [ %7, %bb7 ], [ %8, %bb6 ], [ %9, %bb5 ], [ 0.000000e+00, %bb2 ], !dbg !72
  %_26 = getelementptr inbounds nuw float, ptr %out, i64 %i, !dbg !73
  store float %r.sroa.0.0, ptr %_26, align 4, !dbg !80
  br label %bb15, !dbg !81

bb15:                                             ; preds = %start, %bb14
  ret void, !dbg !81

; uselistorder directives
  uselistorder i64 %i, { 3, 2, 1, 0 }
  uselistorder float %y, { 1, 2, 3, 0, 4, 5, 6, 7, 8, 9, 10 }
  uselistorder label %bb14, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0 }
  uselistorder label %bb15, { 1, 0 }
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maximumnum.f32(float, float) #3

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.minimumnum.f32(float, float) #3

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "target-cpu"="sm_90" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "${SRC}/tests/fixtures/jump_table.rs/@/jump_table.3cdbe167bf2beb2e-cgu.0", directory: "${TMP1}")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 33, type: !9, scopeLine: 33, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "${SRC}/tests/fixtures/jump_table.rs", directory: "", checksumkind: CSK_MD5, checksum: "1914f54997c831f4a72b005152815fa6")
!8 = !DINamespace(name: "jump_table", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 34, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "dispatch", scope: !8, file: !7, line: 10, type: !9, scopeLine: 10, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 83, column: 5, scope: !14, inlinedAt: !19)
!14 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !16, file: !15, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!15 = !DIFile(filename: "${RUST_SRC}/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!16 = !DINamespace(name: "nvptx", scope: !17)
!17 = !DINamespace(name: "core_arch", scope: !18)
!18 = !DINamespace(name: "core", scope: null)
!19 = !DILocation(line: 11, column: 14, scope: !12)
!20 = !DILocation(line: 62, column: 5, scope: !21, inlinedAt: !22)
!21 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_x", scope: !16, file: !15, line: 61, type: !9, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!22 = !DILocation(line: 11, column: 38, scope: !12)
!23 = !DILocation(line: 125, column: 5, scope: !24, inlinedAt: !25)
!24 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !16, file: !15, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!25 = !DILocation(line: 11, column: 62, scope: !12)
!26 = !DILocation(line: 11, column: 13, scope: !12)
!27 = !DILocation(line: 12, column: 8, scope: !28)
!28 = distinct !DILexicalBlock(scope: !12, file: !7, line: 11, column: 5)
!29 = !DILocation(line: 863, column: 18, scope: !30, inlinedAt: !35)
!30 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPf3addCs5dWVSjIMhNG_10jump_table", scope: !32, file: !31, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!31 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/const_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "48638a38fe414ca30cde797e4a40b3a9")
!32 = !DINamespace(name: "{impl#0}", scope: !33)
!33 = !DINamespace(name: "const_ptr", scope: !34)
!34 = !DINamespace(name: "ptr", scope: !18)
!35 = !DILocation(line: 15, column: 22, scope: !28)
!36 = !DILocation(line: 15, column: 19, scope: !28)
!37 = !DILocation(line: 863, column: 18, scope: !30, inlinedAt: !38)
!38 = !DILocation(line: 15, column: 33, scope: !28)
!39 = !DILocation(line: 15, column: 30, scope: !28)
!40 = !DILocation(line: 863, column: 18, scope: !41, inlinedAt: !42)
!41 = distinct !DISubprogram(name: "add<u32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPm3addCs5dWVSjIMhNG_10jump_table", scope: !32, file: !31, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!42 = !DILocation(line: 16, column: 24, scope: !43)
!43 = distinct !DILexicalBlock(scope: !28, file: !7, line: 15, column: 5)
!44 = !DILocation(line: 16, column: 13, scope: !43)
!45 = !DILocation(line: 17, column: 14, scope: !43)
!46 = !DILocation(line: 17, column: 18, scope: !43)
!47 = !DILocation(line: 18, column: 14, scope: !43)
!48 = !DILocation(line: 18, column: 18, scope: !43)
!49 = !DILocation(line: 19, column: 14, scope: !43)
!50 = !DILocation(line: 19, column: 18, scope: !43)
!51 = !DILocation(line: 20, column: 14, scope: !43)
!52 = !DILocation(line: 20, column: 18, scope: !43)
!53 = !DILocation(line: 21, column: 14, scope: !43)
!54 = !DILocation(line: 21, column: 22, scope: !43)
!55 = !DILocation(line: 22, column: 14, scope: !43)
!56 = !DILocation(line: 22, column: 22, scope: !43)
!57 = !DILocation(line: 23, column: 14, scope: !43)
!58 = !DILocation(line: 23, column: 26, scope: !43)
!59 = !DILocation(line: 23, column: 34, scope: !43)
!60 = !DILocation(line: 24, column: 14, scope: !43)
!61 = !DILocation(line: 24, column: 24, scope: !43)
!62 = !DILocation(line: 24, column: 30, scope: !43)
!63 = !DILocation(line: 993, column: 9, scope: !64, inlinedAt: !68)
!64 = distinct !DISubprogram(name: "max", linkageName: "_RNvMNtCs5rUtojj0lOx_4core3f32f3max", scope: !66, file: !65, line: 992, type: !9, scopeLine: 992, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!65 = !DIFile(filename: "${RUST_SRC}/core/src/num/f32.rs", directory: "", checksumkind: CSK_MD5, checksum: "0e4f662ea3ad3d350d8909d9408ce176")
!66 = !DINamespace(name: "{impl#0}", scope: !67)
!67 = !DINamespace(name: "f32", scope: !18)
!68 = !DILocation(line: 25, column: 16, scope: !43)
!69 = !DILocation(line: 1020, column: 9, scope: !70, inlinedAt: !71)
!70 = distinct !DISubprogram(name: "min", linkageName: "_RNvMNtCs5rUtojj0lOx_4core3f32f3min", scope: !66, file: !65, line: 1019, type: !9, scopeLine: 1019, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!71 = !DILocation(line: 26, column: 16, scope: !43)
!72 = !DILocation(line: 0, scope: !43)
!73 = !DILocation(line: 961, column: 18, scope: !74, inlinedAt: !78)
!74 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr7mut_ptrOf3addCs5dWVSjIMhNG_10jump_table", scope: !76, file: !75, line: 927, type: !9, scopeLine: 927, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!75 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/mut_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "7c03c8e0ae695174f7f10881dc49d2cb")
!76 = !DINamespace(name: "{impl#0}", scope: !77)
!77 = !DINamespace(name: "mut_ptr", scope: !34)
!78 = !DILocation(line: 29, column: 10, scope: !79)
!79 = distinct !DILexicalBlock(scope: !43, file: !7, line: 16, column: 5)
!80 = !DILocation(line: 29, column: 5, scope: !79)
!81 = !DILocation(line: 30, column: 2, scope: !12)
