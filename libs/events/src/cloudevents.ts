/**
 * The envelope: CloudEvents 1.0 in binary content mode over NATS headers (the CloudEvents NATS protocol binding,
 * draft 1.0.3): every attribute a `ce-` header, `datacontenttype` as `ce-datacontenttype`, the body the data. The id is
 * also the message's `Nats-Msg-Id` (set by @cairn/bus) and the webhook delivery id of the same payload.
 */
export const CLOUDEVENTS_SPEC_VERSION = '1.0';
export const CLOUDEVENTS_CONTENT_TYPE = 'application/json';

export interface CloudEvent {
  /** A UUID: the payload's delivery id. */
  id: string;
  /** The instance's `[server] ROOT_URL`. */
  source: string;
  /** `io.cairn.<event>[.<action>]` (cloudEventType). */
  type: string;
  /** When the change committed. */
  time: Date;
  /** `<owner>/<repo>`, or the organization's or user's name. */
  subject: string;
}

/** `io.cairn.<event>.<action>`, or `io.cairn.<event>` for a payload without an action (push, create, delete, fork). */
export function cloudEventType(eventType: string, action?: string): string {
  return action === undefined || action === '' ? `io.cairn.${eventType}` : `io.cairn.${eventType}.${action}`;
}

export function cloudEventHeaders(event: CloudEvent): Record<string, string> {
  return {
    'ce-specversion': CLOUDEVENTS_SPEC_VERSION,
    'ce-id': event.id,
    'ce-source': event.source,
    'ce-type': event.type,
    'ce-time': event.time.toISOString(),
    'ce-subject': event.subject,
    'ce-datacontenttype': CLOUDEVENTS_CONTENT_TYPE,
  };
}

/** The attributes of a message's headers; undefined unless every one is there and the version is 1.0. */
export function readCloudEvent(headers: Readonly<Record<string, string>>): CloudEvent | undefined {
  const get = (name: string): string | undefined => headers[name];
  const [id, source, type, time, subject] = [get('ce-id'), get('ce-source'), get('ce-type'), get('ce-time'), get('ce-subject')];
  if (get('ce-specversion') !== CLOUDEVENTS_SPEC_VERSION || id === undefined || source === undefined || type === undefined || subject === undefined) return undefined;
  const when = time === undefined ? Number.NaN : Date.parse(time);
  if (Number.isNaN(when)) return undefined;
  return { id, source, type, time: new Date(when), subject };
}
