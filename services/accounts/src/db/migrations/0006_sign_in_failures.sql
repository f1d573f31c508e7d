-- Failed password sign-ins, counted per account, per client address and per (account, address), so every
-- accounts replica (and so every gateway) applies the same limits. One row per counter, read before a password
-- is hashed; written on a failure, and on a success only to reset its (account, address) row or to remember
-- (at most daily) that the address signed in.
CREATE TABLE sign_in_failures (
  -- `pair:<account>|<address>`, `account:<account>` or `address:<address>` (domain/sign-in-throttle.ts).
  key               text        PRIMARY KEY,
  failures          integer     NOT NULL,
  -- The limit the counter had when last written, so one upsert can compare against each row's own limit.
  max_failures      integer     NOT NULL,
  window_started_at timestamptz NOT NULL,
  -- Password sign-ins counted here are refused until then; null when the limit was never reached.
  blocked_until     timestamptz NULL,
  -- (account, address) rows: the last successful sign-in from the address, which exempts it from the account's
  -- own block for [security] LOGIN_KNOWN_ADDRESS_DAYS; null when none.
  last_success_at   timestamptz NULL,
  -- When the row no longer matters (its window, its block and its known address are over): expired rows are
  -- swept on writes.
  expires_at        timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_expires_at ON sign_in_failures (expires_at);
