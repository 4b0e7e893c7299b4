; ModuleID = 'matmul_tiled.ffc1fc1088abbaef-cgu.0'
source_filename = "matmul_tiled.ffc1fc1088abbaef-cgu.0"
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

; Function Attrs: convergent nounwind
define ptx_kernel void @matmul_tiled(ptr noundef readonly captures(none) %a, ptr noundef readonly captures(none) %b, ptr noundef writeonly captures(none) %c, i32 noundef %m, i32 noundef %n, i32 noundef %k) unnamed_addr #1 !dbg !12 {
start:
  %0 = tail call ptr asm sideeffect ".shared .align 4 .b8 matmul_a_tile[1024];\0Acvta.shared.u64 ${0}, matmul_a_tile;", "=&l,~{memory}"() #4, !dbg !13, !srcloc !15
  %1 = tail call ptr asm sideeffect ".shared .align 4 .b8 matmul_b_tile[1024];\0Acvta.shared.u64 ${0}, matmul_b_tile;", "=&l,~{memory}"() #4, !dbg !16, !srcloc !15
  %n4 = zext i32 %n to i64, !dbg !19
  %k5 = zext i32 %k to i64, !dbg !21
  %_13 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !22
  %tx = zext nneg i32 %_13 to i64, !dbg !28
  %_15 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.y(), !dbg !30
  %ty = zext nneg i32 %_15 to i64, !dbg !32
  %_19 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y(), !dbg !34
  %2 = shl nuw nsw i32 %_19, 4, !dbg !36
  %narrow = add nuw nsw i32 %2, %_15, !dbg !36
  %row = zext nneg i32 %narrow to i64, !dbg !36
  %_23 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !38
  %_22 = zext nneg i32 %_23 to i64, !dbg !40
  %_21 = shl nuw nsw i64 %_22, 4, !dbg !40
  %col = add nuw nsw i64 %_21, %tx, !dbg !40
  %3 = add nuw nsw i64 %k5, 15, !dbg !42
  %iter.sroa.0.0 = lshr i64 %3, 4, !dbg !42
  %invariant.gep16 = getelementptr float, ptr %b, i64 %col, !dbg !52
  %_6718.not = icmp eq i64 %iter.sroa.0.0, 0, !dbg !54
  br i1 %_6718.not, label %bb24, label %bb23.lr.ph, !dbg !60

bb23.lr.ph:                                       ; preds = %start
  %_32 = icmp ult i32 %narrow, %m
  %_36 = mul nuw nsw i64 %k5, %row
  %4 = getelementptr inbounds nuw float, ptr %a, i64 %_36
  %_39 = shl nuw nsw i64 %ty, 4
  %_38 = add nuw nsw i64 %_39, %tx
  %_37 = getelementptr inbounds nuw float, ptr %0, i64 %_38
  %_42 = icmp samesign ult i64 %col, %n4
  %_46 = getelementptr inbounds nuw float, ptr %1, i64 %_38
  %5 = getelementptr inbounds nuw float, ptr %0, i64 %_39
  %invariant.gep = getelementptr inbounds nuw float, ptr %1, i64 %tx
  %_52.1 = getelementptr inbounds nuw i8, ptr %5, i64 4
  %gep.1 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 64
  %_52.2 = getelementptr inbounds nuw i8, ptr %5, i64 8
  %gep.2 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 128
  %_52.3 = getelementptr inbounds nuw i8, ptr %5, i64 12
  %gep.3 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 192
  %_52.4 = getelementptr inbounds nuw i8, ptr %5, i64 16
  %gep.4 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 256
  %_52.5 = getelementptr inbounds nuw i8, ptr %5, i64 20
  %gep.5 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 320
  %_52.6 = getelementptr inbounds nuw i8, ptr %5, i64 24
  %gep.6 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 384
  %_52.7 = getelementptr inbounds nuw i8, ptr %5, i64 28
  %gep.7 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 448
  %_52.8 = getelementptr inbounds nuw i8, ptr %5, i64 32
  %gep.8 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 512
  %_52.9 = getelementptr inbounds nuw i8, ptr %5, i64 36
  %gep.9 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 576
  %_52.10 = getelementptr inbounds nuw i8, ptr %5, i64 40
  %gep.10 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 640
  %_52.11 = getelementptr inbounds nuw i8, ptr %5, i64 44
  %gep.11 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 704
  %_52.12 = getelementptr inbounds nuw i8, ptr %5, i64 48
  %gep.12 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 768
  %_52.13 = getelementptr inbounds nuw i8, ptr %5, i64 52
  %gep.13 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 832
  %_52.14 = getelementptr inbounds nuw i8, ptr %5, i64 56
  %gep.14 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 896
  %_52.15 = getelementptr inbounds nuw i8, ptr %5, i64 60
  %gep.15 = getelementptr inbounds nuw i8, ptr %invariant.gep, i64 960
  br label %bb23, !dbg !60

