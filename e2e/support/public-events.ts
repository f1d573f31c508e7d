/**
 * A stand-in for the hooks service's side of the public event stream, for tests of its consumers (`cairn events tail`,
 * examples/issues-mirror): one installation's two streams on the machine's NATS, as @cairn/events names them under a
 * `[bus] PREFIX`, and messages published as the stream carries them — CloudEvents headers, the id as `Nats-Msg-Id`,
 * a Gitea webhook payload as the body. `close` deletes the streams.
 */
import { randomUUID } from 'node:crypto';
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamClient, jetstreamManager } from '@nats-io/jetstream';
import { type ConnectionOptions, type NatsConnection, connect, headers as natsHeaders, nanos } from '@nats-io/transport-node';
import { busNames } from '@cairn/bus';
import { EVENTS_STREAMS, type EventType, type EventVisibility, cloudEventHeaders, cloudEventType, eventsSubject } from '@cairn/events';
import { testNatsUrl } from '@cairn/testing';

export interface PublishedEvent {
  id: string;
  /** The installation's subject it went out on. */
  subject: string;
  headers: Record<string, string>;
  payload: GiteaIssuesPayload;
}

export interface TestEventStreams {
  readonly prefix: string;
  /**
   * Publishes one event. `id` again republishes it: with the same message id (a relay's retry) JetStream's duplicate
   * window drops it; with another `msgId` (a publish after the window) it is stored again, for consumers to dedupe.
   */
  publish(visibility: EventVisibility, eventType: EventType, payload: GiteaIssuesPayload, options?: { id?: string; msgId?: string }): Promise<PublishedEvent>;
  close(): Promise<void>;
}

/** The streams on the machine's NATS, or on the server `connection` names (as a user who may create them). */
export async function createTestEventStreams(prefix: string, connection: ConnectionOptions = { servers: testNatsUrl() }): Promise<TestEventStreams> {
  const names = busNames(prefix);
  const streamNames = EVENTS_STREAMS.map((spec) => names.stream(spec.name));
  const nc: NatsConnection = await connect(connection);
  const jsm = await jetstreamManager(nc);
  for (const [index, spec] of EVENTS_STREAMS.entries()) {
    await jsm.streams.add({
      name: streamNames[index],
      subjects: spec.subjects.map((subject) => names.subject(subject)),
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_bytes: 16 * 1024 * 1024,
      duplicate_window: nanos(2 * 60_000),
    });
  }
  const js: JetStreamClient = jsm.jetstream();
  return {
    prefix,
    async publish(visibility, eventType, payload, { id = randomUUID(), msgId = id } = {}) {
      const subject = names.subject(eventsSubject(visibility, eventType));
      const ce = cloudEventHeaders({
        id,
        source: 'http://localhost:3000/',
        type: cloudEventType(eventType, payload.action),
        time: new Date(),
        subject: payload.repository.full_name,
      });
      const headers = natsHeaders();
      for (const [name, value] of Object.entries(ce)) headers.set(name, value);
      await js.publish(subject, JSON.stringify(payload), { msgID: msgId, headers });
      return { id, subject, headers: ce, payload };
    },
    async close() {
      for (const name of streamNames) await jsm.streams.delete(name).catch(() => undefined);
      await nc.close();
    },
  };
}

/** The fields of Gitea's `issues` / `issue_comment` webhook payload (modules/structs/hook.go IssuePayload) tests use. */
export interface GiteaIssuesPayload {
  action: string;
  number: number;
  issue: {
    id: number;
    number: number;
    title: string;
    body: string;
    state: 'open' | 'closed';
    labels: { id: number; name: string; color: string }[];
    comments: number;
    updated_at: string;
    html_url: string;
    user: { id: number; login: string };
  };
  comment?: { id: number; body: string; html_url: string };
  repository: { id: number; name: string; full_name: string; private: boolean; html_url: string };
  sender: { id: number; login: string };
}

/** An issues payload of `owner/repo#number` with the given changes. */
export function issuesPayload(
  fullName: string,
  number: number,
  changes: { action?: string; title?: string; body?: string; state?: 'open' | 'closed'; labels?: string[]; comments?: number; private?: boolean } = {},
): GiteaIssuesPayload {
  const [owner, name] = fullName.split('/');
  const htmlUrl = `http://localhost:3000/${fullName}`;
  const user = { id: 1, login: owner };
  return {
    action: changes.action ?? 'opened',
    number,
    issue: {
      id: 1000 + number,
      number,
      title: changes.title ?? `issue ${number}`,
      body: changes.body ?? '',
      state: changes.state ?? 'open',
      labels: (changes.labels ?? []).map((label, index) => ({ id: index + 1, name: label, color: 'ee0701' })),
      comments: changes.comments ?? 0,
      updated_at: new Date().toISOString(),
      html_url: `${htmlUrl}/issues/${number}`,
      user,
    },
    repository: { id: 7, name, full_name: fullName, private: changes.private ?? false, html_url: htmlUrl },
    sender: user,
  };
}
