;;; agentls.el --- The agentls tool registry in Emacs and its LLM packages  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, languages, convenience

;;; Commentary:

;; A client of its own for the agentls language server, beside whatever
;; else you run (eglot, lsp-mode): built on jsonrpc.el, it starts
;; `agentls serve --stdio' once per project root and keeps the server's
;; view of every file buffer exact, so that an agent's tools read what you
;; see, unsaved text included, and its edits land in your buffers.
;;
;; - `agentls-mode' (global): syncs every file buffer (didOpen, didChange
;;   with UTF-16 columns sent as soon as the command that made them ends,
;;   didSave, didClose); applies the server's edits as one undo step each,
;;   saves for it, asks you the server's approval questions with
;;   `completing-read', shows its progress in the mode line.
;; - An Elisp API for LLM packages: `agentls-tools', `agentls-call-tool'
;;   (synchronous, or asynchronous with :callback).
;; - `agentls-gptel-tools': the tools as gptel tools.
;; - Commands: `agentls-tools', `agentls-call', `agentls-status'.
;;
;; The wire contract is docs/PROTOCOL.md of the agentls repository.

;;; Code:

(require 'cl-lib)
(require 'jsonrpc)
(require 'project)
(require 'subr-x)
(require 'url-util)

(declare-function gptel-make-tool "ext:gptel-request")

(defgroup agentls nil
  "The agentls tool registry for agents."
  :group 'tools
  :prefix "agentls-")

(defconst agentls-version "0.1.0")

(defcustom agentls-program "agentls"
  "The agentls executable: a name on `exec-path' or an absolute file name."
  :type 'string)

