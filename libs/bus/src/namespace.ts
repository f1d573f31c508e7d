/**
 * `[bus] PREFIX`: one NATS server (or one database, for the in-process bus) can carry several Cairn installations,
 * each under its own prefix. Services name subjects, streams and durables as the default installation does
 * (`cairn.user.created`, `CAIRN_ACCOUNTS`, `social-repos`); `prefixedBus` is the one place that turns those names into
 * the installation's (`<prefix>.user.created`, `<PREFIX>_ACCOUNTS`, `<prefix>-social-repos`) and delivered subjects
 * back, so no service handles the prefix and none can forget it.
 */
import { BUS_PREFIX_EXPECTED, BUS_PREFIX_PATTERN, DEFAULT_BUS_PREFIX } from '@cairn/config';
import type { Bus, Subscription } from './types';

export { DEFAULT_BUS_PREFIX };
/** The root every subject in the code starts with, and the head of every stream name (`CAIRN_…`). */
const CODE_ROOT = 'cairn';
const CODE_STREAM_HEAD = 'CAIRN_';
/** Throws unless `prefix` can head subjects, stream names and durable names (`[bus] PREFIX` is checked the same way). */
export function assertBusPrefix(prefix: string): void {
  if (!BUS_PREFIX_PATTERN.test(prefix)) throw new Error(`invalid bus prefix "${prefix}": ${BUS_PREFIX_EXPECTED}`);
}

/** The names one installation uses on the bus. */
export interface BusNames {
  readonly prefix: string;
  /** A subject or filter in the code (`cairn.…`) → the installation's. */
  subject(codeSubject: string): string;
  /** An installation's subject → the code's; undefined for a subject outside the installation. */
  codeSubject(subject: string): string | undefined;
  /** A stream name in the code (`CAIRN_…`) → the installation's. */
  stream(codeStream: string): string;
  /** A durable consumer name in the code → the installation's. */
  durable(codeDurable: string): string;
}

export function busNames(prefix: string = DEFAULT_BUS_PREFIX): BusNames {
  assertBusPrefix(prefix);
  const streamHead = `${prefix.toUpperCase()}_`;
  return {
    prefix,
    subject(codeSubject) {
      if (codeSubject !== CODE_ROOT && !codeSubject.startsWith(`${CODE_ROOT}.`)) {
        throw new Error(`subject "${codeSubject}" does not start with "${CODE_ROOT}.", the root the bus prefix replaces`);
      }
      return `${prefix}${codeSubject.slice(CODE_ROOT.length)}`;
    },
    codeSubject(subject) {
      if (subject !== prefix && !subject.startsWith(`${prefix}.`)) return undefined;
      return `${CODE_ROOT}${subject.slice(prefix.length)}`;
    },
    stream(codeStream) {
      if (!codeStream.startsWith(CODE_STREAM_HEAD)) throw new Error(`stream "${codeStream}" does not start with "${CODE_STREAM_HEAD}", the head the bus prefix replaces`);
      return `${streamHead}${codeStream.slice(CODE_STREAM_HEAD.length)}`;
    },
    durable(codeDurable) {
      return `${prefix}-${codeDurable}`;
    },
  };
}

/** `bus` speaking the code's names, under `prefix` on the wire (see the module comment). */
export function prefixedBus(bus: Bus, prefix: string): Bus {
  const names = busNames(prefix);
  // Filters are the installation's, so every delivered subject has a code name.
  const delivered = <M extends { subject: string }>(message: M): M => ({ ...message, subject: names.codeSubject(message.subject) ?? message.subject });
  return {
    ensureStream: (name, subjects, kind) => bus.ensureStream(names.stream(name), subjects.map(names.subject), kind),
    publish: (subject, id, data, headers) => bus.publish(names.subject(subject), id, data, headers),
    consume: (options) =>
      bus.consume({
        ...options,
        stream: names.stream(options.stream),
        durable: names.durable(options.durable),
        filterSubject: names.subject(options.filterSubject),
        handler: (message) => options.handler(delivered(message)),
      }),
    subscribe: (filterSubject, handler): Promise<Subscription> => bus.subscribe(names.subject(filterSubject), (message) => handler(delivered(message))),
    close: () => bus.close(),
  };
}
