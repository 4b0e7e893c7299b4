;;; test-readme.el --- The README's Emacs set-up, as written  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by run.sh in a batch Emacs with a clean HOME, after the elisp block of
;; editors/emacs/README.md (KS_README_INIT, with the checkout's path in it) is loaded as a
;; user's init would load it.  Checks that a .rs file opens in a Rust mode (rust-mode or,
;; without one, kernelscope-rust-mode), that eglot starts kernelscope from this checkout's
;; build without being told where it is, that kernelscope's diagnostic reaches the broken
;; line, and that a server that cannot be found is said with where it was looked for.
;; Prints one ok/not ok line per check.

;;; Code:

(require 'cl-lib)

(defun ks-readme-check (name ok &optional detail)
  "Print the result of check NAME."
  (princ (format "%s - README set-up: %s%s\n" (if ok "ok" "not ok") name
                 (if (and (not ok) detail) (format ": %s" detail) ""))))

(defun ks-readme-wait (pred seconds)
  "Process output until PRED is non-nil or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    value))

(condition-case err
    (progn
      (load (getenv "KS_README_INIT") nil t)
      (setq eglot-sync-connect t eglot-connect-timeout 60)
      (let* ((file (expand-file-name "broken/saxpy.rs" (getenv "KS_WORK")))
             (buf (find-file-noselect file)))
        (set-buffer buf)
        (ks-readme-check "a .rs file opens in a Rust mode"
                         (memq major-mode '(rust-mode rust-ts-mode kernelscope-rust-mode))
                         major-mode)
        ;; eglot-ensure connects once the command that opened the file has finished.
        (run-hooks 'post-command-hook)
        (let ((server (ks-readme-wait #'eglot-current-server 60)))
          (ks-readme-check "eglot starts kernelscope" (and server (eglot-kernelscope-p server)))
          (ks-readme-check "the server is the one built in the checkout"
                           (and server
                                (equal (car (process-command (jsonrpc--process server)))
                                       (expand-file-name "build/server/kernelscope"
                                                         (getenv "KS_ROOT"))))
                           (and server (process-command (jsonrpc--process server)))))
        (let ((line (save-excursion (goto-char (point-min))
                                    (search-forward "undefined_thing")
                                    (line-number-at-pos))))
          ;; Batch Emacs has no idle time for flymake's own timer: start it once the
          ;; server's diagnostics are in, as the first idle moment would.
          (ks-readme-wait (lambda () (or eglot--diagnostics (flymake-diagnostics))) 240)
          (flymake-start nil t)
          (ks-readme-wait (lambda () (flymake-diagnostics)) 5)
          (ks-readme-check "kernelscope's error is on the broken line"
                           (cl-some (lambda (d) (= (line-number-at-pos (flymake-diagnostic-beg d)) line))
                                    (flymake-diagnostics))
                           (mapcar (lambda (d) (line-number-at-pos (flymake-diagnostic-beg d)))
                                   (flymake-diagnostics)))))
      (let* ((kernelscope-program "/nonexistent/kernelscope")
             (said (condition-case e (progn (kernelscope-find-program) nil)
                     (user-error (error-message-string e)))))
        (ks-readme-check "a missing server is said with where it was looked for"
                         (and said (string-match-p "server not found; looked at /nonexistent/kernelscope" said)
                              (string-match-p "ninja -C build kernelscope" said))
                         said)))
  (error (ks-readme-check "ran to the end" nil (error-message-string err))))

(ignore-errors (eglot-shutdown-all))
(kill-emacs 0)

;;; test-readme.el ends here
