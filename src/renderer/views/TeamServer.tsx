// Settings → Team server: connect this app to a team's kb server (its address and your token, from
// its admin). Once connected, searches look in this computer's index and the server's together (each
// server hit says so), and the Library, Ask and Folders show the server's — what your account there
// may read. The token is kept in this computer's data folder only.
import { useEffect, useState } from 'react';
import type { KbBridge, ServerLink } from '../../shared/api';

export function TeamServer({ kb, onChanged }: { kb: KbBridge; onChanged: () => void }) {
  const [link, setLink] = useState<ServerLink | null>(null);
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    kb['server.status']({}).then(
      (l) => live && setLink(l),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [kb]);

  const act = async (what: () => Promise<ServerLink>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      setLink(await what());
      setToken('');
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="team-server" data-testid="team-server">
      <h3>Team server</h3>
      {link?.url ? (
        <>
          <p className={link.connected ? 'note' : 'warn'} role="status" data-connected={link.connected}>
            {link.connected ? (
              <>
                Connected to <code>{link.url}</code> as <strong>{link.user ?? 'its owner'}</strong> ({link.role}). Searches look in this
                computer’s index and the server’s; the Library, Ask and Folders show the server’s.
              </>
            ) : (
              <>
                <code>{link.url}</code> cannot be reached: {link.error}
              </>
            )}
          </p>
          <button disabled={busy} onClick={() => void act(() => kb['server.disconnect']({}))}>
            Disconnect
          </button>
        </>
      ) : (
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => kb['server.connect']({ url, token }));
          }}
        >
          <p className="hint">
            Use your team’s knowledge base beside your own: its address, and the token its admin gave you (kb users add).
          </p>
          <label>
            Server address
            <input type="url" placeholder="https://kb.example.com" value={url} onChange={(e) => setUrl(e.target.value)} required />
          </label>
          <label>
            Your token
            <input
              type="password"
              autoComplete="off"
              placeholder="kb_…"
              value={token}
              onChange={(e) => setToken(e.target.value)}
              required
            />
          </label>
          <button type="submit" disabled={busy || !url || !token}>
            {busy ? 'Connecting…' : 'Connect'}
          </button>
        </form>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
