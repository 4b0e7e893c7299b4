; ModuleID = 'iterators.4badfb77e78052ff-cgu.0'
source_filename = "iterators.4badfb77e78052ff-cgu.0"
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

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite, inaccessiblemem: write)
define ptx_kernel void @row_dot(ptr noundef readonly captures(address_is_null) %m, ptr noundef readonly captures(address_is_null) %v, ptr noundef writeonly captures(none) %out, i64 noundef %rows, i64 noundef %cols) unnamed_addr #1 !dbg !12 {
start:
  %_9 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !13
  %_10 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !20
  %_8 = mul i32 %_9, %_10, !dbg !19
  %_11 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !23
  %_7 = add i32 %_8, %_11, !dbg !26
  %row = zext i32 %_7 to i64, !dbg !26
  %_12.not = icmp ugt i64 %rows, %row, !dbg !27
  br i1 %_12.not, label %bb2, label %bb3, !dbg !27

bb2:                                              ; preds = %start
  %_14 = mul i64 %cols, %row, !dbg !29
  %_13 = getelementptr inbounds nuw float, ptr %m, i64 %_14, !dbg !30
  %0 = icmp ne ptr %m, null, !dbg !37
  tail call void @llvm.assume(i1 %0), !dbg !37
  %1 = icmp ne ptr %v, null, !dbg !57
  tail call void @llvm.assume(i1 %1), !dbg !57
  %_126.not.i = icmp eq i64 %cols, 0, !dbg !75
  br i1 %_126.not.i, label %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit, label %bb6.i.preheader, !dbg !115

bb6.i.preheader:                                  ; preds = %bb2
  %xtraiter = and i64 %cols, 7, !dbg !115
  %2 = icmp ult i64 %cols, 8, !dbg !115
  br i1 %2, label %bb6.i.epil.preheader, label %bb6.i.preheader.new, !dbg !115

bb6.i.preheader.new:                              ; preds = %bb6.i.preheader
  %unroll_iter = and i64 %cols, -8, !dbg !115
  br label %bb6.i, !dbg !115

