import { createRoot } from 'react-dom/client';
import { App } from './App';
import { AskPanel } from './AskPanel';
import { connect } from './lib/client';
import { fromPreload } from './lib/preload-bridge';
import type { KbBridge, KbPreload } from '../shared/api';
import './code-colours.css';
import './styles.css';

// In the desktop app the preload script provides window.kb; in a browser (kb serve) the WebSocket does.
const preload = (window as unknown as { kb?: KbPreload }).kb;
const kb: KbBridge = preload ? fromPreload(preload) : connect();
const root = createRoot(document.getElementById('root')!);
// The desktop app's ask panel is its own small window on the same page: #ask.
if (location.hash === '#ask') root.render(<AskPanel kb={kb} standalone onOpen={(hit) => kb.app?.showHit(hit)} />);
else root.render(<App kb={kb} />);
