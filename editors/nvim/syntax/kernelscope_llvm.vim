" Vim syntax file: LLVM IR as shown in kernelscope stage views.
" Definitions, instructions, types, local/global names, metadata, comments.
if exists("b:current_syntax")
  finish
endif

syn case match
syn match ksLlvmComment ";.*$"
syn region ksLlvmString start=+c\?"+ skip=+\\"+ end=+"+
syn keyword ksLlvmDefinition define declare attributes source_filename target datalayout triple
syn keyword ksLlvmStatement add fadd sub fsub mul fmul udiv sdiv fdiv urem srem frem shl lshr ashr
syn keyword ksLlvmStatement and or xor extractelement insertelement shufflevector extractvalue
syn keyword ksLlvmStatement insertvalue alloca load store fence cmpxchg atomicrmw getelementptr
syn keyword ksLlvmStatement trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint
syn keyword ksLlvmStatement inttoptr bitcast addrspacecast icmp fcmp phi select call tail musttail
syn keyword ksLlvmStatement ret br switch indirectbr invoke resume unreachable freeze
syn keyword ksLlvmKeyword nuw nsw exact inbounds nnan ninf nsz arcp contract afn reassoc fast
syn keyword ksLlvmKeyword eq ne ugt uge ult ule sgt sge slt sle oeq ogt oge olt ole one ord ueq une uno
syn keyword ksLlvmKeyword private internal external linkonce_odr weak_odr dso_local unnamed_addr
syn keyword ksLlvmKeyword local_unnamed_addr align noundef nonnull readonly writeonly noalias nocapture
syn keyword ksLlvmKeyword volatile to label global constant
syn keyword ksLlvmType void half bfloat float double ptr label metadata token x86_fp80
syn match ksLlvmType "\<i\d\+\>"
syn match ksLlvmLocal "%[-a-zA-Z$._0-9]\+"
syn match ksLlvmLocal "%\"[^\"]*\""
syn match ksLlvmGlobal "@[-a-zA-Z$._0-9]\+"
syn match ksLlvmGlobal "@\"[^\"]*\""
syn match ksLlvmMetadata "!\w*"
syn match ksLlvmLabel "^[-a-zA-Z$._0-9]\+:"
syn match ksLlvmNumber "\<-\?\d\+\(\.\d\+\([eE][-+]\?\d\+\)\?\)\?\>"
syn match ksLlvmNumber "\<0x[0-9A-Fa-f]\+\>"
syn keyword ksLlvmBoolean true false null undef poison zeroinitializer

hi def link ksLlvmComment Comment
hi def link ksLlvmString String
hi def link ksLlvmDefinition PreProc
hi def link ksLlvmStatement Statement
hi def link ksLlvmKeyword Keyword
hi def link ksLlvmType Type
hi def link ksLlvmLocal Identifier
hi def link ksLlvmGlobal Function
hi def link ksLlvmMetadata Special
hi def link ksLlvmLabel Label
hi def link ksLlvmNumber Number
hi def link ksLlvmBoolean Boolean

let b:current_syntax = "kernelscope_llvm"
