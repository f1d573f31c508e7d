-- Pinned issues and pull requests (Gitea's issue_pin): an issue's pin_order (from 0001) is its position among its
-- repository's pins of its kind, from 1; 0 = not pinned. Pinning appends (highest + 1), unpinning clears the one
-- (the others keep theirs, as in Gitea), moving shifts the pins between the old and the new place by one.
ALTER TABLE issues ADD CONSTRAINT issues_pin_order_not_negative CHECK (pin_order >= 0);
-- The pinned lists and the MAX_PINNED count read only pinned rows.
CREATE INDEX issues_pinned ON issues (repo_id, is_pull, pin_order) WHERE pin_order > 0;
