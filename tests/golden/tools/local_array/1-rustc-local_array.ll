; ModuleID = 'local_array.b9f35b3e4ad5cf5e-cgu.0'
source_filename = "local_array.b9f35b3e4ad5cf5e-cgu.0"
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
define ptx_kernel void @gather_local(ptr noundef readonly captures(none) %input, ptr noundef readonly captures(none) %picks, ptr noundef writeonly captures(none) %out, i32 noundef %n) unnamed_addr #1 !dbg !12 {
start:
  %table = alloca [256 x i8], align 4
  %_8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13
  %_9 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !20
  %_7 = mul i32 %_8, %_9, !dbg !19
  %_10 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !23
  %_6 = add i32 %_7, %_10, !dbg !26
  %i = zext i32 %_6 to i64, !dbg !26
  %_11.not = icmp ult i32 %_6, %n, !dbg !27
  br i1 %_11.not, label %bb2, label %bb8, !dbg !27

bb2:                                              ; preds = %start
  call void @llvm.lifetime.start.p0(ptr nonnull %table), !dbg !29
  store float 0.000000e+00, ptr %table, align 4
  %0 = getelementptr inbounds nuw i8, ptr %table, i64 4
  store float 0.000000e+00, ptr %0, align 4
  %1 = getelementptr inbounds nuw i8, ptr %table, i64 8
  store float 0.000000e+00, ptr %1, align 4
  %2 = getelementptr inbounds nuw i8, ptr %table, i64 12
  store float 0.000000e+00, ptr %2, align 4
  %3 = getelementptr inbounds nuw i8, ptr %table, i64 16
  store float 0.000000e+00, ptr %3, align 4
  %4 = getelementptr inbounds nuw i8, ptr %table, i64 20
  store float 0.000000e+00, ptr %4, align 4
  %5 = getelementptr inbounds nuw i8, ptr %table, i64 24
  store float 0.000000e+00, ptr %5, align 4
  %6 = getelementptr inbounds nuw i8, ptr %table, i64 28
  store float 0.000000e+00, ptr %6, align 4
  %7 = getelementptr inbounds nuw i8, ptr %table, i64 32
  store float 0.000000e+00, ptr %7, align 4
  %8 = getelementptr inbounds nuw i8, ptr %table, i64 36
  store float 0.000000e+00, ptr %8, align 4
  %9 = getelementptr inbounds nuw i8, ptr %table, i64 40
  store float 0.000000e+00, ptr %9, align 4
  %10 = getelementptr inbounds nuw i8, ptr %table, i64 44
  store float 0.000000e+00, ptr %10, align 4
  %11 = getelementptr inbounds nuw i8, ptr %table, i64 48
  store float 0.000000e+00, ptr %11, align 4
  %12 = getelementptr inbounds nuw i8, ptr %table, i64 52
  store float 0.000000e+00, ptr %12, align 4
  %13 = getelementptr inbounds nuw i8, ptr %table, i64 56
  store float 0.000000e+00, ptr %13, align 4
  %14 = getelementptr inbounds nuw i8, ptr %table, i64 60
  store float 0.000000e+00, ptr %14, align 4
  %15 = getelementptr inbounds nuw i8, ptr %table, i64 64
  store float 0.000000e+00, ptr %15, align 4
  %16 = getelementptr inbounds nuw i8, ptr %table, i64 68
  store float 0.000000e+00, ptr %16, align 4
  %17 = getelementptr inbounds nuw i8, ptr %table, i64 72
  store float 0.000000e+00, ptr %17, align 4
  %18 = getelementptr inbounds nuw i8, ptr %table, i64 76
  store float 0.000000e+00, ptr %18, align 4
  %19 = getelementptr inbounds nuw i8, ptr %table, i64 80
  store float 0.000000e+00, ptr %19, align 4
  %20 = getelementptr inbounds nuw i8, ptr %table, i64 84
  store float 0.000000e+00, ptr %20, align 4
  %21 = getelementptr inbounds nuw i8, ptr %table, i64 88
  store float 0.000000e+00, ptr %21, align 4
  %22 = getelementptr inbounds nuw i8, ptr %table, i64 92
  store float 0.000000e+00, ptr %22, align 4
  %23 = getelementptr inbounds nuw i8, ptr %table, i64 96
  store float 0.000000e+00, ptr %23, align 4
  %24 = getelementptr inbounds nuw i8, ptr %table, i64 100
  store float 0.000000e+00, ptr %24, align 4
  %25 = getelementptr inbounds nuw i8, ptr %table, i64 104
  store float 0.000000e+00, ptr %25, align 4
  %26 = getelementptr inbounds nuw i8, ptr %table, i64 108
  store float 0.000000e+00, ptr %26, align 4
  %27 = getelementptr inbounds nuw i8, ptr %table, i64 112
  store float 0.000000e+00, ptr %27, align 4
  %28 = getelementptr inbounds nuw i8, ptr %table, i64 116
  store float 0.000000e+00, ptr %28, align 4
  %29 = getelementptr inbounds nuw i8, ptr %table, i64 120
  store float 0.000000e+00, ptr %29, align 4
  %30 = getelementptr inbounds nuw i8, ptr %table, i64 124
  store float 0.000000e+00, ptr %30, align 4
  %31 = getelementptr inbounds nuw i8, ptr %table, i64 128
  store float 0.000000e+00, ptr %31, align 4
  %32 = getelementptr inbounds nuw i8, ptr %table, i64 132
  store float 0.000000e+00, ptr %32, align 4
  %33 = getelementptr inbounds nuw i8, ptr %table, i64 136
  store float 0.000000e+00, ptr %33, align 4
  %34 = getelementptr inbounds nuw i8, ptr %table, i64 140
  store float 0.000000e+00, ptr %34, align 4
  %35 = getelementptr inbounds nuw i8, ptr %table, i64 144
  store float 0.000000e+00, ptr %35, align 4
  %36 = getelementptr inbounds nuw i8, ptr %table, i64 148
  store float 0.000000e+00, ptr %36, align 4
  %37 = getelementptr inbounds nuw i8, ptr %table, i64 152
  store float 0.000000e+00, ptr %37, align 4
  %38 = getelementptr inbounds nuw i8, ptr %table, i64 156
  store float 0.000000e+00, ptr %38, align 4
  %39 = getelementptr inbounds nuw i8, ptr %table, i64 160
  store float 0.000000e+00, ptr %39, align 4
  %40 = getelementptr inbounds nuw i8, ptr %table, i64 164
  store float 0.000000e+00, ptr %40, align 4
  %41 = getelementptr inbounds nuw i8, ptr %table, i64 168
  store float 0.000000e+00, ptr %41, align 4
  %42 = getelementptr inbounds nuw i8, ptr %table, i64 172
  store float 0.000000e+00, ptr %42, align 4
  %43 = getelementptr inbounds nuw i8, ptr %table, i64 176
  store float 0.000000e+00, ptr %43, align 4
  %44 = getelementptr inbounds nuw i8, ptr %table, i64 180
  store float 0.000000e+00, ptr %44, align 4
  %45 = getelementptr inbounds nuw i8, ptr %table, i64 184
  store float 0.000000e+00, ptr %45, align 4
  %46 = getelementptr inbounds nuw i8, ptr %table, i64 188
  store float 0.000000e+00, ptr %46, align 4
  %47 = getelementptr inbounds nuw i8, ptr %table, i64 192
  store float 0.000000e+00, ptr %47, align 4
  %48 = getelementptr inbounds nuw i8, ptr %table, i64 196
  store float 0.000000e+00, ptr %48, align 4
  %49 = getelementptr inbounds nuw i8, ptr %table, i64 200
  store float 0.000000e+00, ptr %49, align 4
  %50 = getelementptr inbounds nuw i8, ptr %table, i64 204
  store float 0.000000e+00, ptr %50, align 4
  %51 = getelementptr inbounds nuw i8, ptr %table, i64 208
  store float 0.000000e+00, ptr %51, align 4
  %52 = getelementptr inbounds nuw i8, ptr %table, i64 212
  store float 0.000000e+00, ptr %52, align 4
  %53 = getelementptr inbounds nuw i8, ptr %table, i64 216
  store float 0.000000e+00, ptr %53, align 4
  %54 = getelementptr inbounds nuw i8, ptr %table, i64 220
  store float 0.000000e+00, ptr %54, align 4
  %55 = getelementptr inbounds nuw i8, ptr %table, i64 224
  store float 0.000000e+00, ptr %55, align 4
  %56 = getelementptr inbounds nuw i8, ptr %table, i64 228
  store float 0.000000e+00, ptr %56, align 4
  %57 = getelementptr inbounds nuw i8, ptr %table, i64 232
  store float 0.000000e+00, ptr %57, align 4
  %58 = getelementptr inbounds nuw i8, ptr %table, i64 236
  store float 0.000000e+00, ptr %58, align 4
  %59 = getelementptr inbounds nuw i8, ptr %table, i64 240
  store float 0.000000e+00, ptr %59, align 4
  %60 = getelementptr inbounds nuw i8, ptr %table, i64 244
  store float 0.000000e+00, ptr %60, align 4
  %61 = getelementptr inbounds nuw i8, ptr %table, i64 248
  store float 0.000000e+00, ptr %61, align 4
  %62 = getelementptr inbounds nuw i8, ptr %table, i64 252
  store float 0.000000e+00, ptr %62, align 4
  %.idx = shl nuw nsw i64 %i, 8
  %63 = getelementptr inbounds nuw i8, ptr %input, i64 %.idx
  br label %bb4, !dbg !30

