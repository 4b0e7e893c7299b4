" End-to-end test of kernelscope in Vim with ALE (editors/vim), against the real server.
"
" Run by run.sh as `vim -Nu NONE -es -S test_ale.vim`. Checks: ALE's diagnostic for a
" broken kernel lands on the broken line, :ALEHover on the SAXPY line of a good kernel
" shows its PTX, and :KernelscopeStage ptx opens the PTX. Writes one ok/not ok line per
" check and `N passed, N failed` to $KS_RESULTS.

let s:results = $KS_RESULTS
let s:passed = 0
let s:failed = 0
let s:timeout_ms = str2nr(empty($KS_TIMEOUT_MS) ? '240000' : $KS_TIMEOUT_MS)

function! s:Out(line) abort
    call writefile([a:line], s:results, 'a')
endfunction

function! s:Check(name, ok, ...) abort
    if a:ok
        let s:passed += 1
        call s:Out('ok - ' . a:name)
    else
        let s:failed += 1
        call s:Out('not ok - ' . a:name . (a:0 ? ': ' . a:1 : ''))
    endif
    return a:ok
endfunction

" Lets timers and jobs run until {cond} (an expression) is true or {ms} pass.
function! s:WaitFor(cond, ms) abort
    let l:waited = 0
    while l:waited < a:ms
        if eval(a:cond)
            return 1
        endif
        sleep 50m
        let l:waited += 50
    endwhile
    return eval(a:cond)
endfunction

function! s:BufferNamed(prefix) abort
    for l:info in getbufinfo()
        if stridx(l:info.name, a:prefix) == 0
            return l:info.bufnr
        endif
    endfor
    return -1
endfunction

function! s:Run() abort
    execute 'set runtimepath^=' . fnameescape($KS_ROOT . '/editors/vim')
    execute 'set runtimepath+=' . fnameescape($KS_ROOT . '/editors/nvim')
    execute 'set runtimepath+=' . fnameescape($KS_ALE_DIR)
    filetype plugin on
    syntax on
    let g:ale_linters = {'rust': ['kernelscope']}
    let g:ale_linters_explicit = 1
    let g:ale_rust_kernelscope_executable = $KERNELSCOPE_BIN
    let g:ale_hover_to_preview = 1
    let g:ale_lint_on_enter = 1
    runtime plugin/ale.vim
    runtime plugin/kernelscope.vim

    " A broken kernel: ALE shows the error on the broken line.
    execute 'edit ' . fnameescape($KS_WORK . '/broken/saxpy.rs')
    setfiletype rust
    let l:broken = search('undefined_thing', 'nw')
    call s:Check('the broken kernel is a Rust buffer', &filetype is# 'rust' && l:broken > 0)
    ALELint
    call s:WaitFor('!empty(ale#engine#GetLoclist(bufnr("")))', s:timeout_ms)
    let l:loclist = ale#engine#GetLoclist(bufnr(''))
    let l:errors = filter(copy(l:loclist), {_, d -> get(d, 'type', '') is# 'E'})
    call s:Check('ALE reports an error from kernelscope', !empty(l:errors), string(l:loclist))
    call s:Check('the error is on the broken line',
    \   !empty(filter(copy(l:errors), {_, d -> d.lnum == l:broken})),
    \   'expected line ' . l:broken . ', got ' . string(map(copy(l:errors), 'v:val.lnum')))

    " A good kernel: :ALEHover on the SAXPY line shows its PTX.
    execute 'edit ' . fnameescape($KS_WORK . '/saxpy.rs')
    setfiletype rust
    ALELint
    let l:line = search('\V*y.add(i) = a * *x.add(i) + *y.add(i);', 'w')
    call cursor(l:line, 13)
    " ALE answers hover once the server is up; a compile may still be running.
    let l:preview = ''
    let l:deadline = s:timeout_ms
    while l:deadline > 0 && l:preview !~? 'ptx'
        pclose
        ALEHover
        call s:WaitFor('s:PreviewText() isnot# ""', 3000)
        let l:preview = s:PreviewText()
        let l:deadline -= 3000
        if l:preview !~? 'ptx'
            sleep 1
            let l:deadline -= 1000
        endif
    endwhile
    call s:Check(':ALEHover on the SAXPY line shows its PTX', l:preview =~? 'ptx', l:preview[:300])
    pclose

    " :KernelscopeStage ptx opens the PTX in a read-only split.
    KernelscopeStage ptx
    call s:WaitFor('s:BufferNamed("kernelscope://ptx") > 0', 20000)
    let l:view = s:BufferNamed('kernelscope://ptx')
    call s:Check(':KernelscopeStage ptx opens a view', l:view > 0)
    if l:view > 0
        let l:text = join(getbufline(l:view, 1, '$'), "\n")
        call s:Check('the view holds the PTX of saxpy', l:text =~# '\.entry\s\+saxpy', l:text[:200])
        call s:Check('the view is a read-only scratch buffer',
        \   getbufvar(l:view, '&buftype') is# 'nofile' && !getbufvar(l:view, '&modifiable'))
    endif
endfunction

function! s:PreviewText() abort
    for l:win in range(1, winnr('$'))
        if getwinvar(l:win, '&previewwindow')
            return join(getbufline(winbufnr(l:win), 1, '$'), "\n")
        endif
    endfor
    return ''
endfunction

try
    call s:Run()
catch
    call s:Check('the test ran to the end', 0, v:exception . ' at ' . v:throwpoint)
endtry
call s:Out(printf('%d passed, %d failed', s:passed, s:failed))
if s:failed > 0
    cquit!
endif
qall!