bb6.i:                                            ; preds = %bb6.i, %bb6.i.preheader.new
  %init.sroa.0.08.i = phi float [ -0.000000e+00, %bb6.i.preheader.new ], [ %_0.i1.i.i.7, %bb6.i ]
  %iter.sroa.0.07.i = phi i64 [ 0, %bb6.i.preheader.new ], [ %10, %bb6.i ]
  %niter = phi i64 [ 0, %bb6.i.preheader.new ], [ %niter.next.7, %bb6.i ]
  %3 = or disjoint i64 %iter.sroa.0.07.i, 1, !dbg !116
  %_3.i.i = getelementptr inbounds nuw float, ptr %_13, i64 %iter.sroa.0.07.i, !dbg !126
  %_3.i5.i = getelementptr inbounds nuw float, ptr %v, i64 %iter.sroa.0.07.i, !dbg !140
  %_19.val.i = load float, ptr %_3.i.i, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i = load float, ptr %_3.i5.i, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i = fmul float %_19.val.i, %_21.val.i, !dbg !147
  %_0.i1.i.i = fadd float %init.sroa.0.08.i, %_0.i.i.i, !dbg !163
  %4 = or disjoint i64 %iter.sroa.0.07.i, 2, !dbg !116
  %_3.i.i.1 = getelementptr inbounds nuw float, ptr %_13, i64 %3, !dbg !126
  %_3.i5.i.1 = getelementptr inbounds nuw float, ptr %v, i64 %3, !dbg !140
  %_19.val.i.1 = load float, ptr %_3.i.i.1, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i.1 = load float, ptr %_3.i5.i.1, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i.1 = fmul float %_19.val.i.1, %_21.val.i.1, !dbg !147
  %_0.i1.i.i.1 = fadd float %_0.i1.i.i, %_0.i.i.i.1, !dbg !163
  %5 = or disjoint i64 %iter.sroa.0.07.i, 3, !dbg !116
  %_3.i.i.2 = getelementptr inbounds nuw float, ptr %_13, i64 %4, !dbg !126
  %_3.i5.i.2 = getelementptr inbounds nuw float, ptr %v, i64 %4, !dbg !140
  %_19.val.i.2 = load float, ptr %_3.i.i.2, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i.2 = load float, ptr %_3.i5.i.2, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i.2 = fmul float %_19.val.i.2, %_21.val.i.2, !dbg !147
  %_0.i1.i.i.2 = fadd float %_0.i1.i.i.1, %_0.i.i.i.2, !dbg !163
  %6 = or disjoint i64 %iter.sroa.0.07.i, 4, !dbg !116
  %_3.i.i.3 = getelementptr inbounds nuw float, ptr %_13, i64 %5, !dbg !126
  %_3.i5.i.3 = getelementptr inbounds nuw float, ptr %v, i64 %5, !dbg !140
  %_19.val.i.3 = load float, ptr %_3.i.i.3, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i.3 = load float, ptr %_3.i5.i.3, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i.3 = fmul float %_19.val.i.3, %_21.val.i.3, !dbg !147
  %_0.i1.i.i.3 = fadd float %_0.i1.i.i.2, %_0.i.i.i.3, !dbg !163
  %7 = or disjoint i64 %iter.sroa.0.07.i, 5, !dbg !116
  %_3.i.i.4 = getelementptr inbounds nuw float, ptr %_13, i64 %6, !dbg !126
  %_3.i5.i.4 = getelementptr inbounds nuw float, ptr %v, i64 %6, !dbg !140
  %_19.val.i.4 = load float, ptr %_3.i.i.4, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i.4 = load float, ptr %_3.i5.i.4, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i.4 = fmul float %_19.val.i.4, %_21.val.i.4, !dbg !147
  %_0.i1.i.i.4 = fadd float %_0.i1.i.i.3, %_0.i.i.i.4, !dbg !163
  %8 = or disjoint i64 %iter.sroa.0.07.i, 6, !dbg !116
  %_3.i.i.5 = getelementptr inbounds nuw float, ptr %_13, i64 %7, !dbg !126
  %_3.i5.i.5 = getelementptr inbounds nuw float, ptr %v, i64 %7, !dbg !140
  %_19.val.i.5 = load float, ptr %_3.i.i.5, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i.5 = load float, ptr %_3.i5.i.5, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i.5 = fmul float %_19.val.i.5, %_21.val.i.5, !dbg !147
  %_0.i1.i.i.5 = fadd float %_0.i1.i.i.4, %_0.i.i.i.5, !dbg !163
  %9 = or disjoint i64 %iter.sroa.0.07.i, 7, !dbg !116
  %_3.i.i.6 = getelementptr inbounds nuw float, ptr %_13, i64 %8, !dbg !126
  %_3.i5.i.6 = getelementptr inbounds nuw float, ptr %v, i64 %8, !dbg !140
  %_19.val.i.6 = load float, ptr %_3.i.i.6, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i.6 = load float, ptr %_3.i5.i.6, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i.6 = fmul float %_19.val.i.6, %_21.val.i.6, !dbg !147
  %_0.i1.i.i.6 = fadd float %_0.i1.i.i.5, %_0.i.i.i.6, !dbg !163
  %10 = add nuw nsw i64 %iter.sroa.0.07.i, 8, !dbg !116
  %_3.i.i.7 = getelementptr inbounds nuw float, ptr %_13, i64 %9, !dbg !126
  %_3.i5.i.7 = getelementptr inbounds nuw float, ptr %v, i64 %9, !dbg !140
  %_19.val.i.7 = load float, ptr %_3.i.i.7, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i.7 = load float, ptr %_3.i5.i.7, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i.7 = fmul float %_19.val.i.7, %_21.val.i.7, !dbg !147
  %_0.i1.i.i.7 = fadd float %_0.i1.i.i.6, %_0.i.i.i.7, !dbg !163
  %niter.next.7 = add i64 %niter, 8, !dbg !115
  %niter.ncmp.7 = icmp eq i64 %niter.next.7, %unroll_iter, !dbg !115
  br i1 %niter.ncmp.7, label %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit.loopexit.unr-lcssa, label %bb6.i, !dbg !115

_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit.loopexit.unr-lcssa: ; preds = %bb6.i
  %lcmp.mod.not = icmp eq i64 %xtraiter, 0, !dbg !115
  br i1 %lcmp.mod.not, label %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit, label %bb6.i.epil.preheader, !dbg !115

bb6.i.epil.preheader:                             ; preds = %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit.loopexit.unr-lcssa, %bb6.i.preheader
  %init.sroa.0.08.i.epil.init = phi float [ -0.000000e+00, %bb6.i.preheader ], [ %_0.i1.i.i.7, %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit.loopexit.unr-lcssa ]
  %iter.sroa.0.07.i.epil.init = phi i64 [ 0, %bb6.i.preheader ], [ %10, %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit.loopexit.unr-lcssa ]
  %lcmp.mod2 = icmp ne i64 %xtraiter, 0, !dbg !115
  tail call void @llvm.assume(i1 %lcmp.mod2), !dbg !115
  br label %bb6.i.epil, !dbg !115

