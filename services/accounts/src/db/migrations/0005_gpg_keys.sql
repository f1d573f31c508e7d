-- Users' GPG keys, as Gitea's gpg_key and gpg_key_import tables hold them: a row per added primary key and a
-- row per subkey (`parent_id`), each with what its algorithm can do.
CREATE TABLE gpg_keys (
  id                  bigserial   PRIMARY KEY,
  owner_id            bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- Long key id, upper-case hex.
  key_id              text        NOT NULL CONSTRAINT gpg_keys_key_id_check CHECK (key_id ~ '^[0-9A-F]{16}$'),
  -- The primary key's row for a subkey; null for a primary key.
  parent_id           bigint      NULL REFERENCES gpg_keys (id) ON DELETE CASCADE,
  -- Base64 of the key's public-key packet (what Gitea answers as `public_key`).
  content             text        NOT NULL,
  -- The armored primary key with its subkeys, for signature checks; empty for subkeys.
  armored             text        NOT NULL DEFAULT '',
  -- The owner's addresses among the key's identities when it was added.
  emails              text[]      NOT NULL DEFAULT '{}',
  -- Added with a signature of the owner's verification token.
  verified            boolean     NOT NULL DEFAULT false,
  can_sign            boolean     NOT NULL,
  can_encrypt_comms   boolean     NOT NULL,
  can_encrypt_storage boolean     NOT NULL,
  can_certify         boolean     NOT NULL,
  -- The key's own creation and expiry times; null expiry: never.
  created_at          timestamptz NOT NULL,
  expires_at          timestamptz NULL,
  added_at            timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT gpg_keys_subkey_check CHECK (parent_id IS NULL OR armored = '')
);
-- A primary key is registered once, by anyone.
CREATE UNIQUE INDEX gpg_keys_key_id_key ON gpg_keys (key_id) WHERE parent_id IS NULL;
-- Gitea refuses a key whose id is already stored as any key or subkey.
CREATE INDEX gpg_keys_key_id_idx ON gpg_keys (key_id);
CREATE INDEX gpg_keys_owner_id_idx ON gpg_keys (owner_id, id) WHERE parent_id IS NULL;
CREATE INDEX gpg_keys_parent_id_idx ON gpg_keys (parent_id) WHERE parent_id IS NOT NULL;