(defcustom agentls-program-args '("serve" "--stdio")
  "Arguments of `agentls-program'.
Add \"--log\" \"FILE\" to keep the server's log."
  :type '(repeat string))

(defun agentls--settings-changed (symbol value)
  "Set SYMBOL to VALUE and tell the running servers."
  (set-default symbol value)
  (when (fboundp 'agentls--push-settings)
    (agentls--push-settings)))

(defcustom agentls-settings nil
  "The server's \"agentls\" settings, as a plist in JSON form.
Keys and meanings are those of the Configuration section of
docs/PROTOCOL.md; false is :json-false, arrays are vectors.  Example:

  (:saveAfterEdit t
   :approval (:bash \"ask\" :write_file \"allow\")
   :bash (:allow [\"go test\" \"make\"])
   :tools (:disabled [\"web_fetch\"]))

Sent as the initialization options and answered to the server's
workspace/configuration requests; setting it with `customize' or
`setopt' tells running servers."
  :type 'sexp
  :set #'agentls--settings-changed)

(defcustom agentls-root-function #'agentls-default-root
  "Function of a file name that returns the folder its server serves.
The default is the root of the file's project (project.el), else its
directory."
  :type 'function)

(defcustom agentls-excluded-roots (list "~/" "/")
  "Folders no server is started for: a file whose root is one of them
is not synchronised (a stray file in your home directory would otherwise
have the whole of it indexed).  The tools still work in other folders."
  :type '(repeat directory))

(defcustom agentls-call-timeout 900
  "Seconds a tool call may take before the client gives up on it.
Long enough for any bash command the server lets run (at most 600 s)."
  :type 'number)

(defcustom agentls-request-timeout 30
  "Seconds to wait for the server's answer to other requests."
  :type 'number)

(defcustom agentls-shutdown-timeout 3
  "Seconds to wait for a server to exit when it is stopped."
  :type 'number)

(defcustom agentls-events-buffer-size 200000
  "Characters kept in each server's events buffer (0: none)."
  :type 'integer)

(defcustom agentls-gptel-prefix "agentls_"
  "Prefix of the gptel tool names made by `agentls-gptel-tools'."
  :type 'string)

(defcustom agentls-gptel-category "agentls"
  "The gptel category of the agentls tools."
  :type 'string)

(define-error 'agentls-error "agentls")

;;;; Buffer state (kept across major mode changes)

(defvar-local agentls--conn nil "The connection this buffer is synchronised with.")
(defvar-local agentls--uri nil "The URI the server knows this buffer by.")
(defvar-local agentls--version 0 "The version of the buffer last sent.")
(defvar-local agentls--changes nil "Changes not sent yet, newest first.")
(defvar-local agentls--resync nil "Non-nil: send the whole text next.")
(defvar-local agentls--before nil "The region of the change under way.")
(defvar-local agentls--flush-timer nil "The timer that sends the changes.")
(dolist (v '(agentls--conn agentls--uri agentls--version agentls--changes
             agentls--resync agentls--before agentls--flush-timer))
  (put v 'permanent-local t))

;;;; Connections

(defclass agentls--connection (jsonrpc-process-connection)
  ((root :initarg :root :reader agentls--root
         :documentation "The folder served: an absolute directory name.")
   (buffers :initform nil :accessor agentls--buffers
            :documentation "The buffers synchronised with the server.")
   (progress :initform nil :accessor agentls--progress
             :documentation "Alist of progress token to (TITLE MESSAGE PERCENTAGE).")
   (later :initform nil :accessor agentls--later
          :documentation "A request handler's answer to compute later.")
   (info :initform nil :accessor agentls--info
         :documentation "The server's initialize result.")
   (settings-applied :initform 0 :accessor agentls--settings-applied
                     :documentation "How many times the server applied settings."))
  :documentation "A connection to one agentls server.")

(defvar agentls--connections (make-hash-table :test #'equal)
  "Live connections by root.")

(defvar agentls--failed (make-hash-table :test #'equal)
  "Roots whose server could not start, with the error, so that every
file opened there does not try again.  `agentls-mode' clears it.")

(defun agentls-default-root (file)
  "The folder of FILE's server: its project root, else its directory."
  (let* ((dir (file-name-directory file))
         (project (ignore-errors (project-current nil dir))))
    (file-name-as-directory
     (file-truename (if project (project-root project) dir)))))

(defun agentls--path-to-uri (path)
  "The file URI of the absolute PATH."
  (concat "file://"
          (url-hexify-string (directory-file-name (expand-file-name path))
                             url-path-allowed-chars)))

(defun agentls--uri-to-path (uri)
  "The file name of the file URI, or nil for another URI."
  (when (string-prefix-p "file://" uri)
    (decode-coding-string
     (url-unhex-string (string-remove-prefix "file://" uri)) 'utf-8)))

(defun agentls--capabilities ()
  "The client capabilities this client sends."
  (list :general (list :positionEncodings ["utf-16"])
        :workspace (list :applyEdit t
                         :workspaceEdit (list :documentChanges t
                                              :resourceOperations ["rename" "delete"])
                         :configuration t
                         :workspaceFolders t)
        :window (list :workDoneProgress t
                      :showMessage (list :messageActionItem
                                         (list :additionalPropertiesSupport :json-false)))
        :experimental (list :agentls (list :saveDocument t
                                           :diagnostics t
                                           :languageRequest t
                                           :editorState t))))

(defun agentls--connect (root)
  "Start a server for ROOT, initialize it and return its connection."
  (let* ((default-directory root)
         (name (format "agentls %s" (abbreviate-file-name root)))
         (program (or (executable-find agentls-program)
                      (signal 'agentls-error
                              (list (format "%s not found; install it (go install ./cmd/agentls) or set agentls-program"
                                            agentls-program)))))
         (conn (apply
                #'make-instance 'agentls--connection
                :name name
                :root root
                :request-dispatcher #'agentls--handle-request
                :notification-dispatcher #'agentls--handle-notification
                :on-shutdown #'agentls--on-shutdown
                :process (lambda ()
                           (make-process
                            :name name
                            :command (cons program agentls-program-args)
                            :connection-type 'pipe
                            :coding 'utf-8-emacs-unix
                            :noquery t
                            :stderr (get-buffer-create (format "*%s stderr*" name))
                            :file-handler nil))
                ;; jsonrpc 1.0.19 and later configure the events buffer
                ;; with a plist, and warn about the older initarg.
                (if (slot-exists-p 'jsonrpc-connection '-events-buffer-config)
                    (list :events-buffer-config
                          (list :size agentls-events-buffer-size :format 'full))
                  (list :events-buffer-scrollback-size agentls-events-buffer-size)))))
    (condition-case err
        (let ((uri (agentls--path-to-uri root)))
          (setf (agentls--info conn)
                (jsonrpc-request
                 conn :initialize
                 (list :processId (emacs-pid)
                       :clientInfo (list :name "agentls.el" :version agentls-version)
                       :rootUri uri
                       :rootPath (directory-file-name root)
                       :workspaceFolders
                       (vector (list :uri uri
                                     :name (file-name-nondirectory (directory-file-name root))))
                       :initializationOptions agentls-settings
                       :capabilities (agentls--capabilities))
                 :timeout agentls-request-timeout))
          (jsonrpc-notify conn :initialized (make-hash-table))
          (puthash root conn agentls--connections)
          (agentls--manage-root root)
          conn)
      (error
       (ignore-errors (delete-process (jsonrpc--process conn)))
       (signal (car err) (cdr err))))))

(defun agentls--manage-root (root)
  "Synchronise the file buffers of ROOT that are not (a server restarted)."
  (when (bound-and-true-p agentls-mode)
    (dolist (buf (buffer-list))
      (with-current-buffer buf
        (when (and (agentls--wanted-p)
                   (equal (agentls--root-of-buffer) root))
          (agentls--manage))))))

(defun agentls--excluded-p (root)
  "Non-nil when ROOT is one of `agentls-excluded-roots'."
  (cl-some (lambda (dir)
             (equal root (file-name-as-directory (file-truename dir))))
           agentls-excluded-roots))

(defun agentls--ensure (root)
  "The live connection of ROOT, started when there is none."
  (when (agentls--excluded-p root)
    (signal 'agentls-error
            (list (format "%s is in agentls-excluded-roots: no server is started for it" root))))
  (let ((conn (gethash root agentls--connections)))
    (if (and conn (jsonrpc-running-p conn))
        conn
      (when-let ((failure (gethash root agentls--failed)))
        (signal 'agentls-error (list (format "the server for %s did not start: %s (M-x agentls-mode twice to try again)"
                                             root failure))))
      (condition-case err
          (agentls--connect root)
        (error
         (puthash root (error-message-string err) agentls--failed)
         (signal (car err) (cdr err)))))))

(defun agentls--on-shutdown (conn)
  "CONN's process ended: forget it and its buffers."
  (when (eq (gethash (agentls--root conn) agentls--connections) conn)
    (remhash (agentls--root conn) agentls--connections))
  (dolist (buf (agentls--buffers conn))
    (when (buffer-live-p buf)
      (with-current-buffer buf
        (when (eq agentls--conn conn)
          (agentls--unmanage t)))))
  (setf (agentls--buffers conn) nil)
  (force-mode-line-update t))

(defun agentls--stop (conn)
  "Shut CONN's server down: shutdown, exit, and wait (boundedly) for it."
  (let ((proc (jsonrpc--process conn)))
    (when (process-live-p proc)
      (ignore-errors
        (jsonrpc-request conn :shutdown nil :timeout agentls-shutdown-timeout))
      (ignore-errors (jsonrpc-notify conn :exit nil))
      (let ((deadline (+ (float-time) agentls-shutdown-timeout)))
        (while (and (process-live-p proc) (< (float-time) deadline))
          (accept-process-output proc 0.1)))
      (when (process-live-p proc)
        (delete-process proc)))
    ;; The sentinel may not have run yet (it runs when Emacs next waits).
    (agentls--on-shutdown conn)))

(defun agentls--stop-all ()
  "Stop every server."
  (dolist (conn (hash-table-values agentls--connections))
    (agentls--stop conn)))

(defun agentls-connection (&optional dir)
  "The connection serving the current buffer, or DIR, started if need be.
Without a file buffer, DIR defaults to `default-directory'."
  (or (and (bound-and-true-p agentls--conn)
           (jsonrpc-running-p agentls--conn)
           agentls--conn)
      (agentls--ensure
       (funcall agentls-root-function
                (expand-file-name "x" (or dir default-directory))))))

;;;; Deferred answers
;;
;; jsonrpc.el answers a request with what its handler returns, from the
;; process filter.  A handler that must wait for the user (an approval
;; question) returns `agentls--later' after storing the function that
;; computes the answer; the answer is then sent from a timer, so the
;; filter goes on reading the server's messages meanwhile.

(defconst agentls--later-marker (make-symbol "agentls-later"))

(cl-defmethod jsonrpc-connection-send ((conn agentls--connection) &rest args)
  "Send ARGS on CONN, or, for an answer to compute later, schedule it."
  (if (and (plist-member args :id)
           (eq (plist-get args :result) agentls--later-marker))
      (let ((id (plist-get args :id))
            (job (agentls--later conn)))
        (setf (agentls--later conn) nil)
        (run-at-time 0 nil #'agentls--answer-later conn id job))
    (cl-call-next-method)))

(defun agentls--answer-later (conn id job)
  "Answer request ID of CONN with what JOB returns."
  (let ((reply (condition-case err
                   (list :result (funcall job))
                 (quit (list :result nil))
                 (error (list :error (list :code -32603
                                           :message (error-message-string err)))))))
    (when (jsonrpc-running-p conn)
      (apply #'jsonrpc-connection-send conn :id id reply))))

(defun agentls--defer (conn job)
  "Answer the request being handled on CONN later, with JOB's value."
  (setf (agentls--later conn) job)
  agentls--later-marker)

;;;; The server's requests and notifications

(defun agentls--handle-request (conn method params)
  "Answer the server's request METHOD with PARAMS on CONN."
  (pcase method
    ('workspace/applyEdit
     (agentls--apply-workspace-edit conn (plist-get params :edit)))
    ('agentls/saveDocument
     (agentls--save-document conn (plist-get params :uri)))
    ('window/showMessageRequest
     (agentls--defer conn (lambda () (agentls--ask params))))
    ('workspace/configuration
     (vconcat (mapcar (lambda (_item) agentls-settings)
                      (plist-get params :items))))
    ('agentls/diagnostics (agentls--diagnostics conn params))
    ('agentls/languageRequest (agentls--language-request conn params))
    ('agentls/editorState (agentls--editor-state conn))
    ((or 'window/workDoneProgress/create 'client/registerCapability
         'client/unregisterCapability)
     nil)
    (_ (jsonrpc-error :code -32601 :message (format "agentls.el does not handle %s" method)))))

(defun agentls--handle-notification (conn method params)
  "Handle the server's notification METHOD with PARAMS on CONN."
  (pcase method
    ('$/progress (agentls--progress-update conn params))
    ('window/showMessage
     (message "agentls: %s" (plist-get params :message)))
    ('window/logMessage
     (when (string-prefix-p "agentls: settings applied" (or (plist-get params :message) ""))
       (cl-incf (agentls--settings-applied conn))))
    (_ nil)))

(defun agentls--ask (params)
  "Ask the server's question in PARAMS; the chosen action or nil."
  (let* ((titles (mapcar (lambda (a) (plist-get a :title))
                         (plist-get params :actions)))
         (choice (completing-read (format "%s " (plist-get params :message))
                                  titles nil t nil nil (car (last titles)))))
    (when (member choice titles)
      (list :title choice))))

(defun agentls--progress-update (conn params)
  "Record the $/progress PARAMS of CONN for the mode line."
  (let* ((token (plist-get params :token))
         (value (plist-get params :value))
         (old (alist-get token (agentls--progress conn) nil nil #'equal)))
    (pcase (plist-get value :kind)
      ("end" (setf (agentls--progress conn)
                   (cl-remove token (agentls--progress conn) :key #'car :test #'equal)))
      (_ (setf (alist-get token (agentls--progress conn) nil nil #'equal)
               (list (or (plist-get value :title) (nth 0 old))
                     (or (plist-get value :message) (nth 1 old))
                     (or (plist-get value :percentage) (nth 2 old))))))
    (force-mode-line-update t)))

(defun agentls--mode-line ()
  "The mode line text: agentls and its server's progress, in synced buffers."
  (let* ((conn (and (bound-and-true-p agentls--conn) agentls--conn))
         (p (and conn (cdar (agentls--progress conn)))))
    (cond
     ((not conn) "")
     ((not p) " agentls")
     (t
      (format " agentls[%s%s]"
              (string-remove-prefix "agentls: " (or (nth 0 p) ""))
              (if (nth 2 p) (format " %d%%" (nth 2 p)) ""))))))

;;;; Positions (UTF-16 code units, as the server negotiates by default)

(defun agentls--utf16-column (pos)
  "The UTF-16 column of POS on its line."
  (save-excursion
    (goto-char pos)
    (let ((bol (line-beginning-position))
          (wide 0))
      (goto-char bol)
      (while (< (point) pos)
        (skip-chars-forward "\u0000-\uffff" pos)
        (when (< (point) pos)
          (setq wide (1+ wide))
          (forward-char 1)))
      (+ (- pos bol) wide))))

(defun agentls--position (pos)
  "The LSP position of buffer position POS (the buffer widened)."
  (save-restriction
    (widen)
    (list :line (1- (line-number-at-pos pos t))
          :character (agentls--utf16-column pos))))

(defun agentls--point (position)
  "The buffer position of the LSP POSITION, clamped as LSP says."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (let ((line (plist-get position :line))
            (units (plist-get position :character)))
        (if (> (forward-line line) 0)
            (point-max)
          (while (and (> units 0) (not (eolp)))
            (let ((w (if (> (char-after) #xffff) 2 1)))
              (if (> w units)
                  (setq units 0)
                (forward-char 1)
                (setq units (- units w)))))
          (point))))))

;;;; Buffer synchronisation


(defun agentls--whole-text ()
  "The buffer's text, widened."
  (save-restriction
    (widen)
    (buffer-substring-no-properties (point-min) (point-max))))

(defun agentls--language-id ()
  "A language id from the major mode."
  (replace-regexp-in-string
   "\\(-ts\\)?-mode\\'" "" (symbol-name major-mode)))

(defun agentls--wanted-p ()
  "Non-nil when the current buffer should be synchronised."
  (and buffer-file-name
       (not (file-remote-p buffer-file-name))
       (not agentls--conn)))

(defun agentls--root-of-buffer ()
  "The root of the current buffer's server, or nil when it has none."
  (let ((root (funcall agentls-root-function (file-truename buffer-file-name))))
    (unless (agentls--excluded-p root)
      root)))

(defun agentls--manage ()
  "Synchronise the current buffer with its server, if it is a file's."
  (when (agentls--wanted-p)
    (let* ((file (file-truename buffer-file-name))
           (root (agentls--root-of-buffer))
           (conn (and root
                      (condition-case err
                          (agentls--ensure root)
                        (error (message "agentls: %s" (error-message-string err))
                               nil)))))
      ;; A server started just now has taken the buffer already.
      (when (and conn (not agentls--conn))
        (setq agentls--conn conn
              agentls--uri (agentls--path-to-uri file)
              agentls--version 0
              agentls--changes nil
              agentls--resync nil
              agentls--before nil)
        (push (current-buffer) (agentls--buffers conn))
        (agentls--add-hooks)
        (jsonrpc-notify conn :textDocument/didOpen
                        (list :textDocument
                              (list :uri agentls--uri
                                    :languageId (agentls--language-id)
                                    :version agentls--version
                                    :text (agentls--whole-text))))))))

(defun agentls--add-hooks ()
  "Follow the current buffer's changes, saves, reverts and its end."
  (add-hook 'before-change-functions #'agentls--before-change nil t)
  (add-hook 'after-change-functions #'agentls--after-change nil t)
  (add-hook 'after-save-hook #'agentls--after-save nil t)
  (add-hook 'kill-buffer-hook #'agentls--kill-buffer nil t)
  (add-hook 'after-revert-hook #'agentls--after-revert nil t))

(defun agentls--after-major-mode ()
  "A new major mode dropped the buffer's local hooks: add them again.
\(The buffer's state survives: its variables are permanent-local.)"
  (when agentls--conn
    (agentls--add-hooks)))

(defun agentls--unmanage (&optional dead)
  "Stop synchronising the current buffer (DEAD: its server is gone)."
  (when agentls--conn
    (let ((conn agentls--conn))
      (unless dead
        (agentls--flush)
        (when (jsonrpc-running-p conn)
          (jsonrpc-notify conn :textDocument/didClose
                          (list :textDocument (list :uri agentls--uri)))))
      (setf (agentls--buffers conn) (delq (current-buffer) (agentls--buffers conn)))))
  (when agentls--flush-timer (cancel-timer agentls--flush-timer))
  (remove-hook 'before-change-functions #'agentls--before-change t)
  (remove-hook 'after-change-functions #'agentls--after-change t)
  (remove-hook 'after-save-hook #'agentls--after-save t)
  (remove-hook 'kill-buffer-hook #'agentls--kill-buffer t)
  (remove-hook 'after-revert-hook #'agentls--after-revert t)
  (setq agentls--conn nil agentls--uri nil agentls--changes nil
        agentls--resync nil agentls--before nil agentls--flush-timer nil))

(defun agentls--before-change (beg end)
  "Remember the LSP range of BEG..END before it changes."
  (setq agentls--before
        (list beg end (agentls--position beg) (agentls--position end))))

(defun agentls--after-change (beg end old-len)
  "Record the change of BEG..END (OLD-LEN characters before) for the server."
  (let ((b agentls--before))
    (setq agentls--before nil)
    (if (and b (<= (nth 0 b) beg) (>= (nth 1 b) (+ beg old-len)))
        ;; The range seen before the change may be wider than the one
        ;; changed; the text around the change is the same before and
        ;; after, so the wider range maps to its new text.
        (let ((new-end (+ (nth 1 b) (- end beg old-len))))
          (push (list :range (list :start (nth 2 b) :end (nth 3 b))
                      :text (save-restriction
                              (widen)
                              (buffer-substring-no-properties (nth 0 b) new-end)))
                agentls--changes))
      (setq agentls--resync t)))
  (unless agentls--flush-timer
    (setq agentls--flush-timer
          (run-at-time 0 nil #'agentls--flush-buffer (current-buffer)))))

(defun agentls--flush-buffer (buffer)
  "Send BUFFER's pending changes."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (agentls--flush))))

(defun agentls--flush ()
  "Send the current buffer's pending changes in one didChange."
  (when agentls--flush-timer
    (cancel-timer agentls--flush-timer)
    (setq agentls--flush-timer nil))
  (when (and agentls--conn (or agentls--changes agentls--resync))
    (let ((changes (if agentls--resync
                       (vector (list :text (agentls--whole-text)))
                     (vconcat (reverse agentls--changes)))))
      (setq agentls--changes nil agentls--resync nil)
      (setq agentls--version (1+ agentls--version))
      (when (jsonrpc-running-p agentls--conn)
        (jsonrpc-notify agentls--conn :textDocument/didChange
                        (list :textDocument (list :uri agentls--uri
                                                  :version agentls--version)
                              :contentChanges changes))))))

(defun agentls--flush-all (conn)
  "Send the pending changes of every buffer of CONN."
  (dolist (buf (agentls--buffers conn))
    (agentls--flush-buffer buf)))

(defun agentls--after-save ()
  "Tell the server the buffer is saved (or follows a new file name)."
  (when agentls--conn
    (agentls--flush)
    (let ((uri (agentls--path-to-uri (file-truename buffer-file-name))))
      (if (equal uri agentls--uri)
          (jsonrpc-notify agentls--conn :textDocument/didSave
                          (list :textDocument (list :uri agentls--uri)))
        (agentls--unmanage)
        (agentls--manage)))))

(defun agentls--kill-buffer ()
  "Tell the server the buffer is closed."
  (agentls--unmanage))

(defun agentls--after-revert ()
  "Send the whole text after a revert."
  (when agentls--conn
    (setq agentls--resync t)
    (agentls--flush)))

(defun agentls--buffer-of (conn uri)
  "The buffer of CONN whose document is URI, if any."
  (cl-find-if (lambda (buf)
                (and (buffer-live-p buf)
                     (equal (buffer-local-value 'agentls--uri buf) uri)))
              (agentls--buffers conn)))

;;;; The editor's language servers (agentls/diagnostics, languageRequest, editorState)

;; What flymake (or flycheck) reports, and what eglot or lsp-mode's server
;; answers for a buffer, for the server's tools (docs/PROTOCOL.md, "The
;; editor's language servers").  Positions to and from agentls count UTF-16
;; code units; eglot's and lsp-mode's servers get theirs in the encoding
;; they use (UTF-16, or characters for lsp-mode and a server that
;; negotiated utf-32 with eglot).

(defvar flymake-mode)
(defvar flycheck-mode)
(declare-function flymake-diagnostics "flymake")
(declare-function flymake-diagnostic-beg "flymake")
(declare-function flymake-diagnostic-end "flymake")
(declare-function flymake-diagnostic-type "flymake")
(declare-function flymake-diagnostic-text "flymake")
(declare-function flymake-diagnostic-backend "flymake")
(declare-function flymake-start "flymake")
(declare-function flymake-running-backends "flymake")
(declare-function flycheck-error-pos "flycheck")
(declare-function flycheck-error-level "flycheck")
(declare-function flycheck-error-message "flycheck")
(declare-function flycheck-error-checker "flycheck")
(declare-function flycheck-error-id "flycheck")
(defvar flycheck-current-errors)
(declare-function eglot-current-server "eglot")
(declare-function eglot--server-capable "eglot")
(declare-function lsp-request "lsp-mode")
(declare-function lsp-feature? "lsp-mode")

(defun agentls--severity (type)
  "The LSP severity of a flymake or flycheck diagnostic TYPE."
  (let ((name (symbol-name type)))
    (cond ((string-match-p "error" name) 1)
          ((string-match-p "warning" name) 2)
          ((string-match-p "info" name) 3)
          (t 3))))

(defun agentls--buffer-diagnostics ()
  "The diagnostics of the current buffer, as LSP Diagnostics."
  (save-restriction
    (widen)
    (let (out)
      (when (bound-and-true-p flymake-mode)
        (dolist (d (flymake-diagnostics))
          (push (list :range (list :start (agentls--position (flymake-diagnostic-beg d))
                                   :end (agentls--position (flymake-diagnostic-end d)))
                      :severity (agentls--severity (flymake-diagnostic-type d))
                      :source (let ((b (flymake-diagnostic-backend d)))
                                (replace-regexp-in-string
                                 "-flymake\\'\\|\\`flymake-" ""
                                 (if (symbolp b) (symbol-name b) "flymake")))
                      :message (flymake-diagnostic-text d))
                out)))
      (when (and (bound-and-true-p flycheck-mode) (boundp 'flycheck-current-errors))
        (dolist (e flycheck-current-errors)
          (let ((pos (flycheck-error-pos e)))
            (push (list :range (list :start (agentls--position pos) :end (agentls--position pos))
                        :severity (agentls--severity (flycheck-error-level e))
                        :source (symbol-name (flycheck-error-checker e))
                        :code (flycheck-error-id e)
                        :message (flycheck-error-message e))
                  out))))
      (vconcat (nreverse out)))))

(declare-function flymake-reporting-backends "flymake")

(defun agentls--flymake-done (buf)
  "Non-nil when every flymake backend started in BUF has reported."
  (and (buffer-live-p buf)
       (with-current-buffer buf
         (cl-subsetp (flymake-running-backends) (flymake-reporting-backends)))))

(defun agentls--diagnostics (conn params)
  "agentls/diagnostics: the diagnostics of PARAMS's :uri (or of every
synchronised buffer of CONN).  With :waitMs, flymake checks the buffer
again first; :fresh says whether every backend has reported since (a
backend that reports later, such as eglot's, is not waited for)."
  (let* ((uri (plist-get params :uri))
         (wait (or (plist-get params :waitMs) 0))
         (buf (and uri (agentls--buffer-of conn uri)))
         (fresh t))
    (when (> wait 0)
      (setq fresh (and buf (buffer-local-value 'flymake-mode buf)
                       (with-current-buffer buf
                         (flymake-start)
                         (agentls--flymake-done buf)))))
    (list :fresh (if fresh t :json-false)
          :items (vconcat
                  (delq nil
                        (mapcar (lambda (b)
                                  (when (and (buffer-live-p b) (or (not uri) (eq b buf)))
                                    (list :uri (buffer-local-value 'agentls--uri b)
                                          :diagnostics (with-current-buffer b (agentls--buffer-diagnostics)))))
                                (agentls--buffers conn)))))))

(defun agentls--editor-state (conn)
  "agentls/editorState: CONN's synchronised buffers and the selected window."
  (let* ((win (selected-window))
         (buf (window-buffer win))
         (docs (mapcar (lambda (b)
                         (with-current-buffer b
                           (list :uri agentls--uri
                                 :languageId (agentls--language-id)
                                 :version agentls--version
                                 :dirty (if (buffer-modified-p) t :json-false))))
                       (cl-remove-if-not #'buffer-live-p (agentls--buffers conn)))))
    (list :documents (vconcat docs)
          :active (when (eq (buffer-local-value 'agentls--conn buf) conn)
                    (with-current-buffer buf
                      (list :uri agentls--uri
                            :cursor (agentls--position (window-point win))
                            :selections (if (region-active-p)
                                            (vector (list :start (agentls--position (region-beginning))
                                                          :end (agentls--position (region-end))))
                                          [])
                            :visibleRange (list :start (agentls--position (window-start win))
                                                :end (agentls--position (window-end win t)))))))))

(defun agentls--language-server (buf)
  "The language server managing BUF: (eglot . SERVER), (lsp-mode), or nil."
  (with-current-buffer buf
    (cond ((and (fboundp 'eglot-current-server) (eglot-current-server))
           (cons 'eglot (eglot-current-server)))
          ((bound-and-true-p lsp-mode) (list 'lsp-mode)))))

(defun agentls--chars-p (server)
  "Non-nil when SERVER counts columns in characters rather than UTF-16."
  (pcase server
    (`(eglot . ,_) (equal (ignore-errors (eglot--server-capable :positionEncoding)) "utf-32"))
    (`(lsp-mode) t)))

(defun agentls--convert-position (pos from-utf16 buf-or-file)
  "POS converted between UTF-16 and characters on its line, read from
BUF-OR-FILE (a buffer, or a file name).  FROM-UTF16 says which way."
  (let ((convert
         (lambda ()
           (save-excursion
             (save-restriction
               (widen)
               (goto-char (point-min))
               (forward-line (plist-get pos :line))
               (let ((bol (point))
                     (n (plist-get pos :character)))
                 (if from-utf16
                     (let ((p (agentls--point pos)))
                       (list :line (plist-get pos :line) :character (- p bol)))
                   (goto-char (min (+ bol n) (line-end-position)))
                   (agentls--position (point)))))))))
    (cond ((bufferp buf-or-file) (with-current-buffer buf-or-file (funcall convert)))
          ((and buf-or-file (file-readable-p buf-or-file))
           (with-temp-buffer
             (insert-file-contents buf-or-file)
             (funcall convert)))
          (t pos))))

(defun agentls--walk-positions (value fn &optional uri)
  "VALUE with every position (a plist with :line and :character) passed
through FN with the URI of the document it belongs to."
  (cond ((vectorp value) (vconcat (mapcar (lambda (v) (agentls--walk-positions v fn uri)) value)))
        ((and (consp value) (keywordp (car value)))
         (if (and (plist-member value :line) (plist-member value :character))
             (funcall fn value uri)
           (let ((uri (or (plist-get value :uri) (plist-get value :targetUri)
                          (plist-get (plist-get value :textDocument) :uri) uri))
                 (out nil))
             (while value
               (let ((k (pop value)) (v (pop value)))
                 (setq out (plist-put out k
                                      (if (eq k :changes)
                                          (agentls--walk-changes v fn)
                                        (agentls--walk-positions v fn uri))))))
             out)))
        (t value)))

(defun agentls--walk-changes (changes fn)
  "The :changes map of a WorkspaceEdit with FN applied per document."
  (let (out)
    (while changes
      (let* ((k (pop changes)) (v (pop changes))
             (uri (substring (symbol-name k) 1)))
        (setq out (plist-put out k (agentls--walk-positions v fn uri)))))
    out))

(defun agentls--language-request (conn params)
  "agentls/languageRequest: PARAMS's :method asked of the server that eglot
or lsp-mode runs for the document, its positions converted both ways."
  (let* ((method (plist-get params :method))
         (p (plist-get params :params))
         (uri (plist-get (plist-get p :textDocument) :uri))
         (buf (and uri (agentls--buffer-of conn uri)))
         (server (and buf (agentls--language-server buf))))
    (unless server
      (jsonrpc-error :code -32001
                     :message (format "no language server in Emacs (eglot or lsp-mode) manages %s"
                                      (or uri "this workspace"))))
    (agentls--defer
     conn
     (lambda ()
       (let* ((chars (agentls--chars-p server))
              (place (lambda (u) (or (and u (agentls--buffer-of conn u))
                                     (and u (agentls--uri-to-path u)))))
              (out (if chars
                       (agentls--walk-positions
                        p (lambda (pos u) (agentls--convert-position pos t (funcall place u))) uri)
                     p))
              (res (pcase server
                     (`(eglot . ,srv) (jsonrpc-request srv (intern method) out))
                     (`(lsp-mode) (with-current-buffer buf (lsp-request method out))))))
         (if chars
             (agentls--walk-positions
              res (lambda (pos u) (agentls--convert-position pos nil (funcall place u))) uri)
           res))))))

;;;; Edits from the server

(defun agentls--refuse (reason)
  "The applyEdit answer that refuses the edit for REASON."
  (list :applied :json-false :failureReason reason))

(defun agentls--apply-workspace-edit (conn edit)
  "Apply the WorkspaceEdit EDIT from CONN's server; the applyEdit answer.
Every text edit of a buffer is checked first (a version other than the
buffer's, or changes not yet sent, refuse the whole edit), then applied
as one undo step and sent back at once."
  (catch 'refuse
    (let (plans)
      (cl-flet ((plan (uri version edits)
                  (let ((buf (agentls--buffer-of conn uri)))
                    (unless buf
                      (throw 'refuse (agentls--refuse (format "%s is not open in Emacs" uri))))
                    (with-current-buffer buf
                      (when (or agentls--changes agentls--resync
                                (and version (/= version agentls--version)))
                        (agentls--flush)
                        (throw 'refuse (agentls--refuse
                                        (format "the buffer is at version %d, the edit was made for %s"
                                                agentls--version version))))
                      (when buffer-read-only
                        (throw 'refuse (agentls--refuse (format "%s is read-only" (buffer-name))))))
                    (push (list buf edits) plans))))
        (let ((doc-changes (plist-get edit :documentChanges))
              ops)
          (if doc-changes
              (cl-loop for dc across (vconcat doc-changes) do
                (if (plist-get dc :kind)
                    (push dc ops)
                  (let ((td (plist-get dc :textDocument)))
                    (plan (plist-get td :uri) (plist-get td :version) (plist-get dc :edits)))))
            (cl-loop for (key edits) on (plist-get edit :changes) by #'cddr
                     do (plan (substring (symbol-name key) 1) nil edits)))
          (dolist (p (nreverse plans))
            (agentls--apply-text-edits (nth 0 p) (nth 1 p)))
          (dolist (op (nreverse ops))
            (agentls--resource-operation conn op))))
      (list :applied t))))

(defun agentls--apply-text-edits (buffer edits)
  "Apply the LSP text EDITS (all relative to the current text) to BUFFER
as one undo step, and send the change."
  (with-current-buffer buffer
    (let* ((spans (cl-loop for e across (vconcat edits)
                           for i from 0
                           collect (list (agentls--point (plist-get (plist-get e :range) :start))
                                         (agentls--point (plist-get (plist-get e :range) :end))
                                         (plist-get e :newText)
                                         i)))
           ;; Last first, so that earlier positions stay valid; of two
           ;; edits at one place the later in the list goes in first.
           (spans (sort spans (lambda (a b)
                                (or (> (car a) (car b))
                                    (and (= (car a) (car b)) (> (nth 3 a) (nth 3 b)))))))
           (done nil)
           (group (progn (undo-boundary) (prepare-change-group))))
      (unwind-protect
          (progn
            (activate-change-group group)
            (save-excursion
              (save-restriction
                (widen)
                (dolist (s spans)
                  (goto-char (nth 0 s))
                  (delete-region (nth 0 s) (max (nth 0 s) (nth 1 s)))
                  (insert (nth 2 s)))))
            (setq done t))
        (if done
            (progn (undo-amalgamate-change-group group)
                   (accept-change-group group))
          (cancel-change-group group)))
      (undo-boundary)
      (agentls--flush))))

(defun agentls--resource-operation (conn op)
  "Carry out the rename or delete OP of CONN's server."
  (pcase (plist-get op :kind)
    ("rename"
     (let* ((old (agentls--uri-to-path (plist-get op :oldUri)))
            (new (agentls--uri-to-path (plist-get op :newUri)))
            (overwrite (eq t (plist-get (plist-get op :options) :overwrite))))
       (make-directory (file-name-directory new) t)
       (rename-file old new overwrite)
       (dolist (buf (buffer-list))
         (with-current-buffer buf
           (when (and buffer-file-name
                      (let ((f (file-truename buffer-file-name)))
                        (or (equal f old) (string-prefix-p (file-name-as-directory old) f))))
             (let ((to (concat new (substring (file-truename buffer-file-name) (length old))))
                   (modified (buffer-modified-p)))
               (agentls--unmanage)
               (set-visited-file-name to t t)
               (set-buffer-modified-p modified)
               (agentls--manage)))))))
    ("delete"
     (let ((path (agentls--uri-to-path (plist-get op :uri)))
           (recursive (eq t (plist-get (plist-get op :options) :recursive))))
       (if (file-directory-p path)
           (delete-directory path recursive)
         (delete-file path))
       (dolist (buf (buffer-list))
         (with-current-buffer buf
           (when (and buffer-file-name
                      (let ((f (file-truename buffer-file-name)))
                        (or (equal f path) (string-prefix-p (file-name-as-directory path) f))))
             (set-buffer-modified-p nil)
             (kill-buffer buf))))))
    (kind (error "Resource operation %s not supported" kind)))
  (ignore conn))

(defun agentls--save-document (conn uri)
  "Save the buffer of URI for CONN's server; the saveDocument answer."
  (let ((buf (agentls--buffer-of conn uri)))
    (if (not buf)
        (list :saved :json-false)
      (with-current-buffer buf
        (condition-case err
            (let ((save-silently t)
                  (inhibit-message t))
              (save-buffer)
              (list :saved (if (buffer-modified-p) :json-false t)))
          (error (message "agentls: saving %s failed: %s" (buffer-name) (error-message-string err))
                 (list :saved :json-false)))))))

;;;; Requests to the server

(defun agentls--json-object (args)
  "ARGS (a plist, alist, hash table or nil) as a JSON object value."
  (cond ((null args) (make-hash-table))
        ((and (consp args) (consp (car args)))
         (let ((h (make-hash-table :test #'equal)))
           (dolist (kv args h)
             (puthash (format "%s" (car kv)) (cdr kv) h))))
        (t args)))

(defun agentls--send (conn method params success error timeout)
  "Send request METHOD with PARAMS on CONN; the request id.
SUCCESS gets the result, ERROR an error object (:code :message)."
  (agentls--flush-all conn)
  (let ((sent (jsonrpc-async-request
               conn method params
               :success-fn success
               :error-fn error
               :timeout-fn (lambda ()
                             (funcall error (list :code -32001 :message
                                                  (format "no answer in %s s" timeout))))
               :timeout timeout)))
    ;; jsonrpc 1.0.2x returns (ID TIMER); 1.0.14 returns nil, the id
    ;; being the connection's last.
    (if (consp sent)
        (car sent)
      (jsonrpc--next-request-id conn))))

(defun agentls--cancel (conn id)
  "Cancel request ID of CONN."
  (when (and id (jsonrpc-running-p conn))
    (jsonrpc-notify conn :$/cancelRequest (list :id id))))

(defun agentls--request (conn method params &optional timeout)
  "Send request METHOD with PARAMS on CONN and wait for its result.
An error answer signals `agentls-error'; \\[keyboard-quit] cancels the
request on the server too."
  (let* ((timeout (or timeout agentls-request-timeout))
         (state nil) (value nil)
         (id (agentls--send conn method params
                            (lambda (r) (setq state 'done value r))
                            (lambda (e) (setq state 'error value e))
                            timeout)))
    (condition-case q
        (while (not state)
          (accept-process-output nil 1))
      (quit (agentls--cancel conn id)
            (signal (car q) (cdr q))))
    (when (eq state 'error)
      (when (eql (plist-get value :code) -32001)
        (agentls--cancel conn id))
      (signal 'agentls-error (list (format "%s: %s" method (plist-get value :message)))))
    value))

(defun agentls--command (command arg)
  "The executeCommand params of COMMAND with its one argument ARG."
  (list :command command :arguments (vector arg)))

(cl-defun agentls-tools (&key connection)
  "The tools of the server of CONNECTION (default: this buffer's).
A list of plists (:name :description :readOnly :inputSchema), sorted by
name.  Interactively, show them."
  (interactive)
  (let* ((conn (or connection (agentls-connection)))
         (res (agentls--request conn :workspace/executeCommand
                                (agentls--command "agentls.listTools" (make-hash-table))))
         (tools (append (plist-get res :tools) nil)))
    (if (called-interactively-p 'any)
        (agentls--show-tools tools)
      tools)))

(cl-defun agentls-call-tool (name args &key callback connection timeout)
  "Run tool NAME with ARGS (a plist, alist or hash table; nil for none).
Without CALLBACK, wait (at most TIMEOUT, default `agentls-call-timeout')
and return the result, a plist (:content STRING :isError BOOL).  With
CALLBACK, return at once a function that cancels the call; CALLBACK gets
the result later (a failure of the call itself comes as an error
result).  CONNECTION defaults to the current buffer's server."
  (let* ((conn (or connection (agentls-connection)))
         (timeout (or timeout agentls-call-timeout))
         (params (agentls--command "agentls.callTool"
                                   (list :name name :arguments (agentls--json-object args)))))
    (if (not callback)
        (agentls--request conn :workspace/executeCommand params timeout)
      (let* ((finished nil)
             (id (agentls--send
                  conn :workspace/executeCommand params
                  (lambda (r) (setq finished t) (funcall callback r))
                  (lambda (e)
                    (setq finished t)
                    (funcall callback (list :content (format "agentls: %s" (plist-get e :message))
                                            :isError t)))
                  timeout)))
        (lambda ()
          (unless finished
            (agentls--cancel conn id)))))))

(defun agentls-index-status (&optional connection)
  "The code index status of CONNECTION's folder (a plist)."
  (agentls--request (or connection (agentls-connection)) :workspace/executeCommand
                    (agentls--command "agentls.indexStatus" (make-hash-table))))

(defun agentls--push-settings ()
  "Tell every server that `agentls-settings' changed."
  (dolist (conn (hash-table-values agentls--connections))
    (when (jsonrpc-running-p conn)
      (jsonrpc-notify conn :workspace/didChangeConfiguration
                      (list :settings (list :agentls agentls-settings))))))

;;;; gptel

(defun agentls--gptel-args (schema)
  "gptel's argument plists for the tool input SCHEMA (a plist)."
  (let ((required (append (plist-get schema :required) nil)))
    (cl-loop for (key prop) on (plist-get schema :properties) by #'cddr
             for name = (substring (symbol-name key) 1)
             collect (append (list :name name)
                             (unless (plist-get prop :description)
                               (list :description name))
                             (unless (member name required)
                               (list :optional t))
                             prop))))

(defun agentls--jsonable (value)
  "VALUE as parsed by gptel, made fit for `json-serialize' again."
  (cond ((vectorp value) (vconcat (mapcar #'agentls--jsonable value)))
        ((and (consp value) (keywordp (car value)))
         (cl-loop for (k v) on value by #'cddr
                  append (list k (agentls--jsonable v))))
        ((consp value) (vconcat (mapcar #'agentls--jsonable value)))
        (t value)))

(defun agentls--gptel-call-args (args values)
  "The arguments object of a call: gptel's VALUES in the order of ARGS."
  (let ((h (make-hash-table :test #'equal)))
    (cl-loop for arg in args
             for v in values
             unless (null v)
             do (puthash (plist-get arg :name) (agentls--jsonable v) h))
    h))

(defun agentls--result-text (result)
  "The text a model gets for a tool RESULT."
  (let ((content (or (plist-get result :content) "")))
    (if (eq (plist-get result :isError) t)
        (concat "Error: " content)
      content)))

(defun agentls-gptel-tool-specs (&optional connection)
  "The agentls tools as `gptel-make-tool' argument lists (plists).
Each runs asynchronously against the server of CONNECTION (default: the
current buffer's); a tool that may change something asks for
confirmation (gptel's :confirm)."
  (let* ((conn (or connection (agentls-connection)))
         (root (agentls--root conn)))
    (mapcar
     (lambda (tool)
       (let* ((name (plist-get tool :name))
              (args (agentls--gptel-args (plist-get tool :inputSchema))))
         (list :name (concat agentls-gptel-prefix name)
               :description (plist-get tool :description)
               :args args
               :async t
               :category agentls-gptel-category
               :confirm (not (eq (plist-get tool :readOnly) t))
               :include t
               :function
               (lambda (callback &rest values)
                 (condition-case err
                     (agentls-call-tool name (agentls--gptel-call-args args values)
                                        :connection (agentls--ensure root)
                                        :callback (lambda (r)
                                                    (funcall callback (agentls--result-text r))))
                   (error (funcall callback (format "Error: %s" (error-message-string err)))))))))
     (agentls-tools :connection conn))))

(defun agentls-gptel-tools (&optional connection)
  "Register the agentls tools of CONNECTION with gptel and return them.
CONNECTION defaults to the current buffer's server: the tools act on its
folder.  Use as (setq gptel-tools (agentls-gptel-tools)), or
interactively, then pick them in gptel's menu under the category
`agentls-gptel-category'."
  (interactive)
  (unless (require 'gptel nil t)
    (user-error "gptel is not installed"))
  (let ((tools (mapcar (lambda (spec) (apply #'gptel-make-tool spec))
                       (agentls-gptel-tool-specs connection))))
    (when (called-interactively-p 'any)
      (message "agentls: %d tools registered with gptel (category %s)"
               (length tools) agentls-gptel-category))
    tools))

;;;; Commands

(defun agentls--read-tool (conn)
  "Read a tool name of CONN's server."
  (completing-read "agentls tool: "
                   (mapcar (lambda (tool) (plist-get tool :name))
                           (agentls-tools :connection conn))
                   nil t))

(defun agentls-call (name json)
  "Run tool NAME with arguments JSON (an object) and show the result."
  (interactive
   (let ((conn (agentls-connection)))
     (list (agentls--read-tool conn)
           (read-string "arguments (JSON object): " "{}"))))
  (let ((args (condition-case err
                  (json-parse-string json :object-type 'plist :null-object nil
                                     :false-object :json-false)
                (json-parse-error (user-error "Not JSON: %s" (error-message-string err))))))
    (unless (or (null args) (and (consp args) (keywordp (car args))))
      (user-error "The arguments must be a JSON object"))
    (message "agentls: running %s…" name)
    (agentls-call-tool
     name args
     :callback (lambda (r)
                 (with-current-buffer (get-buffer-create "*agentls result*")
                   (let ((inhibit-read-only t))
                     (erase-buffer)
                     (insert (format "%s %s%s\n\n" name json
                                     (if (eq (plist-get r :isError) t) " → error" "")))
                     (insert (or (plist-get r :content) ""))
                     (goto-char (point-min))
                     (special-mode))
                   (display-buffer (current-buffer)))))))

(defun agentls--show-tools (tools)
  "Show TOOLS in a buffer."
  (with-current-buffer (get-buffer-create "*agentls tools*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (dolist (tool tools)
          (insert (propertize (plist-get tool :name) 'face 'bold)
                  (if (eq (plist-get tool :readOnly) t) "  (read-only)" "  (may change things)")
                  "\n  " (plist-get tool :description) "\n  "
                  (json-serialize (plist-get tool :inputSchema) :false-object :json-false
                                  :null-object nil)
                  "\n\n"))
        (goto-char (point-min))
        (special-mode))
      (display-buffer (current-buffer))))

(defun agentls-status ()
  "Show the running servers: folder, process, buffers, index, progress."
  (interactive)
  (let ((conns (hash-table-values agentls--connections)))
    (with-current-buffer (get-buffer-create "*agentls status*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "agentls-mode: %s; program: %s\n\n"
                        (if (bound-and-true-p agentls-mode) "on" "off")
                        (or (executable-find agentls-program) (format "%s (not found)" agentls-program))))
        (unless conns (insert "No server is running.\n"))
        (dolist (conn conns)
          (let ((proc (jsonrpc--process conn))
                (index (ignore-errors (agentls-index-status conn))))
            (insert (format "%s\n  process %s, %s\n  %d buffers: %s\n  index: %s\n  progress: %s\n\n"
                            (agentls--root conn)
                            (process-id proc) (process-status proc)
                            (length (agentls--buffers conn))
                            (mapconcat #'buffer-name (agentls--buffers conn) ", ")
                            (if index
                                (format "%s, %s files, %s symbols"
                                        (plist-get index :state) (plist-get index :files)
                                        (plist-get index :symbols))
                              "unknown")
                            (or (mapconcat (lambda (p) (format "%s %s" (nth 1 p) (or (nth 2 p) "")))
                                           (agentls--progress conn) "; ")
                                "")))))
        (special-mode))
      (display-buffer (current-buffer)))))

;;;; The mode

(defun agentls--find-file ()
  "Synchronise a newly visited file."
  (agentls--manage))

;;;###autoload
(define-minor-mode agentls-mode
  "Give agents the agentls tools over every file you edit.
Starts `agentls serve --stdio' per project root and keeps it in sync with
every file buffer.  Turning it off stops the servers."
  :global t
  :lighter (:eval (agentls--mode-line))
  :group 'agentls
  (clrhash agentls--failed)
  (if agentls-mode
      (progn
        (add-hook 'find-file-hook #'agentls--find-file)
        (add-hook 'after-change-major-mode-hook #'agentls--after-major-mode)
        (dolist (buf (buffer-list))
          (with-current-buffer buf (agentls--manage))))
    (remove-hook 'find-file-hook #'agentls--find-file)
    (remove-hook 'after-change-major-mode-hook #'agentls--after-major-mode)
    (dolist (buf (buffer-list))
      (with-current-buffer buf (agentls--unmanage)))
    (agentls--stop-all)))

;; Servers started through the API alone are stopped too.
(add-hook 'kill-emacs-hook #'agentls--stop-all)

(provide 'agentls)
;;; agentls.el ends here
