import { Parser } from '@asyncapi/parser';
import { type AsyncApiDocument, type JsonObject, asyncApiChannelAddresses, asyncApiDocument } from './asyncapi';
import { EVENT_TYPES, PUBLIC_EVENTS } from './catalogue';

const ROOT_URL = 'https://git.example.com/';

/** The official parser's error diagnostics (severity 0); warnings and hints are not failures. */
async function parserErrors(document: AsyncApiDocument): Promise<string[]> {
  const { diagnostics } = await new Parser().parse(JSON.stringify(document));
  return diagnostics.filter((found) => found.severity === 0).map((found) => `${found.path.join('/')}: ${found.message}`);
}

const objectAt = (value: unknown, ...keys: string[]): JsonObject => {
  let current = value;
  for (const key of keys) current = (current as Record<string, unknown>)[key];
  return current as JsonObject;
};

describe('asyncApiDocument', () => {
  // The parser validates every payload schema inlined into every message: seconds per document.
  it.each(['cairn', 'staging-2'])(
    'parses with the official parser, prefix %s',
    async (prefix) => {
      const document = asyncApiDocument({ prefix, rootUrl: ROOT_URL });
      expect(document.asyncapi).toBe('3.0.0');
      expect(await parserErrors(document)).toEqual([]);
    },
    120_000,
  );

  it('is refused by the parser when broken (the check can fail)', async () => {
    const document: AsyncApiDocument = {
      asyncapi: '3.0.0',
      info: { title: 'broken', version: 'v1' },
      channels: { bad: { address: 'x', messages: { m: { $ref: '#/components/messages/none' } } } },
    };
    expect(await parserErrors(document)).toEqual([expect.stringMatching(/none/)]);
  });

  it('has one channel per visibility and emitted event type, at the concrete subject under the prefix', () => {
    const addresses = asyncApiChannelAddresses(asyncApiDocument({ prefix: 'staging-2', rootUrl: ROOT_URL }));
    const types = EVENT_TYPES.filter((type) => type !== 'wiki');
    expect([...addresses].sort()).toEqual(types.flatMap((type) => [`staging-2.events.v1.public.${type}`, `staging-2.events.v1.private.${type}`]).sort());
    expect(addresses.some((address) => address.includes('wiki'))).toBe(false);
  });

  it('describes each message by its generated payload schema, its actions and the CloudEvents headers', () => {
    const document = asyncApiDocument({ prefix: 'cairn', rootUrl: ROOT_URL });
    const label = objectAt(document, 'components', 'messages', 'issue_label');
    expect(label.payload).toEqual({ allOf: [{ $ref: '#/components/schemas/IssuePayload' }, { properties: { action: { enum: ['label_updated', 'label_cleared'] } } }] });
    expect(objectAt(label, 'headers', 'allOf')[1]).toEqual({
      properties: { 'ce-type': { enum: ['io.cairn.issue_label.label_updated', 'io.cairn.issue_label.label_cleared'] }, 'ce-source': { const: ROOT_URL } },
    });
    expect(objectAt(document, 'components', 'messages', 'push')).toMatchObject({ payload: { $ref: '#/components/schemas/PushPayload' }, bindings: { nats: {} } });
    const headers = objectAt(document, 'components', 'schemas', 'CloudEventHeaders');
    expect(headers.required).toEqual(['ce-specversion', 'ce-id', 'ce-source', 'ce-type', 'ce-time', 'ce-subject', 'ce-datacontenttype']);
    expect(objectAt(headers, 'properties', 'ce-specversion')).toEqual({ type: 'string', const: '1.0' });
    expect(objectAt(headers, 'properties', 'ce-id')).toMatchObject({ format: 'uuid' });
    expect(objectAt(headers, 'properties', 'ce-time')).toMatchObject({ format: 'date-time' });
    expect(objectAt(headers, 'properties', 'ce-datacontenttype')).toEqual({ type: 'string', const: 'application/json' });
    // Shared objects are definitions every payload refers to, pointing inside the document.
    expect(objectAt(document, 'components', 'schemas', 'PushPayload', 'properties', 'sender')).toEqual({ $ref: '#/components/schemas/ApiUser' });
    expect(JSON.stringify(document)).not.toContain('#/definitions/');
    for (const spec of PUBLIC_EVENTS) expect(objectAt(document, 'components', 'messages', spec.type)['x-gitea-event']).toBe(spec.event);
  });

  it('has a receive operation with NATS bindings per channel', () => {
    const document = asyncApiDocument({ prefix: 'cairn', rootUrl: ROOT_URL });
    expect(objectAt(document, 'operations', 'receive.private.pull_request_sync')).toEqual({
      action: 'receive',
      channel: { $ref: '#/channels/private.pull_request_sync' },
      messages: [{ $ref: '#/channels/private.pull_request_sync/messages/pull_request_sync' }],
      bindings: { nats: { bindingVersion: '0.1.0' } },
    });
    expect(Object.keys(objectAt(document, 'operations'))).toHaveLength(Object.keys(document.channels).length);
    expect(objectAt(document, 'channels', 'public.push', 'description')).toContain('CAIRN_EVENTS_PUBLIC');
  });

  it('publishes the NATS host only, never credentials, and a host variable without a URL', () => {
    expect(objectAt(asyncApiDocument({ prefix: 'cairn', rootUrl: ROOT_URL, natsUrl: 'nats://team:secret@nats.internal:4222' }), 'servers', 'nats')).toMatchObject({
      host: 'nats.internal:4222',
      protocol: 'nats',
    });
    expect(JSON.stringify(asyncApiDocument({ prefix: 'cairn', rootUrl: ROOT_URL, natsUrl: 'nats://team:secret@nats.internal:4222' }))).not.toContain('secret');
    expect(objectAt(asyncApiDocument({ prefix: 'cairn', rootUrl: ROOT_URL, natsUrl: 'nats://a:4222, nats://b:4222' }), 'servers', 'nats', 'host')).toBe('a:4222');
    expect(objectAt(asyncApiDocument({ prefix: 'cairn', rootUrl: ROOT_URL }), 'servers', 'nats')).toMatchObject({ host: '{host}', variables: { host: { default: 'localhost:4222' } } });
  });

  it('refuses a prefix the bus would refuse', () => {
    expect(() => asyncApiDocument({ prefix: 'a.b', rootUrl: ROOT_URL })).toThrow(/invalid bus prefix/);
  });
});
