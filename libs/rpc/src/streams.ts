/**
 * The client side of streaming calls (server streaming, client streaming, bidi), as async iterables.
 *
 * - Responses are read at the consumer's pace: grpc-js asks the server for the next message only when the
 *   previous one was taken, so a slow reader holds the server back (its writes wait for drain).
 * - Requests are pulled from the caller's iterable only while the call's send buffer has room.
 * - Breaking out of the response loop, or aborting `options.signal`, cancels the call (the server's handler sees
 *   its signal abort); a failed request iterable cancels it too and is what the caller's loop rejects with.
 * - No deadline unless `options.deadlineMs` is given; failures reject with CairnError; one metrics record per call.
 * - A response stream starts when the consumer starts reading it.
 */
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { type Logger, REQUEST_ID_HEADER, currentRequestId, newRequestId } from '@cairn/log';
import type { RpcRecorder } from '@cairn/metrics';
import { countsAsFailure } from './breaker';
import { CairnError, Code, isCairnError } from './errors';
import { codeName, errorFromStatus } from './status';
import type { MethodKind, RpcCallOptions } from './types';

export type StreamKind = Exclude<MethodKind, 'unary'>;

/** Calls one streaming method: `input` is the request (server streaming) or the requests' iterable. */
export type StreamCaller = (
  method: grpc.MethodDefinition<unknown, unknown>,
  metrics: RpcRecorder,
  input: unknown,
  options?: RpcCallOptions,
) => AsyncIterable<unknown> | Promise<unknown>;

interface Peer {
  service: string;
  target: string;
  logger: Logger;
  /** Whether the client was closed (its channel refuses new calls). */
  isClosed(): boolean;
  /** The call's credentials (client.ts), for the request when there is one. */
  credentials(metadata: grpc.Metadata, request?: unknown): void;
}

/** A grpc-js call error: the status it failed with. */
function isStatusError(error: unknown): error is grpc.ServiceError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'number' && 'details' in error;
}

/** One streaming call's bookkeeping, from the moment the caller made it to the one it settled. */
class CallRecord {
  private readonly started = performance.now();
  private settled = false;
  readonly requestId = currentRequestId() ?? newRequestId();

  constructor(
    private readonly method: grpc.MethodDefinition<unknown, unknown>,
    private readonly metrics: RpcRecorder,
    private readonly peer: Peer,
    readonly options: RpcCallOptions | undefined,
  ) {}

  metadata(request?: unknown): grpc.Metadata {
    const metadata = new grpc.Metadata();
    metadata.set(REQUEST_ID_HEADER, this.requestId);
    const actor = this.options?.actor;
    this.peer.credentials(metadata, request ?? (actor === undefined ? undefined : { actor }));
    return metadata;
  }

  callOptions(): grpc.CallOptions {
    const deadlineMs = this.options?.deadlineMs;
    return deadlineMs === undefined ? {} : { deadline: new Date(Date.now() + deadlineMs) };
  }

  closed(): boolean {
    return this.peer.isClosed();
  }

  succeed(): void {
    this.record(Code.OK);
  }

  /** Records the failure (unless the call already settled) and answers the CairnError the caller sees. */
  fail(error: unknown): CairnError {
    const failure = this.failureOf(error);
    if (this.record(failure.code) && countsAsFailure(failure)) {
      const { service, target, logger } = this.peer;
      logger.warn(
        { rpc: this.method.path, target, code: codeName(failure.code), request_id: this.requestId, err: failure.cause ?? failure },
        `${service} stream failed`,
      );
    }
    return failure;
  }

  /** Counts the call once; false when it was already counted. */
  private record(code: Code): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.metrics.record(codeName(code), (performance.now() - this.started) / 1000);
    return true;
  }

  private failureOf(error: unknown): CairnError {
    const { service } = this.peer;
    if (isCairnError(error)) return error;
    if (this.options?.signal?.aborted === true) return new CairnError(Code.CANCELLED, `${service} call cancelled`, { cause: error });
    if (isStatusError(error)) return errorFromStatus(error, service);
    return new CairnError(Code.INTERNAL, `${service} call failed`, { cause: error });
  }
}

const closedError = (service: string) => new CairnError(Code.UNAVAILABLE, `${service} client is closed`);

