/**
 * A guarded TCP connection for protocols other than HTTP (the mailer's SMTP): the same check as `outboundRequest`,
 * on the address actually connected to — inside the connection's own lookup, or up front for an address literal.
 */
import * as net from 'node:net';
import { type OutboundPolicy, OutboundRefusedError, type Resolver, guardedLookup, isAllowed } from './guard';
import { canonicalAddress } from './ip-classes';

export interface OutboundConnectOptions {
  host: string;
  port: number;
  /** Until the connection is established. */
  timeoutMs: number;
  resolver?: Resolver;
}

/** Connects to `host:port` if `policy` allows the address it resolves to; rejects with OutboundRefusedError if not. */
export function outboundConnect(policy: OutboundPolicy, options: OutboundConnectOptions): Promise<net.Socket> {
  const host = options.host.replace(/^\[(.*)\]$/, '$1');
  const literal = canonicalAddress(host);
  if (literal !== undefined && !isAllowed(policy, host, literal.address)) {
    return Promise.reject(new OutboundRefusedError(host, literal.address, policy));
  }
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port: options.port, lookup: guardedLookup(policy, host, options.resolver) });
    const timer = setTimeout(() => socket.destroy(new Error(`${policy.usage}: connecting to ${host}:${options.port} timed out`)), options.timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', reject);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
