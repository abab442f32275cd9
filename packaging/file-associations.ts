// What the installed app offers to open: every extension kb reads (ingest/extensions.ts), as an
// "Open with" choice that never takes a file type from the application a person already uses for it
// — an alternate handler on macOS, MIME types Linux lists under "Open With", OpenWithProgids entries
// on Windows (written by the installer: packaging/windows/installer.nsh).
import type { FileAssociation } from 'electron-builder';
import type { DocType } from '../src/shared/doc-types.js';
import { docType } from '../src/shared/doc-types.js';
import { extensionsByType } from '../src/worker/ingest/extensions.js';

/** Each type's MIME types as freedesktop.org's shared-mime-info names them (Linux opens by MIME type, not extension). */
const MIME: Record<Exclude<DocType, 'code'>, string[]> = {
  markdown: ['text/markdown', 'text/x-markdown'],
  note: ['text/plain', 'text/org', 'text/x-rst', 'text/x-log'],
  pdf: ['application/pdf'],
  image: ['image/png', 'image/jpeg', 'image/webp', 'image/tiff', 'image/bmp', 'image/gif'],
  audio: [
    'audio/mpeg',
    'audio/x-wav',
    'audio/ogg',
    'audio/x-opus+ogg',
    'audio/mp4',
    'audio/aac',
    'audio/flac',
    'video/mp4',
    'video/x-matroska',
    'video/webm',
    'video/quicktime',
  ],
  docx: [
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.ms-word.document.macroEnabled.12',
    'application/vnd.oasis.opendocument.text',
  ],
  slides: [
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    'application/vnd.openxmlformats-officedocument.presentationml.slideshow',
    'application/vnd.oasis.opendocument.presentation',
  ],
  html: ['text/html', 'application/xhtml+xml'],
  epub: ['application/epub+zip'],
  sheet: ['text/csv', 'text/tab-separated-values', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  mail: ['message/rfc822', 'application/mbox'],
};

/** The registry's name for "a document kb opens" (Windows ProgID). */
export const PROG_ID = 'kb.document';

/** One association per document type kb reads by extension (source code is read, not offered: an editor's). */
export function fileAssociations(): FileAssociation[] {
  return [...extensionsByType()]
    .filter((e): e is [Exclude<DocType, 'code'>, string[]] => e[0] !== 'code')
    .map(([type, ext]) => ({
      ext,
      name: docType(type).label,
      role: 'Viewer',
      // macOS: listed under Open With, never made the default.
      rank: 'Alternate',
      mimeType: MIME[type].join(';'),
    }));
}

/** The extensions the Windows installer lists kb under "Open with" for. */
export function windowsExtensions(): string[] {
  return fileAssociations().flatMap((a) => (Array.isArray(a.ext) ? a.ext : [a.ext]));
}
