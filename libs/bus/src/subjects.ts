/** NATS subject filters (`*` = exactly one token, `>` = one or more trailing tokens), shared by both adapters. */

const TOKEN = /^[^\s.*>]+$/;

/** Throws unless `filter` is a valid NATS subject filter (wildcards only as whole tokens, `>` only last). */
export function assertSubjectFilter(filter: string): void {
  const tokens = filter.split('.');
  tokens.forEach((token, index) => {
    const ok = TOKEN.test(token) || token === '*' || (token === '>' && index === tokens.length - 1);
    if (!ok) throw new Error(`invalid subject filter "${filter}"`);
  });
}

/** Throws unless `subject` is a concrete (wildcard-free) subject. */
export function assertSubject(subject: string): void {
  if (!subject.split('.').every((token) => TOKEN.test(token))) throw new Error(`invalid subject "${subject}"`);
}

export function subjectMatches(filter: string, subject: string): boolean {
  const want = filter.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i += 1) {
    if (want[i] === '>') return have.length > i;
    if (i >= have.length || (want[i] !== '*' && want[i] !== have[i])) return false;
  }
  return want.length === have.length;
}

/** The same test as a PostgreSQL regular expression (`subject ~ pattern`), so filtering happens in the query. */
export function subjectFilterPattern(filter: string): string {
  const parts = filter.split('.').map((token) => {
    if (token === '*') return '[^.]+';
    if (token === '>') return '[^.]+(\\.[^.]+)*';
    return token.replace(/[\\^$.|?*+()[\]{}-]/g, (c) => `\\${c}`);
  });
  return `^${parts.join('\\.')}$`;
}

/** True when some concrete subject matches both filters (streams may not capture the same subject). */
export function subjectFiltersOverlap(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    if (i >= x.length || i >= y.length) return false;
    if (x[i] === '>' || y[i] === '>') return true;
    if (x[i] !== '*' && y[i] !== '*' && x[i] !== y[i]) return false;
  }
  return true;
}
