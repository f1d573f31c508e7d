/**
 * Consumers bind to streams their producers define (only a stream's owner creates or changes it: a consumer's copy
 * of the subjects, rewritten onto the stream, could drop a subject during a rolling upgrade and stall the relay).
 * A consumer that starts before its producer, or before the producer's new version captures its filter, waits for
 * the stream in the background, with backoff, instead of failing the service's start.
 */
import type { Logger } from '@cairn/log';
import { subjectFiltersOverlap } from './subjects';
import type { Subscription } from './types';
import { createWaker, type Waker } from './wake';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

export interface BindOptions {
  stream: string;
  durable: string;
  filterSubject: string;
  logger: Logger;
  /** The stream's subjects, or undefined while it does not exist. */
  streamSubjects(stream: string): Promise<readonly string[] | undefined>;
  /** Binds the durable consumer to the (existing) stream and starts it. */
  bind(): Promise<Subscription>;
  /** Where a wait registers its waker while it lasts: the adapter wakes them all when a stream is defined through it. */
  waiting: Set<Waker>;
  /** The adapter's live subscriptions: this one is in it until it stops (the adapter stops them all on close). */
  subscriptions: Set<Subscription>;
}

/** Why the stream cannot take the consumer yet, or undefined when it can. */
async function notReady(options: BindOptions): Promise<string | undefined> {
  const subjects = await options.streamSubjects(options.stream);
  if (subjects === undefined) return 'does not exist yet';
  if (!subjects.some((subject) => subjectFiltersOverlap(subject, options.filterSubject))) {
    return `captures none of ${options.filterSubject} yet (it captures ${subjects.join(', ')})`;
  }
  return undefined;
}

/**
 * Binds at once when the stream is ready (a failure then rejects, as before); otherwise logs why and returns a
 * subscription that binds as soon as the stream is ready. Its stop() ends the wait, or stops the bound consumer.
 */
export async function bindWhenReady(options: BindOptions): Promise<Subscription> {
  const subscription = await waitAndBind(options);
  const tracked: Subscription = {
    async stop() {
      options.subscriptions.delete(tracked);
      await subscription.stop();
    },
  };
  options.subscriptions.add(tracked);
  return tracked;
}

async function waitAndBind(options: BindOptions): Promise<Subscription> {
  const { stream, durable, filterSubject } = options;
  const reason = await notReady(options);
  if (reason === undefined) return options.bind();
  const log = options.logger.child({ stream, durable, filter_subject: filterSubject });
  log.warn(`stream ${stream} ${reason}: only its producer defines it; the consumer binds once it does`);
  const waker = createWaker();
  options.waiting.add(waker);
  let stopped = false;
  let bound: Subscription | undefined;
  const waiting = (async () => {
    for (let attempt = 0; !stopped; attempt += 1) {
      await waker.sleep(Math.min(FIRST_RETRY_MS * 2 ** attempt, MAX_RETRY_MS));
      if (stopped) return;
      try {
        if ((await notReady(options)) !== undefined) continue;
        bound = await options.bind();
        log.info(`bound to stream ${stream}`);
        return;
      } catch (error) {
        log.warn({ err: error }, `could not bind to stream ${stream}; retrying`);
      }
    }
  })().finally(() => options.waiting.delete(waker));
  return {
    async stop() {
      stopped = true;
      waker.wake();
      await waiting;
      await bound?.stop();
    },
  };
}
