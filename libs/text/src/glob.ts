/**
 * Gitea's globs (modules/glob, its port of gobwas/glob): `*` matches any run of characters other than the
 * separators, `?` one such character, `**` any run at all, `[abc]`/`[a-z]` a character of the class and
 * `[!abc]` one outside it, `{a,b}` either alternative, and `\` takes the next character literally. Gitea compiles
 * branch protection rule names with `/` as the separator and protected file patterns with `.` and `/`.
 *
 * Patterns and names come from requests, so a pattern is compiled to a non-deterministic automaton and run over the
 * text one character at a time, keeping the set of states reached (Thompson's simulation): O(text × pattern) at
 * worst and never backtracking, as Gitea's Go regular expressions (RE2) and gobwas/glob never do. A backtracking
 * regular expression took minutes on `**a**a**a**a**a**a**a**b` against a branch of 200 `a`s.
 */

export interface GlobOptions {
  /** The characters `*` and `?` never match; `/` unless given. */
  separators?: string;
  /** A pattern without glob characters compares case-insensitively (Gitea's branch rule names). */
  plainIgnoresCase?: boolean;
  /**
   * What a pattern that does not compile matches: its own text, literally (Gitea's rule names), or nothing
   * (Gitea skips such file patterns); `throw` refuses it with a PatternSyntaxError (Gitea's protected tags,
   * whose patterns are checked when written). Nothing unless given.
   */
  invalid?: 'literal' | 'nothing' | 'throw';
}

/** gobwas/glob's special characters: text without them is a plain name. */
const SPECIAL = new Set(['*', '?', '\\', '[', ']', '{', '}']);

export function isGlobPattern(text: string): boolean {
  return [...text].some((char) => SPECIAL.has(char));
}

/** A pattern that does not compile (the message says why). */
export class PatternSyntaxError extends Error {}

class GlobSyntaxError extends PatternSyntaxError {}

/** Go's regexp refuses more nesting than this (syntax.maxHeight), so Gitea's compile fails on such a pattern. */
const MAX_NESTING = 1000;

/** One element of a parsed glob. */
type Token =
  | { kind: 'char'; cp: number }
  | { kind: 'single' }
  | { kind: 'star' }
  | { kind: 'super' }
  | { kind: 'class'; negated: boolean; ranges: number[] }
  | { kind: 'alt'; options: Token[][] };

/** The pattern's tokens (code points, so `?` is one character even outside the BMP, as in Go). */
function parse(pattern: readonly number[]): Token[] {
  const BACKSLASH = 0x5c;
  let pos = 0;
  const escaped = (): number => {
    const next = pattern[pos];
    if (next === undefined) throw new GlobSyntaxError('nothing to escape');
    pos++;
    return next;
  };
  const chars = (): Token => {
    const negated = pattern[pos] === 0x21; // `!`
    if (negated) pos++;
    // Each member, and whether it is an unescaped `-` (a range operator between two members, else itself).
    const atoms: { cp: number; dash: boolean }[] = [];
    while (pos < pattern.length) {
      const cp = pattern[pos++];
      if (cp === 0x5d) {
        // Go's regexp refuses an empty class, so Gitea's compile fails on `[]` and `[!]`.
        if (atoms.length === 0) throw new GlobSyntaxError('empty character class');
        const ranges: number[] = [];
        for (let i = 0; i < atoms.length; ) {
          const range = atoms[i + 1]?.dash === true && i + 2 < atoms.length;
          const lo = atoms[i].cp;
          const hi = range ? atoms[i + 2].cp : lo;
          // Go's regexp refuses a reversed range (`[z-a]`): the pattern does not compile.
          if (hi < lo) throw new GlobSyntaxError('reversed range');
          ranges.push(lo, hi);
          i += range ? 3 : 1;
        }
        return { kind: 'class', negated, ranges };
      }
      atoms.push(cp === BACKSLASH ? { cp: escaped(), dash: false } : { cp, dash: cp === 0x2d });
    }
    throw new GlobSyntaxError('unterminated character class');
  };
  const sequence = (depth: number): Token[][] => {
    if (depth > MAX_NESTING) throw new GlobSyntaxError('alternatives nested too deeply');
    const inBraces = depth > 0;
    const options: Token[][] = [[]];
    while (pos < pattern.length) {
      const cp = pattern[pos++];
      const out = options[options.length - 1];
      if (inBraces && cp === 0x7d) return options; // `}`
      if (cp === 0x2a) {
        // `*`, or `**` when doubled
        if (pattern[pos] === 0x2a) {
          pos++;
          out.push({ kind: 'super' });
        } else out.push({ kind: 'star' });
      } else if (cp === 0x3f) out.push({ kind: 'single' });
      else if (cp === 0x5b) out.push(chars());
      else if (cp === 0x7b) out.push({ kind: 'alt', options: sequence(depth + 1) });
      else if (cp === 0x2c && inBraces) options.push([]);
      else if (cp === BACKSLASH) out.push({ kind: 'char', cp: escaped() });
      else out.push({ kind: 'char', cp });
    }
    if (inBraces) throw new GlobSyntaxError('unterminated alternatives');
    return options;
  };
  return sequence(0)[0];
}

