import { isUuid, uuidv7 } from './uuidv7';

describe('uuidv7', () => {
  it('has the RFC 9562 version 7 layout with the current Unix milliseconds', () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    // A counter overflow may borrow the next millisecond.
    expect(ms).toBeLessThanOrEqual(after + 1);
  });

  it('is unique and sorts in creation order, also within one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => uuidv7());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('recognises UUIDs', () => {
    expect(isUuid(uuidv7())).toBe(true);
    expect(isUuid('0190d3b4-7c2a-7e4f-9a1b-3c4d5e6f7a8b')).toBe(true);
    expect(isUuid('not-a-uuid')).toBe(false);
    expect(isUuid('0190d3b47c2a7e4f9a1b3c4d5e6f7a8b')).toBe(false);
  });
});
