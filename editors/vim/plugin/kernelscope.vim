" kernelscope for Vim through ALE: :KernelscopeStage {ptx|sass|llvm-ir|mir} shows what
" the current kernel source became in a read-only split. Diagnostics and hover come from
" the ALE linter in ale_linters/rust/kernelscope.vim.
if exists('g:loaded_kernelscope')
    finish
endif
let g:loaded_kernelscope = 1

command! -nargs=1 -complete=customlist,kernelscope#CompleteStage KernelscopeStage
\   call kernelscope#ShowStage(<q-args>)

augroup kernelscope_server
    autocmd!
    autocmd FileType rust call kernelscope#WarnIfMissing(bufnr(''))
augroup END
