import { Client } from 'pg';
import type { Logger } from '@cairn/log';

export interface PgListener {
  close(): Promise<void>;
}

export interface PgListenerOptions {
  url: string;
  channel: string;
  logger: Logger;
  /** Called with each notification's payload, and with `undefined` after (re)connecting, when notifications may have been missed. */
  onNotify(payload: string | undefined): void;
}

const MAX_RETRY_MS = 30_000;

/**
 * LISTEN on a dedicated connection (a pooled one would be handed to other queries), reconnecting
 * with backoff; callers keep a poll timer too, so a lost connection only delays wake-ups.
 */
export function listenForNotifications(options: PgListenerOptions): PgListener {
  const { logger, channel } = options;
  let client: Client | undefined;
  let closed = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;

  async function open(): Promise<void> {
    const next = new Client({ connectionString: options.url });
    client = next;
    next.on('notification', (notification) => {
      if (notification.channel === channel) options.onNotify(notification.payload);
    });
    next.on('error', (error) => {
      logger.warn({ err: error, channel }, 'notification connection failed');
      retry(next);
    });
    next.on('end', () => retry(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${next.escapeIdentifier(channel)}`);
      failures = 0;
      options.onNotify(undefined);
    } catch (error) {
      logger.warn({ err: error, channel }, 'could not listen for notifications');
      retry(next);
    }
  }

  function retry(failed: Client): void {
    if (closed || client !== failed) return;
    client = undefined;
    failed.end().catch(() => undefined);
    failures += 1;
    retryTimer = setTimeout(() => void open(), Math.min(250 * 2 ** failures, MAX_RETRY_MS));
    retryTimer.unref();
  }

  void open();

  return {
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
