/**
 * `cairn events tail`: follows the instance's public event stream on NATS, one line per event, as a team would see it
 * (docs/events.md). Ephemeral ordered consumers (nothing left on the server, no acks), one per stream the filter falls
 * in, so a NATS user granted only `<PREFIX>_EVENTS_PUBLIC` can tail `<prefix>.events.v1.public.>`: the private stream
 * is touched only when the filter reaches into it.
 */
import { DeliverPolicy, type JsMsg, jetstream } from '@nats-io/jetstream';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { busNames, natsConnectionOptions } from '@cairn/bus';
import { type CairnConfig, parseDuration } from '@cairn/config';
import { EVENT_TYPES, EVENTS_VERSION, type EventType, type EventVisibility, eventsFilter, eventsStreamOf, eventsSubject, readCloudEvent } from '@cairn/events';
import { UsageError, type CommandSpec, type FlagValues } from '../args';
import { CommandFailedError } from '../errors';

export const eventsTailCommand: CommandSpec = {
  path: ['events', 'tail'],
  summary: 'follow the public event stream on NATS ([bus] URL), one line per event, until interrupted (Ctrl-C)',
  flags: [
    {
      name: 'since',
      type: 'string',
      description: 'replay from a point in time first: a duration back from now (90s, 15m, 1h, 72h) or an RFC 3339 time (default: new events only)',
    },
    {
      name: 'subject',
      type: 'string',
      description: `only subjects matching this filter within <prefix>.events.${EVENTS_VERSION}.>, e.g. <prefix>.events.${EVENTS_VERSION}.public.> or <prefix>.events.${EVENTS_VERSION}.*.issues (default: all)`,
    },
    { name: 'json', type: 'boolean', description: 'print one JSON object per event: subject, headers and the parsed payload' },
  ],
};

/** One ordered consumer: a stream of the installation and the filter within it. */
export interface TailSource {
  stream: string;
  filter: string;
}

export interface TailPlan {
  sources: TailSource[];
  /** The filter as the user sees it, for the notice. */
  filter: string;
  /** Replay from here; undefined: new events only. */
  since: Date | undefined;
  json: boolean;
}

const VISIBILITIES: readonly EventVisibility[] = ['public', 'private'];
/** RFC 3339 date-time (a date alone or a time without an offset is ambiguous). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The flags as a plan, under the installation's `[bus] PREFIX`; a usage error for anything that cannot be tailed. */
export function planTail(values: FlagValues, prefix: string, now: Date): TailPlan {
  const names = busNames(prefix);
  const given = typeof values.subject === 'string' ? values.subject : undefined;
  const { visibilities, eventType } = given === undefined ? { visibilities: VISIBILITIES, eventType: undefined } : parseFilter(given, prefix);
  const sources = visibilities.map((visibility) => ({
    stream: names.stream(eventsStreamOf(visibility)),
    filter: names.subject(eventType === undefined ? eventsFilter(visibility) : eventsSubject(visibility, eventType)),
  }));
  return {
    sources,
    filter: given ?? names.subject(eventsFilter()),
    since: typeof values.since === 'string' ? parseSince(values.since, now) : undefined,
    json: values.json === true,
  };
}

/**
 * The visibilities a `--subject` filter reaches and the one event type it names (undefined: all); a usage error
 * unless it lies within `<prefix>.events.v1.>`. Every events subject has five tokens, so a wildcard as the fifth is
 * the whole visibility.
 */
function parseFilter(filter: string, prefix: string): { visibilities: readonly EventVisibility[]; eventType: EventType | undefined } {
  const root = `${prefix}.events.${EVENTS_VERSION}`;
  const outside = () =>
    new UsageError(`--subject ${JSON.stringify(filter)} is not within ${root}.> (e.g. ${root}.public.> or ${root}.*.issues)`, eventsTailCommand);
  if (!filter.startsWith(`${root}.`)) throw outside();
  const [visibility, event, ...rest] = filter.slice(root.length + 1).split('.');
  if (visibility === '>' && event === undefined) return { visibilities: VISIBILITIES, eventType: undefined };
  if (rest.length > 0 || event === undefined || !['public', 'private', '*'].includes(visibility)) throw outside();
  const visibilities = visibility === '*' ? VISIBILITIES : [visibility as EventVisibility];
  if (event === '*' || event === '>') return { visibilities, eventType: undefined };
  const eventType = EVENT_TYPES.find((type) => type === event);
  if (eventType === undefined) throw new UsageError(`--subject: unknown event type "${event}" (one of ${EVENT_TYPES.join(', ')}, or * for all)`, eventsTailCommand);
  return { visibilities, eventType };
}

/** `--since`: a Go duration back from `now` (as `[bus]` durations are written), or an RFC 3339 time. */
export function parseSince(text: string, now: Date): Date {
  const duration = parseDuration(text);
  if (duration !== undefined) return new Date(now.getTime() - duration);
  const when = RFC3339.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(when)) throw new UsageError(`--since "${text}" is neither a duration (90s, 15m, 1h) nor an RFC 3339 time (2026-11-28T09:00:00Z)`, eventsTailCommand);
  return new Date(when);
}

