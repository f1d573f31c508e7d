import { randomBytes } from 'node:crypto';
import {
  ContentServiceService,
  GetBlobResponse,
  ReceivePackRequest,
  SmartHttpServiceService,
  UploadPackRequest,
  UploadPackResponse,
} from '@cairn/proto/cairn/git/v1/git_service';
import { silentLogger } from '@cairn/log';
import { chunkDeserializer, chunkSerializer, withChunkCodec } from './chunk-codec';
import { type RpcClient, createRpcClient } from './client';
import { type RpcServer, createRpcServer } from './server';
import { anyCaller } from './authorize';
import type { AsyncServiceOf } from './types';

type Serialize = (value: unknown) => Buffer;
type Deserialize = (bytes: Buffer) => unknown;

/** Counts the calls reaching the generated function: zero means the fast path answered. */
function counted<F extends (arg: never) => unknown>(fn: F): F & { calls: number } {
  const wrapped = ((arg: never) => {
    wrapped.calls++;
    return fn(arg);
  }) as F & { calls: number };
  wrapped.calls = 0;
  return wrapped;
}

/** Every streamed side of every streaming method Cairn has, with its generated functions. */
const STREAMED_SIDES = [
  ...Object.values(SmartHttpServiceService),
  ...Object.values(ContentServiceService).filter((method) => method.requestStream || method.responseStream),
].flatMap((method) => {
  const sides: Array<{ name: string; serialize: Serialize; deserialize: Deserialize }> = [];
  if (method.requestStream) {
    sides.push({ name: `${method.path} requests`, serialize: method.requestSerialize as Serialize, deserialize: method.requestDeserialize as Deserialize });
  }
  if (method.responseStream) {
    sides.push({ name: `${method.path} responses`, serialize: method.responseSerialize as Serialize, deserialize: method.responseDeserialize as Deserialize });
  }
  return sides;
});

/** Chunk sizes around the varint boundaries of the length (1, 2 and 3 bytes) and the usual pipe reads. */
const SIZES = [1, 3, 127, 128, 16_383, 16_384, 65_536, 200_000];

