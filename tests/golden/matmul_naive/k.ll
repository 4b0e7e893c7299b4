; ModuleID = 'matmul_naive.1694dd2f3cd59f5d-cgu.0'
source_filename = "matmul_naive.1694dd2f3cd59f5d-cgu.0"
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
define ptx_kernel void @matmul_naive(ptr noundef readonly captures(none) %a, ptr noundef readonly captures(none) %b, ptr noundef writeonly captures(none) %c, i32 noundef %m, i32 noundef %n, i32 noundef %k) unnamed_addr #1 !dbg !12 {
start:
  %n2 = zext i32 %n to i64, !dbg !13
  %k3 = zext i32 %k to i64, !dbg !14
  %_13 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y(), !dbg !15
  %_14 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.y(), !dbg !23
  %_12 = mul nuw nsw i32 %_13, %_14, !dbg !21
  %_15 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.y(), !dbg !26
  %_11 = add nuw nsw i32 %_12, %_15, !dbg !29
  %row = zext nneg i32 %_11 to i64, !dbg !29
  %_19 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !30
  %_20 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !34
  %_18 = mul i32 %_19, %_20, !dbg !32
  %_21 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !37
  %_17 = add i32 %_18, %_21, !dbg !40
  %col = zext i32 %_17 to i64, !dbg !40
  %_22 = icmp uge i32 %_11, %m, !dbg !41
  %_23 = icmp uge i32 %_17, %n
  %or.cond = or i1 %_22, %_23, !dbg !41
  br i1 %or.cond, label %bb5, label %bb4.preheader, !dbg !41

bb4.preheader:                                    ; preds = %start
  %invariant.gep = getelementptr float, ptr %b, i64 %col, !dbg !43
  %_396.not = icmp eq i32 %k, 0, !dbg !56
  br i1 %_396.not, label %bb13, label %bb12.lr.ph, !dbg !43

bb12.lr.ph:                                       ; preds = %bb4.preheader
  %_31 = mul nuw nsw i64 %k3, %row
  %0 = getelementptr inbounds nuw float, ptr %a, i64 %_31
  %xtraiter = and i64 %k3, 3, !dbg !43
  %1 = icmp ult i32 %k, 4, !dbg !43
  br i1 %1, label %bb12.epil.preheader, label %bb12.lr.ph.new, !dbg !43

bb12.lr.ph.new:                                   ; preds = %bb12.lr.ph
  %unroll_iter = and i64 %k3, 4294967292, !dbg !43
  br label %bb12, !dbg !43

bb13.loopexit.unr-lcssa:                          ; preds = %bb12
  %lcmp.mod.not = icmp eq i64 %xtraiter, 0, !dbg !43
  br i1 %lcmp.mod.not, label %bb13, label %bb12.epil.preheader, !dbg !43

bb12.epil.preheader:                              ; preds = %bb13.loopexit.unr-lcssa, %bb12.lr.ph
  %sum.sroa.0.08.epil.init = phi float [ 0.000000e+00, %bb12.lr.ph ], [ %12, %bb13.loopexit.unr-lcssa ]
  %iter.sroa.0.07.epil.init = phi i64 [ 0, %bb12.lr.ph ], [ %11, %bb13.loopexit.unr-lcssa ]
  %lcmp.mod10 = icmp ne i64 %xtraiter, 0, !dbg !43
  tail call void @llvm.assume(i1 %lcmp.mod10), !dbg !43
  br label %bb12.epil, !dbg !43

bb12.epil:                                        ; preds = %bb12.epil, %bb12.epil.preheader
  %sum.sroa.0.08.epil = phi float [ %sum.sroa.0.08.epil.init, %bb12.epil.preheader ], [ %3, %bb12.epil ]
  %iter.sroa.0.07.epil = phi i64 [ %iter.sroa.0.07.epil.init, %bb12.epil.preheader ], [ %2, %bb12.epil ]
  %epil.iter = phi i64 [ 0, %bb12.epil.preheader ], [ %epil.iter.next, %bb12.epil ]
  %2 = add nuw nsw i64 %iter.sroa.0.07.epil, 1, !dbg !62
  %_29.epil = getelementptr inbounds nuw float, ptr %0, i64 %iter.sroa.0.07.epil, !dbg !72
  %_28.epil = load float, ptr %_29.epil, align 4, !dbg !80, !noundef !10
  %_35.epil = mul nuw i64 %iter.sroa.0.07.epil, %n2, !dbg !81
  %gep.epil = getelementptr float, ptr %invariant.gep, i64 %_35.epil, !dbg !82
  %_32.epil = load float, ptr %gep.epil, align 4, !dbg !84, !noundef !10
  %_27.epil = fmul float %_28.epil, %_32.epil, !dbg !80
  %3 = fadd float %sum.sroa.0.08.epil, %_27.epil, !dbg !85
  %epil.iter.next = add i64 %epil.iter, 1, !dbg !43
  %epil.iter.cmp.not = icmp eq i64 %epil.iter.next, %xtraiter, !dbg !43
  br i1 %epil.iter.cmp.not, label %bb13, label %bb12.epil, !dbg !43, !llvm.loop !86

