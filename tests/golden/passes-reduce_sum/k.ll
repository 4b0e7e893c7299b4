; ModuleID = 'reduce_sum.5456a0f0d58e09f6-cgu.0'
source_filename = "reduce_sum.5456a0f0d58e09f6-cgu.0"
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
define ptx_kernel void @reduce_sum(ptr noundef readonly captures(none) %input, ptr noundef %out, i32 noundef %n) unnamed_addr #1 !dbg !12 {
start:
  %0 = tail call ptr asm sideeffect ".shared .align 4 .b8 reduce_partial[1024];\0Acvta.shared.u64 ${0}, reduce_partial;", "=&l,~{memory}"() #4, !dbg !13, !srcloc !15
  %_6 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !16
  %tid = zext nneg i32 %_6 to i64, !dbg !22
  %n1 = zext i32 %n to i64, !dbg !24
  %_11 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !26
  %_10 = zext nneg i32 %_11 to i64, !dbg !28
  %_9 = shl nuw nsw i64 %_10, 8, !dbg !28
  %1 = add nuw nsw i64 %_9, %tid, !dbg !28
  %_14 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x(), !dbg !30
  %_13 = zext nneg i32 %_14 to i64, !dbg !32
  %stride = shl nuw nsw i64 %_13, 8, !dbg !32
  %_1610 = icmp samesign ult i64 %1, %n1, !dbg !34
  br i1 %_1610, label %bb3, label %bb4, !dbg !34

bb4:                                              ; preds = %bb3, %start
  %sum.sroa.0.0.lcssa = phi float [ 0.000000e+00, %start ], [ %2, %bb3 ], !dbg !37
  %_21 = getelementptr inbounds nuw float, ptr %0, i64 %tid, !dbg !38
  store float %sum.sroa.0.0.lcssa, ptr %_21, align 4, !dbg !45
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !46
  %_26 = icmp samesign ult i32 %_6, 128, !dbg !49
  br i1 %_26, label %bb7, label %bb9, !dbg !49

bb3:                                              ; preds = %start, %bb3
  %i.sroa.0.012 = phi i64 [ %3, %bb3 ], [ %1, %start ]
  %sum.sroa.0.011 = phi float [ %2, %bb3 ], [ 0.000000e+00, %start ]
  %_19 = getelementptr inbounds nuw float, ptr %input, i64 %i.sroa.0.012, !dbg !51
  %_18 = load float, ptr %_19, align 4, !dbg !57, !noundef !10
  %2 = fadd float %sum.sroa.0.011, %_18, !dbg !58
  %3 = add nuw nsw i64 %i.sroa.0.012, %stride, !dbg !59
  %_16 = icmp samesign ult i64 %3, %n1, !dbg !34
  br i1 %_16, label %bb3, label %bb4, !dbg !34

bb12:                                             ; preds = %bb9.7
  %_33 = load float, ptr %0, align 4, !dbg !60, !noundef !10
  tail call void asm sideeffect "red.add.f32 [${0}], ${1};", "l,r,~{memory}"(ptr %out, float %_33) #4, !dbg !61, !srcloc !64
  br label %bb13, !dbg !65

bb13:                                             ; preds = %bb12, %bb9.7
  ret void, !dbg !66

bb7:                                              ; preds = %bb4
  %gep = getelementptr inbounds nuw i8, ptr %_21, i64 512
  %_28 = load float, ptr %gep, align 4, !dbg !67, !noundef !10
  %4 = load float, ptr %_21, align 4, !dbg !68, !noundef !10
  %5 = fadd float %_28, %4, !dbg !68
  store float %5, ptr %_21, align 4, !dbg !68
  br label %bb9, !dbg !69

bb9:                                              ; preds = %bb4, %bb7
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !70
  %_26.1 = icmp samesign ult i32 %_6, 64, !dbg !49
  br i1 %_26.1, label %bb7.1, label %bb9.1, !dbg !49

bb7.1:                                            ; preds = %bb9
  %gep.1 = getelementptr inbounds nuw i8, ptr %_21, i64 256
  %_28.1 = load float, ptr %gep.1, align 4, !dbg !67, !noundef !10
  %6 = load float, ptr %_21, align 4, !dbg !68, !noundef !10
  %7 = fadd float %_28.1, %6, !dbg !68
  store float %7, ptr %_21, align 4, !dbg !68
  br label %bb9.1, !dbg !69

bb9.1:                                            ; preds = %bb7.1, %bb9
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !70
  %_26.2 = icmp samesign ult i32 %_6, 32, !dbg !49
  br i1 %_26.2, label %bb7.2, label %bb9.2, !dbg !49

