-- Gitea's user.email_notifications_preference (models/user/user.go EmailNotificationsPreference): which notification
-- mails the user gets. Existing accounts take Gitea's default; new ones `[admin] DEFAULT_EMAIL_NOTIFICATIONS`.
ALTER TABLE users ADD COLUMN email_notifications_preference text NOT NULL DEFAULT 'enabled'
  CHECK (email_notifications_preference IN ('enabled', 'onmention', 'disabled', 'andyourown'));