describe('chunk codec', () => {
  it('covers the smart HTTP and content streams', () => {
    expect(STREAMED_SIDES.map((side) => side.name)).toEqual(
      expect.arrayContaining([
        '/cairn.git.v1.SmartHttpService/InfoRefs responses',
        '/cairn.git.v1.SmartHttpService/UploadPack requests',
        '/cairn.git.v1.SmartHttpService/UploadPack responses',
        '/cairn.git.v1.SmartHttpService/ReceivePack requests',
        '/cairn.git.v1.SmartHttpService/ReceivePack responses',
        '/cairn.git.v1.ContentService/GetBlob responses',
        '/cairn.git.v1.ContentService/GetArchive responses',
      ]),
    );
  });

  describe.each(STREAMED_SIDES)('$name', ({ serialize, deserialize }) => {
    it.each(SIZES)('encodes a %i-byte chunk to the same bytes as the generated code, then decodes it to the same message', (size) => {
      // A chunk as callers write it: the type's empty message (every other field left out) with the data.
      const chunk = { ...(deserialize(Buffer.alloc(0)) as object), data: randomBytes(size) };
      const expected = serialize(chunk);
      const generated = counted(serialize);
      const encoded = chunkSerializer(generated)(chunk);
      expect(Buffer.compare(encoded, expected)).toBe(0);
      expect(generated.calls).toBe(1); // the probe of the shape; the chunk itself took the fast path

      const { data, ...decoded } = chunkDeserializer(deserialize)(Buffer.from(encoded)) as { data: Buffer };
      const { data: expectedData, ...rest } = deserialize(Buffer.from(expected)) as { data: Buffer };
      expect(decoded).toEqual(rest);
      expect(Buffer.isBuffer(data)).toBe(true);
      expect(Buffer.compare(data, expectedData)).toBe(0);
    });
  });

  it('takes the fast path for chunks, after one probe per shape', () => {
    const generated = counted(SmartHttpServiceService.uploadPack.responseSerialize as Serialize);
    const serialize = chunkSerializer(generated);
    for (let i = 0; i < 10; i++) serialize({ data: randomBytes(1000) });
    expect(generated.calls).toBe(1); // the probe

    const parse = counted(SmartHttpServiceService.uploadPack.responseDeserialize as Deserialize);
    const deserialize = chunkDeserializer(parse);
    const wire = serialize({ data: randomBytes(1000) });
    for (let i = 0; i < 10; i++) deserialize(wire);
    // The probe decodes twice (the probe and the empty message); each chunk then needs the empty message only.
    expect(parse.calls).toBe(2 + 10);
  });

  it('decodes a chunk as a view of the received buffer rather than a copy', () => {
    const wire = chunkSerializer(SmartHttpServiceService.uploadPack.responseSerialize as Serialize)({ data: randomBytes(70_000) });
    const message = chunkDeserializer(SmartHttpServiceService.uploadPack.responseDeserialize as Deserialize)(wire) as UploadPackResponse;
    expect(Buffer.isBuffer(message.data)).toBe(true);
    expect(message.data.buffer).toBe(wire.buffer);
    expect(message.data.byteOffset).toBe(wire.byteOffset + 4); // tag, 3-byte length
  });

  it('leaves requests whose other fields are set to the generated code, the same as before', () => {
    const generated = counted(SmartHttpServiceService.uploadPack.requestSerialize as Serialize);
    const serialize = chunkSerializer(generated);
    const first: UploadPackRequest = { repository: { storage: 'default', repoId: 7 }, gitProtocol: 'version=2', data: Buffer.from('0014command=ls-refs\n') };
    expect(Buffer.compare(serialize(first), Buffer.from(UploadPackRequest.encode(first).finish()))).toBe(0);
    const protocolOnly: UploadPackRequest = { gitProtocol: 'version=2', data: Buffer.from('x') };
    expect(Buffer.compare(serialize(protocolOnly), Buffer.from(UploadPackRequest.encode(protocolOnly).finish()))).toBe(0);
    expect(generated.calls).toBe(2);

    // The chunks after it ({ gitProtocol: '', data }) take the fast path.
    const chunk: UploadPackRequest = { gitProtocol: '', data: randomBytes(100) };
    expect(Buffer.compare(serialize(chunk), Buffer.from(UploadPackRequest.encode(chunk).finish()))).toBe(0);
    expect(serialize(chunk)).toEqual(serialize(chunk));
    expect(generated.calls).toBe(3); // one probe for the shape

    const push: ReceivePackRequest = { gitProtocol: '', rules: [], tagRules: [], data: randomBytes(100) };
    const receive = counted(SmartHttpServiceService.receivePack.requestSerialize as Serialize);
    expect(Buffer.compare(chunkSerializer(receive)(push), Buffer.from(ReceivePackRequest.encode(push).finish()))).toBe(0);
  });

  it('decodes messages with more than the chunk field through the generated code', () => {
    const deserialize = chunkDeserializer(SmartHttpServiceService.uploadPack.requestDeserialize as Deserialize);
    const first: UploadPackRequest = { repository: { storage: 'default', repoId: 7 }, gitProtocol: 'version=2', data: Buffer.from('abc') };
    expect(deserialize(Buffer.from(UploadPackRequest.encode(first).finish()))).toEqual(first);
    // One length-delimited field that is not the bytes one (the repository alone) is not a chunk either.
    const repositoryOnly: UploadPackRequest = { repository: { storage: 'default', repoId: 7 }, gitProtocol: '', data: Buffer.alloc(0) };
    expect(deserialize(Buffer.from(UploadPackRequest.encode(repositoryOnly).finish()))).toEqual(repositoryOnly);
    // Nor is GetBlob's first message (its entry), while its later ones (data, field 2) are.
    const blob = chunkDeserializer(ContentServiceService.getBlob.responseDeserialize as Deserialize);
    const entryOnly = Buffer.from(GetBlobResponse.encode({ entry: { name: 'a', path: 'a', type: 'blob', mode: '100644', sha: 'f'.repeat(40), size: 1 } as never, data: Buffer.alloc(0) }).finish());
    expect(blob(entryOnly)).toEqual(GetBlobResponse.decode(entryOnly));
    const dataOnly = Buffer.from(GetBlobResponse.encode({ data: Buffer.from('hello') }).finish());
    expect(blob(dataOnly)).toEqual({ entry: undefined, data: Buffer.from('hello') });
  });

  it('encodes an empty chunk, and values that are not chunks, through the generated code', () => {
    const generated = counted(SmartHttpServiceService.uploadPack.responseSerialize as Serialize);
    const serialize = chunkSerializer(generated);
    expect(serialize({ data: Buffer.alloc(0) })).toEqual(Buffer.alloc(0));
    expect(generated.calls).toBe(1);
  });

  it('falls back for message types that are not chunks, and for serializers that are not protobuf', () => {
    const text = {
      serialize: counted((value: string) => Buffer.from(value)) as unknown as Serialize & { calls: number },
      deserialize: counted((bytes: Buffer) => bytes.toString()) as unknown as Deserialize & { calls: number },
    };
    // A string is not a chunk at all; an object the serializer cannot take makes the probe fail, not the call.
    expect(chunkSerializer(text.serialize)('hello' as unknown)).toEqual(Buffer.from('hello'));
    // "\n\x03abc" reads as one length-delimited field (field 1): the probe decodes a string, so no fast path.
    const looksLikeAField = Buffer.from('\n\x03abc', 'latin1');
    const deserialize = chunkDeserializer(text.deserialize);
    expect(deserialize(looksLikeAField)).toBe('\n\x03abc');
    expect(deserialize(looksLikeAField)).toBe('\n\x03abc');
  });

  it('is applied to the streamed sides only', () => {
    const unary = ContentServiceService.getTreeEntry ?? Object.values(ContentServiceService).find((method) => !method.requestStream && !method.responseStream);
    expect(withChunkCodec(unary)).toBe(unary);
    const infoRefs = withChunkCodec(SmartHttpServiceService.infoRefs);
    expect(infoRefs.requestSerialize).toBe(SmartHttpServiceService.infoRefs.requestSerialize);
    expect(infoRefs.responseSerialize).not.toBe(SmartHttpServiceService.infoRefs.responseSerialize);
    expect(infoRefs.path).toBe(SmartHttpServiceService.infoRefs.path);
  });
});