bb24:                                             ; preds = %bb11, %start
  %sum.sroa.0.0.lcssa = phi float [ 0.000000e+00, %start ], [ %25, %bb11 ], !dbg !71
  %_59 = icmp ult i32 %narrow, %m, !dbg !72
  %_60 = icmp samesign ult i64 %col, %n4
  %or.cond = and i1 %_59, %_60, !dbg !72
  br i1 %or.cond, label %bb14, label %bb15, !dbg !72

bb23:                                             ; preds = %bb23.lr.ph, %bb11
  %iter1.sroa.0.020 = phi i64 [ 0, %bb23.lr.ph ], [ %6, %bb11 ]
  %sum.sroa.0.019 = phi float [ 0.000000e+00, %bb23.lr.ph ], [ %25, %bb11 ]
  %6 = add nuw nsw i64 %iter1.sroa.0.020, 1, !dbg !73
  %_29 = shl nuw nsw i64 %iter1.sroa.0.020, 4, !dbg !80
  %a_col = add nuw nsw i64 %_29, %tx, !dbg !80
  %b_row = add nuw nsw i64 %_29, %ty, !dbg !82
  %_33 = icmp samesign ult i64 %a_col, %k5
  %or.cond6 = and i1 %_32, %_33, !dbg !84
  br i1 %or.cond6, label %bb5, label %bb7, !dbg !84

bb15:                                             ; preds = %bb14, %bb24
  ret void, !dbg !86

bb14:                                             ; preds = %bb24
  %_63 = mul nuw nsw i64 %n4, %row
  %7 = getelementptr inbounds nuw float, ptr %c, i64 %_63
  %_61 = getelementptr inbounds nuw float, ptr %7, i64 %col
  store float %sum.sroa.0.0.lcssa, ptr %_61, align 4, !dbg !87
  br label %bb15, !dbg !88

bb5:                                              ; preds = %bb23
  %_34 = getelementptr inbounds nuw float, ptr %4, i64 %a_col
  %8 = load float, ptr %_34, align 4, !dbg !89, !noundef !10
  br label %bb7, !dbg !90

bb7:                                              ; preds = %bb23, %bb5
  %_31.sroa.0.0 = phi float [ %8, %bb5 ], [ 0.000000e+00, %bb23 ], !dbg !91
  store float %_31.sroa.0.0, ptr %_37, align 4, !dbg !92
  %_41 = icmp samesign ult i64 %b_row, %k5, !dbg !93
  %or.cond7 = and i1 %_42, %_41, !dbg !93
  br i1 %or.cond7, label %bb9, label %bb11, !dbg !93

bb9:                                              ; preds = %bb7
  %_45 = mul nuw i64 %b_row, %n4
  %gep17 = getelementptr float, ptr %invariant.gep16, i64 %_45
  %9 = load float, ptr %gep17, align 4, !dbg !94, !noundef !10
  br label %bb11, !dbg !95

