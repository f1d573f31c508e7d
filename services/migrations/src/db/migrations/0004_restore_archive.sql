-- A restore task's dump (`cairn restore-repo`): the object-store key of the tar the CLI sent, fetched by the runner
-- (also when it resumes the task after a restart) and deleted once the task has ended; '' for every other task.
ALTER TABLE migration_tasks ADD COLUMN archive_key text NOT NULL DEFAULT '';
