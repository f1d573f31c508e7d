import { GO_ZERO_TIME, goJson, goTime } from './json';

describe('goJson', () => {
  it('escapes like encoding/json and ends with a newline', () => {
    expect(goJson({ message: '<a href="x">&</a>\u2028' })).toBe(
      '{"message":"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e\\u2028"}\n',
    );
    expect(JSON.parse(goJson({ message: '<&>' }))).toEqual({ message: '<&>' });
  });
});

describe('goTime', () => {
  it('writes RFC 3339 to the second in UTC', () => {
    expect(goTime(new Date('2024-05-01T10:20:30.456Z'))).toBe('2024-05-01T10:20:30Z');
  });
  it("writes Go's zero time for no time", () => {
    expect(goTime(undefined)).toBe(GO_ZERO_TIME);
    expect(GO_ZERO_TIME).toBe('0001-01-01T00:00:00Z');
    expect(goTime(new Date(Number.NaN))).toBe(GO_ZERO_TIME);
  });
});