bb6.i.epil:                                       ; preds = %bb6.i.epil, %bb6.i.epil.preheader
  %init.sroa.0.08.i.epil = phi float [ %_0.i1.i.i.epil, %bb6.i.epil ], [ %init.sroa.0.08.i.epil.init, %bb6.i.epil.preheader ]
  %iter.sroa.0.07.i.epil = phi i64 [ %11, %bb6.i.epil ], [ %iter.sroa.0.07.i.epil.init, %bb6.i.epil.preheader ]
  %epil.iter = phi i64 [ %epil.iter.next, %bb6.i.epil ], [ 0, %bb6.i.epil.preheader ]
  %11 = add nuw nsw i64 %iter.sroa.0.07.i.epil, 1, !dbg !116
  %_3.i.i.epil = getelementptr inbounds nuw float, ptr %_13, i64 %iter.sroa.0.07.i.epil, !dbg !126
  %_3.i5.i.epil = getelementptr inbounds nuw float, ptr %v, i64 %iter.sroa.0.07.i.epil, !dbg !140
  %_19.val.i.epil = load float, ptr %_3.i.i.epil, align 4, !dbg !143, !noalias !144, !noundef !10
  %_21.val.i.epil = load float, ptr %_3.i5.i.epil, align 4, !dbg !143, !noalias !144, !noundef !10
  %_0.i.i.i.epil = fmul float %_19.val.i.epil, %_21.val.i.epil, !dbg !147
  %_0.i1.i.i.epil = fadd float %init.sroa.0.08.i.epil, %_0.i.i.i.epil, !dbg !163
  %epil.iter.next = add i64 %epil.iter, 1, !dbg !115
  %epil.iter.cmp.not = icmp eq i64 %epil.iter.next, %xtraiter, !dbg !115
  br i1 %epil.iter.cmp.not, label %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit, label %bb6.i.epil, !dbg !115, !llvm.loop !167

_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit: ; preds = %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit.loopexit.unr-lcssa, %bb6.i.epil, %bb2
  %init.sroa.0.0.lcssa.i = phi float [ -0.000000e+00, %bb2 ], [ %_0.i1.i.i.7, %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit.loopexit.unr-lcssa ], [ %_0.i1.i.i.epil, %bb6.i.epil ]
  %_18 = getelementptr inbounds nuw float, ptr %out, i64 %row, !dbg !169
  store float %init.sroa.0.0.lcssa.i, ptr %_18, align 4, !dbg !173
  br label %bb3, !dbg !174

bb3:                                              ; preds = %start, %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit
  ret void, !dbg !174

; uselistorder directives
  uselistorder ptr %v, { 7, 0, 1, 2, 3, 4, 5, 6, 8, 9 }
  uselistorder i64 %row, { 1, 0, 2 }
  uselistorder ptr %_13, { 7, 0, 1, 2, 3, 4, 5, 6, 8 }
  uselistorder i64 %xtraiter, { 2, 0, 1 }
  uselistorder i64 %iter.sroa.0.07.i, { 7, 0, 1, 2, 3, 4, 5, 9, 8, 6 }
  uselistorder i64 %3, { 1, 0 }
  uselistorder i64 %4, { 1, 0 }
  uselistorder i64 %5, { 1, 0 }
  uselistorder i64 %6, { 1, 0 }
  uselistorder i64 %7, { 1, 0 }
  uselistorder i64 %8, { 1, 0 }
  uselistorder i64 %9, { 1, 0 }
  uselistorder i64 %niter.next.7, { 1, 0 }
  uselistorder i64 %epil.iter.next, { 1, 0 }
  uselistorder label %_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_.exit, { 1, 0, 2 }
  uselistorder label %bb3, { 1, 0 }
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #3

; uselistorder directives
uselistorder ptr @llvm.assume, { 2, 1, 0 }

