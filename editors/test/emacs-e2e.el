;;; emacs-e2e.el --- Emacs 28 + eglot 1.9 (Debian) end-to-end test of ordering-lsp -*- lexical-binding: t -*-
;; Usage: ORDERING_LSP=/path/ordering-lsp WS=editors/test/workspace emacs --batch -l editors/test/emacs-e2e.el
;; Configured by the elisp block of editors/README.md (evaluated as is); every file of
;; expect.json is opened in turn and checked for diagnostics, hover, definition, completion and rename.  Prints "ok - ..." / "not ok - ..." per check, then
;; "RESULT {json}"; the exit code is the number of failed checks.
(package-initialize)
(require 'eglot)
(require 'json)
(require 'cl-lib)

(defun e2e-env (k &optional d) (let ((v (getenv k))) (if (or (null v) (string= v "")) d v)))
(defvar e2e-t0 (float-time))
(defun e2e-ms () (round (* 1000 (- (float-time) e2e-t0))))
(defvar e2e-failed 0)
(defvar e2e-checks nil)
(defvar e2e-published (make-hash-table :test 'equal) "uri -> latest diagnostics vector")

(defun e2e-out (s) (princ (concat s "\n")))
(defun e2e-check (name ok detail)
  (push (cons name (if ok "ok" (format "FAIL: %s" detail))) e2e-checks)
  (if ok (e2e-out (format "ok - %s%s" name (if detail (format " (%s)" detail) "")))
    (setq e2e-failed (1+ e2e-failed))
    (e2e-out (format "not ok - %s: %s" name detail))))

(defvar e2e-modes nil)
(defun e2e-put-mode (sys mode) (push (cons sys (symbol-name mode)) e2e-modes))
(defun e2e-finish ()
  (e2e-out (concat "RESULT " (json-encode `((checks . ,(reverse e2e-checks)) (modes . ,e2e-modes) (total_ms . ,(e2e-ms))))))
  (ignore-errors (let ((s (eglot-current-server))) (when s (eglot-shutdown s))))
  (kill-emacs e2e-failed))

(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql textDocument/publishDiagnostics)) &key uri diagnostics &allow-other-keys)
  (puthash uri diagnostics e2e-published))

(let* ((server (e2e-env "ORDERING_LSP" "ordering-lsp"))
       (ws (directory-file-name (expand-file-name (e2e-env "WS" "editors/test/workspace"))))
       (readme (expand-file-name "../../README.md" ws))
       (timeout (/ (string-to-number (e2e-env "LSP_TIMEOUT_MS" "15000")) 1000.0))
       (expect (let ((json-object-type 'alist) (json-array-type 'list) (json-key-type 'symbol))
                 (json-read-file (expand-file-name "expect.json" ws))))
       (first t))
  ;; the configuration users copy: the elisp block of editors/README.md marked
  ;; "tested by editors/test/emacs-e2e.el", evaluated as is
  (setenv "ORDERING_LSP" server)
  (with-temp-buffer
    (insert-file-contents readme)
    (if (not (search-forward "tested by editors/test/emacs-e2e.el" nil t))
        (progn (e2e-check "emacs README snippet" nil "no block marked for emacs-e2e.el in editors/README.md") (e2e-finish))
      (let* ((beg (line-beginning-position))
             (end (progn (re-search-forward "^```" nil t) (match-beginning 0))))
        (eval (car (read-from-string (concat "(progn " (buffer-substring-no-properties beg end) ")"))) t))))
  ;; make the workspace a project even without version control
  (add-hook 'project-find-functions (lambda (_dir) (cons 'transient (file-name-as-directory ws))))
  (dolist (f (cl-remove-if-not (lambda (f) (let ((eds (alist-get 'editors f))) (or (null eds) (member "emacs" eds))))
                                (alist-get 'files expect)))
    (let* ((rel (alist-get 'path f))
           (sys (alist-get 'languageId f))
           (file (expand-file-name rel ws))
           (base (file-name-nondirectory file)))
      (find-file file) ; auto-mode-alist from the README picks the mode
      (e2e-put-mode sys major-mode)
      (when first
        (setq first nil)
        (condition-case err
            (apply #'eglot (eglot--guess-contact))
          (error (e2e-check "emacs start" nil (error-message-string err)) (e2e-finish))))
      ;; diagnostics for this file with the expected message
      (let* ((want (alist-get 'diagnostic f))
             (uri (eglot--path-to-uri file))
             (deadline (+ (float-time) timeout))
             (match nil))
        (while (and (not match) (< (float-time) deadline))
          (accept-process-output nil 0.05)
          (setq match (cl-find-if (lambda (d) (string-search want (plist-get d :message)))
                                  (gethash uri e2e-published))))
        (e2e-check (format "emacs %s diagnostics" sys) match
                   (if match (format "%d: %s" (1+ (plist-get (plist-get (plist-get match :range) :start) :line))
                                     (truncate-string-to-width (replace-regexp-in-string "\n" " | " (plist-get match :message)) 100))
                     (format "%S" (mapcar (lambda (d) (plist-get d :message)) (gethash uri e2e-published))))))
      (cl-flet ((goto (pos) (let ((lc (mapcar #'string-to-number (split-string pos ":"))))
                              (goto-char (point-min)) (forward-line (1- (car lc))) (forward-char (1- (cadr lc))))))
        (let ((h (alist-get 'hover f)))
          (when h
            (goto (alist-get 'at h))
            (let* ((r (ignore-errors (jsonrpc-request (eglot-current-server) :textDocument/hover
                                                      (eglot--TextDocumentPositionParams))))
                   (contents (and r (plist-get r :contents)))
                   (text (cond ((stringp contents) contents)
                               ((plist-get contents :value))
                               (t (format "%S" contents))))
                   (case-fold-search t)
                   (rx (replace-regexp-in-string "\\\\d" "[0-9]" (alist-get 'match h)))
                   (rx (replace-regexp-in-string "(\\([^()]*\\))" "\\\\(\\1\\\\)" rx))
                   (rx (replace-regexp-in-string "|" "\\\\|" rx)))
              (e2e-check (format "emacs %s hover" sys) (and r (string-match-p rx text))
                         (truncate-string-to-width (replace-regexp-in-string "\n" " " (or text "nil")) 80)))))
        (let ((d (alist-get 'definition f)))
          (when d
            (goto (alist-get 'at d))
            (let* ((r (ignore-errors (jsonrpc-request (eglot-current-server) :textDocument/definition
                                                      (eglot--TextDocumentPositionParams))))
                   (locs (cond ((null r) nil) ((plist-get r :uri) (list r)) ((plist-get r :targetUri) (list r)) (t (append r nil))))
                   (got (mapcar (lambda (l)
                                  (format "%s:%d" (file-name-nondirectory (eglot--uri-to-path (or (plist-get l :uri) (plist-get l :targetUri))))
                                          (1+ (plist-get (plist-get (or (plist-get l :range) (plist-get l :targetSelectionRange)) :start) :line))))
                                locs))
                   (want (format "%s:%d" base (alist-get 'line d))))
              (e2e-check (format "emacs %s definition" sys) (member want got)
                         (format "want %s, got %S" want got)))))
        (let ((c (alist-get 'completion f)))
          (when c
            (goto (alist-get 'at c))
            ;; what completion-at-point asks eglot's table for
            (let* ((r (ignore-errors (jsonrpc-request (eglot-current-server) :textDocument/completion
                                                      (eglot--CompletionParams))))
                   (items (cond ((null r) nil) ((vectorp r) (append r nil)) (t (append (plist-get r :items) nil))))
                   (labels (mapcar (lambda (it) (plist-get it :label)) items))
                   (missing (cl-remove-if (lambda (w) (member w labels)) (alist-get 'labels c))))
              (e2e-check (format "emacs %s completion" sys) (and r (null missing))
                         (format "offered %S%s" labels (if missing (format ", missing %S" missing) ""))))))
        (let ((rn (alist-get 'rename f)))
          (when rn
            (goto (alist-get 'at rn))
            ;; M-x eglot-rename: the user's command, which applies the edit to the buffers
            (let* ((err (condition-case e (progn (eglot-rename (alist-get 'newName rn)) nil)
                          (error (error-message-string e))))
                   (bad nil) (said nil))
              (dolist (want (alist-get 'lines rn))
                (let ((text (save-excursion (goto-char (point-min)) (forward-line (1- (car want)))
                                            (buffer-substring-no-properties (line-beginning-position) (line-end-position)))))
                  (if (string-search (cadr want) text)
                      (push (format "%d: %s" (car want) (cadr want)) said)
                    (push (format "%d: %s" (car want) text) bad))))
              (e2e-check (format "emacs %s rename" sys) (and (null err) (null bad))
                         (or err (if bad (format "not renamed: %S" (reverse bad)) (string-join (reverse said) "; "))))
              (revert-buffer t t t)))))))
  (e2e-finish))
