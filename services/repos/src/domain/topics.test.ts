import { Code } from '@cairn/rpc';
import { assertRoomForTopic, isValidTopic, normalizeTopic, singleTopic, topicsForReplacement } from './topics';

describe('topic names', () => {
  it.each(['go', 'a', '0day', 'web-app', 'v1.2', 'a'.repeat(35)])('accepts %s', (topic) => {
    expect(isValidTopic(topic)).toBe(true);
  });

  it.each(['', '-go', '.go', 'Go', 'go lang', 'go_lang', 'ä', 'a'.repeat(36)])('rejects %j', (topic) => {
    expect(isValidTopic(topic)).toBe(false);
  });

  it('trims and lower-cases', () => {
    expect(normalizeTopic('  Rust-Lang ')).toBe('rust-lang');
  });
});

describe('topicsForReplacement', () => {
  it('keeps the given order without empty names and repeats', () => {
    expect(topicsForReplacement(['Go', ' ', 'web', 'go', 'WEB '])).toEqual(['go', 'web']);
  });

  it('lists the invalid names as JSON after ": "', () => {
    expect(() => topicsForReplacement(['ok', 'not ok', '-x'])).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason: 'topics_invalid', message: 'Topic names are invalid: ["not ok","-x"]' }),
    );
  });

  it('refuses more than 25 valid topics before looking at invalid ones', () => {
    const many = Array.from({ length: 26 }, (_, i) => `t${i}`);
    expect(() => topicsForReplacement([...many, 'bad name'])).toThrow(
      expect.objectContaining({ reason: 'topics_too_many', message: 'Exceeding maximum number of topics per repo' }),
    );
    expect(topicsForReplacement(many.slice(0, 25))).toHaveLength(25);
  });
});

describe('singleTopic', () => {
  it('normalizes a valid name', () => {
    expect(singleTopic(' CI ')).toBe('ci');
  });

  it('refuses an invalid one', () => {
    expect(() => singleTopic('a b')).toThrow(expect.objectContaining({ reason: 'topic_invalid', message: 'Topic name is invalid' }));
  });
});

describe('assertRoomForTopic', () => {
  it('allows the 25th and refuses the 26th', () => {
    expect(() => assertRoomForTopic(24)).not.toThrow();
    expect(() => assertRoomForTopic(25)).toThrow(expect.objectContaining({ reason: 'topics_too_many', message: 'Exceeding maximum allowed topics per repo.' }));
  });
});
