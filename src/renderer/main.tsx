import { createRoot } from 'react-dom/client';
import { App } from './App';
import { AskPanel } from './AskPanel';
import { connect } from './lib/client';
import { fromPreload } from './lib/preload-bridge';
import type { KbBridge, KbPreload } from '../shared/api';
import './code-colours.css';
import './styles.css';

// The token that signed this page in (kb serve keeps it in an HttpOnly cookie) leaves the address at
// once: a search's address is shared and bookmarked, and sits in history and proxy logs.
const address = new URL(location.href);
if (address.searchParams.has('token')) {
  address.searchParams.delete('token');
  history.replaceState(null, '', address);
}

// In the desktop app the preload script provides window.kb; in a browser (kb serve) the WebSocket does.
const preload = (window as unknown as { kb?: KbPreload }).kb;
const kb: KbBridge = preload ? fromPreload(preload) : connect();
const root = createRoot(document.getElementById('root')!);
// The desktop app's ask panel is its own small window on the same page: #ask.
if (location.hash === '#ask') root.render(<AskPanel kb={kb} standalone onOpen={(hit) => kb.app?.showHit(hit)} />);
else root.render(<App kb={kb} />);