bb13:                                             ; preds = %bb4
  %_26 = getelementptr inbounds nuw i32, ptr %picks, i64 %i, !dbg !43
  %_25 = load i32, ptr %_26, align 4, !dbg !50, !noundef !10
  %64 = and i32 %_25, 63, !dbg !50
  %pick = zext nneg i32 %64 to i64, !dbg !50
  %_28 = add nuw nsw i64 %pick, 7, !dbg !51
  %_27 = and i64 %_28, 63, !dbg !51
  %65 = getelementptr inbounds nuw float, ptr %table, i64 %_27, !dbg !53
  %66 = load float, ptr %65, align 4, !dbg !53, !noundef !10
  %67 = fadd float %66, 1.000000e+00, !dbg !53
  store float %67, ptr %65, align 4, !dbg !53
  %_34 = mul nuw nsw i64 %pick, 5, !dbg !54
  %_33 = and i64 %_34, 63, !dbg !54
  %68 = getelementptr inbounds nuw float, ptr %table, i64 %pick, !dbg !55
  %_30 = load float, ptr %68, align 4, !dbg !55, !noundef !10
  %69 = getelementptr inbounds nuw float, ptr %table, i64 %_33, !dbg !56
  %_32 = load float, ptr %69, align 4, !dbg !56, !noundef !10
  %_36 = getelementptr inbounds nuw float, ptr %out, i64 %i, !dbg !57
  %70 = fadd float %_30, %_32, !dbg !63
  store float %70, ptr %_36, align 4, !dbg !63
  call void @llvm.lifetime.end.p0(ptr nonnull %table), !dbg !64
  br label %bb8, !dbg !65

