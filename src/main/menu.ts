// The application menu, as a plain template (Electron's Menu.buildFromTemplate takes it), so what it
// offers is testable without Electron.
export interface MenuActions {
  addFiles(): void;
  addFolder(): void;
  preferences(): void;
  toggleAsk(): void;
  help(): void;
  /** Only where the installer could not put `kb` on PATH (kb-command.ts): a dragged macOS app, an AppImage. */
  installCommand?: () => void;
}

type Role =
  | 'about'
  | 'quit'
  | 'close'
  | 'undo'
  | 'redo'
  | 'cut'
  | 'copy'
  | 'paste'
  | 'selectAll'
  | 'resetZoom'
  | 'zoomIn'
  | 'zoomOut'
  | 'togglefullscreen';

export interface MenuItemTemplate {
  /** For tests and automation: Menu.getMenuItemById(id). */
  id?: string;
  label?: string;
  role?: Role;
  accelerator?: string;
  type?: 'separator';
  click?: () => void;
  submenu?: MenuItemTemplate[];
}

export function appMenuTemplate(actions: MenuActions, platform: string): MenuItemTemplate[] {
  const mac = platform === 'darwin';
  const sep: MenuItemTemplate = { type: 'separator' };
  const role = (r: Role): MenuItemTemplate => ({ role: r });
  const command: MenuItemTemplate[] = actions.installCommand
    ? [{ id: 'install-command', label: 'Install the kb Command…', click: actions.installCommand }]
    : [];
  return [
    ...(mac
      ? [
          {
            label: 'kb',
            submenu: [
              role('about'),
              sep,
              { label: 'Preferences…', accelerator: 'Cmd+,', click: actions.preferences },
              ...command,
              sep,
              role('quit'),
            ],
          },
        ]
      : []),
    {
      label: 'File',
      submenu: [
        { id: 'add-files', label: 'Add Files…', accelerator: 'CmdOrCtrl+O', click: actions.addFiles },
        { id: 'add-folder', label: 'Add Folder…', accelerator: 'CmdOrCtrl+Shift+O', click: actions.addFolder },
        sep,
        ...(mac ? [] : [{ label: 'Preferences…', accelerator: 'Ctrl+,', click: actions.preferences }, ...command, sep]),
        role(mac ? 'close' : 'quit'),
      ],
    },
    { label: 'Edit', submenu: [role('undo'), role('redo'), sep, role('cut'), role('copy'), role('paste'), role('selectAll')] },
    {
      label: 'View',
      submenu: [
        { id: 'ask', label: 'Ask…', accelerator: 'CmdOrCtrl+Shift+Space', click: actions.toggleAsk },
        sep,
        role('resetZoom'),
        role('zoomIn'),
        role('zoomOut'),
        sep,
        role('togglefullscreen'),
      ],
    },
    { label: 'Help', submenu: [{ label: 'kb Help', click: actions.help }] },
  ];
}

/** The global shortcut that opens the ask panel from anywhere. */
export const ASK_SHORTCUT = 'CommandOrControl+Shift+Space';
