/**
 * A broadcast bus in memory: every subscriber of a subject gets every message published on it, as the
 * gateway's cache invalidations need; filters match as NATS's do (`*` one token, `>` the rest). Only what the
 * gateway uses works; the rest throws.
 */
import type { BusHandler, BusMessage, ConsumeOptions, Subscription } from '@cairn/bus';
import type { GatewayBus } from '../../src/auth/invalidation';

/** NATS subject matching: `*` matches one token, a final `>` one or more. */
export function subjectMatches(filter: string, subject: string): boolean {
  const wanted = filter.split('.');
  const tokens = subject.split('.');
  for (let i = 0; i < wanted.length; i++) {
    if (wanted[i] === '>') return i === wanted.length - 1 && tokens.length > i;
    if (i >= tokens.length || (wanted[i] !== '*' && wanted[i] !== tokens[i])) return false;
  }
  return tokens.length === wanted.length;
}

export class FakeBroadcastBus implements GatewayBus {
  private readonly subscribers: Array<{ subject: string; handler: BusHandler }> = [];
  private nextId = 1;

  async ensureStream(): Promise<void> {}

  async publish(subject: string, id: string, data: Uint8Array): Promise<void> {
    const message: BusMessage = { id, subject, data, deliveryCount: 1 };
    for (const subscriber of [...this.subscribers]) {
      if (subjectMatches(subscriber.subject, subject)) await subscriber.handler(message);
    }
  }

  async publishEvent(subject: string, data: Uint8Array): Promise<void> {
    await this.publish(subject, `event-${this.nextId++}`, data);
  }

  async consume(_options: ConsumeOptions): Promise<Subscription> {
    throw new Error('FakeBroadcastBus has no durable consumers');
  }

  async subscribe(filterSubject: string, handler: BusHandler): Promise<Subscription> {
    const entry = { subject: filterSubject, handler };
    this.subscribers.push(entry);
    return {
      stop: async () => {
        this.subscribers.splice(this.subscribers.indexOf(entry), 1);
      },
    };
  }

  get subscriptionCount(): number {
    return this.subscribers.length;
  }

  async close(): Promise<void> {
    this.subscribers.length = 0;
  }
}
