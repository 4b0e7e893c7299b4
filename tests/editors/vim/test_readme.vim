" The README's Vim set-up, as written (run.sh makes it the vimrc): the server is found in
" this checkout's build without being named, ALE reports kernelscope's diagnostic, and a
" server that cannot be found is said in a message instead of ALE's silence.
" Writes one ok/not ok line per check to $KS_RESULTS.

let s:timeout_ms = str2nr(empty($KS_TIMEOUT_MS) ? '240000' : $KS_TIMEOUT_MS)

function! s:Check(name, ok, ...) abort
    call writefile([(a:ok ? 'ok - ' : 'not ok - ') . 'README set-up: ' . a:name
    \   . (a:ok || !a:0 ? '' : ': ' . a:1)], $KS_RESULTS, 'a')
endfunction

function! s:WaitFor(cond, ms) abort
    let l:waited = 0
    while l:waited < a:ms && !eval(a:cond)
        sleep 50m
        let l:waited += 50
    endwhile
    return eval(a:cond)
endfunction

function! s:Run() abort
    call s:Check('ALE and kernelscope are loaded', exists('g:loaded_ale') && exists('g:loaded_kernelscope'))
    execute 'edit ' . fnameescape($KS_WORK . '/broken/saxpy.rs')
    call s:Check('a .rs file is a Rust buffer', &filetype is# 'rust', &filetype)
    let l:expected = $KS_ROOT . '/build/server/kernelscope'
    call s:Check('the server is the one built in the checkout', kernelscope#Executable(bufnr('')) is# l:expected,
    \   kernelscope#Executable(bufnr('')))
    let l:broken = search('undefined_thing', 'nw')
    ALELint
    call s:WaitFor('!empty(ale#engine#GetLoclist(bufnr("")))', s:timeout_ms)
    let l:errors = filter(copy(ale#engine#GetLoclist(bufnr(''))),
    \   {_, d -> get(d, 'type', '') is# 'E' && d.lnum == l:broken})
    call s:Check('ALE shows kernelscope''s error on the broken line', !empty(l:errors),
    \   string(ale#engine#GetLoclist(bufnr(''))))

    " A server that is nowhere: one message says where it was looked for and what to do.
    let g:ale_rust_kernelscope_executable = '/nonexistent/kernelscope'
    messages clear
    enew
    setfiletype rust
    let l:said = execute('messages')
    call s:Check('a missing server is said once, with what to do',
    \   l:said =~# 'kernelscope: server not found; looked at .*/nonexistent/kernelscope'
    \   && l:said =~# 'ninja -C build kernelscope', l:said)
endfunction

try
    call s:Run()
catch
    call s:Check('ran to the end', 0, v:exception . ' at ' . v:throwpoint)
endtry
qall!
