" Vim syntax file: NVIDIA SASS (nvdisasm output) as shown in kernelscope stage views.
" Addresses, opcodes, general/uniform/predicate registers, constant banks, source markers.
if exists("b:current_syntax")
  finish
endif

syn case match
syn match ksSassSource "//##.*$"
syn match ksSassComment "//\([^#].*\)\?$"
syn match ksSassAddress "/\*[0-9a-fA-F]\{4,}\*/"
syn match ksSassEncoding "/\* 0x[0-9a-fA-F]\+ \*/"
syn match ksSassDirective "^\s*\.\w\+"
syn match ksSassLabel "^\s*\.\?[A-Za-z_][A-Za-z0-9_.]*:"
syn match ksSassPredicate "@!\?U\?P[0-9T]\>"
syn match ksSassOpcode "\(\*/\|@!\?U\?P[0-9T]\)\s\+\zs[A-Z][A-Z0-9_]*\(\.[A-Z0-9_]\+\)*"
syn match ksSassRegister "\<\(R[0-9]\+\|RZ\|UR[0-9]\+\|URZ\|U\?P[0-9]\|U\?PT\|SR_[A-Z_.]\+\)\>"
syn match ksSassConstant "\<c\[0x[0-9a-fA-F]\+\]\[0x[0-9a-fA-F]\+\]"
syn match ksSassNumber "\<-\?0x[0-9a-fA-F]\+\>"
syn match ksSassNumber "\<-\?\d\+\(\.\d\+\)\?\>"

hi def link ksSassSource SpecialComment
hi def link ksSassComment Comment
hi def link ksSassAddress LineNr
hi def link ksSassEncoding Comment
hi def link ksSassDirective PreProc
hi def link ksSassLabel Label
hi def link ksSassPredicate Conditional
hi def link ksSassOpcode Statement
hi def link ksSassRegister Identifier
hi def link ksSassConstant Constant
hi def link ksSassNumber Number

let b:current_syntax = "kernelscope_sass"
