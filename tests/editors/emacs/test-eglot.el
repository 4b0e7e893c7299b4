;;; test-eglot.el --- End-to-end test of kernelscope in Emacs with eglot  -*- lexical-binding: t; -*-

;;; Commentary:

;; Runs in `emacs --batch' (see run.sh) against the real server: eglot with the set-up of
;; editors/emacs/kernelscope.el, a broken kernel (its diagnostic must land on the broken
;; line), a good kernel (the hover of the SAXPY line must list that line's PTX
;; instructions), and `kernelscope-show-stage' (the PTX buffer, its linked highlighting
;; checked against kernelscope/lineMap, its refresh after an edit and a save), and an
;; inlined call's line (`let (start, stride) = grid_stride();' of elementwise_mul.rs): its
;; PTX lines marked inlined with a margin bar whose colour reads at least 3:1 against the
;; background of every light and dark theme Emacs ships.
;; Environment: KERNELSCOPE_BIN, KS_ROOT (the repository), KS_WORK (a writable dir),
;; KS_TIMEOUT (seconds to wait for a compile).  Prints one ok/not ok line per check and
;; `N passed, N failed' on stdout.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(defvar ks-passed 0)
(defvar ks-failed 0)
(defvar ks-timeout (string-to-number (or (getenv "KS_TIMEOUT") "240")))
(defconst ks-saxpy-line "*y.add(i) = a * *x.add(i) + *y.add(i);")

(defun ks-out (fmt &rest args)
  "Print FMT with ARGS and a newline on stdout."
  (princ (concat (apply #'format fmt args) "\n")))

(defun ks-check (name ok &optional detail)
  "Record check NAME as passed when OK; DETAIL explains a failure."
  (if ok
      (progn (cl-incf ks-passed) (ks-out "ok - %s" name))
    (cl-incf ks-failed)
    (ks-out "not ok - %s%s" name (if detail (format ": %s" detail) "")))
  ok)

(defun ks-wait (pred &optional timeout)
  "Process server output until PRED returns non-nil or TIMEOUT seconds pass."
  (let ((deadline (+ (float-time) (or timeout 10))) value)
    (while (and (not (setq value (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    value))

(defun ks-find-line (text)
  "The 0-based line of the current buffer holding TEXT."
  (save-excursion
    (goto-char (point-min))
    (when (search-forward text nil t)
      (1- (line-number-at-pos)))))

(defun ks-goto-line (line)
  "Move to 0-based LINE."
  (goto-char (point-min))
  (forward-line line))

(defun ks-highlighted-lines (buf)
  "The sorted 0-based lines of BUF covered by kernelscope overlays."
  (with-current-buffer buf
    (let (lines)
      (dolist (ov (overlays-in (point-min) (point-max)))
        (when (overlay-get ov 'kernelscope)
          (let ((first (1- (line-number-at-pos (overlay-start ov))))
                (last (1- (line-number-at-pos (max (overlay-start ov) (1- (overlay-end ov)))))))
            (cl-loop for l from first to last do (cl-pushnew l lines)))))
      (sort lines #'<))))

(defun ks-expand (ranges)
  "The sorted lines of RANGES, a vector of (:start :end) plists."
  (let (lines)
    (seq-doseq (r ranges)
      (cl-loop for l from (plist-get r :start) to (plist-get r :end) do (cl-pushnew l lines)))
    (sort lines #'<)))

(defun ks-same-instructions (server view got expected)
  "Non-nil when the highlighted lines GOT of VIEW are the EXPECTED instructions.
Every expected line must be highlighted; any other highlighted line must be one SERVER
maps to no source at all (a `.loc' or label inside the run)."
  (and (cl-subsetp expected got)
       (cl-every (lambda (l)
                   (null (plist-get (jsonrpc-request
                                     server :kernelscope/sourceLocation
                                     (list :uri (buffer-local-value 'kernelscope--uri view)
                                           :line l))
                                    :location)))
                 (cl-set-difference got expected))))

