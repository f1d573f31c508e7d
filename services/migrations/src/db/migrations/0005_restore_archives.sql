-- The restore archives in the object store (restores/<id>), recorded before the first byte is stored and forgotten
-- once the object is deleted: an archive whose restore never got a task (the service died between storing it and
-- inserting the task) or whose delete failed is found here and swept, since the object store cannot be listed.
-- touched_at moves while the archive arrives, so a long upload is never taken for a stray one.
CREATE TABLE restore_archives (
  key text PRIMARY KEY,
  touched_at timestamptz NOT NULL DEFAULT now()
);
