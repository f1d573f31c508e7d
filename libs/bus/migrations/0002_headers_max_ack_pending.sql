-- The public event stream: messages keep their headers (CloudEvents attributes), and a durable may cap its
-- unacknowledged deliveries (JetStream max_ack_pending; 1 keeps stream order over failures and sharers).

-- NULL: published without headers.
ALTER TABLE messages ADD COLUMN headers jsonb;

-- NULL: no cap (the consumer's claim batch only).
ALTER TABLE consumers ADD COLUMN max_ack_pending integer;