(defun ks-open (file)
  "Visit FILE in the test mode, managed by eglot; return the buffer."
  (let ((buf (find-file-noselect file)))
    (switch-to-buffer buf)
    (with-current-buffer buf
      (ks-rust-mode)
      (unless (eglot-current-server)
        (apply #'eglot--connect (eglot--guess-contact)))
      (unless eglot--managed-mode
        (eglot--maybe-activate-editing-mode)))
    buf))

(defun ks-status (buf)
  "The last kernelscope/status of BUF."
  (with-current-buffer buf
    (gethash (plist-get (eglot--TextDocumentIdentifier) :uri) kernelscope--status)))

(defun ks-compiled (buf)
  "Non-nil when BUF's last compile finished (ready or failed)."
  (member (plist-get (ks-status buf) :state) '("ready" "failed")))

;;;; Colours, as a graphical frame would choose them

(defun ks-rgb (colour)
  "The (R G B) of COLOUR, 0..1, a #RRGGBB string or an X colour name."
  (if (string-match "\\`#\\([[:xdigit:]]\\{2\\}\\)\\([[:xdigit:]]\\{2\\}\\)\\([[:xdigit:]]\\{2\\}\\)\\'" colour)
      (mapcar (lambda (i) (/ (string-to-number (match-string i colour) 16) 255.0)) '(1 2 3))
    (let ((known (assoc (downcase (replace-regexp-in-string " " "" colour)) color-name-rgb-alist)))
      (and known (mapcar (lambda (v) (/ v 65535.0)) (cdr known))))))

(defun ks-contrast (a b)
  "WCAG's contrast ratio of colours A and B."
  (cl-flet ((lum (rgb) (apply #'+ (cl-mapcar (lambda (w c)
                                               (* w (if (<= c 0.03928) (/ c 12.92)
                                                      (expt (/ (+ c 0.055) 1.055) 2.4))))
                                             '(0.2126 0.7152 0.0722) rgb))))
    (let ((la (lum (ks-rgb a))) (lb (lum (ks-rgb b))))
      (/ (+ (max la lb) 0.05) (+ (min la lb) 0.05)))))

(defun ks-face-attribute (face attribute background)
  "ATTRIBUTE of FACE's own spec on a graphical display with BACKGROUND (light or dark)."
  (cl-loop for (display . atts) in (face-default-spec face)
           when (or (eq display t)
                    (cl-every (lambda (c)
                                (pcase c
                                  (`(class . ,classes) (memq 'color classes))
                                  (`(min-colors ,n) (<= n 16777216))
                                  (`(background . ,modes) (memq background modes))
                                  (_ nil)))
                              display))
           return (plist-get (if (consp (car atts)) (car atts) atts) attribute)))

(defun ks-theme-background (theme)
  "The default background THEME sets, nil when it sets none."
  (load-theme theme t t)  ; loaded, not enabled: its settings are read, not applied
  (let* ((setting (cl-find-if (lambda (e) (and (eq (car e) 'theme-face) (eq (nth 1 e) 'default)))
                              (get theme 'theme-settings)))
         (atts (cdr (car (nth 3 setting)))))
    (plist-get (if (consp (car atts)) (car atts) atts) :background)))

(defun ks-check-bar-colours ()
  "The inlined bar reads at least 3:1 on Emacs's own background and every shipped theme's."
  (let ((backgrounds '(("no theme, light" . "white") ("no theme, dark (-rv)" . "black")))
        (failed nil) (checked 0))
    (dolist (theme (custom-available-themes))
      (let ((bg (ignore-errors (ks-theme-background theme))))
        (when (and bg (ks-rgb bg))
          (push (cons (symbol-name theme) bg) backgrounds))))
    (dolist (entry backgrounds)
      (let* ((bg (cdr entry))
             (mode (if (> (ks-contrast bg "black") (ks-contrast bg "white")) 'light 'dark))
             (bar (ks-face-attribute 'kernelscope-inlined-bar :foreground mode))
             (ratio (and bar (ks-contrast bar bg))))
        (cl-incf checked)
        (unless (and ratio (>= ratio 3))
          (push (format "%s (%s, %s): %s %s" (car entry) bg mode bar ratio) failed))))
    (ks-check (format "the inlined bar reads at least 3:1 on %d backgrounds (Emacs's, its themes')" checked)
              (and (> checked 10) (null failed)) (format "%S" failed))
    (ks-check "the inlined lines' face has a themed background"
              (eq (face-attribute 'kernelscope-inlined :inherit nil 'default) 'secondary-selection))))

(defun ks-inlined-lines (buf)
  "The sorted 0-based lines of BUF marked inlined, each checked for its face and bar."
  (with-current-buffer buf
    (let (lines)
      (dolist (ov (overlays-in (point-min) (point-max)))
        (when (overlay-get ov 'kernelscope-inlined)
          (let* ((bar (overlay-get ov 'before-string))
                 (display (and bar (get-text-property 0 'display bar)))
                 (shown (and (consp display) (cadr display))))
            (when (and (eq (overlay-get ov 'face) 'kernelscope-inlined)
                       (equal (car display) '(margin left-margin))
                       (stringp shown) (string= shown "▎")
                       (eq (get-text-property 0 'face shown) 'kernelscope-inlined-bar))
              (cl-pushnew (1- (line-number-at-pos (overlay-start ov))) lines)))))
      (sort lines #'<))))

(defun ks-check-inlined (file)
  "An inlined call's line of FILE (elementwise_mul.rs) in its PTX buffer."
  (let* ((buf (ks-open file))
         (server (with-current-buffer buf (eglot-current-server)))
         (uri (with-current-buffer buf (plist-get (eglot--TextDocumentIdentifier) :uri)))
         (call (with-current-buffer buf (ks-find-line "= grid_stride();"))))
    (ks-wait (lambda () (ks-compiled buf)) ks-timeout)
    (let* ((map (jsonrpc-request server :kernelscope/lineMap (list :textDocument (list :uri uri) :line call)))
           (expected (ks-expand (plist-get (plist-get map :inlined) :ptx)))
           (view (with-current-buffer buf (kernelscope-show-stage "ptx"))))
      (ks-check "kernelscope/lineMap lists PTX inlined through the grid_stride() call" expected
                (format "%S" map))
      (with-current-buffer buf
        (ks-goto-line call)
        (run-hooks 'post-command-hook))
      (let ((marked (ks-inlined-lines view)))
        (ks-check "the PTX inlined through the call is marked, with a bar in the margin"
                  (and expected (ks-same-instructions server view marked expected))
                  (format "marked %S, lineMap %S" marked expected)))
      (ks-check "the stage buffer keeps a margin for the bar"
                (eql (buffer-local-value 'left-margin-width view) 1))
      (ks-check "the call's source line is highlighted"
                (equal (ks-highlighted-lines buf) (list call)) (format "%S" (ks-highlighted-lines buf)))
      (with-current-buffer buf
        (ks-goto-line 0)
        (run-hooks 'post-command-hook))
      (ks-check "a line without code clears the inlined marks" (null (ks-inlined-lines view))))))

(defun ks-run ()
  "Run every check."
  (let* ((root (getenv "KS_ROOT"))
         (work (file-name-as-directory (getenv "KS_WORK")))
         (good-file (expand-file-name "saxpy.rs" work))
         (broken-file (expand-file-name "broken/saxpy.rs" work))
         (inlined-file (expand-file-name "elementwise_mul.rs" work)))
    (add-to-list 'load-path (expand-file-name "editors/emacs" root))
    (require 'eglot)
    (require 'kernelscope)
    (require 'flymake)
    (define-derived-mode ks-rust-mode prog-mode "Rust" "A stand-in for rust-mode.")
    (setq kernelscope-program (getenv "KERNELSCOPE_BIN")
          eglot-sync-connect t
          eglot-connect-timeout 60
          eglot-autoshutdown nil)
    (kernelscope-eglot-setup '(ks-rust-mode) t)
    (ks-check-bar-colours)

    ;; A broken kernel: the diagnostic lands on the broken line.
    (let* ((buf (ks-open broken-file))
           (line (with-current-buffer buf (ks-find-line "undefined_thing"))))
      (ks-check "eglot connects to kernelscope"
                (with-current-buffer buf (eglot-kernelscope-p (eglot-current-server))))
      (with-current-buffer buf
        (ks-wait (lambda () (or eglot--diagnostics (flymake-diagnostics))) ks-timeout)
        (flymake-start nil t)
        (ks-wait (lambda () (flymake-diagnostics)) 5)
        (let* ((diags (flymake-diagnostics))
               (errors (cl-remove-if-not
                        (lambda (d) (eq (flymake-diagnostic-type d) 'eglot-error)) diags))
               (lines (mapcar (lambda (d) (1- (line-number-at-pos (flymake-diagnostic-beg d))))
                              errors)))
          (ks-check "the broken kernel gets an error diagnostic in flymake" errors
                    (format "%S" (mapcar #'flymake-diagnostic-text diags)))
          (ks-check "the error is on the broken line" (member line lines)
                    (format "expected line %s, got %S" line lines))
          (ks-check "the error names the undefined value"
                    (cl-some (lambda (d) (string-match-p "undefined_thing" (flymake-diagnostic-text d)))
                             errors)))))

    ;; A good kernel: hover on the SAXPY line lists its PTX.
    (let* ((buf (ks-open good-file))
           (server (with-current-buffer buf (eglot-current-server)))
           (line (with-current-buffer buf (ks-find-line ks-saxpy-line)))
           (uri (with-current-buffer buf (plist-get (eglot--TextDocumentIdentifier) :uri))))
      (ks-wait (lambda () (ks-compiled buf)) ks-timeout)
      (ks-check "kernelscope/status reports the good kernel ready"
                (equal (plist-get (ks-status buf) :state) "ready")
                (format "%S" (ks-status buf)))
      (ks-check "the SAXPY line shows its instruction counts"
                (ks-wait (lambda ()
                           (with-current-buffer buf
                             (cl-some (lambda (ov)
                                        (and (overlay-get ov 'kernelscope-hint)
                                             (string-match-p "[0-9]+ ptx" (overlay-get ov 'after-string))))
                                      (save-excursion (ks-goto-line line)
                                                      (overlays-in (line-beginning-position)
                                                                   (1+ (line-end-position)))))))
                         10))
      (let* ((map (jsonrpc-request server :kernelscope/lineMap (list :textDocument (list :uri uri) :line line)))
             (expected (ks-expand (plist-get (plist-get map :stages) :ptx)))
             (artifact (jsonrpc-request server :kernelscope/artifact
                                        (list :textDocument (list :uri uri) :stage "ptx")))
             (ptx-lines (split-string (plist-get artifact :text) "\n"))
             (opcodes (delq nil (mapcar (lambda (l)
                                          (let ((text (nth l ptx-lines)))
                                            (when (and text (string-match "^\\s-*\\(?:@!?%[a-z0-9]+\\s-+\\)?\\([a-z][a-z0-9_.]+\\)" text))
                                              (match-string 1 text))))
                                        expected)))
             hover)
        (ks-check "kernelscope/lineMap maps the SAXPY line to PTX" expected (format "%S" map))
        (with-current-buffer buf
          (ks-goto-line line)
          (forward-char 10)
          (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover (or info "")))))
        (ks-wait (lambda () hover) 10)
        (ks-check "eglot's hover (eldoc) on the SAXPY line answers" (and hover (> (length hover) 0)))
        (ks-check "the hover lists the line's PTX instructions"
                  (and hover (string-match-p "ptx" (downcase hover))
                       (cl-some (lambda (op) (string-match-p (regexp-quote op) hover)) opcodes))
                  (format "opcodes %S, hover %S" opcodes (and hover (substring hover 0 (min 300 (length hover))))))

        ;; The stage view.
        (let ((view (with-current-buffer buf (kernelscope-show-stage "ptx"))))
          (ks-check "kernelscope-show-stage opens the PTX"
                    (with-current-buffer view (save-excursion (goto-char (point-min))
                                                              (re-search-forward "\\.entry[ \t]+saxpy" nil t)))
                    (with-current-buffer view (buffer-substring (point-min) (min (point-max) 300))))
          (ks-check "the stage buffer is read-only in kernelscope-stage-mode"
                    (with-current-buffer view (and buffer-read-only (derived-mode-p 'kernelscope-stage-mode))))
          ;; Linked highlighting, source -> view, as after a command on the SAXPY line.
          (with-current-buffer buf
            (ks-goto-line line)
            (run-hooks 'post-command-hook))
          (ks-check "the SAXPY line highlights exactly its PTX lines"
                    (ks-same-instructions server view (ks-highlighted-lines view) expected)
                    (format "got %S, lineMap %S" (ks-highlighted-lines view) expected))
          (ks-check "the SAXPY source line is highlighted"
                    (equal (ks-highlighted-lines buf) (list line)) (format "%S" (ks-highlighted-lines buf)))
          ;; View -> source.
          (when expected
            (with-current-buffer view
              (ks-goto-line (car expected))
              (run-hooks 'post-command-hook)
              (ks-check "a PTX line highlights the source line it came from"
                        (equal (ks-highlighted-lines buf) (list line)) (format "%S" (ks-highlighted-lines buf)))
              (let ((text (kernelscope-describe-instruction)))
                (ks-check "kernelscope-describe-instruction explains the PTX line"
                          (and (stringp text) (> (length text) 0))))))
          ;; Edit and save: the view refreshes.
          (let ((before (with-current-buffer view kernelscope--revision))
                (before-text (with-current-buffer view (buffer-string))))
            (with-current-buffer buf
              (ks-goto-line line)
              (when (search-forward "+ *y.add(i);" (line-end-position) t)
                (replace-match "* *y.add(i);" t t))
              (save-buffer))
            (ks-wait (lambda () (with-current-buffer view
                                  (and (not (equal kernelscope--revision before))
                                       (not (equal (buffer-string) before-text)))))
                     ks-timeout)
            (ks-check "an edit and a save refresh the stage buffer"
                      (with-current-buffer view (not (equal kernelscope--revision before)))
                      (format "revision %S" (with-current-buffer view kernelscope--revision)))))
        (let ((kernels (with-current-buffer buf (kernelscope-kernels))))
          (ks-check "kernelscope-kernels lists saxpy"
                    (seq-some (lambda (k) (equal (plist-get k :name) "saxpy")) (plist-get kernels :kernels))
                    (format "%S" kernels)))))
    (ks-check-inlined inlined-file)))

(condition-case err
    (ks-run)
  (error (ks-check "the test ran to the end" nil (format "%S" err))))
(ks-out "%d passed, %d failed" ks-passed ks-failed)
(kill-emacs (if (> ks-failed 0) 1 0))

;;; test-eglot.el ends here