/** The message's headers as one record (a repeated header keeps its first value; CloudEvents attributes are single). */
function headersOf(msg: JsMsg): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const key of msg.headers?.keys() ?? []) headers[key] = msg.headers?.get(key) ?? '';
  return headers;
}

/** One output line: time, type, subject attribute, NATS subject, id — or, with `--json`, the whole event. */
export function formatEvent(subject: string, headers: Readonly<Record<string, string>>, data: Uint8Array, json: boolean): string {
  const text = new TextDecoder().decode(data);
  if (json) {
    let payload: unknown = text;
    try {
      payload = JSON.parse(text);
    } catch {
      // Not JSON: shown as the text it is rather than dropped.
    }
    return JSON.stringify({ subject, headers, data: payload });
  }
  const event = readCloudEvent(headers);
  if (event === undefined) return ['-', '-', '-', subject, '-'].join('  ');
  return [event.time.toISOString(), event.type, event.subject, subject, event.id].join('  ');
}

/** Resolves on the first SIGINT or SIGTERM while held; released, a signal is the process's again. */
function holdInterrupts(): { interrupted: Promise<'interrupted'>; release(): void } {
  let release = () => undefined as void;
  const interrupted = new Promise<'interrupted'>((resolve) => {
    const stop = () => {
      release();
      resolve('interrupted');
    };
    release = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { interrupted, release };
}

export interface TailOutput {
  /** One event (a line without its line break). */
  event(line: string): void;
  /** A notice for the person watching (stderr). */
  notice(line: string): void;
}

/** Connects with `[bus]`'s URL and credentials, follows the plan until SIGINT/SIGTERM, and closes. */
export async function runEventsTail(config: CairnConfig, values: FlagValues, output: TailOutput): Promise<void> {
  const plan = planTail(values, config.bus.prefix, new Date());
  if (config.bus.url === '') {
    throw new CommandFailedError(
      'this instance runs the in-process bus ([bus] URL is empty): there is no NATS to tail. Set [bus] URL (e.g. nats://127.0.0.1:4222, or CAIRN__bus__URL) and restart the instance to publish its events on NATS (docs/events.md#embedded-mode)',
    );
  }
  const signals = holdInterrupts();
  try {
    await follow(config, plan, output, signals.interrupted);
  } finally {
    signals.release();
  }
}

async function follow(config: CairnConfig, plan: TailPlan, output: TailOutput, interrupted: Promise<'interrupted'>): Promise<void> {
  let nc: NatsConnection;
  try {
    nc = await connect({ ...natsConnectionOptions({ url: config.bus.url, auth: config.bus.auth }, 'cairn-events-tail', 5_000), maxReconnectAttempts: -1 });
  } catch (error) {
    throw new CommandFailedError(`cannot connect to NATS at ${config.bus.url}: ${(error as Error).message}`, { cause: error });
  }
  try {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'disconnect') output.notice('NATS connection lost, reconnecting…');
        else if (status.type === 'reconnect') output.notice('NATS reconnected');
      }
    })();
    const js = jetstream(nc, { timeout: 5_000 });
    const startTime = plan.since?.toISOString();
    const publicFilter = busNames(config.bus.prefix).subject(eventsFilter('public'));
    const readers = await Promise.all(
      plan.sources.map(async ({ stream, filter }) => {
        try {
          const consumer = await js.consumers.get(stream, {
            filter_subjects: filter,
            ...(startTime === undefined ? { deliver_policy: DeliverPolicy.New } : { opt_start_time: startTime }),
          });
          return await consumer.consume();
        } catch (error) {
          const message = (error as Error).message;
          // A team's NATS user is usually granted the public stream alone (docs/events.md).
          const hint = /permission/i.test(message) ? ` (a user granted the public stream alone tails it with --subject ${publicFilter})` : '';
          throw new CommandFailedError(`cannot follow ${filter} in stream ${stream}: ${message}${hint}`, { cause: error });
        }
      }),
    );
    output.notice(`following ${plan.filter} (${plan.since === undefined ? 'new events' : `since ${plan.since.toISOString()}`}); Ctrl-C to stop`);
    const reading = readers.map(async (messages) => {
      for await (const msg of messages) output.event(formatEvent(msg.subject, headersOf(msg), msg.data, plan.json));
    });
    // Readers end only when closed; one that ends or fails first (its stream deleted) fails the command.
    const ended = Promise.race(reading).then(
      () => new CommandFailedError('the event stream ended'),
      (error: unknown) => new CommandFailedError(`the event stream failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error }),
    );
    const outcome = await Promise.race([interrupted, ended]);
    await Promise.all(readers.map((messages) => messages.close().catch(() => undefined)));
    if (outcome !== 'interrupted') throw outcome;
  } finally {
    await nc.close();
  }
}
