/**
 * The public stream as an AsyncAPI 3.0 document: one channel per visibility and emitted event type at its concrete
 * subject, one message per event type whose payload is the JSON Schema generated from payloads.ts
 * (src/gen/payload-schemas.json) and whose headers are the CloudEvents attributes, NATS bindings, one `receive`
 * operation per channel. Built from the catalogue, so a type the hooks service emits cannot be missing.
 */
import { busNames } from '@cairn/bus';
import { PUBLIC_EVENTS, type PublicEventSpec } from './catalogue';
import { CLOUDEVENTS_CONTENT_TYPE, CLOUDEVENTS_SPEC_VERSION, cloudEventType } from './cloudevents';
import generated from './gen/payload-schemas.json';
import { EVENTS_VERSION, type EventVisibility, eventsStreamOf, eventsSubject } from './subjects';

/** A JSON value as the document holds it. */
export type JsonObject = { readonly [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | JsonObject;

export interface AsyncApiOptions {
  /** `[bus] PREFIX`. */
  prefix: string;
  /** `[server] ROOT_URL`: every event's `ce-source`. */
  rootUrl: string;
  /**
   * The NATS server consumers connect to (`nats://…`, or a comma-separated list of them); without it the document's
   * server has a `host` variable.
   */
  natsUrl?: string;
}

export interface AsyncApiChannel extends JsonObject {
  readonly address: string;
}

/** What the document is; `channels` typed for readers such as asyncApiChannelAddresses. */
export interface AsyncApiDocument extends JsonObject {
  readonly asyncapi: '3.0.0';
  readonly channels: { readonly [id: string]: AsyncApiChannel };
}

const VISIBILITIES: readonly EventVisibility[] = ['public', 'private'];
/** The AsyncAPI NATS bindings' version (github.com/asyncapi/bindings nats). */
const NATS_BINDING_VERSION = '0.1.0';
const DEFAULT_NATS_HOST = 'localhost:4222';

const DESCRIPTION = `Cairn's public event stream: every change a \`gitea\` webhook would be told about, as a CloudEvents 1.0
message in binary mode (the \`ce-*\` headers) whose body is exactly that webhook's JSON payload, users and repositories
as an anonymous viewer sees them.

Subjects are \`<prefix>.events.${EVENTS_VERSION}.<visibility>.<event>\`: \`public\` when an anonymous caller could read
the object the event is about, \`private\` otherwise; \`<event>\` is Gitea's \`X-Gitea-Event-Type\`. Public events are in
the JetStream stream \`<PREFIX>_EVENTS_PUBLIC\`, private ones in \`<PREFIX>_EVENTS_PRIVATE\`.

Delivery is at least once: deduplicate on \`ce-id\` (also the \`Nats-Msg-Id\` and the webhook delivery id of the same
payload). Events of one repository on one subject arrive in the order their changes committed. Replay from a point in
time with a JetStream consumer using \`deliver_policy: by_start_time\`.

A payload change that would break a consumer comes with a new version in the subject; fields may be added within a
version, so consumers must accept properties they do not know.`;

/** The generated definitions, their `$ref`s pointing into components/schemas. */
function componentSchemas(): Record<string, JsonValue> {
  const text = JSON.stringify(generated.definitions).replaceAll('"#/definitions/', '"#/components/schemas/');
  return JSON.parse(text) as Record<string, JsonValue>;
}

function schemaRef(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

/** The CloudEvents attributes as NATS headers, all of them always set (cloudEventHeaders). */
const CLOUD_EVENT_HEADERS: JsonObject = {
  type: 'object',
  description: 'CloudEvents 1.0 attributes in binary content mode (the CloudEvents NATS protocol binding).',
  properties: {
    'ce-specversion': { type: 'string', const: CLOUDEVENTS_SPEC_VERSION },
    'ce-id': { type: 'string', format: 'uuid', description: 'Unique per event: deduplicate on it. Also the Nats-Msg-Id and the webhook delivery id.' },
    'ce-source': { type: 'string', format: 'uri', description: "The instance's ROOT_URL." },
    'ce-type': { type: 'string', description: '`io.cairn.<event>.<action>`, or `io.cairn.<event>` for a payload without an action.' },
    'ce-time': { type: 'string', format: 'date-time', description: 'When the change committed.' },
    'ce-subject': { type: 'string', description: '`<owner>/<repo>`, or the organization or user name.' },
    'ce-datacontenttype': { type: 'string', const: CLOUDEVENTS_CONTENT_TYPE },
    'Nats-Msg-Id': { type: 'string', format: 'uuid', description: 'The same value as ce-id (JetStream deduplication).' },
  },
  required: ['ce-specversion', 'ce-id', 'ce-source', 'ce-type', 'ce-time', 'ce-subject', 'ce-datacontenttype'],
};

/** The `ce-type` values of one event type. */
export function cloudEventTypesOf(spec: PublicEventSpec): string[] {
  return spec.actions.length === 0 ? [cloudEventType(spec.type)] : spec.actions.map((action) => cloudEventType(spec.type, action));
}

function message(spec: PublicEventSpec, rootUrl: string): JsonObject {
  const payload = spec.actions.length === 0 ? schemaRef(spec.payload) : { allOf: [schemaRef(spec.payload), { properties: { action: { enum: spec.actions } } }] };
  return {
    name: spec.type,
    title: spec.type,
    summary: spec.description,
    contentType: CLOUDEVENTS_CONTENT_TYPE,
    headers: {
      type: 'object',
      allOf: [schemaRef('CloudEventHeaders'), { properties: { 'ce-type': { enum: cloudEventTypesOf(spec) }, 'ce-source': { const: rootUrl } } }],
    },
    payload,
    // The NATS message and channel bindings are reserved (no properties yet); operations name their version.
    bindings: { nats: {} },
    'x-gitea-event': spec.event,
    'x-gitea-event-type': spec.type,
  };
}

function server(natsUrl: string | undefined): JsonObject {
  const base = { protocol: 'nats', description: 'The NATS server with JetStream that carries the stream.' };
  if (natsUrl === undefined) return { ...base, host: '{host}', variables: { host: { default: DEFAULT_NATS_HOST, description: 'host:port of the NATS server' } } };
  // Only the host of the first server (`[bus] URL` may list several): a URL's credentials are never published.
  return { ...base, host: new URL(natsUrl.split(',')[0].trim()).host };
}

/** Channel ids: `<visibility>.<event>`. */
function channelId(visibility: EventVisibility, spec: PublicEventSpec): string {
  return `${visibility}.${spec.type}`;
}

export function asyncApiDocument(options: AsyncApiOptions): AsyncApiDocument {
  const names = busNames(options.prefix);
  const channels: Record<string, AsyncApiChannel> = {};
  const operations: Record<string, JsonValue> = {};
  const messages: Record<string, JsonValue> = {};
  for (const spec of PUBLIC_EVENTS) {
    messages[spec.type] = message(spec, options.rootUrl);
    for (const visibility of VISIBILITIES) {
      const id = channelId(visibility, spec);
      channels[id] = {
        address: names.subject(eventsSubject(visibility, spec.type)),
        title: `${visibility} ${spec.type}`,
        description: `${spec.description} In stream ${names.stream(eventsStreamOf(visibility))}.`,
        messages: { [spec.type]: { $ref: `#/components/messages/${spec.type}` } },
        bindings: { nats: {} },
      };
      operations[`receive.${id}`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${id}` },
        messages: [{ $ref: `#/channels/${id}/messages/${spec.type}` }],
        bindings: { nats: { bindingVersion: NATS_BINDING_VERSION } },
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    id: `urn:cairn:events:${options.prefix}`,
    info: { title: 'Cairn events', version: EVENTS_VERSION, description: DESCRIPTION },
    defaultContentType: CLOUDEVENTS_CONTENT_TYPE,
    servers: { nats: server(options.natsUrl) },
    channels,
    operations,
    components: { schemas: { ...componentSchemas(), CloudEventHeaders: CLOUD_EVENT_HEADERS }, messages },
  };
}

/** Every channel's subject, in document order. */
export function asyncApiChannelAddresses(document: AsyncApiDocument): string[] {
  return Object.values(document.channels).map((channel) => channel.address);
}