/** The error a failed request iterable turns into: the caller's own CairnError, or CANCELLED naming the cause. */
function sourceFailure(error: unknown, service: string): CairnError {
  return isCairnError(error) ? error : new CairnError(Code.CANCELLED, `${service} call cancelled: its request stream failed`, { cause: error });
}

/**
 * Writes the caller's requests to the call, waiting for drain whenever the send buffer is full, then half-closes.
 * Stops pulling (which runs the iterable's `finally`) once `stop` aborts: the call is over.
 */
async function pump(requests: AsyncIterable<unknown>, call: grpc.ClientWritableStream<unknown>, stop: AbortSignal): Promise<void> {
  for await (const request of requests) {
    if (stop.aborted) return;
    if (!call.write(request)) await once(call, 'drain', { signal: stop }).catch(() => undefined);
    if (stop.aborted) return;
  }
  call.end();
}

type ResponseStream = grpc.ClientReadableStream<unknown> | grpc.ClientDuplexStream<unknown, unknown>;

/** Opens the call when the consumer starts reading, and yields its responses (see the module comment). */
async function* receive(
  record: CallRecord,
  service: string,
  open: () => ResponseStream,
  requests?: AsyncIterable<unknown>,
): AsyncGenerator<unknown, void, undefined> {
  const signal = record.options?.signal;
  if (signal?.aborted === true) throw record.fail(signal.reason);
  if (record.closed()) throw record.fail(closedError(service));
  const call = open();
  const stop = new AbortController();
  let failedSource: CairnError | undefined;
  const cancel = () => call.cancel();
  signal?.addEventListener('abort', cancel);
  if (requests !== undefined) {
    pump(requests, call as grpc.ClientDuplexStream<unknown, unknown>, stop.signal).catch((error: unknown) => {
      failedSource = sourceFailure(error, service);
      call.cancel();
    });
  }
  let ended = false;
  try {
    for await (const message of call as AsyncIterable<unknown>) yield message;
    ended = true;
    record.succeed();
  } catch (error) {
    ended = true;
    throw record.fail(failedSource ?? error);
  } finally {
    stop.abort();
    signal?.removeEventListener('abort', cancel);
    if (!ended) {
      // The consumer stopped reading before the end: nobody wants the rest.
      call.cancel();
      record.fail(new CairnError(Code.CANCELLED, `${service} call cancelled by its consumer`));
    }
  }
}

export function streamCallers(channel: grpc.Client, peer: Peer): Record<StreamKind, StreamCaller> {
  const { service } = peer;
  return {
    serverStream: (method, metrics, request, options) => {
      const record = new CallRecord(method, metrics, peer, options);
      return receive(record, service, () =>
        channel.makeServerStreamRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          record.metadata(request),
          record.callOptions(),
        ),
      );
    },

    bidi: (method, metrics, requests, options) => {
      const record = new CallRecord(method, metrics, peer, options);
      return receive(
        record,
        service,
        () => channel.makeBidiStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, record.metadata(), record.callOptions()),
        requests as AsyncIterable<unknown>,
      );
    },

    clientStream: async (method, metrics, requests, options) => {
      const record = new CallRecord(method, metrics, peer, options);
      const signal = options?.signal;
      const stop = new AbortController();
      let failedSource: CairnError | undefined;
      let call: grpc.ClientWritableStream<unknown> | undefined;
      const cancel = () => call?.cancel();
      signal?.addEventListener('abort', cancel);
      try {
        signal?.throwIfAborted();
        if (record.closed()) throw closedError(service);
        const response = await new Promise<unknown>((resolve, reject) => {
          const opened = channel.makeClientStreamRequest(
            method.path,
            method.requestSerialize,
            method.responseDeserialize,
            record.metadata(),
            record.callOptions(),
            (error, value) => (error === null ? resolve(value) : reject(error)),
          );
          call = opened;
          pump(requests as AsyncIterable<unknown>, opened, stop.signal).catch((error: unknown) => {
            failedSource = sourceFailure(error, service);
            opened.cancel();
          });
        });
        record.succeed();
        return response;
      } catch (error) {
        throw record.fail(failedSource ?? error);
      } finally {
        stop.abort();
        signal?.removeEventListener('abort', cancel);
      }
    },
  };
}
