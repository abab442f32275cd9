import { createRoot } from 'react-dom/client';
import { App } from './App';
import { connect } from './lib/client';
import type { KbBridge } from '../shared/api';
import './styles.css';

// In the desktop app the preload bridge provides window.kb; in a browser (kb serve) the WebSocket does.
const kb: KbBridge = (window as unknown as { kb?: KbBridge }).kb ?? connect();
createRoot(document.getElementById('root')!).render(<App kb={kb} />);