bb7.2:                                            ; preds = %bb9.1
  %gep.2 = getelementptr inbounds nuw i8, ptr %_21, i64 128
  %_28.2 = load float, ptr %gep.2, align 4, !dbg !67, !noundef !10
  %8 = load float, ptr %_21, align 4, !dbg !68, !noundef !10
  %9 = fadd float %_28.2, %8, !dbg !68
  store float %9, ptr %_21, align 4, !dbg !68
  br label %bb9.2, !dbg !69

bb9.2:                                            ; preds = %bb7.2, %bb9.1
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !70
  %_26.3 = icmp samesign ult i32 %_6, 16, !dbg !49
  br i1 %_26.3, label %bb7.3, label %bb9.3, !dbg !49

bb7.3:                                            ; preds = %bb9.2
  %gep.3 = getelementptr inbounds nuw i8, ptr %_21, i64 64
  %_28.3 = load float, ptr %gep.3, align 4, !dbg !67, !noundef !10
  %10 = load float, ptr %_21, align 4, !dbg !68, !noundef !10
  %11 = fadd float %_28.3, %10, !dbg !68
  store float %11, ptr %_21, align 4, !dbg !68
  br label %bb9.3, !dbg !69

bb9.3:                                            ; preds = %bb7.3, %bb9.2
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !70
  %_26.4 = icmp samesign ult i32 %_6, 8, !dbg !49
  br i1 %_26.4, label %bb7.4, label %bb9.4, !dbg !49

bb7.4:                                            ; preds = %bb9.3
  %gep.4 = getelementptr inbounds nuw i8, ptr %_21, i64 32
  %_28.4 = load float, ptr %gep.4, align 4, !dbg !67, !noundef !10
  %12 = load float, ptr %_21, align 4, !dbg !68, !noundef !10
  %13 = fadd float %_28.4, %12, !dbg !68
  store float %13, ptr %_21, align 4, !dbg !68
  br label %bb9.4, !dbg !69

bb9.4:                                            ; preds = %bb7.4, %bb9.3
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !70
  %_26.5 = icmp samesign ult i32 %_6, 4, !dbg !49
  br i1 %_26.5, label %bb7.5, label %bb9.5, !dbg !49

bb7.5:                                            ; preds = %bb9.4
  %gep.5 = getelementptr inbounds nuw i8, ptr %_21, i64 16
  %_28.5 = load float, ptr %gep.5, align 4, !dbg !67, !noundef !10
  %14 = load float, ptr %_21, align 4, !dbg !68, !noundef !10
  %15 = fadd float %_28.5, %14, !dbg !68
  store float %15, ptr %_21, align 4, !dbg !68
  br label %bb9.5, !dbg !69

bb9.5:                                            ; preds = %bb7.5, %bb9.4
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !70
  %_26.6 = icmp samesign ult i32 %_6, 2, !dbg !49
  br i1 %_26.6, label %bb7.6, label %bb9.6, !dbg !49

bb7.6:                                            ; preds = %bb9.5
  %gep.6 = getelementptr inbounds nuw i8, ptr %_21, i64 8
  %_28.6 = load float, ptr %gep.6, align 4, !dbg !67, !noundef !10
  %16 = load float, ptr %_21, align 4, !dbg !68, !noundef !10
  %17 = fadd float %_28.6, %16, !dbg !68
  store float %17, ptr %_21, align 4, !dbg !68
  br label %bb9.6, !dbg !69

bb9.6:                                            ; preds = %bb7.6, %bb9.5
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !70
  %_26.7 = icmp eq i32 %_6, 0, !dbg !49
  br i1 %_26.7, label %bb7.7, label %bb9.7, !dbg !49

bb7.7:                                            ; preds = %bb9.6
  %gep.7 = getelementptr inbounds nuw i8, ptr %_21, i64 4
  %_28.7 = load float, ptr %gep.7, align 4, !dbg !67, !noundef !10
  %18 = load float, ptr %_21, align 4, !dbg !68, !noundef !10
  %19 = fadd float %_28.7, %18, !dbg !68
  store float %19, ptr %_21, align 4, !dbg !68
  br label %bb9.7, !dbg !69

