-- The in-process bus (embedded mode): streams, their message log, and durable consumers' delivery state.

CREATE TABLE streams (
  name     text PRIMARY KEY,
  subjects text[] NOT NULL,
  -- Sequence of the stream's newest message. Publishing increments it under the row lock, so sequence
  -- numbers of one stream become visible in order: a reader that sees last_seq = n sees messages 1..n.
  last_seq bigint NOT NULL DEFAULT 0
);

CREATE TABLE messages (
  stream     text NOT NULL REFERENCES streams (name) ON DELETE CASCADE,
  seq        bigint NOT NULL,
  subject    text NOT NULL,
  -- The publisher's id: the deduplication key.
  id         text NOT NULL,
  data       bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream, seq),
  UNIQUE (stream, id)
);

CREATE TABLE consumers (
  stream         text NOT NULL REFERENCES streams (name) ON DELETE CASCADE,
  durable        text NOT NULL,
  filter_subject text NOT NULL,
  ack_wait_ms    integer NOT NULL,
  -- Deliveries allowed per message; 0 or less: unlimited.
  max_deliver    integer NOT NULL,
  -- Every matching message up to this sequence has been handed out at least once.
  delivered_seq  bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (stream, durable)
);

-- Messages handed out and not yet acknowledged (acking deletes the row).
CREATE TABLE pending (
  stream         text NOT NULL,
  durable        text NOT NULL,
  seq            bigint NOT NULL,
  delivery_count integer NOT NULL,
  -- When the message may go out again: the end of the current holder's ack wait, or a failed
  -- delivery's retry time.
  available_at   timestamptz NOT NULL,
  PRIMARY KEY (stream, durable, seq),
  FOREIGN KEY (stream, durable) REFERENCES consumers (stream, durable) ON DELETE CASCADE
);

CREATE INDEX pending_by_availability ON pending (stream, durable, available_at);
