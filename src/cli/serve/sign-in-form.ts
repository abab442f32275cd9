// POST /sign-in, what the sign-in page's form sends: only from kb's own page (another site's page must
// not sign a visitor in, or try tokens from their browser), the token checked as any request's is —
// counted by the same failure limit — then kept in the session cookie.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TOKEN_FIELD, TOO_MANY, UNKNOWN_TOKEN, sendPage, signInPage, switchPage } from './sign-in-page.js';
import { type Gate, PENDING_CLEARED, pendingTokenOf, sessionCookie } from './sign-in.js';

export async function signInForm(
  req: IncomingMessage,
  res: ServerResponse,
  host: { gate: Gate; originOk: (req: IncomingMessage) => boolean; secure: boolean },
): Promise<void> {
  // A linked token the host set aside (host.ts): whose it is, asked, before anything is signed in.
  if (req.method === 'GET') {
    const pending = pendingTokenOf(req);
    if (!pending) return sendPage(res, 200, signInPage());
    const signed = await host.gate.signIn(req, new URL('/', 'http://x'), null, false, pending);
    if ('refused' in signed) {
      res.setHeader('set-cookie', PENDING_CLEARED);
      return sendPage(res, signed.refused === 'limited' ? 429 : 401, signInPage(signed.refused === 'limited' ? TOO_MANY : UNKNOWN_TOKEN));
    }
    return sendPage(res, 200, switchPage(signed.session.user, pending));
  }
  if (req.method !== 'POST' || !host.originOk(req)) {
    res.writeHead(403, { 'content-type': 'text/plain' }).end("sign in from kb's own page\n");
    return;
  }
  let body = '';
  for await (const part of req) {
    body += String(part);
    if (body.length > 8192) return sendPage(res, 413, signInPage('That is far longer than a token.'));
  }
  const given = new URLSearchParams(body).get(TOKEN_FIELD)?.trim() ?? '';
  const signed = await host.gate.signIn(req, new URL('/', 'http://x'), null, false, given);
  if ('refused' in signed) {
    const limited = signed.refused === 'limited';
    return sendPage(res, limited ? 429 : 401, signInPage(limited ? TOO_MANY : UNKNOWN_TOKEN));
  }
  res.writeHead(303, { location: '/', 'set-cookie': [sessionCookie(signed.session.token ?? '', host.secure), PENDING_CLEARED] }).end();
}
