// "Open in editor": the user's URI template (ui.editor_uri) filled in for one hit.
export function editorUri(template: string, path: string, line: number, column = 1): string {
  let p = path.replace(/\\/g, '/').replace(/ /g, '%20').replace(/#/g, '%23');
  // vscode://file/{path} means the full path after "file/": /home/me/a.md goes in as home/me/a.md
  // (vscode://file/home/me/a.md:12), C:/notes/a.md as it is (vscode://file/C:/notes/a.md:12).
  if (p.startsWith('/') && template.includes('/{path}')) p = p.slice(1);
  return template.replaceAll('{path}', p).replaceAll('{line}', String(line)).replaceAll('{column}', String(column));
}
