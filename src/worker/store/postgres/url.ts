// A store URL as kb reads and shows it, apart from the client so a command can name the store without
// loading the PostgreSQL driver.
/** The URL as it may be shown: the password, if any, left out. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unreadable PostgreSQL URL)';
  }
}

/** Whether a store setting names PostgreSQL rather than a data dir. */
export function isPostgresUrl(s: string): boolean {
  return /^postgres(ql)?:\/\//i.test(s);
}
