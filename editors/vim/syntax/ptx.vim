" Vim syntax file: ptx for the fenced code in kernelscope hovers (ALE includes
" syntax/<language>.vim for each fence). Reuses the kernelscope stage-view syntax from
" editors/nvim/syntax, which Vim reads too.
if exists("b:current_syntax")
  finish
endif
runtime syntax/kernelscope_ptx.vim
let b:current_syntax = "ptx"
