/**
 * Which licence a licence file holds (Gitea 1.22+ services/repository/license.go `detectLicense`, which runs
 * google/licenseclassifier over the licence texts Gitea ships). Cairn compares the file's words with the words of
 * each licence template it ships for repository creation (templates/catalog.ts), the way licensee (GitHub's
 * detector) does: the Sørensen–Dice coefficient of the two word sets, the templates' placeholders left out, so a
 * filled-in year and copyright holder cost a little and nothing else does. Time is linear in the file and the
 * templates; no regular expression runs over user text with backtracking.
 */

/** A licence template: its SPDX id and text. */
export interface LicenseTemplate {
  id: string;
  text: string;
}

/** A template prepared for matching: its distinct words. */
export interface PreparedLicense {
  id: string;
  words: ReadonlySet<string>;
}

/**
 * The least similarity counted as a match. licensee uses 98 % on its curated texts; SPDX templates carry more
 * optional text (titles, "END OF TERMS" trailers, appendices a project may drop), so a little more slack.
 */
export const MIN_SIMILARITY = 0.9;

/** Placeholders of the SPDX texts (and Gitea's), in their lower-case word form: left out of templates. */
const PLACEHOLDER = /<[^<>\n]{1,80}>|\[[^[\]\n]{1,80}\]|\{[^{}\n]{1,80}\}/g;

/** The distinct lower-case words (letters and digits) of a text. */
export function licenseWords(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

export function prepareLicense(template: LicenseTemplate): PreparedLicense {
  return { id: template.id, words: licenseWords(template.text.replace(PLACEHOLDER, ' ')) };
}

/** 2·|A∩B| / (|A|+|B|). */
function similarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const word of small) if (large.has(word)) common++;
  return (2 * common) / (a.size + b.size);
}

/**
 * The licence `text` holds, or undefined when no template is similar enough. Templates with the same words
 * (SPDX keeps twins such as GPL-3.0 / GPL-3.0-only / GPL-3.0-or-later, whose texts are identical) answer one id
 * of the group, so one file gives one licence, as Gitea's licence aliases do: the `-only` one (the text alone
 * grants no "or later"), else the shortest (MPL-2.0 over MPL-2.0-no-copyleft-exception).
 */
export function matchLicense(text: string, templates: readonly PreparedLicense[]): string | undefined {
  const words = licenseWords(text);
  if (words.size === 0) return undefined;
  let best: { id: string; score: number } | undefined;
  for (const template of templates) {
    // Dice can reach at most 2·min/(sum): skip templates whose size alone rules them out.
    const bound = (2 * Math.min(words.size, template.words.size)) / (words.size + template.words.size);
    if (bound < MIN_SIMILARITY || (best !== undefined && bound < best.score)) continue;
    const score = similarity(words, template.words);
    if (score < MIN_SIMILARITY) continue;
    if (best === undefined || score > best.score || (score === best.score && preferredId(template.id, best.id))) {
      best = { id: template.id, score };
    }
  }
  return best?.id;
}

/** Whether `a` names a group of identical texts better than `b`. */
function preferredId(a: string, b: string): boolean {
  const onlyA = a.endsWith('-only');
  const onlyB = b.endsWith('-only');
  if (onlyA !== onlyB) return onlyA;
  return a.length < b.length || (a.length === b.length && a < b);
}

/**
 * Gitea's `IsLicenseFile` (modules/repository/license.go): a root file named licence, license, copying or
 * copyright (any case), bare, with a text extension, or with a suffix naming the licence (`LICENSE-MIT`).
 */
const LICENSE_FILE = /^(?:licen[cs]e|copying|copyright)(?:[-_.][\w.-]{1,64})?$/i;
const NOT_TEXT = /\.(?:go|js|ts|py|rb|java|c|h|cpp|rs|sh|json|ya?ml|toml|xml|html?)$/i;

export function isLicenseFile(name: string): boolean {
  return LICENSE_FILE.test(name) && !NOT_TEXT.test(name);
}
