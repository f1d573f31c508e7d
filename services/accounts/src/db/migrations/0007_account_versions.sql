-- Every account (user or organization) has a version that grows with each change of its row. Events about an
-- account carry the version the change left (accounts' events.proto), so consumers that copy an account's state
-- (repos: owner names and visibility; social: reactions' user names) can tell an older event from a newer one when
-- several relays or redeliveries bring them out of order. A trigger bumps it, so no write path can forget to; the
-- row lock an UPDATE holds until commit orders the versions of one account as its changes commit.
ALTER TABLE users ADD COLUMN version bigint NOT NULL DEFAULT 1;

CREATE FUNCTION bump_account_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END
$$;

CREATE TRIGGER users_version BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION bump_account_version();
