/**
 * Bytes per language of a tree's files, as Gitea's modules/git/languagestats (GetLanguageStats): each file's
 * language from its name or extension (go-enry there, GitHub linguist's data here: npm `linguist-languages`),
 * leaving out vendored, dot, documentation, configuration and generated files, and counting only programming and
 * markup languages — unless nothing else is left, when the first other language met counts, as Gitea does.
 * Content-based disambiguation and `linguist-*` gitattributes overrides are not applied: an ambiguous extension
 * goes to the common language (PREFERRED), else to the language that lists it first, then to a programming
 * language, then by name.
 */
// linguist-languages 9 is ESM-only, which neither this CommonJS build nor jest can load: 8.2 has the same data as CJS.
import linguist from 'linguist-languages';

export interface TreeFile {
  /** Path from the repository root. */
  path: string;
  /** Bytes. */
  size: number;
}

interface Language {
  name: string;
  type: string;
}

const TYPE_RANK: Readonly<Record<string, number>> = { programming: 0, markup: 1, data: 2, prose: 3 };

/**
 * Extensions several languages claim as their first, where linguist's content heuristics would almost always pick
 * the common one (`.rs` is Rust far more often than RenderScript, `.md` Markdown rather than GCC machine
 * descriptions).
 */
const PREFERRED: Readonly<Record<string, string>> = {
  '.as': 'ActionScript',
  '.asm': 'Assembly',
  '.cl': 'OpenCL',
  '.d': 'D',
  '.f': 'Fortran',
  '.fs': 'F#',
  '.html': 'HTML',
  '.json': 'JSON',
  '.m': 'Objective-C',
  '.md': 'Markdown',
  '.ml': 'OCaml',
  '.pl': 'Perl',
  '.pro': 'QMake',
  '.r': 'R',
  '.rs': 'Rust',
  '.sql': 'SQL',
  '.txt': 'Text',
  '.v': 'Verilog',
  '.yaml': 'YAML',
};

interface Index {
  byFilename: ReadonlyMap<string, Language>;
  byExtension: ReadonlyMap<string, Language>;
}

/** Which candidate wins an extension several languages list. */
function better(candidate: { language: Language; primary: boolean }, current: { language: Language; primary: boolean }): boolean {
  if (candidate.primary !== current.primary) return candidate.primary;
  const rank = (TYPE_RANK[candidate.language.type] ?? 9) - (TYPE_RANK[current.language.type] ?? 9);
  if (rank !== 0) return rank < 0;
  return candidate.language.name < current.language.name;
}

let index: Index | undefined;

/** File name and extension (lower case, with its dot) → language, built once. */
function languageIndex(): Index {
  if (index !== undefined) return index;
  const byFilename = new Map<string, Language>();
  const extensions = new Map<string, { language: Language; primary: boolean }>();
  for (const data of Object.values(linguist)) {
    const language: Language = { name: data.name, type: data.type };
    for (const filename of data.filenames ?? []) if (!byFilename.has(filename)) byFilename.set(filename, language);
    (data.extensions ?? []).forEach((extension, position) => {
      const candidate = { language, primary: position === 0 };
      const key = extension.toLowerCase();
      const current = extensions.get(key);
      if (PREFERRED[key] !== undefined && current?.language.name === PREFERRED[key]) return;
      if (current === undefined || PREFERRED[key] === language.name || better(candidate, current)) extensions.set(key, candidate);
    });
  }
  index = { byFilename, byExtension: new Map([...extensions].map(([key, value]) => [key, value.language])) };
  return index;
}

/** The file's language by its exact name, else by its longest known extension (`.d.ts` before `.ts`). */
export function languageOf(path: string): Language | undefined {
  const { byFilename, byExtension } = languageIndex();
  const name = path.slice(path.lastIndexOf('/') + 1);
  const exact = byFilename.get(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  for (let dot = lower.indexOf('.', 1); dot > 0; dot = lower.indexOf('.', dot + 1)) {
    const found = byExtension.get(lower.slice(dot));
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Path rules of go-enry (data/vendor.go, documentation.go, generated paths) that Gitea applies, in the common
 * cases: dependency and build-output directories, minified and generated files, documentation directories and
 * files. Each is anchored and free of nested quantifiers (linear).
 */
const VENDORED = [
  /(?:^|\/)(?:node_modules|bower_components|vendors?|third[-_]?party|3rdparty|deps|Godeps|Pods|Carthage|dist|external|extern)\//i,
  /(?:^|\/)(?:jquery|bootstrap)[^/]*\.(?:js|css)$/i,
  /(?:^|\/)gradlew(?:\.bat)?$|(?:^|\/)mvnw(?:\.cmd)?$/,
];
const GENERATED = [
  /[.-]min\.(?:js|css)$/i,
  /\.(?:map|pb\.go|pb\.cc|pb\.h|designer\.cs|g\.dart|freezed\.dart)$/i,
  /_pb2(?:_grpc)?\.py$/,
  /(?:^|\/)(?:package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|go\.sum|composer\.lock|Gemfile\.lock|poetry\.lock)$/,
];
const DOCUMENTATION = [
  /^(?:docs?|documentation|man|examples?|demos?|samples?)\//i,
  /(?:^|\/)(?:documentation|javadoc|groovydoc)\//i,
  /(?:^|\/)(?:changes|changelog|contributing|copying|install|licen[cs]e|readme|authors|notice)(?:\.[^/]*)?$/i,
];
/** go-enry IsConfiguration: configuration formats by extension (all of them data languages anyway). */
const CONFIGURATION = /\.(?:ini|json|toml|xml|ya?ml|cfg|conf|properties)$/i;

/** Gitea skips the file before looking at its language. */
export function isExcludedPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return (
    // Dot files and whatever lies in dot directories (.github, .vscode): tooling, not the project's code.
    path.startsWith('.') ||
    path.includes('/.') ||
    CONFIGURATION.test(name) ||
    VENDORED.some((rule) => rule.test(path)) ||
    GENERATED.some((rule) => rule.test(path)) ||
    DOCUMENTATION.some((rule) => rule.test(path))
  );
}

/** Bytes per language over `files` (every blob of the tree). */
export function languageStats(files: Iterable<TreeFile>): Map<string, number> {
  const sizes = new Map<string, number>();
  let firstOther: { name: string; size: number } | undefined;
  for (const file of files) {
    if (file.size <= 0 || isExcludedPath(file.path)) continue;
    const language = languageOf(file.path);
    if (language === undefined) continue;
    if (language.type !== 'programming' && language.type !== 'markup') {
      if (firstOther === undefined) firstOther = { name: language.name, size: 0 };
      if (firstOther.name === language.name) firstOther.size += file.size;
      continue;
    }
    sizes.set(language.name, (sizes.get(language.name) ?? 0) + file.size);
  }
  // Gitea: "if there are no included languages add the first excluded language".
  if (sizes.size === 0 && firstOther !== undefined) sizes.set(firstOther.name, firstOther.size);
  return sizes;
}
