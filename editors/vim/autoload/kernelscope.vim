" kernelscope for Vim: stage views over ALE's connection to the kernelscope server.
"
" kernelscope/artifact is sent through ale#lsp_linter#SendRequest; the reply's text goes
" into a scratch buffer named kernelscope://<stage>/<path>. `q` closes it.

let s:stages = ['ptx', 'sass', 'llvm-ir', 'mir']
" editors/vim in a checkout: this file is autoload/kernelscope.vim.
let s:plugin_dir = expand('<sfile>:p:h:h')

" The places the server is looked for, in order, as the Neovim plugin and the VS Code
" extension look: a server shipped with the plugin (bin/kernelscope), the one built in the
" checkout the plugin lives in (build/server/kernelscope), `kernelscope` on PATH.
function! kernelscope#Candidates() abort
    let l:checkout = fnamemodify(s:plugin_dir, ':h:h')

    return [
    \   [s:plugin_dir . '/bin/kernelscope', 'shipped with the plugin'],
    \   [l:checkout . '/build/server/kernelscope', 'built in the plugin''s checkout'],
    \]
endfunction

" The server to run: g:ale_rust_kernelscope_executable when set, else the first candidate
" that exists, else `kernelscope` (found on PATH, if anywhere).
function! kernelscope#Executable(buffer) abort
    let l:chosen = getbufvar(a:buffer, 'ale_rust_kernelscope_executable',
    \   get(g:, 'ale_rust_kernelscope_executable', ''))

    if !empty(l:chosen)
        return l:chosen
    endif

    for [l:path, l:from] in kernelscope#Candidates()
        if executable(l:path) && !isdirectory(l:path)
            return l:path
        endif
    endfor

    return 'kernelscope'
endfunction

" Says once, where the user looks, when no server can be found: ALE itself skips a linter
" whose executable is missing without a word (only :ALEInfo tells).
function! kernelscope#WarnIfMissing(buffer) abort
    if get(g:, 'kernelscope_warned_missing', 0)
        return
    endif

    let l:executable = kernelscope#Executable(a:buffer)

    if executable(l:executable)
        return
    endif

    let g:kernelscope_warned_missing = 1
    let l:tried = map(kernelscope#Candidates(), {_, c -> c[0] . ' (' . c[1] . ')'})
    call add(l:tried, l:executable . ' (PATH)')
    echohl WarningMsg
    echomsg 'kernelscope: server not found; looked at ' . join(l:tried, ', ')
    \   . '. Build it (cmake -S . -B build -G Ninja && ninja -C build kernelscope) or set'
    \   . ' g:ale_rust_kernelscope_executable'
    echohl None
endfunction

function! kernelscope#CompleteStage(arglead, cmdline, cursorpos) abort
    return filter(copy(s:stages), {_, s -> s =~# '^' . a:arglead})
endfunction

function! s:ShowArtifact(source, stage, response) abort
    if has_key(a:response, 'error')
        echohl WarningMsg
        echomsg 'kernelscope: ' . get(a:response.error, 'message', 'request failed')
        echohl None
        return
    endif

    let l:result = get(a:response, 'result', {})
    let l:lines = split(get(l:result, 'text', ''), "\n", 1)

    if len(l:lines) > 1 && l:lines[-1] is# ''
        call remove(l:lines, -1)
    endif

    let l:name = 'kernelscope://' . a:stage . fnamemodify(bufname(a:source), ':p')
    let l:buffer = bufnr('^' . escape(l:name, '\/.*$^~[]') . '$')
    let l:window = l:buffer > 0 ? bufwinid(l:buffer) : -1

    if l:window > 0
        call win_gotoid(l:window)
    else
        execute 'belowright vertical new'
        execute 'silent file ' . fnameescape(l:name)
        setlocal buftype=nofile bufhidden=wipe noswapfile nobuflisted
        nnoremap <buffer> <silent> q :close<CR>
    endif

    setlocal modifiable
    silent %delete _
    call setline(1, l:lines)
    setlocal nomodifiable nomodified
    let b:kernelscope_stage = a:stage
    let b:kernelscope_uri = get(l:result, 'uri', '')
    let b:kernelscope_revision = get(l:result, 'revision', -1)
    let b:kernelscope_segments = get(l:result, 'segments', [])
    let &l:filetype = 'kernelscope_' . (a:stage is# 'llvm-ir' ? 'llvm' : a:stage)
endfunction

" Asks the server for `stage` of the current buffer and shows it in a split.
function! kernelscope#ShowStage(stage) abort
    let l:source = bufnr('')
    let l:uri = ale#util#ToURI(fnamemodify(bufname(l:source), ':p'))
    let l:message = [0, 'kernelscope/artifact', {
    \   'textDocument': {'uri': l:uri},
    \   'stage': a:stage,
    \}]

    call ale#lsp_linter#SendRequest(l:source, 'kernelscope', l:message,
    \   function('s:ShowArtifact', [l:source, a:stage]))
endfunction
