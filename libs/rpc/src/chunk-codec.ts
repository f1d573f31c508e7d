/**
 * Fewer copies for the chunks of a byte stream (smart HTTP packs, archives, blobs): messages whose only content
 * is one `bytes` field, such as `UploadPackResponse { bytes data = 1; }`.
 *
 * ts-proto's generated code copies such a chunk four times on the way out (BinaryWriter's growing buffer — a
 * 64 KiB chunk lands in a zero-filled 128 KiB array —, `finish()`, `Buffer.from`, then grpc-js's frame) and twice
 * on the way in (grpc-js's reassembly, then `Buffer.from(reader.bytes())`). At pack sizes the garbage is what
 * costs: in the git-clone bench (3 MB pack) git-storage and the gateway ran a major GC per clone or so, driven by
 * external memory. Here a chunk is encoded into one buffer (grpc-js still frames it: two copies in all) and
 * decoded as a view into the received message (one copy in all).
 *
 * Nothing is assumed about a message type: the generated functions are asked, once per message shape, with a
 * probe value, and the fast path is taken only for values of a shape whose probe came out as exactly one
 * length-delimited field holding the probe's bytes; anything else goes through the generated function, as
 * before. Encoding and decoding produce the same bytes and the same messages as the generated code (the bytes
 * field of a decoded message is a view into the received buffer rather than a copy of it, which grpc-js allocates
 * afresh for every message).
 */

type Serialize = (value: unknown) => Buffer;
type Deserialize = (bytes: Buffer) => unknown;

/** The field a chunk travels in, as every chunk message of the Cairn protos names it. */
const CHUNK_FIELD = 'data';

/** Arbitrary bytes to probe with (a length that fits one varint byte, content unlike any tag). */
const PROBE = Buffer.from([0xca, 0x1e, 0x5b]);
const EMPTY = Buffer.alloc(0);
const WIRE_LENGTH_DELIMITED = 2;

/** More keys than this: not a chunk, do not bother. */
const MAX_KEYS = 8;

/** The varint at `offset`: [value, offset after it], or undefined when it is malformed or runs past the end. */
function readVarint(bytes: Uint8Array, offset: number): [number, number] | undefined {
  let value = 0;
  let multiplier = 1;
  // Five bytes cover 32-bit values: tags, and lengths (a message is at most 4 GiB; grpc-js caps it far lower).
  for (let i = offset; i < bytes.length && i < offset + 5; i++) {
    const byte = bytes[i];
    value += (byte & 0x7f) * multiplier;
    if (byte < 0x80) return [value, i + 1];
    multiplier *= 128;
  }
  return undefined;
}

function varintLength(value: number): number {
  let length = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    length++;
  }
  return length;
}

function writeVarint(target: Buffer, offset: number, value: number): number {
  while (value >= 0x80) {
    target[offset++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  target[offset++] = value;
  return offset;
}

/** `bytes` is one length-delimited field and nothing else: [tag, offset of its content], else undefined. */
function singleField(bytes: Uint8Array): [tag: number, contentAt: number] | undefined {
  const tag = readVarint(bytes, 0);
  if (tag === undefined || (tag[0] & 7) !== WIRE_LENGTH_DELIMITED) return undefined;
  const length = readVarint(bytes, tag[1]);
  if (length === undefined || length[1] + length[0] !== bytes.length) return undefined;
  return [tag[0], length[1]];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The shape of a chunk value: its other fields, when each holds one of the empty values proto3 leaves out
 * (undefined, '', 0, false, []), as a key such as `11:gitProtocol'5:rules[` (length-prefixed names, so any name
 * is unambiguous). Undefined when the value is not a chunk: no `data` bytes, an empty chunk, or another field set.
 */
function shapeOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const data = value[CHUNK_FIELD];
  if (!(data instanceof Uint8Array) || data.length === 0) return undefined;
  let shape = '';
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || key === CHUNK_FIELD) continue;
    if (++keys > MAX_KEYS) return undefined;
    const field = value[key];
    let mark: string;
    if (field === undefined) mark = 'u';
    else if (field === '') mark = "'";
    else if (field === 0) mark = '0';
    else if (field === false) mark = 'f';
    else if (Array.isArray(field) && field.length === 0) mark = '[';
    else return undefined;
    shape += `${key.length}:${key}${mark}`;
  }
  return shape;
}

/** A value of the same shape as `value` (see shapeOf) carrying `data` instead. */
function sameShapeWith(value: Record<string, unknown>, data: Buffer): Record<string, unknown> {
  const probe: Record<string, unknown> = {};
  for (const key of Object.keys(value)) probe[key] = Array.isArray(value[key]) ? [] : value[key];
  probe[CHUNK_FIELD] = data;
  return probe;
}

/**
 * The tag `serialize` writes a chunk of `value`'s shape with, when it writes nothing else (a probe of that
 * shape encodes to `tag, 3, probe`); undefined when the shape is not a chunk for this message type.
 */
