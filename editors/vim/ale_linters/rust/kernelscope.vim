" ALE linter: the kernelscope language server for Rust GPU kernels.
" Gives diagnostics (rustc, ptxas, spills), :ALEHover with what a line became in PTX and
" SASS, and the connection that :KernelscopeStage uses for its stage views.

" Empty: found as the Neovim plugin finds it (kernelscope#Executable): the checkout's build,
" then PATH.
call ale#Set('rust_kernelscope_executable', '')
" Sent as initializationOptions, for example {'arch': 'sm_80', 'optLevel': 3}.
call ale#Set('rust_kernelscope_config', {})

function! ale_linters#rust#kernelscope#GetProjectRoot(buffer) abort
    for l:marker in ['kernelscope.toml', 'Cargo.toml']
        let l:found = ale#path#FindNearestFile(a:buffer, l:marker)

        if !empty(l:found)
            return fnamemodify(l:found, ':h')
        endif
    endfor

    " A single kernel file is its own project.
    return fnamemodify(bufname(a:buffer), ':p:h')
endfunction

call ale#linter#Define('rust', {
\   'name': 'kernelscope',
\   'lsp': 'stdio',
\   'executable': function('kernelscope#Executable'),
\   'command': '%e',
\   'project_root': function('ale_linters#rust#kernelscope#GetProjectRoot'),
\   'initialization_options': {b -> ale#Var(b, 'rust_kernelscope_config')},
\})
