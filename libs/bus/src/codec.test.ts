import { UserCreated } from '@cairn/proto/cairn/accounts/v1/events';
import { decodeEvent, encodeEvent } from './codec';

describe('encodeEvent / decodeEvent', () => {
  const event: UserCreated = {
    meta: { eventId: '0190d3b4-7c2a-7e4f-9a1b-3c4d5e6f7a8b', occurredAt: new Date('2024-07-01T12:34:56.789Z'), actorId: 1, repoId: 0 },
    user: UserCreated.fromJSON({ user: { id: 7, login: 'alice', email: 'alice@example.com', created: '2024-07-01T12:34:56Z' } }).user,
  };

  it('writes the proto3 JSON mapping as UTF-8 bytes', () => {
    const json = JSON.parse(Buffer.from(encodeEvent(UserCreated, event)).toString('utf8'));
    expect(json.meta).toEqual({ eventId: '0190d3b4-7c2a-7e4f-9a1b-3c4d5e6f7a8b', occurredAt: '2024-07-01T12:34:56.789Z', actorId: 1 });
    expect(json.user).toMatchObject({ id: 7, login: 'alice', email: 'alice@example.com', created: '2024-07-01T12:34:56.000Z' });
  });

  it('round-trips a message', () => {
    expect(decodeEvent(UserCreated, encodeEvent(UserCreated, event))).toEqual(event);
  });

  it('rejects bytes that are not JSON', () => {
    expect(() => decodeEvent(UserCreated, new Uint8Array([0xff, 0xfe]))).toThrow();
    expect(() => decodeEvent(UserCreated, Buffer.from('{not json'))).toThrow();
  });
});
