// `gbatch ui` as a child process on a free port, and what a test reads of its pages: the figures a page
// states (data-path/data-value, data-field/data-value), a form's token, a session cookie.
import { startCli, type CliOptions, type RunningCli } from './cli.js';

export const UI_TOKEN = 'tok-ui-alice-5d1e';
/** A named entry (alice:...) is known by its name; a bare one by its digest prefix. */
export const UI_TOKEN_B = 'tok-ui-bob-90aa-7c2e';

export interface UiChild {
  /** http://127.0.0.1:PORT/ */
  url: string;
  cli: RunningCli;
  stop(): Promise<void>;
}

export async function startUiChild(args: readonly string[], options: CliOptions = {}): Promise<UiChild> {
  const cli = startCli(['ui', '--port', '0', ...args], {
    ...options,
    // Every scrape of /metrics reads the journals afresh (a dear read is otherwise reused for a while).
    env: {
      GBATCH_UI_TOKENS: `alice:${UI_TOKEN},${UI_TOKEN_B}`,
      GBATCH_METRICS_DEAR_READ_MS: String(3_600_000),
      ...options.env,
    },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    cli.child.stdout!.on('data', (d: Buffer | string) => {
      stdout += String(d);
      const match = /gbatch ui listening on (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void cli.result.then((r) => reject(new Error(`gbatch ui exited (${r.code}) before listening: ${r.stderr}`)));
  });
  return {
    url,
    cli,
    async stop() {
      cli.child.kill('SIGTERM');
      await cli.result;
    },
  };
}

export const bearer = (token = UI_TOKEN): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** A page's text as written before HTML escaping. */
export const unescape = (text: string): string =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Every figure a page states with its place in `report --format json`: [path, value]. */
export function pageFigures(html: string): Array<[Array<string | number>, unknown]> {
  return [...html.matchAll(/data-path="([^"]*)" data-value="([^"]*)"/g)].map((m) => [
    JSON.parse(unescape(m[1]!)) as Array<string | number>,
    JSON.parse(unescape(m[2]!)),
  ]);
}

/** The jobs list's figures of one job: field -> value. */
export function jobRowFigures(html: string, key: string): Record<string, string> {
  const row = new RegExp(`<tr data-job="${key}">([\\s\\S]*?)</tr>`).exec(html)?.[1];
  if (row === undefined) throw new Error(`no row for job ${key} in the jobs list`);
  const figures: Record<string, string> = {};
  for (const m of row.matchAll(/data-field="([^"]+)"(?: data-kind="([^"]*)")?(?: data-value="([^"]*)")?>([^<]*)</g))
    figures[m[1]!] = m[3] ?? m[2] ?? unescape(m[4]!);
  return figures;
}

export function csrfOf(html: string): string {
  const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no form token on the page');
  return token;
}

export function sessionCookie(res: Response): string {
  const cookie = /gbatch_ui_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error('no session cookie was set');
  return cookie;
}

/** The value at `path` in the report JSON; items are addressed by id. */
export function reportValue(report: Record<string, unknown>, path: ReadonlyArray<string | number>): unknown {
  let at: unknown = report;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (i === 1 && path[0] === 'items') at = (at as Array<Record<string, unknown>>).find((item) => item.id === key);
    else at = (at as Record<string, unknown> | undefined)?.[key as string];
  }
  return at;
}
