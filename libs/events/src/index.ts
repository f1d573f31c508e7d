/**
 * @cairn/events: the public event stream's contract, for the hooks service that publishes it, the gateway that serves
 * its AsyncAPI document, the CLI that tails it and the teams that consume it. Bodies are the `gitea` webhook payloads
 * (hooks builds them once for both); subjects, streams and the CloudEvents envelope are defined here only.
 */
export {
  EVENTS_VERSION,
  EVENTS_PUBLIC_STREAM,
  EVENTS_PRIVATE_STREAM,
  EVENTS_STREAMS,
  type EventVisibility,
  eventsFilter,
  eventsStreamOf,
  eventsSubject,
  parseEventsSubject,
} from './subjects';
export { CLOUDEVENTS_SPEC_VERSION, CLOUDEVENTS_CONTENT_TYPE, type CloudEvent, cloudEventHeaders, cloudEventType, readCloudEvent } from './cloudevents';
export { EVENT_TYPES, type EventType, PUBLIC_EVENTS, type PublicEventSpec, type PublicEventType, publicEventSpec } from './catalogue';
export type * from './payloads';
export {
  asyncApiDocument,
  asyncApiChannelAddresses,
  cloudEventTypesOf,
  type AsyncApiChannel,
  type AsyncApiDocument,
  type AsyncApiOptions,
  type JsonObject,
  type JsonValue,
} from './asyncapi';
