/**
 * What one service does on the bus, declared once (each service's `events/bus-usage.ts`) and used twice: the
 * service's `start` wraps its bus in `guardBus`, so a stream, consumer, subject or subscription missing from the
 * declaration fails at once in every mode (the in-process bus included, so tests catch it), and
 * `natsPermissions` turns the same declaration into the service's NATS user permissions (`npm run nats-config`
 * writes deploy/k8s/nats-values.yaml). NATS then refuses, for instance, a `cairn.user.deleted` published by
 * anyone but accounts.
 */
import { busNames } from './namespace';
import { assertSubjectFilter, subjectFiltersOverlap, subjectMatches } from './subjects';
import type { Bus, StreamKind } from './types';

/** A JetStream stream and the subjects it captures. */
export interface StreamSpec {
  name: string;
  subjects: readonly string[];
  /** Which `[bus]` limits it gets (types.ts StreamKind); default `internal`. */
  kind?: StreamKind;
}

/** A durable consumer on some stream (its producer's, or the service's own): the stream's name and a filter, never its subjects. */
export interface ConsumerSpec {
  stream: string;
  durable: string;
  filterSubject: string;
  /** As in ConsumeOptions (provisionJetStream creates the durable with them); default 30 s and unlimited. */
  ackWaitMs?: number;
  maxDeliver?: number;
  maxAckPending?: number;
}

export interface BusUsage {
  /** The service's name, also its NATS user name. */
  service: string;
  /**
   * The streams the service owns: the only streams it defines (creates or updates), and its outbox relay publishes
   * only subjects they capture. Other services' streams it only binds its consumers to.
   */
  owns?: readonly StreamSpec[];
  consumers: readonly ConsumerSpec[];
  /** Filters of ephemeral broadcast subscriptions (`Bus.subscribe`). */
  broadcasts: readonly string[];
}

/** NATS `permissions` of one user: subjects it may publish to and subscribe to; everything else is refused. */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
}

/**
 * The inbox prefix of a NATS user's connection (`_INBOX_<user>`, where replies and pulled messages arrive): a user
 * may read its own inbox only, never the messages pulled by another service.
 */
export function natsInboxPrefix(user: string): string {
  return `_INBOX_${user}`;
}

/** JetStream's API prefix (the default domain), as @nats-io/jetstream sends it. */
const JS_API = '$JS.API';

/**
 * The NATS permissions `usage` needs and nothing more, in the names of the installation under `prefix` (namespace.ts).
 * Publish: the owned stream's subjects; `$JS.API.INFO` (every JetStream client asks it on connect); INFO of the
 * streams it owns or consumes; for each durable its info, pull (`MSG.NEXT`) and acks
 * (`$JS.ACK.<stream>.<durable>.>`). Subscribe: its own inbox (natsInboxPrefix: JetStream replies and pulled messages
 * arrive there) and the broadcast filters. No creating, changing or deleting streams or consumers: a consumer's
 * config could turn it into a push consumer delivering onto another service's subjects, and a stream's could
 * republish onto them, so provisionJetStream creates both as the JetStream admin user.
 */
export function natsPermissions(usage: BusUsage, prefix?: string): NatsPermissions {
  const names = busNames(prefix);
  const owned = usage.owns ?? [];
  const publish = new Set<string>([`${JS_API}.INFO`, ...owned.flatMap((stream) => stream.subjects).map(names.subject)]);
  const streams = [...owned.map((stream) => stream.name), ...usage.consumers.map((consumer) => consumer.stream)];
  for (const stream of streams) publish.add(`${JS_API}.STREAM.INFO.${names.stream(stream)}`);
  for (const consumer of usage.consumers) {
    const [stream, durable] = [names.stream(consumer.stream), names.durable(consumer.durable)];
    publish.add(`${JS_API}.CONSUMER.INFO.${stream}.${durable}`);
    publish.add(`${JS_API}.CONSUMER.MSG.NEXT.${stream}.${durable}`);
    publish.add(`$JS.ACK.${stream}.${durable}.>`);
  }
  const subscribe = new Set<string>([`${natsInboxPrefix(usage.service)}.>`, ...usage.broadcasts.map(names.subject)]);
  return { publish: { allow: [...publish] }, subscribe: { allow: [...subscribe] } };
}

/** The user that runs provisionJetStream: the whole JetStream API, and nothing to publish or read of the events. */
export function natsJetStreamAdminPermissions(user: string): NatsPermissions {
  return { publish: { allow: [`${JS_API}.>`] }, subscribe: { allow: [`${natsInboxPrefix(user)}.>`] } };
}

/**
 * A team outside Cairn that reads one stream (the public event stream, `<PREFIX>_EVENTS_PUBLIC`) with a plain
 * JetStream client (@nats-io/jetstream, the nats CLI): create its own consumers on that stream — durable or ephemeral,
 * any deliver policy (`by_start_time` replays), ordered ones (`js.consumers.get(stream, {…})` creates them, and
 * deletes them when it resets) — pull and ack their messages, list them and look up the stream; nothing on any other
 * stream, no stream changes, and no publishing. Create comes in 2.9's three forms (`CONSUMER.CREATE.<stream>.<name>
 * [.<filter>]`, the older `CONSUMER.DURABLE.CREATE.<stream>.<durable>` and ephemeral `CONSUMER.CREATE.<stream>`).
 * Replies arrive in `_INBOX_<user>.>` (the client sets `inboxPrefix` to natsInboxPrefix(user)). NATS cannot tell
 * push from pull by subject, so such a user may also create a push consumer: docs/security.md says what that means.
 */