describe('chunk codec over a real connection', () => {
  let server: RpcServer;
  let client: RpcClient<typeof SmartHttpServiceService>;

  beforeAll(async () => {
    server = createRpcServer({ service: 'git-storage', logger: silentLogger() });
    // Echoes the request body back in the response stream, chunk for chunk, after the first (addressing) message.
    const impl: Partial<AsyncServiceOf<typeof SmartHttpServiceService>> = {
      async *uploadPack(requests) {
        let first = true;
        for await (const request of requests) {
          if (first) {
            first = false;
            if (request.repository?.repoId !== 42 || request.gitProtocol !== 'version=2') throw new Error('the first message arrived wrong');
          }
          if (request.data.length > 0) yield { data: request.data };
        }
      },
    };
    server.addService(SmartHttpServiceService, impl as AsyncServiceOf<typeof SmartHttpServiceService>, anyCaller(SmartHttpServiceService));
    const port = await server.start('127.0.0.1:0');
    client = createRpcClient(SmartHttpServiceService, { target: `127.0.0.1:${port}`, service: 'git-storage', caller: 'gateway', logger: silentLogger() });
  });

  afterAll(async () => {
    client.close();
    await server.stop(100);
  });

  it('carries every byte both ways, in order', async () => {
    const chunks = [5, 65_515, 5, 1, 0, 127, 128, 300_000, 16_384].map((size) => randomBytes(size));
    async function* requests(): AsyncIterable<UploadPackRequest> {
      yield { repository: { storage: 'default', repoId: 42 }, gitProtocol: 'version=2', data: Buffer.alloc(0) };
      for (const data of chunks) yield { gitProtocol: '', data };
    }
    const received: Buffer[] = [];
    for await (const response of client.uploadPack(requests())) received.push(response.data);
    expect(received.map((data) => data.length)).toEqual(chunks.filter((data) => data.length > 0).map((data) => data.length));
    expect(Buffer.compare(Buffer.concat(received), Buffer.concat(chunks))).toBe(0);
  });
});
