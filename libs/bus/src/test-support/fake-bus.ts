import type { Bus, BusHeaders, Subscription } from '../types';

export interface Published {
  subject: string;
  id: string;
  data: Uint8Array;
  headers?: BusHeaders;
}

/** A bus that only records what is published to it. */
export class RecordingBus implements Bus {
  readonly published: Published[] = [];

  async ensureStream(): Promise<void> {}

  async publish(subject: string, id: string, data: Uint8Array, headers?: BusHeaders): Promise<void> {
    // Asynchronous like a real bus, so concurrent relays interleave.
    await new Promise((resolve) => setImmediate(resolve));
    this.published.push({ subject, id, data, headers });
  }

  async consume(): Promise<Subscription> {
    throw new Error('RecordingBus cannot consume');
  }

  async subscribe(): Promise<Subscription> {
    throw new Error('RecordingBus cannot subscribe');
  }

  async close(): Promise<void> {}
}

/** Wraps a real bus; its publishes fail while set down (an unreachable server). */
export function withOutage(bus: Bus): { bus: Bus; setDown(down: boolean): void; failures(): number } {
  let down = false;
  let failures = 0;
  return {
    bus: {
      ...bus,
      async publish(subject, id, data, headers) {
        if (down) {
          failures += 1;
          throw new Error('bus unavailable');
        }
        await bus.publish(subject, id, data, headers);
      },
    },
    setDown: (value) => {
      down = value;
    },
    failures: () => failures,
  };
}
