// Error codes are part of the wire format: LLM tools and the UI branch on them.
import { z } from 'zod';

export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'CONFIG_INVALID',
  'DATA_DIR',
  'DB_CORRUPT',
  'UNREADABLE',
  'NOT_TEXT',
  'INVALID_ENCODING',
  'TOO_LARGE',
  'UNSUPPORTED',
  'VANISHED',
  'PARSE_FAILED',
  'QUERY_INVALID',
  'MODEL_MISSING',
  'MODEL_INVALID',
  'ENCRYPTED',
  'EMPTY',
  'TIMEOUT',
  /** The language model server (Ollama) cannot be reached. */
  'LLM_UNAVAILABLE',
  /** The language model server failed while answering. */
  'LLM_FAILED',
  /** Speech could not be turned into text (the speech model failed or crashed on this file). */
  'TRANSCRIPTION_FAILED',
  /** The shared store (PostgreSQL) cannot be used: down, refusing the role, or lacking rights. */
  'STORE_UNAVAILABLE',
  /** A team server did not know the token (wrong, replaced, or its user removed). */
  'UNAUTHENTICATED',
  /** The user's role or grants do not allow this (a reader adding, an editor outside their collections). */
  'FORBIDDEN',
  /** The caller cancelled it, and nothing of it was kept (a folder cancelled while it was being added). */
  'CANCELLED',
  /** A server's user has too many requests waiting already (kb serve: cli/serve/user-turns.ts). */
  'BUSY',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error as it travels: a response's, an event's, a command's `--json` output's. */
export const ErrorPayloadSchema = z.object({ code: z.enum(ERROR_CODES), message: z.string() });

export class KbError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KbError';
    this.code = code;
  }
}

export function isKbError(e: unknown): e is KbError {
  return e instanceof KbError;
}

/** The first line of an error's message, for one-line reasons in summaries, checks and logs. */
export function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

export function toErrorPayload(e: unknown): { code: ErrorCode; message: string } {
  if (isKbError(e)) return { code: e.code, message: e.message };
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'INTERNAL', message };
}
