// Whether the person at this page may run the server's admin work (its checks, its folders): the
// machine's owner and a team's admins; a team's reader or editor is not shown what they cannot do.
import { useEffect, useState } from 'react';
import type { KbBridge } from '../../shared/api';

/** null until the server has said. */
export function useAdmin(kb: KbBridge): boolean | null {
  const [admin, setAdmin] = useState<boolean | null>(null);
  useEffect(() => {
    kb.whoami({}).then(
      (w) => setAdmin(w.role === 'admin'),
      () => setAdmin(true),
    );
  }, [kb]);
  return admin;
}
