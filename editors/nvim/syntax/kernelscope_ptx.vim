" Vim syntax file: NVIDIA PTX as shown in kernelscope stage views.
" Directives, opcodes with their modifiers, registers, predicates, labels, comments.
if exists("b:current_syntax")
  finish
endif

syn case match
syn keyword ksPtxTodo contained TODO FIXME XXX
syn match ksPtxComment "//.*$" contains=ksPtxTodo
syn region ksPtxComment start="/\*" end="\*/" contains=ksPtxTodo
syn region ksPtxString start=+"+ skip=+\\"+ end=+"+
syn match ksPtxDirective "\.\(version\|target\|address_size\|visible\|extern\|weak\|entry\|func\|param\|reg\|local\|shared\|global\|const\|tex\|align\|file\|loc\|section\|pragma\|maxntid\|reqntid\|minnctapersm\|maxnreg\|noreturn\|callprototype\|calltargets\)\>"
syn match ksPtxLabel "^\s*\$\?[A-Za-z_$][A-Za-z0-9_$]*:"
syn match ksPtxOpcode "^\s*\(@!\?%\w\+\s\+\)\?\zs\<[a-z][a-z0-9_]*\(\.[a-z0-9_]\+\)*\>" contains=NONE
syn match ksPtxPredicate "@!\?%\w\+"
syn match ksPtxRegister "%[A-Za-z_][A-Za-z0-9_]*\(\.[xyzw]\)\?"
syn match ksPtxNumber "\<-\?\d\+\>"
syn match ksPtxNumber "\<0[xX][0-9A-Fa-f]\+\>"
syn match ksPtxNumber "\<0[fFdD][0-9A-Fa-f]\+\>"

hi def link ksPtxTodo Todo
hi def link ksPtxComment Comment
hi def link ksPtxString String
hi def link ksPtxDirective PreProc
hi def link ksPtxLabel Label
hi def link ksPtxOpcode Statement
hi def link ksPtxPredicate Conditional
hi def link ksPtxRegister Identifier
hi def link ksPtxNumber Number

let b:current_syntax = "kernelscope_ptx"
