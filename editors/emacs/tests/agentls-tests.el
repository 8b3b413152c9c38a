;;; agentls-tests.el --- Tests of agentls.el against the real server  -*- lexical-binding: t -*-

;; Run with tests/run.sh (AGENTLS_BIN names the server binary).  Each test
;; makes a folder of its own, starts a server for it through
;; `agentls-mode', acts as the user and the agent would, and stops it.
;; gptel: the adapter's output is checked against the argument shape of
;; `gptel-make-tool' of gptel's gptel-request.el (karthink/gptel,
;; cd2cd736, Aug 2026); with GPTEL_DIR set, real gptel registers the
;; tools and renders them for a request.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'agentls)

(defvar agentls-test-bin (or (getenv "AGENTLS_BIN") "agentls"))

(defvar agentls-test-root nil "The folder of the running test.")

(defun agentls-test--path (rel)
  (expand-file-name rel agentls-test-root))

(defun agentls-test--disk (rel)
  (with-temp-buffer
    (insert-file-contents (agentls-test--path rel))
    (buffer-string)))

(defmacro agentls-test-with (files settings &rest body)
  "Run BODY with a fresh folder holding FILES ((NAME . TEXT)...) and
`agentls-mode' on with SETTINGS; everything is stopped afterwards."
  (declare (indent 2))
  `(let* ((agentls-test-root (file-name-as-directory
                              (file-truename (make-temp-file "agentls-el" t))))
          (agentls-program agentls-test-bin)
          (agentls-settings ,settings)
          (agentls-root-function (lambda (_file) agentls-test-root))
          (coding-system-for-write 'utf-8-unix))
     (unwind-protect
         (progn
           (dolist (f ,files)
             (make-directory (file-name-directory (agentls-test--path (car f))) t)
             (write-region (cdr f) nil (agentls-test--path (car f)) nil 'silent))
           (agentls-mode 1)
           ,@body)
       (dolist (buf (buffer-list))
         (when (and (buffer-file-name buf)
                    (string-prefix-p agentls-test-root (file-truename (buffer-file-name buf))))
           (with-current-buffer buf (set-buffer-modified-p nil))
           (kill-buffer buf)))
       (agentls-mode -1)
       (delete-directory agentls-test-root t))))

(defun agentls-test--open (rel)
  "Visit REL; the buffer, synchronised."
  (let ((buf (find-file-noselect (agentls-test--path rel))))
    (should (buffer-local-value 'agentls--conn buf))
    buf))

(defun agentls-test--call (name &rest args)
  "Run tool NAME with the plist ARGS; the result plist."
  (agentls-call-tool name args :connection (agentls--ensure agentls-test-root)))

(defun agentls-test--ok (result)
  "RESULT's content; the test fails if it is an error."
  (should-not (eq (plist-get result :isError) t))
  (plist-get result :content))

(defun agentls-test--error (result)
  "RESULT's content; the test fails unless it is an error."
  (should (eq (plist-get result :isError) t))
  (plist-get result :content))

;;;; Positions

(ert-deftest agentls-utf16-positions ()
  (with-temp-buffer
    (insert "a中😀b\nx")
    ;; a=1, 中=1, 😀=2 UTF-16 units.
    (should (equal (agentls--position 5) '(:line 0 :character 5)))
    (should (= (agentls--point '(:line 0 :character 4)) 4))
    ;; Inside the surrogate pair: the start of the emoji.
    (should (= (agentls--point '(:line 0 :character 3)) 3))
    ;; Past the end of a line: its end; past the last line: the end.
    (should (= (agentls--point '(:line 0 :character 99)) 5))
    (should (= (agentls--point '(:line 7 :character 0)) (point-max)))))

;;;; Synchronisation

(defun agentls-test--server-lines (rel)
  "The lines of REL as the server's read_file shows them."
  (let ((out (agentls-test--ok (agentls-test--call "read_file" :path rel)))
        lines)
    (dolist (line (split-string out "\n"))
      (when (string-match "\\` *[0-9]+→\\(.*\\)\\'" line)
        (push (match-string 1 line) lines)))
    (nreverse lines)))

(defun agentls-test--buffer-lines ()
  (save-restriction
    (widen)
    (split-string (buffer-substring-no-properties (point-min) (point-max)) "\n" nil)))

(ert-deftest agentls-random-edits-stay-in-sync ()
  ;; Inserts, deletions and replacements with CJK, emoji, accents and
  ;; newlines, some in a narrowed buffer: after each round the server's
  ;; text is the buffer's, so every change carried the right UTF-16 range.
  (agentls-test-with '(("s.txt" . "start 中文 😀 é\nline two\n")) nil
    (with-current-buffer (agentls-test--open "s.txt")
      (random "agentls")
      (let ((pieces ["a" "中" "😀" "\n" "é" " " "👍🏽" "xyz" "\t" "文字"]))
        (dotimes (_round 8)
          (dotimes (_ 40)
            (let* ((n (1+ (- (point-max) (point-min))))
                   (a (+ (point-min) (random n)))
                   (b (min (point-max) (+ a (random 4)))))
              (pcase (random 4)
                (0 (goto-char a) (insert (aref pieces (random (length pieces)))))
                (1 (delete-region a b))
                (2 (goto-char a) (delete-region a b)
                   (insert (aref pieces (random (length pieces)))
                           (aref pieces (random (length pieces)))))
                (3 (save-restriction
                     (narrow-to-region a b)
                     (goto-char (point-max))
                     (insert "😀\n中")
                     (upcase-region (point-min) (point-max)))))))
          (let ((buf-lines (agentls-test--buffer-lines))
                (srv-lines (agentls-test--server-lines "s.txt")))
            ;; read_file shows no line after the final newline.
            (when (equal (car (last buf-lines)) "")
              (setq buf-lines (butlast buf-lines)))
            (should (equal srv-lines buf-lines))))))))

(ert-deftest agentls-major-mode-change-keeps-sync ()
  (agentls-test-with '(("m.txt" . "one\n")) nil
    (with-current-buffer (agentls-test--open "m.txt")
      (prog-mode)
      (should agentls--conn)
      (goto-char (point-max))
      (insert "two\n")
      (should (equal (agentls-test--server-lines "m.txt") '("one" "two"))))))

(ert-deftest agentls-async-call-and-cancel ()
  (agentls-test-with '(("a.txt" . "async text\n")) '(:clientConfirms t)
    (agentls-test--open "a.txt")
    (let* ((conn (agentls--ensure agentls-test-root))
           (got nil)
           (cancel (agentls-call-tool "read_file" '(:path "a.txt") :connection conn
                                      :callback (lambda (r) (setq got r)))))
      (should (functionp cancel))
      (let ((deadline (+ (float-time) 30)))
        (while (and (not got) (< (float-time) deadline))
          (accept-process-output nil 0.1)))
      (should (string-match-p "async text" (agentls-test--ok got)))
      ;; A call cancelled while it runs ends with an error result.
      (setq got nil)
      (let ((cancel (agentls-call-tool "bash" '(:command "sleep 60") :connection conn
                                       :callback (lambda (r) (setq got r)))))
        (funcall cancel)
        (let ((deadline (+ (float-time) 30)))
          (while (and (not got) (< (float-time) deadline))
            (accept-process-output nil 0.1)))
        (agentls-test--error got)))))

(ert-deftest agentls-move-and-delete-open-file ()
  (agentls-test-with '(("a.txt" . "a\n") ("b.txt" . "b\n")) nil
    (let ((a (agentls-test--open "a.txt"))
          (b (agentls-test--open "b.txt")))
      (agentls-test--ok (agentls-test--call "move_file" :source "a.txt" :destination "sub/c.txt"))
      (should (buffer-live-p a))
      (should (equal (buffer-file-name a) (agentls-test--path "sub/c.txt")))
      (should (file-exists-p (agentls-test--path "sub/c.txt")))
      (should (equal (buffer-local-value 'agentls--uri a)
                     (agentls--path-to-uri (agentls-test--path "sub/c.txt"))))
      (agentls-test--ok (agentls-test--call "delete_file" :path "b.txt"))
      (should-not (buffer-live-p b))
      (should-not (file-exists-p (agentls-test--path "b.txt"))))))

(ert-deftest agentls-excluded-root-not-synced ()
  (agentls-test-with '(("a.txt" . "x\n")) nil
    (let ((agentls-excluded-roots (list agentls-test-root)))
      (with-current-buffer (find-file-noselect (agentls-test--path "a.txt"))
        (should-not agentls--conn)
        (should (equal (agentls--mode-line) ""))
        (should (= 0 (hash-table-count agentls--connections)))))))

(ert-deftest agentls-progress-in-mode-line ()
  (agentls-test-with '(("a.txt" . "x\n")) nil
    (with-current-buffer (agentls-test--open "a.txt")
      (should (equal (agentls--mode-line) " agentls"))
      (agentls--handle-notification agentls--conn '$/progress
                                    '(:token "t1" :value (:kind "begin" :title "agentls: bash")))
      (agentls--handle-notification agentls--conn '$/progress
                                    '(:token "t1" :value (:kind "report" :message "line" :percentage 40)))
      (should (equal (agentls--mode-line) " agentls[bash 40%]"))
      (agentls--handle-notification agentls--conn '$/progress '(:token "t1" :value (:kind "end")))
      (should (equal (agentls--mode-line) " agentls")))))

;;;; Commands, settings, restarts

(ert-deftest agentls-commands ()
  (agentls-test-with '(("a.txt" . "command text\n")) nil
    (with-current-buffer (agentls-test--open "a.txt")
      (agentls-status)
      (with-current-buffer "*agentls status*"
        (should (string-match-p (regexp-quote agentls-test-root) (buffer-string)))
        (should (string-match-p "1 buffers: a.txt" (buffer-string))))
      (call-interactively #'agentls-tools)
      (with-current-buffer "*agentls tools*"
        (should (string-match-p "^read_file  (read-only)" (buffer-string)))
        (should (string-match-p "^bash  (may change things)" (buffer-string))))
      (when (get-buffer "*agentls result*") (kill-buffer "*agentls result*"))
      (agentls-call "read_file" "{\"path\": \"a.txt\"}")
      (let ((deadline (+ (float-time) 30)))
        (while (and (not (get-buffer "*agentls result*")) (< (float-time) deadline))
          (accept-process-output nil 0.1)))
      (with-current-buffer "*agentls result*"
        (should (string-match-p "command text" (buffer-string))))
      (should-error (agentls-call "read_file" "[1]") :type 'user-error)
      (should-error (agentls-call "read_file" "{bad") :type 'user-error))))

(ert-deftest agentls-settings-change-reaches-server ()
  (agentls-test-with '(("a.txt" . "x\n")) '(:approval (:write_file "allow"))
    (agentls-test--open "a.txt")
    (let* ((conn (agentls--ensure agentls-test-root))
           (applied nil))
      ;; The server applies the initialization options, then what it
      ;; pulls after initialized: both are in force before the change, so
      ;; the next application is the change's.
      (let ((deadline (+ (float-time) 30)))
        (while (and (< (agentls--settings-applied conn) 2) (< (float-time) deadline))
          (accept-process-output nil 0.1)))
      (setq applied (agentls--settings-applied conn))
      (should (= applied 2))
      (agentls-test--ok (agentls-test--call "write_file" :path "one.txt" :content "1\n"))
      (customize-set-variable 'agentls-settings '(:approval (:write_file "deny")))
      (let ((deadline (+ (float-time) 30)))
        (while (and (= applied (agentls--settings-applied conn)) (< (float-time) deadline))
          (accept-process-output nil 0.1)))
      (should (> (agentls--settings-applied conn) applied))
      (agentls-test--error (agentls-test--call "write_file" :path "two.txt" :content "2\n"))
      (should-not (file-exists-p (agentls-test--path "two.txt"))))))

(ert-deftest agentls-server-restart-resyncs-buffers ()
  (agentls-test-with '(("a.txt" . "disk\n")) nil
    (with-current-buffer (agentls-test--open "a.txt")
      (let ((old agentls--conn))
        (goto-char (point-max))
        (insert "unsaved\n")
        ;; The server dies.
        (delete-process (jsonrpc--process old))
        (let ((deadline (+ (float-time) 10)))
          (while (and agentls--conn (< (float-time) deadline))
            (accept-process-output nil 0.1)))
        (should-not agentls--conn)
        ;; The next call starts a new one, which gets the open buffers.
        (should (equal (agentls-test--server-lines "a.txt") '("disk" "unsaved")))
        (should agentls--conn)
        (should-not (eq agentls--conn old))))))

;;;; Scenarios

(ert-deftest agentls-unsaved-text-read-at-once ()
  (agentls-test-with '(("a.txt" . "first\n")) nil
    (with-current-buffer (agentls-test--open "a.txt")
      (goto-char (point-max))
      (insert "typed 中文 😀 just now\n")
      ;; No waiting: the call sends the change before itself.
      (let ((text (agentls-test--ok (agentls-test--call "read_file" :path "a.txt"))))
        (should (string-match-p "typed 中文 😀 just now" text))
        (should (string-match-p "not yet saved" text))))))

(ert-deftest agentls-edit-open-buffer ()
  (let ((orig "中文 😀 target 😀 x\nsecond line\n"))
    (agentls-test-with `(("a.txt" . ,orig)) nil
      (with-current-buffer (agentls-test--open "a.txt")
        (goto-char (point-max))
        (agentls-test--ok (agentls-test--call "read_file" :path "a.txt"))
        (let ((text (agentls-test--ok (agentls-test--call "edit_file" :path "a.txt"
                                                          :old_string "target 😀 x"
                                                          :new_string "TARGET 🎉 y"))))
          (should-not (string-match-p "not on disk" text)))
        (should (equal (buffer-string) "中文 😀 TARGET 🎉 y\nsecond line\n"))
        ;; The buffer was clean and saving is on: it is saved.
        (should-not (buffer-modified-p))
        (should (equal (agentls-test--disk "a.txt") "中文 😀 TARGET 🎉 y\nsecond line\n"))
        ;; One undo takes the whole edit back.
        (let ((last-command nil))
          (undo))
        (should (equal (buffer-string) orig))
        ;; The server follows the undo.
        (should (string-match-p "target 😀 x"
                                (agentls-test--ok (agentls-test--call "read_file" :path "a.txt"))))))))

(ert-deftest agentls-edit-dirty-buffer-not-saved ()
  (agentls-test-with '(("a.txt" . "alpha\nbeta\n")) nil
    (with-current-buffer (agentls-test--open "a.txt")
      (goto-char (point-max))
      (insert "mine\n")
      (agentls-test--ok (agentls-test--call "read_file" :path "a.txt"))
      (should (string-match-p "not on disk"
                              (agentls-test--ok (agentls-test--call "edit_file" :path "a.txt"
                                                                    :old_string "beta"
                                                                    :new_string "BETA"))))
      (should (equal (buffer-string) "alpha\nBETA\nmine\n"))
      (should (buffer-modified-p))
      (should (equal (agentls-test--disk "a.txt") "alpha\nbeta\n")))))

(ert-deftest agentls-edit-not-saved-when-saving-off ()
  (agentls-test-with '(("a.txt" . "alpha\n")) '(:saveAfterEdit :json-false)
    (with-current-buffer (agentls-test--open "a.txt")
      (agentls-test--ok (agentls-test--call "read_file" :path "a.txt"))
      (should (string-match-p "not saved"
                              (agentls-test--ok (agentls-test--call "edit_file" :path "a.txt"
                                                                    :old_string "alpha"
                                                                    :new_string "omega"))))
      (should (equal (buffer-string) "omega\n"))
      (should (buffer-modified-p))
      (should (equal (agentls-test--disk "a.txt") "alpha\n")))))

(ert-deftest agentls-closed-file-edited-on-disk ()
  (agentls-test-with '(("open.txt" . "x\n") ("closed.txt" . "one\ntwo\n")) nil
    (agentls-test--open "open.txt")
    (agentls-test--ok (agentls-test--call "read_file" :path "closed.txt"))
    (agentls-test--ok (agentls-test--call "edit_file" :path "closed.txt"
                                          :old_string "two" :new_string "three"))
    (should (equal (agentls-test--disk "closed.txt") "one\nthree\n"))
    (should-not (find-buffer-visiting (agentls-test--path "closed.txt")))))

(ert-deftest agentls-stale-edit-refused ()
  (agentls-test-with '(("a.txt" . "alpha\n")) nil
    (with-current-buffer (agentls-test--open "a.txt")
      (agentls-test--ok (agentls-test--call "read_file" :path "a.txt"))
      ;; The user types after the agent read the file.
      (goto-char (point-min))
      (insert "x")
      (should (string-match-p "read it again"
                              (agentls-test--error
                               (agentls-test--call "edit_file" :path "a.txt"
                                                   :old_string "alpha" :new_string "beta"))))
      (should (equal (buffer-string) "xalpha\n"))
      ;; The client refuses an edit made for another version by itself.
      (let ((answer (agentls--apply-workspace-edit
                     agentls--conn
                     (list :documentChanges
                           (vector (list :textDocument (list :uri agentls--uri
                                                             :version (1- agentls--version))
                                         :edits (vector (list :range (list :start '(:line 0 :character 0)
                                                                           :end '(:line 0 :character 1))
                                                              :newText "Z"))))))))
        (should (eq (plist-get answer :applied) :json-false))
        (should (equal (buffer-string) "xalpha\n"))))))

(defvar agentls-test--answer nil "What the advised `completing-read' answers.")
(defvar agentls-test--asked nil "The prompts it saw.")

(defun agentls-test--completing-read (prompt collection &rest _)
  (push prompt agentls-test--asked)
  (should (member agentls-test--answer collection))
  agentls-test--answer)

(ert-deftest agentls-approval-yes-and-no ()
  (agentls-test-with '(("a.txt" . "alpha\n")) '(:approval (:write_file "ask"))
    (advice-add 'completing-read :override #'agentls-test--completing-read)
    (unwind-protect
        (let ((agentls-test--asked nil))
          (let ((agentls-test--answer "Allow"))
            (agentls-test--ok (agentls-test--call "write_file" :path "yes.txt" :content "yes\n")))
          (should (equal (agentls-test--disk "yes.txt") "yes\n"))
          (should (string-match-p "write_file: `yes.txt`" (car agentls-test--asked)))
          (let ((agentls-test--answer "Deny"))
            (agentls-test--error (agentls-test--call "write_file" :path "no.txt" :content "no\n")))
          (should-not (file-exists-p (agentls-test--path "no.txt")))
          (should (= (length agentls-test--asked) 2)))
      (advice-remove 'completing-read #'agentls-test--completing-read))))

(ert-deftest agentls-long-bash-call ()
  ;; The command waits for a file the test writes after 11 s: longer
  ;; than jsonrpc.el's default timeout of 10 s.
  (agentls-test-with '(("a.txt" . "x\n")) '(:clientConfirms t)
    (agentls-test--open "a.txt")
    (let* ((release (agentls-test--path "release"))
           (start (float-time))
           (timer (run-at-time 11 nil (lambda () (write-region "" nil release nil 'silent))))
           (text (unwind-protect
                     (agentls-test--ok
                      (agentls-test--call "bash"
                                          :command "while [ ! -e release ]; do sleep 0.2; done; echo released"
                                          :timeout_seconds 60))
                   (cancel-timer timer))))
      (should (string-match-p "released" text))
      (should (>= (- (float-time) start) 11)))))

(defun agentls-test--alive (pid)
  "Non-nil when PID runs and is not a zombie."
  (let ((attrs (process-attributes pid)))
    (and attrs (not (equal (alist-get 'state attrs) "Z")))))

(defun agentls-test--processes (token)
  "The live processes whose command line holds TOKEN."
  (cl-remove-if-not
   (lambda (pid)
     (let ((attrs (process-attributes pid)))
       (and attrs
            (not (equal (alist-get 'state attrs) "Z"))
            (string-match-p (regexp-quote token) (or (alist-get 'args attrs) "")))))
   (list-system-processes)))

(ert-deftest agentls-quitting-emacs-leaves-no-server ()
  (let* ((dir (file-name-as-directory (file-truename (make-temp-file "agentls-quit" t))))
         (pids (expand-file-name "pids" dir))
         (script (expand-file-name "child.el" dir))
         ;; The background shell's command line, unique to this run.
         (token (format "sleep %d.%d" (+ 300 (random 100)) (random 1000000)))
         (lib (locate-library "agentls")))
    (unwind-protect
        (progn
          (write-region "x\n" nil (expand-file-name "a.txt" dir) nil 'silent)
          (with-temp-file script
            (insert ";; -*- lexical-binding: t -*-\n")
            (prin1 `(progn
                      (load ,lib nil t)
                      (require 'cl-lib)
                      (setq agentls-program ,agentls-test-bin
                            agentls-settings '(:clientConfirms t)
                            agentls-root-function (lambda (_) ,dir))
                      (agentls-mode 1)
                      (find-file ,(expand-file-name "a.txt" dir))
                      ;; A background shell whose process must end too.
                      (agentls-call-tool "bash" '(:command ,(concat "exec " token)
                                                           :run_in_background t))
                      (let ((deadline (+ (float-time) 20)))
                        (while (and (not (agentls-test--processes ,token))
                                    (< (float-time) deadline))
                          (accept-process-output nil 0.1)))
                      ;; After agentls's own kill-emacs-hook: how its
                      ;; server ended.
                      (let ((proc (jsonrpc--process agentls--conn))
                            (shells (length (agentls-test--processes ,token))))
                        (add-hook 'kill-emacs-hook
                                  (lambda ()
                                    (write-region (format "%d %d %s %s\n" (process-id proc) shells
                                                          (process-status proc) (process-exit-status proc))
                                                  nil ,pids nil 'silent))
                                  90))
                      (kill-emacs 0))
                   (current-buffer)))
          (should (= 0 (call-process (expand-file-name invocation-name invocation-directory)
                                     nil nil nil "--batch" "-Q" "-L" (file-name-directory lib)
                                     "-L" (file-name-directory (locate-library "agentls-tests"))
                                     "-l" "agentls-tests" "-l" script)))
          (let* ((fields (with-temp-buffer (insert-file-contents pids)
                                           (split-string (buffer-string))))
                 (server (string-to-number (nth 0 fields))))
            (should (> server 0))
            ;; The shell ran (in the bash sandbox, bubblewrap's own
            ;; processes carry the command line too).
            (should (>= (string-to-number (nth 1 fields)) 1))
            ;; The server was shut down (shutdown, exit: status 0) before
            ;; Emacs exited, not left to Emacs's SIGHUP.
            (should (equal (nth 2 fields) "exit"))
            (should (equal (nth 3 fields) "0"))
            ;; Emacs waited for the server to exit, and the server ends its
            ;; shells as it shuts down; the kernel may still be reaping.
            (let ((deadline (+ (float-time) 5)))
              (while (and (or (agentls-test--alive server) (agentls-test--processes token))
                          (< (float-time) deadline))
                (sleep-for 0.1)))
            (should-not (agentls-test--alive server))
            (should-not (agentls-test--processes token))))
      (dolist (pid (agentls-test--processes token))
        (signal-process pid 'kill))
      (delete-directory dir t))))

;;;; gptel

(ert-deftest agentls-gptel-tool-specs-well-formed ()
  (agentls-test-with '(("a.txt" . "hello gptel\n")) nil
    (agentls-test--open "a.txt")
    (let* ((conn (agentls--ensure agentls-test-root))
           (specs (agentls-gptel-tool-specs conn))
           (names (mapcar (lambda (s) (plist-get s :name)) specs)))
      (should (member "agentls_read_file" names))
      (should (member "agentls_bash" names))
      (dolist (spec specs)
        (should (stringp (plist-get spec :name)))
        (should (string-match-p "\\`agentls_[a-z_]+\\'" (plist-get spec :name)))
        (should (functionp (plist-get spec :function)))
        (should (and (stringp (plist-get spec :description))
                     (> (length (plist-get spec :description)) 0)))
        (should (eq (plist-get spec :async) t))
        (should (equal (plist-get spec :category) "agentls"))
        (dolist (arg (plist-get spec :args))
          (should (stringp (plist-get arg :name)))
          (should (stringp (plist-get arg :type)))
          (should (stringp (plist-get arg :description)))))
      (let ((read (cl-find "agentls_read_file" specs :key (lambda (s) (plist-get s :name)) :test #'equal))
            (bash (cl-find "agentls_bash" specs :key (lambda (s) (plist-get s :name)) :test #'equal)))
        (should-not (plist-get read :confirm))
        (should (plist-get bash :confirm))
        ;; path is required, offset is not.
        (should-not (plist-get (cl-find "path" (plist-get read :args)
                                        :key (lambda (a) (plist-get a :name)) :test #'equal)
                               :optional))
        (should (plist-get (cl-find "offset" (plist-get read :args)
                                    :key (lambda (a) (plist-get a :name)) :test #'equal)
                           :optional))
        ;; Run it as gptel does: callback first, then the values in the
        ;; order of :args (absent optional ones nil).
        (let* ((got nil)
               (values (mapcar (lambda (a) (and (equal (plist-get a :name) "path") "a.txt"))
                               (plist-get read :args))))
          (apply (plist-get read :function) (lambda (r) (setq got r)) values)
          (let ((deadline (+ (float-time) 30)))
            (while (and (not got) (< (float-time) deadline))
              (accept-process-output nil 0.1)))
          (should (stringp got))
          (should (string-match-p "hello gptel" got))))
      ;; gptel needs Emacs 29, or the compat package on Emacs 28.
      (when-let ((dir (and (getenv "GPTEL_DIR")
                           (or (fboundp 'define-keymap) (require 'compat nil t))
                           (getenv "GPTEL_DIR"))))
        (add-to-list 'load-path dir)
        (require 'gptel)
        (let* ((tools (mapcar (lambda (s) (apply #'gptel-make-tool s)) specs))
               (rendered (gptel--parse-tools nil tools)))
          (should (= (length tools) (length specs)))
          (should (gptel-get-tool "agentls_read_file"))
          ;; What gptel sends to an OpenAI-style API serialises.
          (should (stringp (json-serialize rendered :false-object :json-false :null-object nil)))
          (message "gptel %s: %d agentls tools registered and rendered"
                   (or (ignore-errors (package-get-version)) "checkout") (length tools)))))))

;;;; The editor's language servers (flymake, the selected window, eglot/lsp-mode absent)

(require 'flymake)

(defun agentls-test--flymake-backend (report &rest _)
  "A flymake backend that reports an error on every word BROKEN."
  (let (diags)
    (save-excursion
      (goto-char (point-min))
      (while (search-forward "BROKEN" nil t)
        (push (flymake-make-diagnostic (current-buffer) (match-beginning 0) (match-end 0)
                                       :error "BROKEN is not allowed")
              diags)))
    (funcall report diags)))

(defun agentls-test--flymake-on ()
  "Flymake with the test backend only, in the current buffer; waits for it."
  (setq-local flymake-diagnostic-functions (list #'agentls-test--flymake-backend))
  (flymake-mode 1)
  (flymake-start)
  (let ((end (+ (float-time) 10)))
    (while (and (not (agentls--flymake-done (current-buffer))) (< (float-time) end))
      (accept-process-output nil 0.05))))

(ert-deftest agentls-language-tools-listed ()
  (agentls-test-with '(("a.txt" . "x\n")) nil
    (agentls-test--open "a.txt")
    (let ((names (mapcar (lambda (tool) (plist-get tool :name))
                         (agentls-tools :connection (agentls--ensure agentls-test-root)))))
      (dolist (want '("diagnostics" "code_nav" "rename_symbol" "code_action" "editor_state"))
        (should (member want names))))))

(ert-deftest agentls-diagnostics-from-flymake ()
  (agentls-test-with '(("a.txt" . "中😀 BROKEN here\nfine\n")) nil
    (with-current-buffer (agentls-test--open "a.txt")
      (agentls-test--flymake-on)
      (should (flymake-diagnostics))
      (let ((text (agentls-test--ok (agentls-test--call "diagnostics"))))
        ;; BROKEN starts after 3 characters (4 UTF-16 units): column 4.
        (should (string-match-p "^a\\.txt:1:4: error \\[agentls-test--flymake-backend\\] BROKEN is not allowed$" text))))))

(ert-deftest agentls-write-ends-with-flymake-diagnostics ()
  (agentls-test-with '(("a.txt" . "all good\n")) nil
    (with-current-buffer (agentls-test--open "a.txt")
      (agentls-test--flymake-on)
      (agentls-test--ok (agentls-test--call "read_file" :path "a.txt"))
      (let ((text (agentls-test--ok (agentls-test--call "edit_file" :path "a.txt"
                                                        :old_string "good" :new_string "BROKEN"))))
        (should (string-match-p "the editor reports after the change:\na\\.txt:1:5: error" text))
        (should-not (string-match-p "no diagnostics update" text))))))

(ert-deftest agentls-editor-state-region ()
  (agentls-test-with '(("a.txt" . "first line\nsecond line\n")) nil
    (let ((buf (agentls-test--open "a.txt")))
      (switch-to-buffer buf)
      (transient-mark-mode 1)
      (goto-char (point-min))
      (forward-line 1)
      (set-mark (point))
      (forward-word 1)
      (activate-mark)
      (let ((text (agentls-test--ok (agentls-test--call "editor_state"))))
        (should (string-match-p "Active: a\\.txt, cursor at line 2 column 7" text))
        (should (string-match-p "Selection: lines 2:1 to 2:7\n```\nsecond\n```" text))
        (should (string-match-p "- a\\.txt \\[text\\]" text))))))

(ert-deftest agentls-code-nav-without-eglot-uses-the-index ()
  (agentls-test-with '(("main.go" . "package main\n\nfunc helper() {}\n\nfunc main() { helper() }\n")) nil
    (agentls-test--open "main.go")
    (let ((text nil)
          (end (+ (float-time) 30)))
      ;; The index builds in the background: ask until it has the file.
      (while (and (< (float-time) end)
                  (not (and text (string-match-p "main\\.go:3" text))))
        (setq text (agentls-test--ok (agentls-test--call "code_nav" :action "definition"
                                                         :path "main.go" :line 5 :symbol "helper")))
        (unless (string-match-p "main\\.go:3" text) (accept-process-output nil 0.1)))
      (should (string-match-p "no language server in the editor handles main\\.go" text))
      (should (string-match-p "main\\.go:3" text)))))

(provide 'agentls-tests)
;;; agentls-tests.el ends here
