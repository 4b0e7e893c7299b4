; ModuleID = 'atomics.928c20deecd9b689-cgu.0'
source_filename = "atomics.928c20deecd9b689-cgu.0"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%"core::sync::atomic::Atomic<u32>" = type { %"core::cell::UnsafeCell<core::sync::atomic::private::Align4<u32>>" }
%"core::cell::UnsafeCell<core::sync::atomic::private::Align4<u32>>" = type { %"core::sync::atomic::private::Align4<u32>" }
%"core::sync::atomic::private::Align4<u32>" = type { i32 }

; __rustc::rust_begin_unwind
; Function Attrs: nofree norecurse noreturn nosync nounwind memory(none)
define void @_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind(ptr noalias noundef readonly align 8 captures(none) dereferenceable(24) %_1) unnamed_addr #0 !dbg !6 {
start:
  br label %bb1, !dbg !11

bb1:                                              ; preds = %bb1, %start
  br label %bb1, !dbg !11
}

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define ptx_kernel void @histogram16(ptr noundef readonly captures(none) %data, i32 noundef %n, ptr noundef captures(none) %bins) unnamed_addr #1 !dbg !12 {
start:
  %_6 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13
  %_7 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !20
  %_5 = mul i32 %_6, %_7, !dbg !19
  %_8 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !23
  %i = add i32 %_5, %_8, !dbg !19
  %_9 = icmp ult i32 %i, %n, !dbg !26
  br i1 %_9, label %bb1, label %bb2, !dbg !26

bb2:                                              ; preds = %bb1, %start
  ret void, !dbg !28

bb1:                                              ; preds = %start
  %_13 = zext i32 %i to i64, !dbg !29
  %_12 = getelementptr inbounds nuw i32, ptr %data, i64 %_13, !dbg !30
  %_11 = load i32, ptr %_12, align 4, !dbg !37, !noundef !10
  %bin = and i32 %_11, 15, !dbg !37
  %_16 = zext nneg i32 %bin to i64, !dbg !38
  %_15 = getelementptr inbounds nuw %"core::sync::atomic::Atomic<u32>", ptr %bins, i64 %_16, !dbg !40
  %0 = atomicrmw add ptr %_15, i32 1 monotonic, align 4, !dbg !43
  br label %bb2, !dbg !52
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "target-cpu"="sm_90" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "${SRC}/tests/fixtures/atomics.rs/@/atomics.928c20deecd9b689-cgu.0", directory: "${TMP1}")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 18, type: !9, scopeLine: 18, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "${SRC}/tests/fixtures/atomics.rs", directory: "", checksumkind: CSK_MD5, checksum: "f3fd8623c7dddb3a811f23299576dad4")
!8 = !DINamespace(name: "atomics", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 19, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "histogram16", scope: !8, file: !7, line: 9, type: !9, scopeLine: 9, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 83, column: 5, scope: !14, inlinedAt: !19)
!14 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !16, file: !15, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!15 = !DIFile(filename: "${RUST_SRC}/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!16 = !DINamespace(name: "nvptx", scope: !17)
!17 = !DINamespace(name: "core_arch", scope: !18)
!18 = !DINamespace(name: "core", scope: null)
!19 = !DILocation(line: 10, column: 13, scope: !12)
!20 = !DILocation(line: 62, column: 5, scope: !21, inlinedAt: !22)
!21 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_x", scope: !16, file: !15, line: 61, type: !9, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!22 = !DILocation(line: 10, column: 37, scope: !12)
!23 = !DILocation(line: 125, column: 5, scope: !24, inlinedAt: !25)
!24 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !16, file: !15, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!25 = !DILocation(line: 10, column: 61, scope: !12)
!26 = !DILocation(line: 11, column: 8, scope: !27)
!27 = distinct !DILexicalBlock(scope: !12, file: !7, line: 10, column: 5)
!28 = !DILocation(line: 15, column: 2, scope: !12)
!29 = !DILocation(line: 12, column: 29, scope: !27)
!30 = !DILocation(line: 863, column: 18, scope: !31, inlinedAt: !36)
!31 = distinct !DISubprogram(name: "add<u32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPm3addCscA4el6KMPob_7atomics", scope: !33, file: !32, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!32 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/const_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "48638a38fe414ca30cde797e4a40b3a9")
!33 = !DINamespace(name: "{impl#0}", scope: !34)
!34 = !DINamespace(name: "const_ptr", scope: !35)
!35 = !DINamespace(name: "ptr", scope: !18)
!36 = !DILocation(line: 12, column: 25, scope: !27)
!37 = !DILocation(line: 12, column: 19, scope: !27)
!38 = !DILocation(line: 13, column: 20, scope: !39)
!39 = distinct !DILexicalBlock(scope: !27, file: !7, line: 12, column: 9)
!40 = !DILocation(line: 863, column: 18, scope: !41, inlinedAt: !42)
!41 = distinct !DISubprogram(name: "add<core::sync::atomic::Atomic<u32>>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPINtNtNtB6_4sync6atomic6AtomicmE3addCscA4el6KMPob_7atomics", scope: !33, file: !32, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!42 = !DILocation(line: 13, column: 16, scope: !39)
!43 = !DILocation(line: 3937, column: 24, scope: !44, inlinedAt: !48)
!44 = distinct !DISubprogram(name: "atomic_add<u32, u32>", linkageName: "_RINvNtNtCs5rUtojj0lOx_4core4sync6atomic10atomic_addmmECscA4el6KMPob_7atomics", scope: !46, file: !45, line: 3933, type: !9, scopeLine: 3933, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!45 = !DIFile(filename: "${RUST_SRC}/core/src/sync/atomic.rs", directory: "", checksumkind: CSK_MD5, checksum: "0fa055d022a09bf85eb4fa0bc0114101")
!46 = !DINamespace(name: "atomic", scope: !47)
!47 = !DINamespace(name: "sync", scope: !18)
!48 = !DILocation(line: 3162, column: 26, scope: !49, inlinedAt: !51)
!49 = distinct !DISubprogram(name: "fetch_add", linkageName: "_RNvMs14_NtNtCs5rUtojj0lOx_4core4sync6atomicINtB6_6AtomicmE9fetch_add", scope: !50, file: !45, line: 3160, type: !9, scopeLine: 3160, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!50 = !DINamespace(name: "Atomic", scope: !46)
!51 = !DILocation(line: 13, column: 35, scope: !39)
!52 = !DILocation(line: 11, column: 5, scope: !27)
