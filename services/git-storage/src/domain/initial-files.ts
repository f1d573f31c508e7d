/**
 * The files of an auto-initialised repository's first commit, as Gitea writes them (modules/repository/init.go
 * and license.go): README.md from the README template with `{Name}`/`{Description}` filled in, .gitignore as
 * the named templates one after another under `# ---> <name>` headers, LICENSE with its placeholders filled.
 */

export interface InitialFile {
  path: string;
  content: Buffer;
}

/** Gitea's "Default" README template (options/readme/Default). */
export const DEFAULT_README = '# {Name}\n\n{Description}\n';

export interface ReadmeValues {
  name: string;
  description: string;
}

export function renderReadme(template: string, values: ReadmeValues): string {
  return template.replaceAll('{Name}', values.name).replaceAll('{Description}', values.description);
}

/** The .gitignore of several templates, in the order named. */
export function combineGitignores(templates: readonly { name: string; text: string }[]): string {
  return templates.map(({ name, text }) => `# ---> ${name}\n${text}\n`).join('');
}

export interface LicenseValues {
  owner: string;
  email: string;
  repo: string;
  year: string;
}

/** The placeholders licence texts use for each value (Gitea's universal list plus the SPDX texts' own). */
const LICENSE_PLACEHOLDERS: Readonly<Record<keyof LicenseValues, readonly string[]>> = {
  owner: [
    '<name of author>',
    '<owner>',
    '[NAME]',
    '[name of copyright owner]',
    '[fullname]',
    '<copyright holders>',
    '<copyright holder>',
    '<COPYRIGHT HOLDER>',
  ],
  email: ['[EMAIL]'],
  repo: ['<program>', "<one line to give the program's name and a brief idea of what it does.>"],
  year: ['<year>', '[YEAR]', '{YEAR}', '[yyyy]', '[Year]', '[year]'],
};

export function fillLicense(text: string, values: LicenseValues): string {
  let filled = text;
  for (const key of Object.keys(LICENSE_PLACEHOLDERS) as (keyof LicenseValues)[]) {
    for (const placeholder of LICENSE_PLACEHOLDERS[key]) filled = filled.replaceAll(placeholder, values[key]);
  }
  return filled.endsWith('\n') ? filled : `${filled}\n`;
}

/** Comma-separated template names (`"Node, Go"`) → names, blanks dropped. */
export function splitTemplateNames(list: string): string[] {
  return list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}