attributes #0 = { nofree norecurse noreturn nosync nounwind memory(none) "target-cpu"="sm_90" }
attributes #1 = { nofree norecurse nosync nounwind memory(argmem: readwrite, inaccessiblemem: write) "target-cpu"="sm_90" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.dbg.cu = !{!4}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"Dwarf Version", i32 4}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!4 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !5, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!5 = !DIFile(filename: "${SRC}/tests/fixtures/iterators.rs/@/iterators.4badfb77e78052ff-cgu.0", directory: "${TMP1}")
!6 = distinct !DISubprogram(name: "panic", linkageName: "_RNvCsfgHYwM92fyn_7___rustc17rust_begin_unwind", scope: !8, file: !7, line: 26, type: !9, scopeLine: 26, flags: DIFlagPrototyped | DIFlagNoReturn, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!7 = !DIFile(filename: "${SRC}/tests/fixtures/iterators.rs", directory: "", checksumkind: CSK_MD5, checksum: "11ff85639f8737bfa4604b5f3322ba03")
!8 = !DINamespace(name: "iterators", scope: null)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 27, column: 5, scope: !6)
!12 = distinct !DISubprogram(name: "row_dot", scope: !8, file: !7, line: 14, type: !9, scopeLine: 14, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!13 = !DILocation(line: 83, column: 5, scope: !14, inlinedAt: !19)
!14 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_idx_x", scope: !16, file: !15, line: 82, type: !9, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!15 = !DIFile(filename: "${RUST_SRC}/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!16 = !DINamespace(name: "nvptx", scope: !17)
!17 = !DINamespace(name: "core_arch", scope: !18)
!18 = !DINamespace(name: "core", scope: null)
!19 = !DILocation(line: 15, column: 16, scope: !12)
!20 = !DILocation(line: 62, column: 5, scope: !21, inlinedAt: !22)
!21 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx12__block_dim_x", scope: !16, file: !15, line: 61, type: !9, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!22 = !DILocation(line: 15, column: 40, scope: !12)
!23 = !DILocation(line: 125, column: 5, scope: !24, inlinedAt: !25)
!24 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCs5rUtojj0lOx_4core9core_arch5nvptx13__thread_idx_x", scope: !16, file: !15, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!25 = !DILocation(line: 15, column: 64, scope: !12)
!26 = !DILocation(line: 15, column: 15, scope: !12)
!27 = !DILocation(line: 16, column: 8, scope: !28)
!28 = distinct !DILexicalBlock(scope: !12, file: !7, line: 15, column: 5)
!29 = !DILocation(line: 19, column: 47, scope: !28)
!30 = !DILocation(line: 863, column: 18, scope: !31, inlinedAt: !36)
!31 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr9const_ptrPf3addCs6uQ89Y2Y2Nn_9iterators", scope: !33, file: !32, line: 829, type: !9, scopeLine: 829, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!32 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/const_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "48638a38fe414ca30cde797e4a40b3a9")
!33 = !DINamespace(name: "{impl#0}", scope: !34)
!34 = !DINamespace(name: "const_ptr", scope: !35)
!35 = !DINamespace(name: "ptr", scope: !18)
!36 = !DILocation(line: 19, column: 43, scope: !28)
!37 = !DILocation(line: 407, column: 18, scope: !38, inlinedAt: !42)
!38 = distinct !DISubprogram(name: "as_ptr<f32>", linkageName: "_RNvMs1_NtNtCs5rUtojj0lOx_4core3ptr8non_nullINtB5_7NonNullfE6as_ptrCs6uQ89Y2Y2Nn_9iterators", scope: !40, file: !39, line: 401, type: !9, scopeLine: 401, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!39 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/non_null.rs", directory: "", checksumkind: CSK_MD5, checksum: "84a86787d0c87de0d69993189aea0a0d")
!40 = !DINamespace(name: "NonNull", scope: !41)
!41 = !DINamespace(name: "non_null", scope: !35)
!42 = !DILocation(line: 102, column: 69, scope: !43, inlinedAt: !50)
!43 = distinct !DILexicalBlock(scope: !45, file: !44, line: 98, column: 9)
!44 = !DIFile(filename: "${RUST_SRC}/core/src/slice/iter.rs", directory: "", checksumkind: CSK_MD5, checksum: "f33ab2e22fe09095bf73c41c52bd166c")
!45 = distinct !DILexicalBlock(scope: !46, file: !44, line: 97, column: 9)
!46 = distinct !DISubprogram(name: "new<f32>", linkageName: "_RNvMs4_NtNtCs5rUtojj0lOx_4core5slice4iterINtB5_4IterfE3newCs6uQ89Y2Y2Nn_9iterators", scope: !47, file: !44, line: 96, type: !9, scopeLine: 96, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!47 = !DINamespace(name: "Iter", scope: !48)
!48 = !DINamespace(name: "iter", scope: !49)
!49 = !DINamespace(name: "slice", scope: !18)
!50 = !DILocation(line: 1041, column: 9, scope: !51, inlinedAt: !54)
!51 = distinct !DISubprogram(name: "iter<f32>", linkageName: "_RNvMNtCs5rUtojj0lOx_4core5sliceSf4iterCs6uQ89Y2Y2Nn_9iterators", scope: !53, file: !52, line: 1040, type: !9, scopeLine: 1040, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!52 = !DIFile(filename: "${RUST_SRC}/core/src/slice/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "1f64a141f11e4e3a7a0a9e34684244e5")
!53 = !DINamespace(name: "{impl#0}", scope: !49)
!54 = !DILocation(line: 21, column: 22, scope: !55)
!55 = distinct !DILexicalBlock(scope: !56, file: !7, line: 20, column: 5)
!56 = distinct !DILexicalBlock(scope: !28, file: !7, line: 19, column: 5)
!57 = !DILocation(line: 407, column: 18, scope: !38, inlinedAt: !58)
!58 = !DILocation(line: 102, column: 69, scope: !59, inlinedAt: !62)
!59 = !DILexicalBlockFile(scope: !60, file: !44, discriminator: 2)
!60 = distinct !DILexicalBlock(scope: !61, file: !44, line: 98, column: 9)
!61 = distinct !DILexicalBlock(scope: !46, file: !44, line: 97, column: 9)
!62 = !DILocation(line: 1041, column: 9, scope: !63, inlinedAt: !64)
!63 = !DILexicalBlockFile(scope: !51, file: !52, discriminator: 2)
!64 = !DILocation(line: 26, column: 14, scope: !65, inlinedAt: !67)
!65 = distinct !DISubprogram(name: "into_iter<f32>", linkageName: "_RNvXs_NtNtCs5rUtojj0lOx_4core5slice4iterRSfNtNtNtNtB8_4iter6traits7collect12IntoIterator9into_iterCs6uQ89Y2Y2Nn_9iterators", scope: !66, file: !44, line: 25, type: !9, scopeLine: 25, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!66 = !DINamespace(name: "{impl#1}", scope: !48)
!67 = !DILocation(line: 636, column: 30, scope: !68, inlinedAt: !74)
!68 = distinct !DISubprogram(name: "zip<core::slice::iter::Iter<f32>, &[f32]>", linkageName: "_RINvYINtNtNtCs5rUtojj0lOx_4core5slice4iter4IterfENtNtNtNtBa_4iter6traits8iterator8Iterator3zipRSfECs6uQ89Y2Y2Nn_9iterators", scope: !70, file: !69, line: 631, type: !9, scopeLine: 631, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!69 = !DIFile(filename: "${RUST_SRC}/core/src/iter/traits/iterator.rs", directory: "", checksumkind: CSK_MD5, checksum: "f4b9c513c514813caba0d66b018b98e1")
!70 = !DINamespace(name: "Iterator", scope: !71)
!71 = !DINamespace(name: "iterator", scope: !72)
!72 = !DINamespace(name: "traits", scope: !73)
!73 = !DINamespace(name: "iter", scope: !18)
!74 = !DILocation(line: 21, column: 29, scope: !55)
!75 = !DILocation(line: 1915, column: 50, scope: !76, inlinedAt: !81)
!76 = distinct !DISubprogram(name: "lt", linkageName: "_RNvXsU_NtNtCs5rUtojj0lOx_4core3cmp5implsjNtB7_10PartialOrd2lt", scope: !78, file: !77, line: 1915, type: !9, scopeLine: 1915, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!77 = !DIFile(filename: "${RUST_SRC}/core/src/cmp.rs", directory: "", checksumkind: CSK_MD5, checksum: "736a93835c8eb09f7e6c373983e20e04")
!78 = !DINamespace(name: "{impl#58}", scope: !79)
!79 = !DINamespace(name: "impls", scope: !80)
!80 = !DINamespace(name: "cmp", scope: !18)
!81 = distinct !DILocation(line: 900, column: 12, scope: !82, inlinedAt: !86)
!82 = distinct !DISubprogram(name: "spec_next<usize>", linkageName: "_RNvXs3_NtNtCs5rUtojj0lOx_4core4iter5rangeINtNtNtB9_3ops5range5RangejENtB5_17RangeIteratorImpl9spec_nextCs6uQ89Y2Y2Nn_9iterators", scope: !84, file: !83, line: 899, type: !9, scopeLine: 899, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!83 = !DIFile(filename: "${RUST_SRC}/core/src/iter/range.rs", directory: "", checksumkind: CSK_MD5, checksum: "8a1edc6f95cc68d16f4520681467edec")
!84 = !DINamespace(name: "{impl#5}", scope: !85)
!85 = !DINamespace(name: "range", scope: !73)
!86 = distinct !DILocation(line: 985, column: 14, scope: !87, inlinedAt: !89)
!87 = distinct !DISubprogram(name: "next<usize>", linkageName: "_RNvXs4_NtNtCs5rUtojj0lOx_4core4iter5rangeINtNtNtB9_3ops5range5RangejENtNtNtB7_6traits8iterator8Iterator4nextCs6uQ89Y2Y2Nn_9iterators", scope: !88, file: !83, line: 984, type: !9, scopeLine: 984, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!88 = !DINamespace(name: "{impl#6}", scope: !85)
!89 = distinct !DILocation(line: 281, column: 18, scope: !90, inlinedAt: !99)
!90 = !DILexicalBlockFile(scope: !92, file: !91, discriminator: 2)
!91 = !DIFile(filename: "${RUST_SRC}/core/src/iter/adapters/zip.rs", directory: "", checksumkind: CSK_MD5, checksum: "3b799775cfe5a249b4485e2512707a77")
!92 = distinct !DILexicalBlock(scope: !93, file: !91, line: 281, column: 9)
!93 = distinct !DILexicalBlock(scope: !94, file: !91, line: 280, column: 9)
!94 = distinct !DILexicalBlock(scope: !95, file: !91, line: 279, column: 9)
!95 = distinct !DISubprogram(name: "fold<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>, f32, core::iter::adapters::map::map_fold::{closure_env#0}<(&f32, &f32), f32, f32, iterators::row_dot::{closure_env#0}, core::iter::traits::accum::{impl#128}::sum::{closure_env#0}<core::iter::adapters::map::Map<core::iter::adapters::zip::Zip<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>, iterators::row_dot::{closure_env#0}>>>>", linkageName: "_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_", scope: !96, file: !91, line: 275, type: !9, scopeLine: 275, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!96 = !DINamespace(name: "{impl#4}", scope: !97)
!97 = !DINamespace(name: "zip", scope: !98)
!98 = !DINamespace(name: "adapters", scope: !73)
!99 = distinct !DILocation(line: 103, column: 9, scope: !100, inlinedAt: !102)
!100 = distinct !DISubprogram(name: "fold<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>, f32, core::iter::adapters::map::map_fold::{closure_env#0}<(&f32, &f32), f32, f32, iterators::row_dot::{closure_env#0}, core::iter::traits::accum::{impl#128}::sum::{closure_env#0}<core::iter::adapters::map::Map<core::iter::adapters::zip::Zip<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>, iterators::row_dot::{closure_env#0}>>>>", linkageName: "_RINvXs_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB5_3ZipINtNtNtBb_5slice4iter4IterfEBW_ENtNtNtB9_6traits8iterator8Iterator4foldfNCINvNtB7_3map8map_foldTRfB2u_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtB1w_5accumfNtB3o_3Sum3sumINtB2b_3MapBM_B2D_EE0E0EB2H_", scope: !101, file: !91, line: 99, type: !9, scopeLine: 99, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!101 = !DINamespace(name: "{impl#1}", scope: !97)
!102 = !DILocation(line: 128, column: 19, scope: !103, inlinedAt: !107)
!103 = distinct !DISubprogram(name: "fold<f32, core::iter::adapters::zip::Zip<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>, iterators::row_dot::{closure_env#0}, f32, core::iter::traits::accum::{impl#128}::sum::{closure_env#0}<core::iter::adapters::map::Map<core::iter::adapters::zip::Zip<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>, iterators::row_dot::{closure_env#0}>>>", linkageName: "_RINvXs0_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3mapINtB6_3MapINtNtB8_3zip3ZipINtNtNtBc_5slice4iter4IterfEB1d_ENCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0ENtNtNtBa_6traits8iterator8Iterator4foldfNCINvXs22_NtB2q_5accumfNtB3a_3Sum3sumBN_E0EB1O_", scope: !105, file: !104, line: 124, type: !9, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!104 = !DIFile(filename: "${RUST_SRC}/core/src/iter/adapters/map.rs", directory: "", checksumkind: CSK_MD5, checksum: "5ce513be6246907d9f12b589637a5bf6")
!105 = !DINamespace(name: "{impl#2}", scope: !106)
!106 = !DINamespace(name: "map", scope: !98)
!107 = !DILocation(line: 163, column: 22, scope: !108, inlinedAt: !112)
!108 = distinct !DISubprogram(name: "sum<core::iter::adapters::map::Map<core::iter::adapters::zip::Zip<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>, iterators::row_dot::{closure_env#0}>>", linkageName: "_RINvXs22_NtNtNtCs5rUtojj0lOx_4core4iter6traits5accumfNtB7_3Sum3sumINtNtNtBb_8adapters3map3MapINtNtB17_3zip3ZipINtNtNtBd_5slice4iter4IterfEB1K_ENCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0EEB2l_", scope: !110, file: !109, line: 162, type: !9, scopeLine: 162, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!109 = !DIFile(filename: "${RUST_SRC}/core/src/iter/traits/accum.rs", directory: "", checksumkind: CSK_MD5, checksum: "feb1ff9fb1952daa0ee55a4414e2f66e")
!110 = !DINamespace(name: "{impl#128}", scope: !111)
!111 = !DINamespace(name: "accum", scope: !72)
!112 = !DILocation(line: 3676, column: 9, scope: !113, inlinedAt: !114)
!113 = distinct !DISubprogram(name: "sum<core::iter::adapters::map::Map<core::iter::adapters::zip::Zip<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>, iterators::row_dot::{closure_env#0}>, f32>", linkageName: "_RINvYINtNtNtNtCs5rUtojj0lOx_4core4iter8adapters3map3MapINtNtB8_3zip3ZipINtNtNtBc_5slice4iter4IterfEB17_ENCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0ENtNtNtBa_6traits8iterator8Iterator3sumfEB1I_", scope: !70, file: !69, line: 3671, type: !9, scopeLine: 3671, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!114 = !DILocation(line: 21, column: 64, scope: !55)
!115 = !DILocation(line: 900, column: 12, scope: !82, inlinedAt: !86)
!116 = !DILocation(line: 898, column: 17, scope: !117, inlinedAt: !121)
!117 = distinct !DISubprogram(name: "unchecked_add", linkageName: "_RNvMs9_NtCs5rUtojj0lOx_4core3numj13unchecked_add", scope: !119, file: !118, line: 886, type: !9, scopeLine: 886, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!118 = !DIFile(filename: "${RUST_SRC}/core/src/num/uint_macros.rs", directory: "", checksumkind: CSK_MD5, checksum: "5fc7d5e74eb0c3c3b6eb5c642b7e095f")
!119 = !DINamespace(name: "{impl#11}", scope: !120)
!120 = !DINamespace(name: "num", scope: !18)
!121 = distinct !DILocation(line: 215, column: 28, scope: !122, inlinedAt: !124)
!122 = distinct !DISubprogram(name: "forward_unchecked", linkageName: "_RNvXsL_NtNtCs5rUtojj0lOx_4core4iter5rangejNtB5_4Step17forward_unchecked", scope: !123, file: !83, line: 213, type: !9, scopeLine: 213, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!123 = !DINamespace(name: "{impl#49}", scope: !85)
!124 = distinct !DILocation(line: 903, column: 35, scope: !125, inlinedAt: !86)
!125 = distinct !DILexicalBlock(scope: !82, file: !83, line: 901, column: 13)
!126 = !DILocation(line: 961, column: 18, scope: !127, inlinedAt: !131)
!127 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr7mut_ptrOf3addCs6uQ89Y2Y2Nn_9iterators", scope: !129, file: !128, line: 927, type: !9, scopeLine: 927, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!128 = !DIFile(filename: "${RUST_SRC}/core/src/ptr/mut_ptr.rs", directory: "", checksumkind: CSK_MD5, checksum: "7c03c8e0ae695174f7f10881dc49d2cb")
!129 = !DINamespace(name: "{impl#0}", scope: !130)
!130 = !DINamespace(name: "mut_ptr", scope: !35)
!131 = distinct !DILocation(line: 429, column: 60, scope: !132, inlinedAt: !135)
!132 = distinct !DISubprogram(name: "__iterator_get_unchecked<f32>", linkageName: "_RNvXs2J_NtNtCs5rUtojj0lOx_4core5slice4iterINtB6_4IterfENtNtNtNtBa_4iter6traits8iterator8Iterator24___iterator_get_uncheckedCs6uQ89Y2Y2Nn_9iterators", scope: !134, file: !133, line: 418, type: !9, scopeLine: 418, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!133 = !DIFile(filename: "${RUST_SRC}/core/src/slice/iter/macros.rs", directory: "", checksumkind: CSK_MD5, checksum: "87d1f0c2746f51593d75ddf4c9271f14")
!134 = !DINamespace(name: "{impl#171}", scope: !48)
!135 = distinct !DILocation(line: 271, column: 26, scope: !136, inlinedAt: !138)
!136 = distinct !DILexicalBlock(scope: !137, file: !91, line: 268, column: 9)
!137 = distinct !DISubprogram(name: "get_unchecked<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>", linkageName: "_RNvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB5_3ZipINtNtNtBb_5slice4iter4IterfEBW_EINtB5_7ZipImplBW_BW_E13get_uncheckedCs6uQ89Y2Y2Nn_9iterators", scope: !96, file: !91, line: 267, type: !9, scopeLine: 267, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!138 = distinct !DILocation(line: 286, column: 39, scope: !139, inlinedAt: !99)
!139 = distinct !DILexicalBlock(scope: !92, file: !91, line: 281, column: 9)
!140 = !DILocation(line: 961, column: 18, scope: !127, inlinedAt: !141)
!141 = distinct !DILocation(line: 429, column: 60, scope: !132, inlinedAt: !142)
!142 = distinct !DILocation(line: 271, column: 64, scope: !136, inlinedAt: !138)
!143 = !DILocation(line: 286, column: 25, scope: !139, inlinedAt: !99)
!144 = !{!145}
!145 = distinct !{!145, !146, !"_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_: %self"}
!146 = distinct !{!146, !"_RINvXs2_NtNtNtCs5rUtojj0lOx_4core4iter8adapters3zipINtB6_3ZipINtNtNtBc_5slice4iter4IterfEBX_EINtB6_7ZipImplBX_BX_E4foldfNCINvNtB8_3map8map_foldTRfB2i_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtBa_6traits5accumfNtB3c_3Sum3sumINtB1Z_3MapBN_B2r_EE0E0EB2v_"}
!147 = !DILocation(line: 350, column: 45, scope: !148, inlinedAt: !153)
!148 = distinct !DISubprogram(name: "mul", linkageName: "_RNvXs2f_NtNtCs5rUtojj0lOx_4core3ops5arithfNtB6_3Mul3mul", scope: !150, file: !149, line: 350, type: !9, scopeLine: 350, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!149 = !DIFile(filename: "${RUST_SRC}/core/src/ops/arith.rs", directory: "", checksumkind: CSK_MD5, checksum: "e47733c3b66376c892662297e1e5370d")
!150 = !DINamespace(name: "{impl#141}", scope: !151)
!151 = !DINamespace(name: "arith", scope: !152)
!152 = !DINamespace(name: "ops", scope: !18)
!153 = distinct !DILocation(line: 10, column: 5, scope: !154, inlinedAt: !155)
!154 = distinct !DISubprogram(name: "scale<f32>", linkageName: "_RINvCs6uQ89Y2Y2Nn_9iterators5scalefEB2_", scope: !8, file: !7, line: 9, type: !9, scopeLine: 9, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!155 = distinct !DILocation(line: 21, column: 49, scope: !156, inlinedAt: !159)
!156 = distinct !DILexicalBlock(scope: !157, file: !7, line: 21, column: 49)
!157 = distinct !DISubprogram(name: "{closure#0}", linkageName: "_RNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0B3_", scope: !158, file: !7, line: 21, type: !9, scopeLine: 21, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!158 = !DINamespace(name: "row_dot", scope: !8)
!159 = distinct !DILocation(line: 88, column: 28, scope: !160, inlinedAt: !162)
!160 = distinct !DISubprogram(name: "{closure#0}<(&f32, &f32), f32, f32, iterators::row_dot::{closure_env#0}, core::iter::traits::accum::{impl#128}::sum::{closure_env#0}<core::iter::adapters::map::Map<core::iter::adapters::zip::Zip<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>, iterators::row_dot::{closure_env#0}>>>", linkageName: "_RNCINvNtNtNtCs5rUtojj0lOx_4core4iter8adapters3map8map_foldTRfBV_EffNCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0NCINvXs22_NtNtB8_6traits5accumfNtB1O_3Sum3sumINtB4_3MapINtNtB6_3zip3ZipINtNtNtBa_5slice4iter4IterfEB2N_EB13_EE0E0B17_", scope: !161, file: !104, line: 88, type: !9, scopeLine: 88, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!161 = !DINamespace(name: "map_fold", scope: !106)
!162 = distinct !DILocation(line: 286, column: 25, scope: !139, inlinedAt: !99)
!163 = !DILocation(line: 166, column: 28, scope: !164, inlinedAt: !166)
!164 = distinct !DISubprogram(name: "{closure#0}<core::iter::adapters::map::Map<core::iter::adapters::zip::Zip<core::slice::iter::Iter<f32>, core::slice::iter::Iter<f32>>, iterators::row_dot::{closure_env#0}>>", linkageName: "_RNCINvXs22_NtNtNtCs5rUtojj0lOx_4core4iter6traits5accumfNtB9_3Sum3sumINtNtNtBd_8adapters3map3MapINtNtB19_3zip3ZipINtNtNtBf_5slice4iter4IterfEB1M_ENCNvCs6uQ89Y2Y2Nn_9iterators7row_dot0EE0B2n_", scope: !165, file: !109, line: 166, type: !9, scopeLine: 166, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!165 = !DINamespace(name: "sum", scope: !110)
!166 = distinct !DILocation(line: 88, column: 21, scope: !160, inlinedAt: !162)
!167 = distinct !{!167, !168}
!168 = !{!"llvm.loop.unroll.disable"}
!169 = !DILocation(line: 961, column: 18, scope: !170, inlinedAt: !171)
!170 = distinct !DISubprogram(name: "add<f32>", linkageName: "_RNvMNtNtCs5rUtojj0lOx_4core3ptr7mut_ptrOf3addCs6uQ89Y2Y2Nn_9iterators", scope: !129, file: !128, line: 927, type: !9, scopeLine: 927, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !4, templateParams: !10)
!171 = !DILocation(line: 22, column: 10, scope: !172)
!172 = distinct !DILexicalBlock(scope: !55, file: !7, line: 21, column: 5)
!173 = !DILocation(line: 22, column: 5, scope: !172)
!174 = !DILocation(line: 23, column: 2, scope: !12)
