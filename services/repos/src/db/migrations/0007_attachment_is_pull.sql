-- Whether an issue attachment's issue is a pull request: the pulls unit, not the issues unit, decides who may read it
-- (an issue never becomes a pull request nor the reverse, so the flag recorded at upload stays true). Downloads by
-- uuid (OpenAttachment) have nothing else to go by: the issue lives in the issues service.
ALTER TABLE attachments ADD COLUMN is_pull boolean NOT NULL DEFAULT false;
