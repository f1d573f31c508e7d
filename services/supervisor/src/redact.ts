/** A URL fit for a message or a log line: its password replaced by ***. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
