// A database URL as it may be shown: never with its password (like the API key, it stays out of every
// line, file and journal row).
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL the parser takes: hide whatever sits between "//user:" and "@".
    return url.replace(/(\/\/[^/:@]*:)[^@/]*@/, '$1***@');
  }
}
