/**
 * A broadcast bus in memory: every subscriber of a subject gets every message published on it, as the
 * gateway's token-cache invalidation needs. Only what the gateway uses works; the rest throws.
 */
import type { BusHandler, BusMessage, ConsumeOptions, Subscription } from '@cairn/bus';
import type { GatewayBus } from '../../src/auth/invalidation';

export class FakeBroadcastBus implements GatewayBus {
  private readonly subscribers: Array<{ subject: string; handler: BusHandler }> = [];
  private nextId = 1;

  async ensureStream(): Promise<void> {}

  async publish(subject: string, id: string, data: Uint8Array): Promise<void> {
    const message: BusMessage = { id, subject, data, deliveryCount: 1 };
    for (const subscriber of [...this.subscribers]) {
      if (subscriber.subject === subject) await subscriber.handler(message);
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
