/**
 * Event payloads on the wire: the proto3 JSON mapping of a ts-proto message, as UTF-8 bytes, so outside
 * consumers can read events without our generated code.
 */
export interface EventEncoder<T> {
  toJSON(message: T): unknown;
}

export interface EventDecoder<T> {
  fromJSON(object: unknown): T;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeEvent<T>(type: EventEncoder<T>, message: T): Uint8Array {
  return encoder.encode(JSON.stringify(type.toJSON(message)));
}

/** Throws on bytes that are not UTF-8 JSON. */
export function decodeEvent<T>(type: EventDecoder<T>, data: Uint8Array): T {
  return type.fromJSON(JSON.parse(decoder.decode(data)));
}