bb8:                                              ; preds = %start, %bb13
  ret void, !dbg !65

bb4:                                              ; preds = %bb4, %bb2
  %iter.sroa.0.05 = phi i64 [ 0, %bb2 ], [ %92, %bb4 ]
  %_21 = uitofp nneg i64 %iter.sroa.0.05 to float, !dbg !66
  %_20 = fadd float %_21, 1.000000e+00, !dbg !68
  %_17 = getelementptr inbounds nuw float, ptr %63, i64 %iter.sroa.0.05, !dbg !69
  %_16 = load float, ptr %_17, align 4, !dbg !72, !noundef !10
  %71 = or disjoint i64 %iter.sroa.0.05, 1, !dbg !73
  %72 = getelementptr inbounds nuw float, ptr %table, i64 %iter.sroa.0.05, !dbg !83
  %73 = fmul float %_20, %_16, !dbg !83
  store float %73, ptr %72, align 4, !dbg !83
  %_21.1 = uitofp nneg i64 %71 to float, !dbg !66
  %_20.1 = fadd float %_21.1, 1.000000e+00, !dbg !68
  %_17.1 = getelementptr inbounds nuw float, ptr %63, i64 %71, !dbg !69
  %_16.1 = load float, ptr %_17.1, align 4, !dbg !72, !noundef !10
  %74 = or disjoint i64 %iter.sroa.0.05, 2, !dbg !73
  %75 = getelementptr inbounds nuw float, ptr %table, i64 %71, !dbg !83
  %76 = fmul float %_20.1, %_16.1, !dbg !83
  store float %76, ptr %75, align 4, !dbg !83
  %_21.2 = uitofp nneg i64 %74 to float, !dbg !66
  %_20.2 = fadd float %_21.2, 1.000000e+00, !dbg !68
  %_17.2 = getelementptr inbounds nuw float, ptr %63, i64 %74, !dbg !69
  %_16.2 = load float, ptr %_17.2, align 4, !dbg !72, !noundef !10
  %77 = or disjoint i64 %iter.sroa.0.05, 3, !dbg !73
  %78 = getelementptr inbounds nuw float, ptr %table, i64 %74, !dbg !83
  %79 = fmul float %_20.2, %_16.2, !dbg !83
  store float %79, ptr %78, align 4, !dbg !83
  %_21.3 = uitofp nneg i64 %77 to float, !dbg !66
  %_20.3 = fadd float %_21.3, 1.000000e+00, !dbg !68
  %_17.3 = getelementptr inbounds nuw float, ptr %63, i64 %77, !dbg !69
  %_16.3 = load float, ptr %_17.3, align 4, !dbg !72, !noundef !10
  %80 = or disjoint i64 %iter.sroa.0.05, 4, !dbg !73
  %81 = getelementptr inbounds nuw float, ptr %table, i64 %77, !dbg !83
  %82 = fmul float %_20.3, %_16.3, !dbg !83
  store float %82, ptr %81, align 4, !dbg !83
  %_21.4 = uitofp nneg i64 %80 to float, !dbg !66
  %_20.4 = fadd float %_21.4, 1.000000e+00, !dbg !68
  %_17.4 = getelementptr inbounds nuw float, ptr %63, i64 %80, !dbg !69
  %_16.4 = load float, ptr %_17.4, align 4, !dbg !72, !noundef !10
  %83 = or disjoint i64 %iter.sroa.0.05, 5, !dbg !73
  %84 = getelementptr inbounds nuw float, ptr %table, i64 %80, !dbg !83
  %85 = fmul float %_20.4, %_16.4, !dbg !83
  store float %85, ptr %84, align 4, !dbg !83
  %_21.5 = uitofp nneg i64 %83 to float, !dbg !66
  %_20.5 = fadd float %_21.5, 1.000000e+00, !dbg !68
  %_17.5 = getelementptr inbounds nuw float, ptr %63, i64 %83, !dbg !69
  %_16.5 = load float, ptr %_17.5, align 4, !dbg !72, !noundef !10
  %86 = or disjoint i64 %iter.sroa.0.05, 6, !dbg !73
  %87 = getelementptr inbounds nuw float, ptr %table, i64 %83, !dbg !83
  %88 = fmul float %_20.5, %_16.5, !dbg !83
  store float %88, ptr %87, align 4, !dbg !83
  %_21.6 = uitofp nneg i64 %86 to float, !dbg !66
  %_20.6 = fadd float %_21.6, 1.000000e+00, !dbg !68
  %_17.6 = getelementptr inbounds nuw float, ptr %63, i64 %86, !dbg !69
  %_16.6 = load float, ptr %_17.6, align 4, !dbg !72, !noundef !10
  %89 = or disjoint i64 %iter.sroa.0.05, 7, !dbg !73
  %90 = getelementptr inbounds nuw float, ptr %table, i64 %86, !dbg !83
  %91 = fmul float %_20.6, %_16.6, !dbg !83
  store float %91, ptr %90, align 4, !dbg !83
  %_21.7 = uitofp nneg i64 %89 to float, !dbg !66
  %_20.7 = fadd float %_21.7, 1.000000e+00, !dbg !68
  %_17.7 = getelementptr inbounds nuw float, ptr %63, i64 %89, !dbg !69
  %_16.7 = load float, ptr %_17.7, align 4, !dbg !72, !noundef !10
  %92 = add nuw nsw i64 %iter.sroa.0.05, 8, !dbg !73
  %93 = getelementptr inbounds nuw float, ptr %table, i64 %89, !dbg !83
  %94 = fmul float %_20.7, %_16.7, !dbg !83
  store float %94, ptr %93, align 4, !dbg !83
  %exitcond.not.7 = icmp eq i64 %92, 64, !dbg !84
  br i1 %exitcond.not.7, label %bb13, label %bb4, !dbg !30

