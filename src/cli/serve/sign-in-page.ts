// The page a browser sees before it has signed in: a field for the token (a team's user has one from
// `kb users add` or `kb users token`; the owner has the URL kb serve printed), posted to /sign-in from
// this page only. No script and nothing from elsewhere: its own CSP says so.

import type { ServerResponse } from 'node:http';

/** The form's one field and the route it posts to, written once for the page and the host. */
export const SIGN_IN_PATH = '/sign-in';
export const TOKEN_FIELD = 'token';

export const SIGN_IN_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A sign-in page: one form posting to /sign-in, in the one frame and style both pages share. */
function page(form: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · kb</title>
<style>
  :root { color-scheme: light dark; font: 15px/1.5 system-ui, sans-serif; }
  body { display: grid; place-items: center; min-height: 90vh; margin: 0; }
  form { width: min(28rem, 90vw); display: grid; gap: .75rem; }
  h1 { font-size: 1.3rem; margin: 0; }
  input { font: inherit; padding: .45rem .6rem; }
  button, a { font: inherit; padding: .45rem; text-align: center; }
  button { cursor: pointer; }
  .problem { color: #c62828; margin: 0; }
  @media (prefers-color-scheme: dark) { .problem { color: #ff8a80; } }
  p { margin: 0; }
  code { font-size: .9em; }
</style></head>
<body><form method="post" action="${SIGN_IN_PATH}">
${form}
</form></body></html>
`;
}

/** The sign-in page, with what went wrong the last time (an unknown token, too many tries). */
export function signInPage(problem: string | null = null): string {
  return page(`  <h1>Sign in to kb</h1>
  <p>Paste your token. On your own computer, the address <code>kb serve</code> printed holds it (so does the file <code>serve-token</code> in kb's data folder). On a team's server, an admin gives you one (<code>kb users add</code>, <code>kb users token</code>).</p>
  <label for="token">Token</label>
  <input id="token" name="${TOKEN_FIELD}" type="password" autocomplete="current-password" required autofocus spellcheck="false">
  ${problem ? `<p class="problem" role="alert">${escape(problem)}</p>` : ''}
  <button type="submit">Sign in</button>`);
}

/**
 * A link carrying a token, followed from another site or while someone else is signed in here: it
 * could be anyone's token (a link made to sign you in as its sender, whose collections would then get
 * your drops), so it asks.
 */
export function switchPage(as: string | null, token: string): string {
  const who = as === null ? "this kb's owner" : escape(as);
  return page(`  <h1>Sign in as ${who}?</h1>
  <p>The link you followed signs this browser in to kb as <strong>${who}</strong>. Only go on if you meant to: whatever you add from now on goes where ${who} may add it.</p>
  <input type="hidden" name="${TOKEN_FIELD}" value="${escape(token)}">
  <button type="submit">Sign in as ${who}</button>
  <a href="/">No, stay as I am</a>`);
}

export const UNKNOWN_TOKEN = 'kb does not know that token: check it, or ask an admin for a new one (kb users token NAME).';
export const TOO_MANY = 'Too many failed sign-ins from this address: wait ten minutes.';
export const SIGNED_OUT_TEXT =
  'You were signed out: your account was removed, or its token replaced. Sign in with the token an admin gives you.';

/** Sends one of these pages: no script, nothing from elsewhere, the form's Origin kept (not `null`) for /sign-in. */
export function sendPage(res: ServerResponse, status: number, html: string): void {
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': SIGN_IN_CSP,
      'x-content-type-options': 'nosniff',
      // no-referrer would make the browser post the form with `Origin: null`, which /sign-in refuses.
      'referrer-policy': 'same-origin',
      'cache-control': 'no-store',
      ...(status === 429 ? { 'retry-after': '600' } : {}),
    })
    .end(html);
}