bb13:                                             ; preds = %bb13.loopexit.unr-lcssa, %bb12.epil, %bb4.preheader
  %sum.sroa.0.0.lcssa = phi float [ 0.000000e+00, %bb4.preheader ], [ %12, %bb13.loopexit.unr-lcssa ], [ %3, %bb12.epil ], !dbg !88
  %_38 = mul nuw nsw i64 %n2, %row, !dbg !89
  %4 = getelementptr inbounds nuw float, ptr %c, i64 %_38, !dbg !90
  %_36 = getelementptr inbounds nuw float, ptr %4, i64 %col, !dbg !90
  store float %sum.sroa.0.0.lcssa, ptr %_36, align 4, !dbg !96
  br label %bb5, !dbg !97

bb12:                                             ; preds = %bb12, %bb12.lr.ph.new
  %sum.sroa.0.08 = phi float [ 0.000000e+00, %bb12.lr.ph.new ], [ %12, %bb12 ]
  %iter.sroa.0.07 = phi i64 [ 0, %bb12.lr.ph.new ], [ %11, %bb12 ]
  %niter = phi i64 [ 0, %bb12.lr.ph.new ], [ %niter.next.3, %bb12 ]
  %5 = or disjoint i64 %iter.sroa.0.07, 1, !dbg !62
  %_29 = getelementptr inbounds nuw float, ptr %0, i64 %iter.sroa.0.07, !dbg !72
  %_28 = load float, ptr %_29, align 4, !dbg !80, !noundef !10
  %_35 = mul nuw i64 %iter.sroa.0.07, %n2, !dbg !81
  %gep = getelementptr float, ptr %invariant.gep, i64 %_35, !dbg !82
  %_32 = load float, ptr %gep, align 4, !dbg !84, !noundef !10
  %_27 = fmul float %_28, %_32, !dbg !80
  %6 = fadd float %sum.sroa.0.08, %_27, !dbg !85
  %7 = or disjoint i64 %iter.sroa.0.07, 2, !dbg !62
  %_29.1 = getelementptr inbounds nuw float, ptr %0, i64 %5, !dbg !72
  %_28.1 = load float, ptr %_29.1, align 4, !dbg !80, !noundef !10
  %_35.1 = mul nuw i64 %5, %n2, !dbg !81
  %gep.1 = getelementptr float, ptr %invariant.gep, i64 %_35.1, !dbg !82
  %_32.1 = load float, ptr %gep.1, align 4, !dbg !84, !noundef !10
  %_27.1 = fmul float %_28.1, %_32.1, !dbg !80
  %8 = fadd float %6, %_27.1, !dbg !85
  %9 = or disjoint i64 %iter.sroa.0.07, 3, !dbg !62
  %_29.2 = getelementptr inbounds nuw float, ptr %0, i64 %7, !dbg !72
  %_28.2 = load float, ptr %_29.2, align 4, !dbg !80, !noundef !10
  %_35.2 = mul nuw i64 %7, %n2, !dbg !81
  %gep.2 = getelementptr float, ptr %invariant.gep, i64 %_35.2, !dbg !82
  %_32.2 = load float, ptr %gep.2, align 4, !dbg !84, !noundef !10
  %_27.2 = fmul float %_28.2, %_32.2, !dbg !80
  %10 = fadd float %8, %_27.2, !dbg !85
  %11 = add nuw nsw i64 %iter.sroa.0.07, 4, !dbg !62
  %_29.3 = getelementptr inbounds nuw float, ptr %0, i64 %9, !dbg !72
  %_28.3 = load float, ptr %_29.3, align 4, !dbg !80, !noundef !10
  %_35.3 = mul nuw i64 %9, %n2, !dbg !81
  %gep.3 = getelementptr float, ptr %invariant.gep, i64 %_35.3, !dbg !82
  %_32.3 = load float, ptr %gep.3, align 4, !dbg !84, !noundef !10
  %_27.3 = fmul float %_28.3, %_32.3, !dbg !80
  %12 = fadd float %10, %_27.3, !dbg !85
  %niter.next.3 = add i64 %niter, 4, !dbg !43
  %niter.ncmp.3 = icmp eq i64 %niter.next.3, %unroll_iter, !dbg !43
  br i1 %niter.ncmp.3, label %bb13.loopexit.unr-lcssa, label %bb12, !dbg !43