export function natsStreamReaderPermissions(user: string, codeStream: string, prefix?: string): NatsPermissions {
  const stream = busNames(prefix).stream(codeStream);
  if (!/^[A-Za-z0-9_-]+$/.test(stream)) throw new Error(`invalid stream name ${stream}`);
  const api = `${JS_API}.CONSUMER`;
  return {
    publish: {
      allow: [
        `${JS_API}.INFO`,
        `${JS_API}.STREAM.INFO.${stream}`,
        `${api}.CREATE.${stream}`,
        `${api}.CREATE.${stream}.>`,
        `${api}.DURABLE.CREATE.${stream}.>`,
        `${api}.INFO.${stream}.>`,
        `${api}.DELETE.${stream}.>`,
        `${api}.NAMES.${stream}`,
        `${api}.LIST.${stream}`,
        `${api}.MSG.NEXT.${stream}.>`,
        `$JS.ACK.${stream}.>`,
      ],
    },
    subscribe: { allow: [`${natsInboxPrefix(user)}.>`] },
  };
}

/** Throws unless `usage` is well formed (filters valid, a consumer's filter overlapping its stream, names unique). */
export function assertBusUsage(usage: BusUsage): void {
  const owned = usage.owns ?? [];
  owned.forEach((stream) => stream.subjects.forEach(assertSubjectFilter));
  usage.broadcasts.forEach(assertSubjectFilter);
  const durables = new Set<string>();
  for (const { stream, durable, filterSubject } of usage.consumers) {
    assertSubjectFilter(filterSubject);
    // Stream and durable names become subject tokens of the JetStream API (and of the permissions above).
    if (!/^[A-Za-z0-9_-]+$/.test(durable) || !/^[A-Za-z0-9_-]+$/.test(stream)) throw new Error(`${usage.service}: invalid name ${stream}/${durable}`);
    if (durables.has(`${stream}.${durable}`)) throw new Error(`${usage.service}: durable ${durable} on ${stream} declared twice`);
    durables.add(`${stream}.${durable}`);
    // Only the own stream's subjects are known here; another's are its producer's (checked when binding, binding.ts).
    const subjects = owned.find((spec) => spec.name === stream)?.subjects;
    if (subjects !== undefined && !subjects.some((subject) => subjectFiltersOverlap(subject, filterSubject))) {
      throw new Error(`${usage.service}: consumer ${durable} filters ${filterSubject}, which ${stream} does not capture`);
    }
  }
}

function sameSubjects(a: readonly string[], b: readonly string[]): boolean {
  return [...new Set(a)].sort().join('\n') === [...new Set(b)].sort().join('\n');
}

function refusal(usage: BusUsage, what: string): Error {
  return new Error(`${usage.service} may not ${what}: it is not in the service's BusUsage (events/bus-usage.ts)`);
}

/** A subscribe that refuses filters `usage` does not declare. */
export function guardBroadcasts(bus: Pick<Bus, 'subscribe'>, usage: BusUsage): Pick<Bus, 'subscribe'> {
  return {
    subscribe(filterSubject, handler) {
      if (!usage.broadcasts.includes(filterSubject)) return Promise.reject(refusal(usage, `subscribe to ${filterSubject}`));
      return bus.subscribe(filterSubject, handler);
    },
  };
}

/**
 * `bus` limited to what `usage` declares: the same refusals NATS makes with the generated permissions, made by
 * the service itself, so a declaration that falls behind the code fails in embedded mode and tests too.
 */
export function guardBus(bus: Bus, usage: BusUsage): Bus {
  assertBusUsage(usage);
  const { subscribe } = guardBroadcasts(bus, usage);
  return {
    ensureStream(name, subjects, kind) {
      // Only the producer defines its stream: a consumer's copy of another's subjects could drop one of them.
      const declared = usage.owns?.find((stream) => stream.name === name);
      if (declared === undefined || !sameSubjects(declared.subjects, subjects) || (declared.kind ?? 'internal') !== (kind ?? 'internal')) {
        return Promise.reject(refusal(usage, `create stream ${name} with subjects ${subjects.join(', ')}`));
      }
      return bus.ensureStream(name, subjects, kind);
    },
    publish(subject, id, data, headers) {
      const owned = usage.owns ?? [];
      if (!owned.some((stream) => stream.subjects.some((filter) => subjectMatches(filter, subject)))) return Promise.reject(refusal(usage, `publish ${subject}`));
      return bus.publish(subject, id, data, headers);
    },
    consume(options) {
      const declared = usage.consumers.some(
        (consumer) =>
          consumer.stream === options.stream &&
          consumer.durable === options.durable &&
          consumer.filterSubject === options.filterSubject &&
          consumer.ackWaitMs === options.ackWaitMs &&
          consumer.maxDeliver === options.maxDeliver &&
          consumer.maxAckPending === options.maxAckPending,
      );
      if (!declared) return Promise.reject(refusal(usage, `consume ${options.filterSubject} from ${options.stream} as ${options.durable}`));
      return bus.consume(options);
    },
    subscribe,
    close: () => bus.close(),
  };
}