// What a state does with the next character: match one code point, any non-separator, anything, a class; or
// nothing (a fork that only leads to other states, or the accepting state).
const LITERAL = 0;
const NOT_SEPARATOR = 1;
const ANY = 2;
const CLASS = 3;
const FORK = 4;
const ACCEPT = 5;

/** A set of states the automaton can be in, and where each character seen so far from it leads. */
interface StateSet {
  states: number[];
  accepting: boolean;
  after: Map<number, StateSet>;
}

/**
 * States and moves one compiled glob may cache (a few hundred kilobytes): texts that keep meeting new sets cost a
 * simulation step per character instead of a lookup, still linear.
 */
const SET_BUDGET = 16_384;

/**
 * A compiled glob: states in arrays, state 0 accepting. Matching follows the sets of states reached, caching each
 * set's move on each character (as RE2 does), so a long text usually costs one map lookup per character.
 */
class Automaton {
  private readonly kind: number[] = [];
  /** The code point of a LITERAL state, the index in `classes` of a CLASS state. */
  private readonly value: number[] = [];
  /** Where a state goes after consuming a character (itself, for `*` and `**`). */
  private readonly next: number[] = [];
  /** States reached without consuming anything. */
  private readonly forks: number[][] = [];
  private readonly classes: { negated: boolean; ranges: number[] }[] = [];
  private readonly start: number;
  private readonly mark: Int32Array;
  private generation = 0;
  /** Sets of states met so far by their sorted states, with their moves: a lazily built deterministic automaton. */
  private readonly sets = new Map<string, StateSet>();
  private initial: StateSet | undefined;
  /** What the sets may still hold (states and moves) before the cache starts again. */
  private budget = SET_BUDGET;
  /** How many times the cache started again. */
  private resets = 0;

  constructor(
    tokens: Token[],
    private readonly separators: ReadonlySet<number>,
  ) {
    this.add(ACCEPT, 0, -1, []);
    this.start = this.sequence(tokens, 0);
    this.mark = new Int32Array(this.kind.length);
  }

  private add(kind: number, value: number, next: number, forks: number[]): number {
    const state = this.kind.length;
    this.kind.push(kind);
    this.value.push(value);
    this.next.push(next === -1 ? state : next);
    this.forks.push(forks);
    return state;
  }

  /** The states of `tokens` followed by `then`, built backwards; returns the first. */
  private sequence(tokens: Token[], then: number): number {
    let state = then;
    for (let i = tokens.length - 1; i >= 0; i--) {
      const token = tokens[i];
      switch (token.kind) {
        case 'char':
          state = this.add(LITERAL, token.cp, state, []);
          break;
        case 'single':
          state = this.add(NOT_SEPARATOR, 0, state, []);
          break;
        case 'star':
          state = this.add(NOT_SEPARATOR, 0, -1, [state]);
          break;
        case 'super':
          state = this.add(ANY, 0, -1, [state]);
          break;
        case 'class':
          this.classes.push(token);
          state = this.add(CLASS, this.classes.length - 1, state, []);
          break;
        case 'alt': {
          const after = state;
          state = this.add(
            FORK,
            0,
            after,
            token.options.map((option) => this.sequence(option, after)),
          );
          break;
        }
      }
    }
    return state;
  }

  /** A new mark for "added in this step", wrapping before the marks' 32 bits would (a cached glob lives long). */
  private nextGeneration(): void {
    this.generation++;
    if (this.generation === 0x7fffffff) {
      this.mark.fill(0);
      this.generation = 1;
    }
  }

