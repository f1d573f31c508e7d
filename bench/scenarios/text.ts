/**
 * The linear-time text tools (@cairn/text) on 1 MiB of input, in the bench process: each scenario times one tool on
 * hostile input (the "cairn" row: what made the old backtracking matchers take seconds to minutes) against the same
 * tool on ordinary input of the same size (the "baseline" row). Times are per MiB; the target is that hostile input
 * costs at most a few times what ordinary input does (backtracking made it thousands of times more).
 */
import { DEFAULT_CLOSE_KEYWORDS, DEFAULT_REOPEN_KEYWORDS } from '@cairn/config';
import { findMentionedNames, globMatcher, issueReferences, withoutCode } from '@cairn/text';
import type { Side, TimedScenario, TimedSubjects } from './types';

const MIB = 1 << 20;

/** `text` repeated and cut to exactly 1 MiB of characters. */
const mib = (text: string): string => text.repeat(Math.ceil(MIB / text.length)).slice(0, MIB);

/** Ordinary issue prose: paragraphs, code spans, a fenced block, mentions and references. */
const PROSE = mib(
  'The build fails on `main` since the last merge; @alice saw it first (see #12 and acme/app#7).\n' +
    'Steps: run `npm test` with `CI=1`, then look at the log.\n```\nError: timeout after 30 s @bob\n```\n' +
    'Fixes #34, closes #35. Thanks, @carol!\n\n',
);
/** The issue's body: backticks then letters, which a backtracking code-span pattern rescans from every backtick. */
const BACKTICKS_THEN_LETTERS = `x ${'`'.repeat(MIB / 2 - 8)}${'a'.repeat(MIB / 2 - 8)} @last #9`;

interface TextTool {
  name: string;
  description: string;
  command: string;
  /** The same tool on each side's input; what it returns is checked before timing. */
  run: Record<Side, () => unknown>;
  expected: Record<Side, (result: unknown) => boolean>;
  maxTimeRatio: number;
}

function textScenario(tool: TextTool): TimedScenario {
  return {
    kind: 'timed',
    name: tool.name,
    description: tool.description,
    command: tool.command,
    targets: { maxTimeRatio: tool.maxTimeRatio },
    prepare: async (): Promise<TimedSubjects> => ({
      run: async (side) => void tool.run[side](),
      check: async () => {
        for (const side of ['cairn', 'baseline'] as const) {
          if (!tool.expected[side](tool.run[side]())) throw new Error(`${tool.name}: unexpected result on the ${side} input`);
        }
      },
      stop: async () => {},
    }),
  };
}

const keywords = { close: DEFAULT_CLOSE_KEYWORDS, reopen: DEFAULT_REOPEN_KEYWORDS };

export const textCodeScenario = textScenario({
  name: 'text-code',
  description: 'markdown code stripping, 1 MiB: cairn = backticks then letters; baseline = issue prose',
  command: 'withoutCode(<1 MiB>)',
  run: { cairn: () => withoutCode(BACKTICKS_THEN_LETTERS), baseline: () => withoutCode(PROSE) },
  expected: {
    cairn: (result) => result === BACKTICKS_THEN_LETTERS,
    baseline: (result) => typeof result === 'string' && result.length === PROSE.length && !result.includes('npm test'),
  },
  maxTimeRatio: 4,
});

export const textMentionsScenario = textScenario({
  name: 'text-mentions',
  description: '@mentions, 1 MiB: cairn = backticks then letters; baseline = issue prose',
  command: 'findMentionedNames(<1 MiB>)',
  run: { cairn: () => findMentionedNames(BACKTICKS_THEN_LETTERS), baseline: () => findMentionedNames(PROSE) },
  expected: {
    cairn: (result) => JSON.stringify(result) === '["last"]',
    baseline: (result) => JSON.stringify(result) === '["alice","carol"]',
  },
  maxTimeRatio: 4,
});

export const textReferencesScenario = textScenario({
  name: 'text-references',
  description: 'issue references and closing keywords, 1 MiB: cairn = backticks then letters; baseline = issue prose',
  command: 'issueReferences(<1 MiB>, keywords, markdown)',
  run: { cairn: () => issueReferences(BACKTICKS_THEN_LETTERS, keywords, true), baseline: () => issueReferences(PROSE, keywords, true) },
  expected: {
    cairn: (result) => Array.isArray(result) && result.length === 1,
    // Capped at 100 references per text.
    baseline: (result) => Array.isArray(result) && result.length === 100,
  },
  maxTimeRatio: 4,
});

/** A branch name of 1 MiB: `a`s, or ordinary path segments. */
const LONG_AS = 'a'.repeat(MIB);
const LONG_PATH = `release/${mib('v1.2/hotfix-')}`;

export const textGlobsScenario = textScenario({
  name: 'text-globs',
  description: 'branch rule globs on a 1 MiB name: cairn = **a**a**a**a**a**a**a**b vs a…a; baseline = release/** vs release/…',
  command: 'globMatcher(<rule>)(<1 MiB branch>)',
  run: {
    cairn: () => globMatcher('**a**a**a**a**a**a**a**b', { plainIgnoresCase: true, invalid: 'literal' })(LONG_AS),
    baseline: () => globMatcher('release/**', { plainIgnoresCase: true, invalid: 'literal' })(LONG_PATH),
  },
  expected: { cairn: (result) => result === false, baseline: (result) => result === true },
  maxTimeRatio: 4,
});
