/** The first bytes of a stream, to sniff its type, without losing them or reading more than that. */
import { SNIFF_LENGTH } from './sniff';

/** The first `SNIFF_LENGTH` bytes (fewer for a shorter body) and an iterable of the whole body, those bytes first. */
export async function peek(body: AsyncIterable<Uint8Array>): Promise<{ head: Uint8Array; whole: AsyncIterable<Uint8Array> }> {
  const iterator = body[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < SNIFF_LENGTH) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    length += next.value.byteLength;
  }
  async function* whole(): AsyncIterable<Uint8Array> {
    yield* seen;
    if (!done) yield* { [Symbol.asyncIterator]: () => iterator };
  }
  return { head: Buffer.concat(seen).subarray(0, SNIFF_LENGTH), whole: whole() };
}