bb11:                                             ; preds = %bb7, %bb9
  %_40.sroa.0.0 = phi float [ %9, %bb9 ], [ 0.000000e+00, %bb7 ], !dbg !96
  store float %_40.sroa.0.0, ptr %_46, align 4, !dbg !97
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !98
  %_51 = load float, ptr %5, align 4, !dbg !101, !noundef !10
  %_54 = load float, ptr %invariant.gep, align 4, !dbg !104, !noundef !10
  %_50 = fmul float %_51, %_54, !dbg !101
  %10 = fadd float %sum.sroa.0.019, %_50, !dbg !105
  %_51.1 = load float, ptr %_52.1, align 4, !dbg !101, !noundef !10
  %_54.1 = load float, ptr %gep.1, align 4, !dbg !104, !noundef !10
  %_50.1 = fmul float %_51.1, %_54.1, !dbg !101
  %11 = fadd float %10, %_50.1, !dbg !105
  %_51.2 = load float, ptr %_52.2, align 4, !dbg !101, !noundef !10
  %_54.2 = load float, ptr %gep.2, align 4, !dbg !104, !noundef !10
  %_50.2 = fmul float %_51.2, %_54.2, !dbg !101
  %12 = fadd float %11, %_50.2, !dbg !105
  %_51.3 = load float, ptr %_52.3, align 4, !dbg !101, !noundef !10
  %_54.3 = load float, ptr %gep.3, align 4, !dbg !104, !noundef !10
  %_50.3 = fmul float %_51.3, %_54.3, !dbg !101
  %13 = fadd float %12, %_50.3, !dbg !105
  %_51.4 = load float, ptr %_52.4, align 4, !dbg !101, !noundef !10
  %_54.4 = load float, ptr %gep.4, align 4, !dbg !104, !noundef !10
  %_50.4 = fmul float %_51.4, %_54.4, !dbg !101
  %14 = fadd float %13, %_50.4, !dbg !105
  %_51.5 = load float, ptr %_52.5, align 4, !dbg !101, !noundef !10
  %_54.5 = load float, ptr %gep.5, align 4, !dbg !104, !noundef !10
  %_50.5 = fmul float %_51.5, %_54.5, !dbg !101
  %15 = fadd float %14, %_50.5, !dbg !105
  %_51.6 = load float, ptr %_52.6, align 4, !dbg !101, !noundef !10
  %_54.6 = load float, ptr %gep.6, align 4, !dbg !104, !noundef !10
  %_50.6 = fmul float %_51.6, %_54.6, !dbg !101
  %16 = fadd float %15, %_50.6, !dbg !105
  %_51.7 = load float, ptr %_52.7, align 4, !dbg !101, !noundef !10
  %_54.7 = load float, ptr %gep.7, align 4, !dbg !104, !noundef !10
  %_50.7 = fmul float %_51.7, %_54.7, !dbg !101
  %17 = fadd float %16, %_50.7, !dbg !105
  %_51.8 = load float, ptr %_52.8, align 4, !dbg !101, !noundef !10
  %_54.8 = load float, ptr %gep.8, align 4, !dbg !104, !noundef !10
  %_50.8 = fmul float %_51.8, %_54.8, !dbg !101
  %18 = fadd float %17, %_50.8, !dbg !105
  %_51.9 = load float, ptr %_52.9, align 4, !dbg !101, !noundef !10
  %_54.9 = load float, ptr %gep.9, align 4, !dbg !104, !noundef !10
  %_50.9 = fmul float %_51.9, %_54.9, !dbg !101
  %19 = fadd float %18, %_50.9, !dbg !105
  %_51.10 = load float, ptr %_52.10, align 4, !dbg !101, !noundef !10
  %_54.10 = load float, ptr %gep.10, align 4, !dbg !104, !noundef !10
  %_50.10 = fmul float %_51.10, %_54.10, !dbg !101
  %20 = fadd float %19, %_50.10, !dbg !105
  %_51.11 = load float, ptr %_52.11, align 4, !dbg !101, !noundef !10
  %_54.11 = load float, ptr %gep.11, align 4, !dbg !104, !noundef !10
  %_50.11 = fmul float %_51.11, %_54.11, !dbg !101
  %21 = fadd float %20, %_50.11, !dbg !105
  %_51.12 = load float, ptr %_52.12, align 4, !dbg !101, !noundef !10
  %_54.12 = load float, ptr %gep.12, align 4, !dbg !104, !noundef !10
  %_50.12 = fmul float %_51.12, %_54.12, !dbg !101
  %22 = fadd float %21, %_50.12, !dbg !105
  %_51.13 = load float, ptr %_52.13, align 4, !dbg !101, !noundef !10
  %_54.13 = load float, ptr %gep.13, align 4, !dbg !104, !noundef !10
  %_50.13 = fmul float %_51.13, %_54.13, !dbg !101
  %23 = fadd float %22, %_50.13, !dbg !105
  %_51.14 = load float, ptr %_52.14, align 4, !dbg !101, !noundef !10
  %_54.14 = load float, ptr %gep.14, align 4, !dbg !104, !noundef !10
  %_50.14 = fmul float %_51.14, %_54.14, !dbg !101
  %24 = fadd float %23, %_50.14, !dbg !105
  %_51.15 = load float, ptr %_52.15, align 4, !dbg !101, !noundef !10
  %_54.15 = load float, ptr %gep.15, align 4, !dbg !104, !noundef !10
  %_50.15 = fmul float %_51.15, %_54.15, !dbg !101
  %25 = fadd float %24, %_50.15, !dbg !105
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !106
  %exitcond.not = icmp eq i64 %6, %iter.sroa.0.0, !dbg !54
  br i1 %exitcond.not, label %bb24, label %bb23, !dbg !60
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #3

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { convergent nounwind "target-cpu"="sm_90" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nocallback nounwind }
attributes #4 = { nounwind }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "/work/main/examples/matmul_tiled.rs/@/matmul_tiled.ffc1fc1088abbaef-cgu.0", directory: "/tmp/kernelscope-build-YHmlwp")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 80, type: !9, scopeLine: 80, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "/work/main/examples/matmul_tiled.rs", directory: "", checksumkind: CSK_MD5, checksum: "d160ecf3386522b7ba634ff57c891987")
!8 = !DINamespace(name: "matmul_tiled", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 81, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "matmul_tiled", scope: !8, file: !7, line: 41, type: !9, scopeLine: 41, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 28, column: 9, scope: !14)
!14 = distinct !DILexicalBlock(scope: !12, file: !7, line: 27, column: 9)
!15 = !{i64 6094558594372, i64 6403796239769}
!16 = !DILocation(line: 28, column: 9, scope: !17)
!17 = distinct !DILexicalBlock(scope: !18, file: !7, line: 27, column: 9)
!18 = distinct !DILexicalBlock(scope: !12, file: !7, line: 50, column: 5)
!19 = !DILocation(line: 53, column: 34, scope: !20)
!20 = distinct !DILexicalBlock(scope: !18, file: !7, line: 51, column: 5)
!21 = !DILocation(line: 53, column: 46, scope: !20)
!22 = !DILocation(line: 125, column: 5, scope: !23, inlinedAt: !28)
!23 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !25, file: !24, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!24 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!25 = !DINamespace(name: "nvptx", scope: !26)
!26 = !DINamespace(name: "core_arch", scope: !27)
!27 = !DINamespace(name: "core", scope: null)
!28 = !DILocation(line: 54, column: 14, scope: !29)
!29 = distinct !DILexicalBlock(scope: !20, file: !7, line: 53, column: 5)
!30 = !DILocation(line: 132, column: 5, scope: !31, inlinedAt: !32)
!31 = distinct !DISubprogram(name: "_thread_idx_y", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_y", scope: !25, file: !24, line: 131, type: !9, scopeLine: 131, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!32 = !DILocation(line: 55, column: 14, scope: !33)
!33 = distinct !DILexicalBlock(scope: !29, file: !7, line: 54, column: 5)
!34 = !DILocation(line: 90, column: 5, scope: !35, inlinedAt: !36)
!35 = distinct !DISubprogram(name: "_block_idx_y", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_y", scope: !25, file: !24, line: 89, type: !9, scopeLine: 89, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!36 = !DILocation(line: 56, column: 15, scope: !37)
!37 = distinct !DILexicalBlock(scope: !33, file: !7, line: 55, column: 5)
!38 = !DILocation(line: 83, column: 5, scope: !39, inlinedAt: !40)
!39 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !25, file: !24, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!40 = !DILocation(line: 57, column: 15, scope: !41)
!41 = distinct !DILexicalBlock(scope: !37, file: !7, line: 56, column: 5)
!42 = !DILocation(line: 3714, column: 16, scope: !43, inlinedAt: !49)
!43 = distinct !DILexicalBlock(scope: !45, file: !44, line: 3713, column: 13)
!44 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/num/uint_macros.rs", directory: "", checksumkind: CSK_MD5, checksum: "5fc7d5e74eb0c3c3b6eb5c642b7e095f")
!45 = distinct !DILexicalBlock(scope: !46, file: !44, line: 3712, column: 13)
!46 = distinct !DISubprogram(name: "div_ceil", linkageName: "_RNvMs9_NtCs5rUtojj0lOx_4core3numj8div_ceil", scope: !47, file: !44, line: 3711, type: !9, scopeLine: 3711, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!47 = !DINamespace(name: "{impl#11}", scope: !48)
!48 = !DINamespace(name: "num", scope: !27)
!49 = !DILocation(line: 60, column: 19, scope: !50)
!50 = distinct !DILexicalBlock(scope: !51, file: !7, line: 59, column: 5)
!51 = distinct !DILexicalBlock(scope: !41, file: !7, line: 57, column: 5)
!52 = !DILocation(line: 60, column: 5, scope: !53)
!53 = distinct !DILexicalBlock(scope: !50, file: !7, line: 60, column: 5)
!54 = !DILocation(line: 1915, column: 50, scope: !55, inlinedAt: !60)
!55 = distinct !DISubprogram(name: "lt", linkageName: "_RNvXsU_NtNtCs5rUtojj0lOx_4core3cmp5implsjNtB7_10PartialOrd2lt", scope: !57, file: !56, line: 1915, type: !9, scopeLine: 1915, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!56 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/cmp.rs", directory: "", checksumkind: CSK_MD5, checksum: "736a93835c8eb09f7e6c373983e20e04")
!57 = !DINamespace(name: "{impl#58}", scope: !58)
!58 = !DINamespace(name: "impls", scope: !59)
!59 = !DINamespace(name: "cmp", scope: !27)
!60 = !DILocation(line: 900, column: 12, scope: !61, inlinedAt: !66)
!61 = distinct !DISubprogram(name: "spec_next<usize>", linkageName: "_RNvXs3_NtNtCs5rUtojj0lOx_4core4iter5rangeINtNtNtB9_3ops5range5RangejENtB5_17RangeIteratorImpl9spec_nextCslXokPizBFQF_12matmul_tiled", scope: !63, file: !62, line: 899, type: !9, scopeLine: 899, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!62 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/iter/range.rs", directory: "", checksumkind: CSK_MD5, checksum: "8a1edc6f95cc68d16f4520681467edec")
!63 = !DINamespace(name: "{impl#5}", scope: !64)
!64 = !DINamespace(name: "range", scope: !65)
!65 = !DINamespace(name: "iter", scope: !27)
!66 = !DILocation(line: 985, column: 14, scope: !67, inlinedAt: !69)
!67 = distinct !DISubprogram(name: "next<usize>", linkageName: "_RNvXs4_NtNtCs5rUtojj0lOx_4core4iter5rangeINtNtNtB9_3ops5range5RangejENtNtNtB7_6traits8iterator8Iterator4nextCslXokPizBFQF_12matmul_tiled", scope: !68, file: !62, line: 984, type: !9, scopeLine: 984, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!68 = !DINamespace(name: "{impl#6}", scope: !64)
!69 = !DILocation(line: 60, column: 14, scope: !70)
!70 = !DILexicalBlockFile(scope: !53, file: !7, discriminator: 2)
!71 = !DILocation(line: 59, column: 19, scope: !51)
!72 = !DILocation(line: 74, column: 8, scope: !50)
!73 = !DILocation(line: 898, column: 17, scope: !74, inlinedAt: !75)
!74 = distinct !DISubprogram(name: "unchecked_add", linkageName: "_RNvMs9_NtCs5rUtojj0lOx_4core3numj13unchecked_add", scope: !47, file: !44, line: 886, type: !9, scopeLine: 886, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!75 = !DILocation(line: 215, column: 28, scope: !76, inlinedAt: !78)
!76 = distinct !DISubprogram(name: "forward_unchecked", linkageName: "_RNvXsL_NtNtCs5rUtojj0lOx_4core4iter5rangejNtB5_4Step17forward_unchecked", scope: !77, file: !62, line: 213, type: !9, scopeLine: 213, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!77 = !DINamespace(name: "{impl#49}", scope: !64)
!78 = !DILocation(line: 903, column: 35, scope: !79, inlinedAt: !66)
!79 = distinct !DILexicalBlock(scope: !61, file: !62, line: 901, column: 13)
!80 = !DILocation(line: 62, column: 21, scope: !81)
!81 = distinct !DILexicalBlock(scope: !53, file: !7, line: 60, column: 5)
!82 = !DILocation(line: 63, column: 21, scope: !83)
!83 = distinct !DILexicalBlock(scope: !81, file: !7, line: 62, column: 9)
!84 = !DILocation(line: 64, column: 42, scope: !85)
!85 = distinct !DILexicalBlock(scope: !83, file: !7, line: 63, column: 9)
!86 = !DILocation(line: 77, column: 2, scope: !12)
!87 = !DILocation(line: 75, column: 9, scope: !50)
!88 = !DILocation(line: 74, column: 5, scope: !50)
!89 = !DILocation(line: 64, column: 65, scope: !85)
!90 = !DILocation(line: 64, column: 39, scope: !85)
!91 = !DILocation(line: 64, scope: !85)
!92 = !DILocation(line: 64, column: 9, scope: !85)
!93 = !DILocation(line: 65, column: 42, scope: !85)
!94 = !DILocation(line: 65, column: 65, scope: !85)
!95 = !DILocation(line: 65, column: 39, scope: !85)
!96 = !DILocation(line: 65, scope: !85)
!97 = !DILocation(line: 65, column: 9, scope: !85)
!98 = !DILocation(line: 55, column: 5, scope: !99, inlinedAt: !100)
!99 = distinct !DISubprogram(name: "_syncthreads", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__syncthreads", scope: !25, file: !24, line: 54, type: !9, scopeLine: 54, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!100 = !DILocation(line: 66, column: 9, scope: !85)
!101 = !DILocation(line: 69, column: 20, scope: !102)
!102 = distinct !DILexicalBlock(scope: !103, file: !7, line: 68, column: 9)
!103 = distinct !DILexicalBlock(scope: !85, file: !7, line: 68, column: 9)
!104 = !DILocation(line: 69, column: 49, scope: !102)
!105 = !DILocation(line: 69, column: 13, scope: !102)
!106 = !DILocation(line: 55, column: 5, scope: !99, inlinedAt: !107)
!107 = !DILocation(line: 71, column: 9, scope: !85)
