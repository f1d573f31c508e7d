-- Accounts: users and personal access tokens. Runs with search_path = accounts (set by @cairn/db).

CREATE TABLE users (
  id                        bigserial PRIMARY KEY,
  name                      text        NOT NULL,
  -- Names compare case-insensitively (Gitea's lower_name).
  lower_name                text        NOT NULL,
  full_name                 text        NOT NULL DEFAULT '',
  email                     text        NOT NULL,
  -- scrypt$N$r$p$salt$hash; empty for accounts without a local password.
  password_hash             text        NOT NULL DEFAULT '',
  must_change_password      boolean     NOT NULL DEFAULT false,
  login_name                text        NOT NULL DEFAULT '',
  source_id                 bigint      NOT NULL DEFAULT 0,
  is_admin                  boolean     NOT NULL DEFAULT false,
  is_active                 boolean     NOT NULL DEFAULT true,
  prohibit_login            boolean     NOT NULL DEFAULT false,
  restricted                boolean     NOT NULL DEFAULT false,
  visibility                text        NOT NULL DEFAULT 'public'
                                        CONSTRAINT users_visibility_check CHECK (visibility IN ('public', 'limited', 'private')),
  language                  text        NOT NULL DEFAULT '',
  location                  text        NOT NULL DEFAULT '',
  website                   text        NOT NULL DEFAULT '',
  description               text        NOT NULL DEFAULT '',
  -- -1: the instance default ([repository] MAX_CREATION_LIMIT).
  max_repo_creation         integer     NOT NULL DEFAULT -1,
  allow_git_hook            boolean     NOT NULL DEFAULT false,
  allow_import_local        boolean     NOT NULL DEFAULT false,
  allow_create_organization boolean     NOT NULL DEFAULT true,
  last_login                timestamptz NULL,
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users_lower_name_check CHECK (lower_name = lower(name)),
  CONSTRAINT users_lower_name_key UNIQUE (lower_name)
);

-- One account per address, whatever its case; also the index for sign-in by e-mail.
CREATE UNIQUE INDEX users_lower_email_key ON users (lower(email));

CREATE TABLE access_tokens (
  id               bigserial PRIMARY KEY,
  user_id          bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name             text        NOT NULL,
  -- SHA-256 hex of the secret; the secret itself is never stored.
  token_hash       text        NOT NULL,
  token_last_eight text        NOT NULL,
  -- Normalised Gitea scope names.
  scopes           text[]      NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_used_at     timestamptz NULL,
  CONSTRAINT access_tokens_token_hash_key UNIQUE (token_hash),
  CONSTRAINT access_tokens_user_id_name_key UNIQUE (user_id, name)
);
