" Vim syntax file: Rust MIR (rustc --emit=mir) as shown in kernelscope stage views.
" Functions, basic blocks, locals, statements and terminators, span comments.
if exists("b:current_syntax")
  finish
endif

syn case match
syn match ksMirSpan "//\s*\(scope\|at\)\>.*$"
syn match ksMirComment "//.*$" contains=ksMirSpan
syn region ksMirString start=+"+ skip=+\\"+ end=+"+
syn keyword ksMirKeyword fn let mut debug scope const static unsafe move copy as
syn keyword ksMirTerminator return goto switchInt otherwise unreachable drop assert resume
syn keyword ksMirTerminator unwind continue terminate call
syn match ksMirStatement "\<\(StorageLive\|StorageDead\|Retag\|FakeRead\|PlaceMention\|Deinit\|Nop\)\>"
syn match ksMirOperation "\<[A-Z][A-Za-z]*\ze("
syn match ksMirBlock "\<bb\d\+\>"
syn match ksMirLocal "\<_\d\+\>"
syn match ksMirType "\<[iuf]\(8\|16\|32\|64\|128\|size\)\>"
syn keyword ksMirType bool char str
syn match ksMirNumber "\<\d\+_\?[iuf]\?\(8\|16\|32\|64\|128\|size\)\?\>"
syn match ksMirNumber "\<0x[0-9A-Fa-f_]\+\(_[iu]\(8\|16\|32\|64\|128\|size\)\)\?\>"

hi def link ksMirSpan SpecialComment
hi def link ksMirComment Comment
hi def link ksMirString String
hi def link ksMirKeyword Keyword
hi def link ksMirTerminator Conditional
hi def link ksMirStatement Statement
hi def link ksMirOperation Function
hi def link ksMirBlock Label
hi def link ksMirLocal Identifier
hi def link ksMirType Type
hi def link ksMirNumber Number

let b:current_syntax = "kernelscope_mir"