; uselistorder directives
  uselistorder ptr %table, { 0, 1, 2, 3, 4, 5, 6, 71, 72, 73, 74, 75, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 76 }
  uselistorder i64 %i, { 2, 1, 0 }
  uselistorder i64 %pick, { 1, 2, 0 }
  uselistorder ptr %65, { 1, 0 }
  uselistorder label %bb8, { 1, 0 }
  uselistorder i64 %iter.sroa.0.05, { 7, 0, 1, 2, 3, 4, 5, 8, 6, 10, 9 }
  uselistorder i64 %71, { 2, 1, 0 }
  uselistorder i64 %74, { 2, 1, 0 }
  uselistorder i64 %77, { 2, 1, 0 }
  uselistorder i64 %80, { 2, 1, 0 }
  uselistorder i64 %83, { 2, 1, 0 }
  uselistorder i64 %86, { 2, 1, 0 }
  uselistorder i64 %89, { 2, 1, 0 }
  uselistorder i64 %92, { 1, 0 }
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #3

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { nofree norecurse nosync nounwind memory(argmem: readwrite) "target-cpu"="sm_90" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "${SRC}/tests/fixtures/local_array.rs/@/local_array.b9f35b3e4ad5cf5e-cgu.0", directory: "${TMP1}")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 25, type: !9, scopeLine: 25, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "${SRC}/tests/fixtures/local_array.rs", directory: "", checksumkind: CSK_MD5, checksum: "b8a0f73fa46608e52bee4d4fd67e3f86")
!8 = !DINamespace(name: "local_array", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 26, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "gather_local", scope: !8, file: !7, line: 10, type: !9, scopeLine: 10, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
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
!29 = !DILocation(line: 15, column: 9, scope: !28)
!30 = !DILocation(line: 900, column: 12, scope: !31, inlinedAt: !36)
!31 = distinct !DISubprogram(name: "spec_next<usize>", linkageName: "_RNvXs3_NtNtCs5rUtojj0lOx_4core4iter5rangeINtNtNtB9_3ops5range5RangejENtB5_17RangeIteratorImpl9spec_nextCsfXOgtPaWOss_11local_array", scope: !33, file: !32, line: 899, type: !9, scopeLine: 899, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!32 = !DIFile(filename: "${RUST_SRC}/core/src/iter/range.rs", directory: "", checksumkind: CSK_MD5, checksum: "8a1edc6f95cc68d16f4520681467edec")
!33 = !DINamespace(name: "{impl#5}", scope: !34)
!34 = !DINamespace(name: "range", scope: !35)
!35 = !DINamespace(name: "iter", scope: !18)
!36 = !DILocation(line: 985, column: 14, scope: !37, inlinedAt: !39)
!37 = distinct !DISubprogram(name: "next<usize>", linkageName: "_RNvXs4_NtNtCs5rUtojj0lOx_4core4iter5rangeINtNtNtB9_3ops5range5RangejENtNtNtB7_6traits8iterator8Iterator4nextCsfXOgtPaWOss_11local_array", scope: !38, file: !32, line: 984, type: !9, scopeLine: 984, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!38 = !DINamespace(name: "{impl#6}", scope: !34)
!39 = !DILocation(line: 16, column: 14, scope: !40)
!40 = !DILexicalBlockFile(scope: !41, file: !7, discriminator: 2)
!41 = distinct !DILexicalBlock(scope: !42, file: !7, line: 16, column: 5)
!42 = distinct !DILexicalBlock(scope: !28, file: !7, line: 15, column: 5)
!43 = !DILocation(line: 863, column: 18, scope: !44, inlinedAt: !49)
!44 = distinct !DISubprogram(name: "add<u32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPm3addCsfXOgtPaWOss_11local_array", scope: !46, file: !45, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!45 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/const_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "48638a38fe414ca30cde797e4a40b3a9")
!46 = !DINamespace(name: "{impl#0}", scope: !47)
!47 = !DINamespace(name: "const_ptr", scope: !48)
!48 = !DINamespace(name: "ptr", scope: !18)
!49 = !DILocation(line: 19, column: 23, scope: !42)
!50 = !DILocation(line: 19, column: 16, scope: !42)
!51 = !DILocation(line: 20, column: 11, scope: !52)
!52 = distinct !DILexicalBlock(scope: !42, file: !7, line: 19, column: 5)
!53 = !DILocation(line: 20, column: 5, scope: !52)
!54 = !DILocation(line: 21, column: 39, scope: !52)
!55 = !DILocation(line: 21, column: 19, scope: !52)
!56 = !DILocation(line: 21, column: 33, scope: !52)
!57 = !DILocation(line: 961, column: 18, scope: !58, inlinedAt: !62)
!58 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr7mut_ptrOf3addCsfXOgtPaWOss_11local_array", scope: !60, file: !59, line: 927, type: !9, scopeLine: 927, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!59 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/mut_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "7c03c8e0ae695174f7f10881dc49d2cb")
!60 = !DINamespace(name: "{impl#0}", scope: !61)
!61 = !DINamespace(name: "mut_ptr", scope: !48)
!62 = !DILocation(line: 21, column: 10, scope: !52)
!63 = !DILocation(line: 21, column: 5, scope: !52)
!64 = !DILocation(line: 22, column: 1, scope: !28)
!65 = !DILocation(line: 22, column: 2, scope: !12)
!66 = !DILocation(line: 17, column: 46, scope: !67)
!67 = distinct !DILexicalBlock(scope: !41, file: !7, line: 16, column: 5)
!68 = !DILocation(line: 17, column: 45, scope: !67)
!69 = !DILocation(line: 863, column: 18, scope: !70, inlinedAt: !71)
!70 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPf3addCsfXOgtPaWOss_11local_array", scope: !46, file: !45, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!71 = !DILocation(line: 17, column: 27, scope: !67)
!72 = !DILocation(line: 17, column: 20, scope: !67)
!73 = !DILocation(line: 898, column: 17, scope: !74, inlinedAt: !78)
!74 = distinct !DISubprogram(name: "unchecked_add", linkageName: "_RNvMs9_NtCs5rUtojj0lOx_4core3numj13unchecked_add", scope: !76, file: !75, line: 886, type: !9, scopeLine: 886, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!75 = !DIFile(filename: "${RUST_SRC}/core/src/num/uint_macros.rs", directory: "", checksumkind: CSK_MD5, checksum: "5fc7d5e74eb0c3c3b6eb5c642b7e095f")
!76 = !DINamespace(name: "{impl#11}", scope: !77)
!77 = !DINamespace(name: "num", scope: !18)
!78 = !DILocation(line: 215, column: 28, scope: !79, inlinedAt: !81)
!79 = distinct !DISubprogram(name: "forward_unchecked", linkageName: "_RNvXsL_NtNtCs5rUtojj0lOx_4core4iter5rangejNtB5_4Step17forward_unchecked", scope: !80, file: !32, line: 213, type: !9, scopeLine: 213, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!80 = !DINamespace(name: "{impl#49}", scope: !34)
!81 = !DILocation(line: 903, column: 35, scope: !82, inlinedAt: !36)
!82 = distinct !DILexicalBlock(scope: !31, file: !32, line: 901, column: 13)
!83 = !DILocation(line: 17, column: 9, scope: !67)
!84 = !DILocation(line: 1915, column: 50, scope: !85, inlinedAt: !30)
!85 = distinct !DISubprogram(name: "lt", linkageName: "_RNvXsU_NtNtCs5rUtojj0lOx_4core3cmp5implsjNtB7_10PartialOrd2lt", scope: !87, file: !86, line: 1915, type: !9, scopeLine: 1915, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!86 = !DIFile(filename: "${RUST_SRC}/core/src/cmp.rs", directory: "", checksumkind: CSK_MD5, checksum: "736a93835c8eb09f7e6c373983e20e04")
!87 = !DINamespace(name: "{impl#58}", scope: !88)
!88 = !DINamespace(name: "impls", scope: !89)
!89 = !DINamespace(name: "cmp", scope: !18)
