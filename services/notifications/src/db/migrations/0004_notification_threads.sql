-- Notification threads (Gitea's models/activities/notification.go `notification` table): one per user and subject.
-- subject_type is Gitea's NotificationSource (1 issue, 2 pull request, 3 commit, 4 repository); status its
-- NotificationStatus (1 unread, 2 read, 3 pinned). issue_id is 0 and commit_id '' where the subject has none, so the
-- unique key names a subject whatever its type.
CREATE TABLE notification_threads (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL,
  repo_id bigint NOT NULL,
  subject_type smallint NOT NULL CHECK (subject_type BETWEEN 1 AND 4),
  issue_id bigint NOT NULL DEFAULT 0,
  issue_index bigint NOT NULL DEFAULT 0,
  commit_id text NOT NULL DEFAULT '',
  -- The comment the thread points at (Gitea: kept while the thread is unread, so no comment is skipped); 0 none.
  comment_id bigint NOT NULL DEFAULT 0,
  status smallint NOT NULL CHECK (status BETWEEN 1 AND 3),
  updated_by bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX notification_threads_subject ON notification_threads (user_id, repo_id, subject_type, issue_id, commit_id);
-- Pages, newest updated first, of one user's threads: all of them, or of one status (the default list is unread and
-- pinned, merged from two ranges of the second index).
CREATE INDEX notification_threads_user_page ON notification_threads (user_id, updated_at DESC, id DESC);
CREATE INDEX notification_threads_user_status_page ON notification_threads (user_id, status, updated_at DESC, id DESC);
-- The same within one repository (`/repos/{o}/{r}/notifications`), and a deleted repository's or issue's threads.
CREATE INDEX notification_threads_repo_page ON notification_threads (repo_id, user_id, status, updated_at DESC, id DESC);
CREATE INDEX notification_threads_issue ON notification_threads (issue_id) WHERE issue_id <> 0;

-- Threads per user and status, kept by the trigger below in the writing transaction: `GET /notifications/new` and
-- the unfiltered totals read one row instead of counting a list that may hold a million threads.
CREATE TABLE notification_counts (
  user_id bigint NOT NULL,
  status smallint NOT NULL,
  threads bigint NOT NULL,
  PRIMARY KEY (user_id, status)
);

CREATE FUNCTION notification_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE notification_counts SET threads = threads - 1 WHERE user_id = OLD.user_id AND status = OLD.status;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO notification_counts (user_id, status, threads) VALUES (NEW.user_id, NEW.status, 1)
      ON CONFLICT (user_id, status) DO UPDATE SET threads = notification_counts.threads + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER notification_counts_insert_delete AFTER INSERT OR DELETE ON notification_threads
  FOR EACH ROW EXECUTE FUNCTION notification_counts_apply();
-- Only a change of status (or owner) moves a thread between counters; bumping updated_at does not.
CREATE TRIGGER notification_counts_update AFTER UPDATE OF status, user_id ON notification_threads
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.user_id IS DISTINCT FROM NEW.user_id)
  EXECUTE FUNCTION notification_counts_apply();

-- Mail to send (the outbox of mail): written by the event consumers in the transaction that records the event, sent
-- after commit by the mail sender (claims due jobs with a lease, marks them sent), so an SMTP outage delays mail and
-- a redelivered event queues nothing twice (job_key).
CREATE TABLE mail_jobs (
  id bigserial PRIMARY KEY,
  -- '<event id>:<recipient user id>' (one mail per recipient and event).
  job_key text NOT NULL UNIQUE,
  -- What the mail is about: see services/notifications/src/mail/jobs.ts MailJobKind.
  kind text NOT NULL,
  recipient_id bigint NOT NULL,
  -- Why the recipient gets it (MailReason): their e-mail preference is applied to it when the mail is sent.
  reason text NOT NULL,
  -- What the mail's template needs, as the event had it (MailJobData).
  data jsonb NOT NULL,
  -- 0 pending, 1 sent, 2 skipped (the recipient's preference, no address), 3 given up.
  state smallint NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX mail_jobs_due ON mail_jobs (next_attempt_at) WHERE state = 0;
