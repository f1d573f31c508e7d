import { RecordingBus } from './test-support/fake-bus';
import type { Subscription } from './types';
import { type BusUsage, assertBusUsage, guardBus, natsPermissions, natsStreamReaderPermissions } from './usage';

const usage: BusUsage = {
  service: 'social',
  owns: [{ name: 'CAIRN_SOCIAL', subjects: ['cairn.star.>'] }],
  consumers: [{ stream: 'CAIRN_REPOS', durable: 'social-repos', filterSubject: 'cairn.repo.>' }],
  broadcasts: ['cairn.user.deleted'],
};

/** A RecordingBus whose consume and subscribe succeed, so only the guard can refuse. */
class OpenBus extends RecordingBus {
  readonly calls: string[] = [];
  override async consume(): Promise<Subscription> {
    this.calls.push('consume');
    return { stop: async () => undefined };
  }
  override async subscribe(): Promise<Subscription> {
    this.calls.push('subscribe');
    return { stop: async () => undefined };
  }
}

const noop = async (): Promise<void> => undefined;

describe('guardBus', () => {
  it('passes what the usage declares through', async () => {
    const inner = new OpenBus();
    const bus = guardBus(inner, usage);
    await bus.ensureStream('CAIRN_SOCIAL', ['cairn.star.>']);
    await bus.publish('cairn.star.created', 'id-1', new Uint8Array());
    await bus.consume({ stream: 'CAIRN_REPOS', durable: 'social-repos', filterSubject: 'cairn.repo.>', handler: noop });
    await bus.subscribe('cairn.user.deleted', noop);
    expect(inner.published.map((message) => message.subject)).toEqual(['cairn.star.created']);
    expect(inner.calls).toEqual(['consume', 'subscribe']);
  });

  it('refuses anything else, as NATS would with the generated permissions', async () => {
    const inner = new OpenBus();
    const bus = guardBus(inner, usage);
    await expect(bus.publish('cairn.user.deleted', 'id-2', new Uint8Array())).rejects.toThrow('social may not publish cairn.user.deleted');
    await expect(bus.ensureStream('CAIRN_ACCOUNTS', ['cairn.user.>'])).rejects.toThrow('may not create stream CAIRN_ACCOUNTS');
    // A consumer never defines its producer's stream, whatever subjects it names.
    await expect(bus.ensureStream('CAIRN_REPOS', ['cairn.repo.>'])).rejects.toThrow('may not create stream CAIRN_REPOS');
    await expect(bus.ensureStream('CAIRN_SOCIAL', ['cairn.star.>', 'cairn.repo.>'])).rejects.toThrow('may not create stream CAIRN_SOCIAL');
    await expect(bus.consume({ stream: 'CAIRN_REPOS', durable: 'issues-repos', filterSubject: 'cairn.repo.>', handler: noop })).rejects.toThrow(
      'may not consume cairn.repo.> from CAIRN_REPOS as issues-repos',
    );
    await expect(bus.subscribe('cairn.>', noop)).rejects.toThrow('may not subscribe to cairn.>');
    // A config other than the declared one (provisionJetStream creates the declared one).
    await expect(
      bus.consume({ stream: 'CAIRN_REPOS', durable: 'social-repos', filterSubject: 'cairn.repo.>', handler: noop, ackWaitMs: 5_000 }),
    ).rejects.toThrow('may not consume');
    expect(inner.published).toEqual([]);
    expect(inner.calls).toEqual([]);
  });
});

it('assertBusUsage refuses a consumer whose filter its own stream cannot capture, and duplicate durables', () => {
  expect(() => assertBusUsage({ ...usage, consumers: [{ stream: 'CAIRN_SOCIAL', durable: 'social-x', filterSubject: 'cairn.user.>' }] })).toThrow(
    'which CAIRN_SOCIAL does not capture',
  );
  expect(() => assertBusUsage({ ...usage, consumers: [...usage.consumers, ...usage.consumers] })).toThrow('declared twice');
  expect(() => assertBusUsage({ ...usage, consumers: [{ stream: 'CAIRN_REPOS', durable: 'a.b', filterSubject: 'cairn.repo.>' }] })).toThrow('invalid name');
});

it('natsPermissions allows the owned subjects, looking at the streams, and the own durable only', () => {
  expect(natsPermissions(usage)).toEqual({
    publish: {
      allow: [
        '$JS.API.INFO',
        'cairn.star.>',
        '$JS.API.STREAM.INFO.CAIRN_SOCIAL',
        '$JS.API.STREAM.INFO.CAIRN_REPOS',
        '$JS.API.CONSUMER.INFO.CAIRN_REPOS.cairn-social-repos',
        '$JS.API.CONSUMER.MSG.NEXT.CAIRN_REPOS.cairn-social-repos',
        '$JS.ACK.CAIRN_REPOS.cairn-social-repos.>',
      ],
    },
    subscribe: { allow: ['_INBOX_social.>', 'cairn.user.deleted'] },
  });
});

it('natsPermissions follows the bus prefix: subjects, streams, durables and broadcasts', () => {
  expect(natsPermissions(usage, 'staging')).toEqual({
    publish: {
      allow: [
        '$JS.API.INFO',
        'staging.star.>',
        '$JS.API.STREAM.INFO.STAGING_SOCIAL',
        '$JS.API.STREAM.INFO.STAGING_REPOS',
        '$JS.API.CONSUMER.INFO.STAGING_REPOS.staging-social-repos',
        '$JS.API.CONSUMER.MSG.NEXT.STAGING_REPOS.staging-social-repos',
        '$JS.ACK.STAGING_REPOS.staging-social-repos.>',
      ],
    },
    subscribe: { allow: ['_INBOX_social.>', 'staging.user.deleted'] },
  });
});

it('gives a stream reader its own consumers on that one stream of the installation, its inbox, and nothing to publish', () => {
  const permissions = natsStreamReaderPermissions('ci-team', 'CAIRN_EVENTS_PUBLIC', 'staging');
  for (const subject of permissions.publish.allow) {
    // JetStream API calls and acks on STAGING_EVENTS_PUBLIC only (and the account info every client asks for).
    expect(subject).toMatch(/^\$JS\.API\.INFO$|^\$JS\.API\.(STREAM|CONSUMER)\.[A-Z.]+\.STAGING_EVENTS_PUBLIC(\.>)?$|^\$JS\.API\.CONSUMER\.CREATE\.STAGING_EVENTS_PUBLIC$|^\$JS\.ACK\.STAGING_EVENTS_PUBLIC\.>$/);
    expect(subject).not.toMatch(/STREAM\.(CREATE|UPDATE|DELETE|PURGE)/);
  }
  expect(permissions.subscribe.allow).toEqual(['_INBOX_ci-team.>']);
  expect(natsStreamReaderPermissions('ci-team', 'CAIRN_EVENTS_PUBLIC').publish.allow).toContain('$JS.API.CONSUMER.MSG.NEXT.CAIRN_EVENTS_PUBLIC.>');
  expect(() => natsStreamReaderPermissions('ci-team', 'EVENTS_PUBLIC')).toThrow(/CAIRN_/);
});