  /** Adds `state` and every state it forks to (those that consume a character, or accept) to `into`, once each. */
  private reach(state: number, into: number[], stack: number[]): void {
    if (this.forks[state].length === 0) {
      // Most states fork nowhere: no stack needed.
      if (this.mark[state] !== this.generation) {
        this.mark[state] = this.generation;
        into.push(state);
      }
      return;
    }
    stack.push(state);
    while (stack.length > 0) {
      const at = stack.pop() as number;
      if (this.mark[at] === this.generation) continue;
      this.mark[at] = this.generation;
      if (this.kind[at] !== FORK) into.push(at);
      for (const fork of this.forks[at]) stack.push(fork);
    }
  }

  private inClass(index: number, cp: number): boolean {
    const { negated, ranges } = this.classes[index];
    let found = false;
    for (let i = 0; i < ranges.length && !found; i += 2) found = cp >= ranges[i] && cp <= ranges[i + 1];
    return found !== negated;
  }

  /** The states reached from `from` by consuming `cp`, with what they fork to. */
  private step(from: readonly number[], cp: number): number[] {
    const separator = this.separators.has(cp);
    const stack: number[] = [];
    const reached: number[] = [];
    this.nextGeneration();
    for (const state of from) {
      const kind = this.kind[state];
      const moves =
        kind === LITERAL
          ? this.value[state] === cp
          : kind === NOT_SEPARATOR
            ? !separator
            : kind === ANY || (kind === CLASS && this.inClass(this.value[state], cp));
      if (moves) this.reach(this.next[state], reached, stack);
    }
    return reached;
  }

  /** The cached set of states equal to `states`, made when new; the cache starts again once over its budget. */
  private intern(states: number[]): StateSet {
    states.sort((a, b) => a - b);
    const key = states.join(',');
    const known = this.sets.get(key);
    if (known !== undefined) return known;
    this.budget -= states.length + 1;
    if (this.budget < 0) {
      this.sets.clear();
      this.budget = SET_BUDGET - states.length - 1;
      this.initial = undefined;
      this.resets++;
    }
    const made: StateSet = { states, accepting: states.includes(0), after: new Map() };
    this.sets.set(key, made);
    return made;
  }

  matches(text: string): boolean {
    if (this.initial === undefined) {
      this.nextGeneration();
      const states: number[] = [];
      this.reach(this.start, states, []);
      this.initial = this.intern(states);
    }
    const resets = this.resets;
    let current = this.initial;
    // Once the cache starts again during this text, its sets do not repeat enough to be worth keeping: the rest is
    // simulated without it (RE2 falls back the same way).
    let simulated: number[] | undefined;
    for (let i = 0; i < text.length && (simulated ?? current.states).length > 0; ) {
      let cp = text.charCodeAt(i++);
      if (cp >= 0xd800 && cp < 0xdc00 && i < text.length) {
        const low = text.charCodeAt(i);
        if (low >= 0xdc00 && low < 0xe000) {
          cp = ((cp - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          i++;
        }
      }
      if (simulated !== undefined) {
        simulated = this.step(simulated, cp);
        continue;
      }
      let next = current.after.get(cp);
      if (next === undefined) {
        next = this.intern(this.step(current.states, cp));
        this.budget--;
        current.after.set(cp, next);
        if (this.resets !== resets) simulated = next.states;
      }
      current = next;
    }
    return simulated === undefined ? current.accepting : simulated.includes(0);
  }
}

function compile(pattern: string, options: GlobOptions): (text: string) => boolean {
  if (options.plainIgnoresCase === true && !isGlobPattern(pattern)) {
    const lower = pattern.toLowerCase();
    return (text) => text.toLowerCase() === lower;
  }
  const codePoints = (text: string) => [...text].map((char) => char.codePointAt(0) as number);
  let automaton: Automaton;
  try {
    automaton = new Automaton(parse(codePoints(pattern)), new Set(codePoints(options.separators ?? '/')));
  } catch (error) {
    if (!(error instanceof GlobSyntaxError) || options.invalid === 'throw') throw error;
    return options.invalid === 'literal' ? (text) => text === pattern : () => false;
  }
  return (text) => automaton.matches(text);
}

/** Compiled patterns; they come from requests, so the cache is emptied when full rather than left to grow. */
const cache = new Map<string, (text: string) => boolean>();
const CACHE_LIMIT = 1000;

/** A predicate telling whether a text matches `pattern` as a whole. */
export function globMatcher(pattern: string, options: GlobOptions = {}): (text: string) => boolean {
  const key = JSON.stringify([options.separators ?? '/', options.plainIgnoresCase === true, options.invalid ?? 'nothing', pattern]);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const matcher = compile(pattern, options);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, matcher);
  return matcher;
}