bb5:                                              ; preds = %start, %bb13
  ret void, !dbg !97
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #3

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { nofree norecurse nosync nounwind memory(argmem: readwrite) "target-cpu"="sm_90" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "/work/main/examples/matmul_naive.rs/@/matmul_naive.1694dd2f3cd59f5d-cgu.0", directory: "/tmp/kernelscope-build-CDIHCw")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 38, type: !9, scopeLine: 38, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "/work/main/examples/matmul_naive.rs", directory: "", checksumkind: CSK_MD5, checksum: "2eff808f18a231d4f98ce8324e355494")
!8 = !DINamespace(name: "matmul_naive", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 39, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "matmul_naive", scope: !8, file: !7, line: 15, type: !9, scopeLine: 15, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 23, column: 34, scope: !12)
!14 = !DILocation(line: 23, column: 46, scope: !12)
!15 = !DILocation(line: 90, column: 5, scope: !16, inlinedAt: !21)
!16 = distinct !DISubprogram(name: "_block_idx_y", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_y", scope: !18, file: !17, line: 89, type: !9, scopeLine: 89, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!17 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!18 = !DINamespace(name: "nvptx", scope: !19)
!19 = !DINamespace(name: "core_arch", scope: !20)
!20 = !DINamespace(name: "core", scope: null)
!21 = !DILocation(line: 24, column: 16, scope: !22)
!22 = distinct !DILexicalBlock(scope: !12, file: !7, line: 23, column: 5)
!23 = !DILocation(line: 69, column: 5, scope: !24, inlinedAt: !25)
!24 = distinct !DISubprogram(name: "_block_dim_y", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_y", scope: !18, file: !17, line: 68, type: !9, scopeLine: 68, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!25 = !DILocation(line: 24, column: 40, scope: !22)
!26 = !DILocation(line: 132, column: 5, scope: !27, inlinedAt: !28)
!27 = distinct !DISubprogram(name: "_thread_idx_y", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_y", scope: !18, file: !17, line: 131, type: !9, scopeLine: 131, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!28 = !DILocation(line: 24, column: 64, scope: !22)
!29 = !DILocation(line: 24, column: 15, scope: !22)
!30 = !DILocation(line: 83, column: 5, scope: !31, inlinedAt: !32)
!31 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !18, file: !17, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!32 = !DILocation(line: 25, column: 16, scope: !33)
!33 = distinct !DILexicalBlock(scope: !22, file: !7, line: 24, column: 5)
!34 = !DILocation(line: 62, column: 5, scope: !35, inlinedAt: !36)
!35 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_x", scope: !18, file: !17, line: 61, type: !9, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!36 = !DILocation(line: 25, column: 40, scope: !33)
!37 = !DILocation(line: 125, column: 5, scope: !38, inlinedAt: !39)
!38 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !18, file: !17, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!39 = !DILocation(line: 25, column: 64, scope: !33)
!40 = !DILocation(line: 25, column: 15, scope: !33)
!41 = !DILocation(line: 26, column: 8, scope: !42)
!42 = distinct !DILexicalBlock(scope: !33, file: !7, line: 25, column: 5)
!43 = !DILocation(line: 900, column: 12, scope: !44, inlinedAt: !49)
!44 = distinct !DISubprogram(name: "spec_next<usize>", linkageName: "_RNvXs3_NtNtCs5rUtojj0lOx_4core4iter5rangeINtNtNtB9_3ops5range5RangejENtB5_17RangeIteratorImpl9spec_nextCs1WcrQZteSCf_12matmul_naive", scope: !46, file: !45, line: 899, type: !9, scopeLine: 899, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!45 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/iter/range.rs", directory: "", checksumkind: CSK_MD5, checksum: "8a1edc6f95cc68d16f4520681467edec")
!46 = !DINamespace(name: "{impl#5}", scope: !47)
!47 = !DINamespace(name: "range", scope: !48)
!48 = !DINamespace(name: "iter", scope: !20)
!49 = !DILocation(line: 985, column: 14, scope: !50, inlinedAt: !52)
!50 = distinct !DISubprogram(name: "next<usize>", linkageName: "_RNvXs4_NtNtCs5rUtojj0lOx_4core4iter5rangeINtNtNtB9_3ops5range5RangejENtNtNtB7_6traits8iterator8Iterator4nextCs1WcrQZteSCf_12matmul_naive", scope: !51, file: !45, line: 984, type: !9, scopeLine: 984, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!51 = !DINamespace(name: "{impl#6}", scope: !47)
!52 = !DILocation(line: 31, column: 14, scope: !53)
!53 = !DILexicalBlockFile(scope: !54, file: !7, discriminator: 2)
!54 = distinct !DILexicalBlock(scope: !55, file: !7, line: 31, column: 5)
!55 = distinct !DILexicalBlock(scope: !42, file: !7, line: 30, column: 5)
!56 = !DILocation(line: 1915, column: 50, scope: !57, inlinedAt: !43)
!57 = distinct !DISubprogram(name: "lt", linkageName: "_RNvXsU_NtNtCs5rUtojj0lOx_4core3cmp5implsjNtB7_10PartialOrd2lt", scope: !59, file: !58, line: 1915, type: !9, scopeLine: 1915, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!58 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/cmp.rs", directory: "", checksumkind: CSK_MD5, checksum: "736a93835c8eb09f7e6c373983e20e04")
!59 = !DINamespace(name: "{impl#58}", scope: !60)
!60 = !DINamespace(name: "impls", scope: !61)
!61 = !DINamespace(name: "cmp", scope: !20)
!62 = !DILocation(line: 898, column: 17, scope: !63, inlinedAt: !67)
!63 = distinct !DISubprogram(name: "unchecked_add", linkageName: "_RNvMs9_NtCs5rUtojj0lOx_4core3numj13unchecked_add", scope: !65, file: !64, line: 886, type: !9, scopeLine: 886, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!64 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/num/uint_macros.rs", directory: "", checksumkind: CSK_MD5, checksum: "5fc7d5e74eb0c3c3b6eb5c642b7e095f")
!65 = !DINamespace(name: "{impl#11}", scope: !66)
!66 = !DINamespace(name: "num", scope: !20)
!67 = !DILocation(line: 215, column: 28, scope: !68, inlinedAt: !70)
!68 = distinct !DISubprogram(name: "forward_unchecked", linkageName: "_RNvXsL_NtNtCs5rUtojj0lOx_4core4iter5rangejNtB5_4Step17forward_unchecked", scope: !69, file: !45, line: 213, type: !9, scopeLine: 213, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!69 = !DINamespace(name: "{impl#49}", scope: !47)
!70 = !DILocation(line: 903, column: 35, scope: !71, inlinedAt: !49)
!71 = distinct !DILexicalBlock(scope: !44, file: !45, line: 901, column: 13)
!72 = !DILocation(line: 863, column: 18, scope: !73, inlinedAt: !78)
!73 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPf3addCs1WcrQZteSCf_12matmul_naive", scope: !75, file: !74, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!74 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/ptr/const_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "48638a38fe414ca30cde797e4a40b3a9")
!75 = !DINamespace(name: "{impl#0}", scope: !76)
!76 = !DINamespace(name: "const_ptr", scope: !77)
!77 = !DINamespace(name: "ptr", scope: !20)
!78 = !DILocation(line: 32, column: 19, scope: !79)
!79 = distinct !DILexicalBlock(scope: !54, file: !7, line: 31, column: 5)
!80 = !DILocation(line: 32, column: 16, scope: !79)
!81 = !DILocation(line: 32, column: 45, scope: !79)
!82 = !DILocation(line: 863, column: 18, scope: !73, inlinedAt: !83)
!83 = !DILocation(line: 32, column: 41, scope: !79)
!84 = !DILocation(line: 32, column: 38, scope: !79)
!85 = !DILocation(line: 32, column: 9, scope: !79)
!86 = distinct !{!86, !87}
!87 = !{!"llvm.loop.unroll.disable"}
!88 = !DILocation(line: 0, scope: !42)
!89 = !DILocation(line: 34, column: 12, scope: !55)
!90 = !DILocation(line: 961, column: 18, scope: !91, inlinedAt: !95)
!91 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr7mut_ptrOf3addCs1WcrQZteSCf_12matmul_naive", scope: !93, file: !92, line: 927, type: !9, scopeLine: 927, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!92 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/ptr/mut_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "7c03c8e0ae695174f7f10881dc49d2cb")
!93 = !DINamespace(name: "{impl#0}", scope: !94)
!94 = !DINamespace(name: "mut_ptr", scope: !77)
!95 = !DILocation(line: 34, column: 8, scope: !55)
!96 = !DILocation(line: 34, column: 5, scope: !55)
!97 = !DILocation(line: 35, column: 2, scope: !12)
