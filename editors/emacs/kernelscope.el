;;; kernelscope.el --- kernelscope for Emacs through eglot  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: languages, tools

;;; Commentary:

;; kernelscope is a language server that shows what each line of a Rust GPU kernel
;; became: MIR, LLVM IR, PTX and SASS.  Through eglot, Emacs gets its diagnostics, hovers
;; (eldoc) and inlay hints like any server's.  This file adds what eglot has no UI for:
;;
;;   after each compile, the instruction counts of each line at its end (`8 ptx · 12 sass'),
;;   also with eglot 1.9 (Emacs 28), which has no inlay hints;
;;   M-x kernelscope-show-stage   the buffer's PTX (or SASS, LLVM IR, MIR) in a read-only
;;                                buffer, linked to the source line by line: the cursor on
;;                                either side highlights the matching lines on the other,
;;                                and the lines inlined through a call on the source line
;;                                (`let y = horner(x)') get a bar in the margin.
;;                                The buffer refreshes itself after each compile.
;;   M-x kernelscope-describe-instruction   in a stage buffer, what the instruction at
;;                                point means and where it came from.
;;   M-x kernelscope-kernels      registers, spills and memory of each kernel.
;;
;; Set-up:
;;
;;   (require 'kernelscope)
;;   (kernelscope-eglot-setup)   ; Rust buffers start kernelscope through eglot
;;
;; The server is found as the Neovim plugin finds it (`kernelscope-program' names another):
;; bin/kernelscope beside this file, the one built in the checkout this file lives in
;; (build/server/kernelscope), then `kernelscope' on PATH.  Without rust-mode or
;; rust-ts-mode (Debian's Emacs 28 has neither), .rs files open in `kernelscope-rust-mode'.
;;
;; Settings go to the server as initializationOptions, for example
;;   (setq kernelscope-initialization-options '(:arch "sm_80" :optLevel 3))

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'subr-x)

(defgroup kernelscope nil
  "What each line of a Rust GPU kernel became."
  :group 'tools
  :prefix "kernelscope-")

(defcustom kernelscope-program nil
  "The kernelscope server executable.
nil finds it (see `kernelscope-find-program')."
  :type '(choice (const :tag "Find it" nil) string))

(defconst kernelscope--directory
  (file-name-directory (or load-file-name buffer-file-name default-directory))
  "Where this file is: editors/emacs in a checkout.")

(defun kernelscope--candidates ()
  "The places the server is looked for, in order, each (PATH . WHERE)."
  (let ((checkout (expand-file-name "../.." kernelscope--directory)))
    (list (cons (expand-file-name "bin/kernelscope" kernelscope--directory)
                "shipped with the package")
          (cons (expand-file-name "build/server/kernelscope" checkout)
                "built in the package's checkout"))))

(defun kernelscope-find-program ()
  "The server to run: `kernelscope-program', else the first candidate that exists.
Signals a `user-error' naming every place looked at when there is none."
  (or (and kernelscope-program (executable-find kernelscope-program))
      (and (not kernelscope-program)
           (or (car (cl-find-if (lambda (c) (and (file-executable-p (car c))
                                                  (not (file-directory-p (car c)))))
                                (kernelscope--candidates)))
               (executable-find "kernelscope")))
      (user-error "kernelscope: server not found; looked at %s.  Build it (cmake -S . -B build -G Ninja && ninja -C build kernelscope) or set `kernelscope-program'"
                  (if kernelscope-program
                      kernelscope-program
                    (mapconcat (lambda (c) (format "%s (%s)" (car c) (cdr c)))
                               (append (kernelscope--candidates)
                                       '(("kernelscope" . "PATH")))
                               ", ")))))

(define-derived-mode kernelscope-rust-mode prog-mode "Rust"
  "A plain mode for Rust files, where no rust-mode or rust-ts-mode is installed.
Comments and strings only: enough for eglot and kernelscope."
  (setq-local comment-start "// ")
  (setq-local comment-start-skip "//+ *")
  (modify-syntax-entry ?/ ". 124b" kernelscope-rust-mode-syntax-table)
  (modify-syntax-entry ?* ". 23" kernelscope-rust-mode-syntax-table)
  (modify-syntax-entry ?\n "> b" kernelscope-rust-mode-syntax-table)
  (modify-syntax-entry ?_ "_" kernelscope-rust-mode-syntax-table))

(defcustom kernelscope-initialization-options nil
  "Settings sent to the server as initializationOptions, as a plist.
For example (:arch \"sm_90\" :optLevel 3 :stages [\"ptx\" \"sass\"]).  See the
server's docs/lsp-extensions.md for the full list."
  :type 'plist)

(defcustom kernelscope-stages '("ptx" "sass" "llvm-ir" "mir")
  "Stages offered by `kernelscope-show-stage'."
  :type '(repeat string))

(defcustom kernelscope-inlay-hints t
  "Show each line's instruction counts (`4 ptx · 6 sass') at its end.
Drawn by kernelscope after every compile when eglot has no inlay hints of its
own (eglot before 1.12, as on Emacs 28)."
  :type 'boolean)

(defface kernelscope-hint
  '((t :inherit shadow))
  "Face of the instruction counts at the end of source lines.")

(defface kernelscope-linked
  '((t :inherit highlight :extend t))
  "Face of the lines linked to the line at point.")

(defface kernelscope-inlined
  '((t :inherit secondary-selection :extend t))
  "Face of the stage lines inlined through a call on the source line at point.")

(defface kernelscope-inlined-bar
  '((((class color) (min-colors 88) (background dark)) :foreground "#ffb347")
    (((class color) (min-colors 88) (background light)) :foreground "#b35c00")
    (((class color) (background dark)) :foreground "yellow")
    (((class color) (background light)) :foreground "red")
    (t :inverse-video t))
  "Face of the bar in the margin of the lines inlined through a call.
Its colours read at least 3:1 against the background of light and dark themes.")

;;;; Buffer state

(defvar-local kernelscope--source nil "The source buffer of this stage buffer.")
(defvar-local kernelscope--source-uri nil "The URI of that source.")
(defvar-local kernelscope--stage nil "The stage shown, for example \"ptx\".")
(defvar-local kernelscope--uri nil "The virtual document URI of the artifact shown.")
(defvar-local kernelscope--revision nil "The revision of the artifact shown.")
(defvar-local kernelscope--by-view nil "Vector: stage buffer line (0-based) -> source line.")
(defvar-local kernelscope--by-source nil "Hash table: source line -> list of (START . END).")
(defvar-local kernelscope--inlined nil
  "Hash table: source line -> list of (START . END) inlined through a call on it.")
(defvar-local kernelscope--overlays nil "Overlays of the linked highlighting.")
(defvar-local kernelscope--views nil "In a source buffer: its live stage buffers.")

(defun kernelscope--source-buffer ()
  "The source buffer behind the current buffer (itself for a source)."
  (if (buffer-live-p kernelscope--source) kernelscope--source (current-buffer)))

;;;; The server

(defclass eglot-kernelscope (eglot-lsp-server) ()
  :documentation "The kernelscope language server.")

(cl-defmethod eglot-initialization-options ((_server eglot-kernelscope))
  "Send `kernelscope-initialization-options'."
  (or kernelscope-initialization-options eglot--{}))

;;;###autoload
(defun kernelscope-eglot-setup (&optional modes no-ensure)
  "Make eglot use kernelscope for MODES and start it in their buffers.
MODES defaults to `rust-mode', `rust-ts-mode' and `kernelscope-rust-mode'; when
neither of the first two can be loaded, .rs files open in the last.
Unless NO-ENSURE, `eglot-ensure' joins each mode's hook."
  (let ((modes (or modes '(rust-mode rust-ts-mode kernelscope-rust-mode))))
    (unless (or (fboundp 'rust-mode) (require 'rust-mode nil t)
                (and (fboundp 'rust-ts-mode)
                     (fboundp 'treesit-language-available-p)
                     (treesit-language-available-p 'rust)))
      (add-to-list 'auto-mode-alist '("\\.rs\\'" . kernelscope-rust-mode)))
    (add-to-list 'eglot-server-programs
                 `(,(mapcar (lambda (mode) (list mode :language-id "rust")) modes)
                   . kernelscope--contact))
    (unless no-ensure
      (dolist (mode modes)
        (add-hook (intern (format "%s-hook" mode)) #'eglot-ensure)))))

(defun kernelscope--contact (&optional _interactive)
  "Return the eglot contact of kernelscope (read anew for each server)."
  (list 'eglot-kernelscope (kernelscope-find-program)))

(defun kernelscope--server ()
  "The kernelscope server of the current buffer's source, or an error."
  (let ((server (with-current-buffer (kernelscope--source-buffer)
                  (eglot--current-server-or-lose))))
    (unless (eglot-kernelscope-p server)
      (user-error "The eglot server of this buffer is not kernelscope"))
    server))

;;;; Compile status

(defvar kernelscope--status (make-hash-table :test #'equal)
  "Source URI -> the last kernelscope/status params (a plist).")

(cl-defmethod eglot-handle-notification
  ((_server eglot-kernelscope) (_method (eql kernelscope/status)) &rest params
   &key uri state &allow-other-keys)
  "Remember PARAMS, the compile STATE of URI; refresh its stage buffers when ready."
  (puthash uri params kernelscope--status)
  (when (equal state "ready")
    (dolist (buf (buffer-list))
      (when (and (buffer-live-p buf)
                 (equal (buffer-local-value 'kernelscope--source-uri buf) uri))
        (kernelscope--refresh buf)))
    (when-let ((source (find-buffer-visiting (eglot--uri-to-path uri))))
      (kernelscope--refresh-hints source))))

;;;; Instruction counts

(defvar-local kernelscope--hint-overlays nil "Overlays of the instruction counts.")

(defun kernelscope--refresh-hints (source)
  "Ask for the inlay hints of all of SOURCE and draw them at the ends of lines."
  (when (and kernelscope-inlay-hints (not (fboundp 'eglot-inlay-hints-mode)))
    (with-current-buffer source
      (jsonrpc-async-request
       (eglot--current-server-or-lose) :textDocument/inlayHint
       (list :textDocument (eglot--TextDocumentIdentifier)
             :range (list :start (list :line 0 :character 0)
                          :end (list :line (count-lines (point-min) (point-max)) :character 0)))
       :success-fn
       (lambda (hints)
         (when (buffer-live-p source)
           (with-current-buffer source
             (mapc #'delete-overlay kernelscope--hint-overlays)
             (setq kernelscope--hint-overlays nil)
             (seq-doseq (hint hints)
               (let* ((label (plist-get hint :label))
                      (text (if (stringp label) label
                              (mapconcat (lambda (part) (plist-get part :value)) label "")))
                      (line (plist-get (plist-get hint :position) :line)))
                 (save-excursion
                   (goto-char (point-min))
                   (when (zerop (forward-line line))
                     (let ((ov (make-overlay (line-end-position) (line-end-position))))
                       (overlay-put ov 'after-string
                                    (propertize (concat "  " text) 'face 'kernelscope-hint))
                       (overlay-put ov 'kernelscope-hint t)
                       (push ov kernelscope--hint-overlays)))))))))
       :error-fn #'ignore))))

(defun kernelscope-status ()
  "Show the state of the last compile of the current source."
  (interactive)
  (let* ((uri (with-current-buffer (kernelscope--source-buffer)
                (plist-get (eglot--TextDocumentIdentifier) :uri)))
         (status (gethash uri kernelscope--status)))
    (message "kernelscope: %s"
             (if status
                 (format "revision %s %s%s" (plist-get status :revision)
                         (plist-get status :state)
                         (if-let ((msg (plist-get status :message))) (concat ": " msg) ""))
               "no compile reported yet"))))

;;;; Stage buffers

(defconst kernelscope--font-lock
  `(("^\\s-*\\(//.*\\|;.*\\)$" . font-lock-comment-face)
    ("^\\s-*\\.[a-z_]+\\b" . font-lock-preprocessor-face)
    ("^\\s-*[$A-Za-z_.][$A-Za-z0-9_.]*:" . font-lock-function-name-face)
    ("%[A-Za-z_][A-Za-z0-9_.]*\\|\\_<\\(?:U?R[0-9]+\\|U?RZ\\|U?P[0-9T]\\)\\_>\\|\\_<_[0-9]+\\_>"
     . font-lock-variable-name-face)
    ("\\(?:^\\|\\*/\\)\\s-*\\(?:@!?%?[A-Za-z0-9_]+\\s-+\\)?\\([A-Za-z][A-Za-z0-9_]*\\(?:\\.[A-Za-z0-9_]+\\)*\\)"
     1 font-lock-keyword-face))
  "A light highlighting shared by the PTX, SASS, LLVM IR and MIR views.")

(defvar kernelscope-stage-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "g") #'kernelscope-refresh)
    (define-key map (kbd "K") #'kernelscope-describe-instruction)
    (define-key map (kbd "RET") #'kernelscope-goto-source)
    map)
  "Keys of `kernelscope-stage-mode'.")

(define-derived-mode kernelscope-stage-mode special-mode "kernelscope"
  "A read-only view of what a kernel source became at one stage.
\\{kernelscope-stage-mode-map}"
  (setq-local font-lock-defaults '(kernelscope--font-lock t))
  (setq truncate-lines t)
  ;; The margin holds the bar of inlined lines; always there, so the text never shifts.
  (setq left-margin-width 1)
  (add-hook 'post-command-hook #'kernelscope--on-view-command nil t)
  (add-hook 'kill-buffer-hook #'kernelscope--forget-view nil t))

(defun kernelscope--index (segments chains own-uri)
  "Fill the line maps of the current stage buffer from SEGMENTS of OWN-URI.
CHAINS is the reply's table of inline chains, which segments name by index."
  (setq kernelscope--by-view (make-vector (count-lines (point-min) (point-max)) nil)
        kernelscope--by-source (make-hash-table)
        kernelscope--inlined (make-hash-table))
  (seq-doseq (seg segments)
    (let* ((source (plist-get seg :source))
           (uri (plist-get source :uri))
           (line (plist-get source :line))
           (start (plist-get seg :start))
           (end (plist-get seg :end))
           (chain (plist-get seg :chain))
           seen)
      (when (and line (or (null uri) (equal uri own-uri)))
        (push (cons start end) (gethash line kernelscope--by-source))
        (cl-loop for l from start to (min end (1- (length kernelscope--by-view)))
                 do (aset kernelscope--by-view l line)))
      ;; The call sites in this file further out in the chain: the lines came through them.
      (when (and (integerp chain) chains (< chain (length chains)))
        (seq-doseq (frame (elt chains chain))
          (let ((at (plist-get frame :line)))
            (when (and (equal (plist-get frame :uri) own-uri) (not (eql at line))
                       (not (memql at seen)))
              (push at seen)
              (push (cons start end) (gethash at kernelscope--inlined)))))))))

(defun kernelscope--show-artifact (buf result)
  "Put artifact RESULT (a kernelscope/artifact reply) into stage buffer BUF."
  (with-current-buffer buf
    (let ((revision (plist-get result :revision)))
      (unless (and kernelscope--revision revision (< revision kernelscope--revision))
        (let ((inhibit-read-only t)
              (line (line-number-at-pos)))
          (erase-buffer)
          (insert (plist-get result :text))
          (goto-char (point-min))
          (forward-line (1- line))
          (setq kernelscope--revision revision
                kernelscope--uri (plist-get result :uri))
          (kernelscope--index (plist-get result :segments) (plist-get result :chains)
                              kernelscope--source-uri)
          (set-buffer-modified-p nil))))))

(defun kernelscope--request-params (buf)
  "The kernelscope/artifact params for stage buffer BUF."
  (with-current-buffer buf
    (list :textDocument (list :uri kernelscope--source-uri) :stage kernelscope--stage)))

(defun kernelscope--refresh (buf)
  "Ask the server again for the artifact of stage buffer BUF, asynchronously."
  (let ((server (with-current-buffer buf (kernelscope--server))))
    (jsonrpc-async-request
     server :kernelscope/artifact (kernelscope--request-params buf)
     :success-fn (lambda (result)
                   (when (buffer-live-p buf)
                     (kernelscope--show-artifact buf result)))
     :error-fn (lambda (err)
                 (message "kernelscope: %s" (plist-get err :message))))))

(defun kernelscope-refresh ()
  "Fetch the artifact of this stage buffer again."
  (interactive)
  (kernelscope--refresh (current-buffer)))

;;;###autoload
(defun kernelscope-show-stage (stage)
  "Show what the current kernel source became at STAGE, in a read-only buffer.
Returns that buffer."
  (interactive
   (list (completing-read "kernelscope stage: " kernelscope-stages nil t nil nil "ptx")))
  (let* ((source (kernelscope--source-buffer))
         (server (kernelscope--server))
         (uri (with-current-buffer source (plist-get (eglot--TextDocumentIdentifier) :uri)))
         (name (format "*kernelscope %s: %s*" stage (buffer-name source)))
         (buf (get-buffer-create name)))
    (with-current-buffer buf
      (unless (derived-mode-p 'kernelscope-stage-mode)
        (kernelscope-stage-mode))
      (setq kernelscope--source source
            kernelscope--source-uri uri
            kernelscope--stage stage))
    (with-current-buffer source
      (cl-pushnew buf kernelscope--views)
      (add-hook 'post-command-hook #'kernelscope--on-source-command nil t))
    (kernelscope--show-artifact
     buf (jsonrpc-request server :kernelscope/artifact (kernelscope--request-params buf)))
    (when (called-interactively-p 'any)
      (display-buffer buf '(display-buffer-in-direction (direction . right))))
    buf))

(defun kernelscope--forget-view ()
  "Drop the current stage buffer from its source's list."
  (let ((view (current-buffer)))
    (when (buffer-live-p kernelscope--source)
      (with-current-buffer kernelscope--source
        (setq kernelscope--views (delq view kernelscope--views))
        (kernelscope--clear)))))

;;;; Linked highlighting

(defun kernelscope--clear ()
  "Remove the linked-highlighting overlays of the current buffer."
  (mapc #'delete-overlay kernelscope--overlays)
  (setq kernelscope--overlays nil))

(defun kernelscope--mark-lines (start end)
  "Highlight the 0-based lines START..END of the current buffer."
  (save-excursion
    (goto-char (point-min))
    (when (zerop (forward-line start))
      (let ((beg (point)))
        (forward-line (1+ (- end start)))
        (let ((ov (make-overlay beg (point))))
          (overlay-put ov 'face 'kernelscope-linked)
          (overlay-put ov 'kernelscope t)
          (push ov kernelscope--overlays))))))

(defconst kernelscope--bar
  (propertize " " 'display `((margin left-margin)
                             ,(propertize "▎" 'face 'kernelscope-inlined-bar)))
  "The bar in the left margin of an inlined line.")

(defun kernelscope--mark-inlined (start end)
  "Mark the 0-based lines START..END of the current buffer as inlined through a call.
Each line gets `kernelscope-inlined' and a bar in the margin."
  (save-excursion
    (goto-char (point-min))
    (when (zerop (forward-line start))
      (cl-loop repeat (1+ (- end start))
               until (eobp)
               do (let ((ov (make-overlay (point) (progn (forward-line 1) (point)))))
                    (overlay-put ov 'face 'kernelscope-inlined)
                    (overlay-put ov 'before-string kernelscope--bar)
                    (overlay-put ov 'kernelscope-inlined t)
                    (push ov kernelscope--overlays))))))

(defun kernelscope--show-line (buf line)
  "Scroll the windows of BUF so that 0-based LINE is visible."
  (dolist (win (get-buffer-window-list buf nil t))
    (unless (eq win (selected-window))
      (with-selected-window win
        (let ((pos (save-excursion (goto-char (point-min)) (forward-line line) (point))))
          (unless (pos-visible-in-window-p pos win)
            (goto-char pos)
            (recenter)))))))

(defun kernelscope-highlight-source-line (source line)
  "Highlight 0-based LINE of SOURCE and the lines of every stage buffer it became.
The lines inlined through a call on LINE are marked too (`kernelscope--mark-inlined'):
a line whose only code came through a call is linked to that code."
  (with-current-buffer source
    (kernelscope--clear)
    (let (any)
      (dolist (view kernelscope--views)
        (when (buffer-live-p view)
          (with-current-buffer view
            (kernelscope--clear)
            (let ((ranges (and line kernelscope--by-source
                               (gethash line kernelscope--by-source)))
                  (inlined (and line kernelscope--inlined
                                (gethash line kernelscope--inlined))))
              (dolist (r ranges)
                (kernelscope--mark-lines (car r) (cdr r)))
              (dolist (r inlined)
                (kernelscope--mark-inlined (car r) (cdr r)))
              (when (or ranges inlined)
                (setq any t)
                (kernelscope--show-line view (apply #'min (mapcar #'car (or ranges inlined)))))))))
      (when any
        (kernelscope--mark-lines line line)))))

(defun kernelscope--on-source-command ()
  "After a command in a source buffer: link its current line."
  (when kernelscope--views
    (kernelscope-highlight-source-line (current-buffer) (1- (line-number-at-pos)))))

(defun kernelscope--view-line-source (&optional line)
  "The source line of 0-based LINE of this stage buffer (default: point's line)."
  (let ((line (or line (1- (line-number-at-pos)))))
    (and kernelscope--by-view (< line (length kernelscope--by-view))
         (aref kernelscope--by-view line))))

(defun kernelscope--on-view-command ()
  "After a command in a stage buffer: link the source line of the line at point."
  (when (buffer-live-p kernelscope--source)
    (let ((line (kernelscope--view-line-source)))
      (kernelscope-highlight-source-line kernelscope--source line)
      (when line (kernelscope--show-line kernelscope--source line)))))

(defun kernelscope-goto-source ()
  "Jump to the source line the instruction at point came from."
  (interactive)
  (let ((line (kernelscope--view-line-source))
        (source kernelscope--source))
    (unless line (user-error "This line came from no source line"))
    (pop-to-buffer source)
    (goto-char (point-min))
    (forward-line line)))

;;;; Instructions and kernels

(defun kernelscope-describe-instruction ()
  "Show what the instruction at point of a stage buffer means, asking the server."
  (interactive)
  (unless kernelscope--uri (user-error "Not a kernelscope stage buffer"))
  (let* ((result (jsonrpc-request
                  (kernelscope--server) :textDocument/hover
                  (list :textDocument (list :uri kernelscope--uri)
                        :position (list :line (1- (line-number-at-pos))
                                        :character (current-column)))))
         (contents (and result (plist-get result :contents)))
         (text (cond ((null contents) nil)
                     ((stringp contents) contents)
                     ((plist-get contents :value))
                     (t (format "%s" contents)))))
    (if (not text)
        (message "kernelscope: nothing known about this line")
      (with-help-window "*kernelscope instruction*"
        (princ text))
      text)))

(defun kernelscope-kernels ()
  "Show registers, spills and memory of each kernel of the current source."
  (interactive)
  (let* ((source (kernelscope--source-buffer))
         (result (jsonrpc-request
                  (kernelscope--server) :kernelscope/kernels
                  (list :textDocument (with-current-buffer source
                                        (eglot--TextDocumentIdentifier))))))
    (with-help-window "*kernelscope kernels*"
      (princ (format "%-28s %5s %11s %8s %8s %6s %6s\n" "kernel" "regs" "spill st/ld"
                     "smem" "local" "ptx" "sass"))
      (seq-doseq (k (plist-get result :kernels))
        (let ((ins (plist-get k :instructions)))
          (princ (format "%-28s %5s %11s %7sB %7sB %6s %6s\n"
                         (or (plist-get k :demangled) (plist-get k :name))
                         (or (plist-get k :registers) "-")
                         (format "%s/%s" (or (plist-get k :spillStores) 0)
                                 (or (plist-get k :spillLoads) 0))
                         (or (plist-get k :sharedMemory) 0)
                         (or (plist-get k :localMemory) 0)
                         (or (plist-get ins :ptx) "-") (or (plist-get ins :sass) "-"))))))
    result))

(provide 'kernelscope)
;;; kernelscope.el ends here