bb9.7:                                            ; preds = %bb7.7, %bb9.6
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !70
  %20 = icmp eq i32 %_6, 0, !dbg !72
  br i1 %20, label %bb12, label %bb13, !dbg !72
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() unnamed_addr #2

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
!5 = !DIFile(filename: "/work/main/examples/reduce_sum.rs/@/reduce_sum.5456a0f0d58e09f6-cgu.0", directory: "/tmp/kernelscope-passes-L5X0sH")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 80, type: !9, scopeLine: 80, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "/work/main/examples/reduce_sum.rs", directory: "", checksumkind: CSK_MD5, checksum: "025670d59f221d66ce796c7e813aef1d")
!8 = !DINamespace(name: "reduce_sum", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 81, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "reduce_sum", scope: !8, file: !7, line: 47, type: !9, scopeLine: 47, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 27, column: 9, scope: !14)
!14 = distinct !DILexicalBlock(scope: !12, file: !7, line: 26, column: 9)
!15 = !{i64 5514738009277, i64 5823975654674}
!16 = !DILocation(line: 125, column: 5, scope: !17, inlinedAt: !22)
!17 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !19, file: !18, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!18 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!19 = !DINamespace(name: "nvptx", scope: !20)
!20 = !DINamespace(name: "core_arch", scope: !21)
!21 = !DINamespace(name: "core", scope: null)
!22 = !DILocation(line: 49, column: 15, scope: !23)
!23 = distinct !DILexicalBlock(scope: !12, file: !7, line: 48, column: 5)
!24 = !DILocation(line: 50, column: 13, scope: !25)
!25 = distinct !DILexicalBlock(scope: !23, file: !7, line: 49, column: 5)
!26 = !DILocation(line: 83, column: 5, scope: !27, inlinedAt: !28)
!27 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !19, file: !18, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!28 = !DILocation(line: 53, column: 17, scope: !29)
!29 = distinct !DILexicalBlock(scope: !25, file: !7, line: 50, column: 5)
!30 = !DILocation(line: 104, column: 5, scope: !31, inlinedAt: !32)
!31 = distinct !DISubprogram(name: "_grid_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx11__grid_dim_x", scope: !19, file: !18, line: 103, type: !9, scopeLine: 103, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!32 = !DILocation(line: 54, column: 18, scope: !33)
!33 = distinct !DILexicalBlock(scope: !29, file: !7, line: 53, column: 5)
!34 = !DILocation(line: 56, column: 11, scope: !35)
!35 = distinct !DILexicalBlock(scope: !36, file: !7, line: 55, column: 5)
!36 = distinct !DILexicalBlock(scope: !33, file: !7, line: 54, column: 5)
!37 = !DILocation(line: 0, scope: !36)
!38 = !DILocation(line: 961, column: 18, scope: !39, inlinedAt: !44)
!39 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr7mut_ptrOf3addCs7eVJS5f7wyw_10reduce_sum", scope: !41, file: !40, line: 927, type: !9, scopeLine: 927, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!40 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/ptr/mut_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "7c03c8e0ae695174f7f10881dc49d2cb")
!41 = !DINamespace(name: "{impl#0}", scope: !42)
!42 = !DINamespace(name: "mut_ptr", scope: !43)
!43 = !DINamespace(name: "ptr", scope: !21)
!44 = !DILocation(line: 60, column: 14, scope: !35)
!45 = !DILocation(line: 60, column: 5, scope: !35)
!46 = !DILocation(line: 55, column: 5, scope: !47, inlinedAt: !48)
!47 = distinct !DISubprogram(name: "_syncthreads", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__syncthreads", scope: !19, file: !18, line: 54, type: !9, scopeLine: 54, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!48 = !DILocation(line: 61, column: 5, scope: !35)
!49 = !DILocation(line: 66, column: 12, scope: !50)
!50 = distinct !DILexicalBlock(scope: !35, file: !7, line: 64, column: 5)
!51 = !DILocation(line: 863, column: 18, scope: !52, inlinedAt: !56)
!52 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPf3addCs7eVJS5f7wyw_10reduce_sum", scope: !54, file: !53, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!53 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/ptr/const_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "48638a38fe414ca30cde797e4a40b3a9")
!54 = !DINamespace(name: "{impl#0}", scope: !55)
!55 = !DINamespace(name: "const_ptr", scope: !43)
!56 = !DILocation(line: 57, column: 23, scope: !35)
!57 = !DILocation(line: 57, column: 16, scope: !35)
!58 = !DILocation(line: 57, column: 9, scope: !35)
!59 = !DILocation(line: 58, column: 9, scope: !35)
!60 = !DILocation(line: 75, column: 25, scope: !50)
!61 = !DILocation(line: 42, column: 5, scope: !62, inlinedAt: !63)
!62 = distinct !DISubprogram(name: "atomic_add", linkageName: "_RNvCs7eVJS5f7wyw_10reduce_sum10atomic_add", scope: !8, file: !7, line: 41, type: !9, scopeLine: 41, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!63 = !DILocation(line: 75, column: 9, scope: !50)
!64 = !{i64 7640746821330}
!65 = !DILocation(line: 74, column: 5, scope: !50)
!66 = !DILocation(line: 77, column: 2, scope: !12)
!67 = !DILocation(line: 67, column: 34, scope: !50)
!68 = !DILocation(line: 67, column: 13, scope: !50)
!69 = !DILocation(line: 66, column: 9, scope: !50)
!70 = !DILocation(line: 55, column: 5, scope: !47, inlinedAt: !71)
!71 = !DILocation(line: 69, column: 9, scope: !50)
!72 = !DILocation(line: 74, column: 8, scope: !50)