function probeTag(serialize: Serialize, value: Record<string, unknown>): Buffer | undefined {
  let encoded: unknown;
  try {
    encoded = serialize(sameShapeWith(value, Buffer.from(PROBE)));
  } catch {
    return undefined;
  }
  if (!(encoded instanceof Uint8Array)) return undefined;
  const field = singleField(encoded);
  if (field === undefined || encoded.length - field[1] !== PROBE.length) return undefined;
  if (!PROBE.equals(encoded.subarray(field[1]))) return undefined;
  return Buffer.from(encoded.subarray(0, readVarint(encoded, 0)?.[1]));
}

/**
 * `serialize` with the fast path for chunks: a value `{ data, …fields left empty }` whose shape probed as one
 * bytes field is written as that field straight into one buffer. Same bytes as `serialize` for every value.
 */
export function chunkSerializer(serialize: Serialize): Serialize {
  const tags = new Map<string, Buffer | null>();
  return (value) => {
    const shape = shapeOf(value);
    if (shape === undefined) return serialize(value);
    let tag = tags.get(shape);
    if (tag === undefined) {
      tag = probeTag(serialize, value as Record<string, unknown>) ?? null;
      tags.set(shape, tag);
    }
    if (tag === null) return serialize(value);
    const data = (value as Record<string, Uint8Array>)[CHUNK_FIELD];
    const out = Buffer.allocUnsafe(tag.length + varintLength(data.length) + data.length);
    tag.copy(out, 0);
    out.set(data, writeVarint(out, tag.length, data.length));
    return out;
  };
}

/** Structural equality of two decoded messages' field values (what ts-proto's decode produces). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
  }
  return false;
}

/**
 * The key of the Buffer field that field `tag` decodes into, when decoding `tag, 3, probe` gives the empty
 * message with that field (and nothing else) holding the probe's bytes; undefined otherwise (another type of
 * field, an unknown one, a decoder that is not ts-proto's).
 */
function probeKey(deserialize: Deserialize, tag: number): string | undefined {
  const probe = Buffer.alloc(varintLength(tag) + 1 + PROBE.length);
  const at = writeVarint(probe, 0, tag);
  probe[at] = PROBE.length;
  PROBE.copy(probe, at + 1);
  let decoded: unknown;
  let empty: unknown;
  try {
    decoded = deserialize(probe);
    empty = deserialize(Buffer.alloc(0));
  } catch {
    return undefined;
  }
  if (!isObject(decoded) || !isObject(empty)) return undefined;
  const keys = Object.keys(decoded);
  if (keys.length !== Object.keys(empty).length) return undefined;
  let found: string | undefined;
  for (const key of keys) {
    if (!Object.hasOwn(empty, key)) return undefined;
    const field = decoded[key];
    const blank = empty[key];
    if (Buffer.isBuffer(field) && PROBE.equals(field) && Buffer.isBuffer(blank) && blank.length === 0) {
      if (found !== undefined) return undefined;
      found = key;
    } else if (!sameValue(field, blank)) {
      return undefined;
    }
  }
  return found;
}

/**
 * `deserialize` with the fast path for chunks: a message that is one length-delimited field which probed as a
 * Buffer field decodes as the empty message with that field a view of `bytes` (grpc-js hands every message
 * over in a buffer of its own). Equal messages to `deserialize` for every input.
 */
export function chunkDeserializer(deserialize: Deserialize): Deserialize {
  const keys = new Map<number, string | null>();
  return (bytes) => {
    const field = Buffer.isBuffer(bytes) ? singleField(bytes) : undefined;
    if (field === undefined) return deserialize(bytes);
    const [tag, contentAt] = field;
    let key = keys.get(tag);
    if (key === undefined) {
      key = probeKey(deserialize, tag) ?? null;
      keys.set(tag, key);
    }
    if (key === null) return deserialize(bytes);
    const message = deserialize(EMPTY) as Record<string, unknown>;
    message[key] = bytes.subarray(contentAt);
    return message;
  };
}

/** A streaming method's wire functions with the chunk fast paths on the streamed side(s). */
export function withChunkCodec<M extends { requestStream: boolean; responseStream: boolean }>(method: M): M {
  const m = method as M & {
    requestSerialize: Serialize;
    requestDeserialize: Deserialize;
    responseSerialize: Serialize;
    responseDeserialize: Deserialize;
  };
  if (!m.requestStream && !m.responseStream) return method;
  return {
    ...method,
    ...(m.requestStream
      ? { requestSerialize: chunkSerializer(m.requestSerialize), requestDeserialize: chunkDeserializer(m.requestDeserialize) }
      : {}),
    ...(m.responseStream
      ? { responseSerialize: chunkSerializer(m.responseSerialize), responseDeserialize: chunkDeserializer(m.responseDeserialize) }
      : {}),
  };
}
