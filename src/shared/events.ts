// Events: what the engine and its hosts tell every window, not tied to one request. Each name here
// with the schema of its payload — the one list a sender and a listener agree on. A host checks an
// event against it before it goes any further (parseEvent); `on` is typed by it.
import { z } from 'zod';
import { ErrorPayloadSchema } from './errors.js';
import { SearchHitSchema, TranscribedSchema } from './wire.js';

/**
 * The `background` event: work a model's arrival started — embedding every chunk (search turns
 * hybrid when it is done) or transcribing the audio that waited — or work an ingest left behind that
 * the engine does by itself (OCR of waiting scans, vectors).
 */
export const BackgroundEventSchema = z.object({
  task: z.enum(['embedding', 'transcribing', 'ocr', 'upgrading']),
  phase: z.enum(['running', 'done', 'failed']),
  done: z.number().nonnegative(),
  total: z.number().nonnegative(),
  message: z.string().optional(),
  /** A transcription pass, done: what it read (a command that waited for it reports this). */
  transcribed: TranscribedSchema.optional(),
});
export type BackgroundEvent = z.infer<typeof BackgroundEventSchema>;

/** A watched folder's batch of changes, applied. */
export const WatchEventSchema = z.object({
  collection: z.string(),
  ingested: z.array(z.string()),
  removed: z.array(z.string()),
  errors: z.array(z.object({ path: z.string(), message: z.string() })),
  took_ms: z.number().nonnegative(),
});
export type WatchEvent = z.infer<typeof WatchEventSchema>;

/** The engine as a window sees it: ready, restarting after its worker died, or out of reach (a browser's WebSocket). */
export const EngineStateSchema = z.object({
  state: z.enum(['ready', 'restarting', 'disconnected']),
  /** Restarting: in how long. */
  in_ms: z.number().nonnegative().optional(),
  exit_code: z.number().int().nullable().optional(),
  /** Ready again after being out of reach: what a window shows should be asked for again. */
  reconnected: z.boolean().optional(),
});
export type EngineState = z.infer<typeof EngineStateSchema>;

export const EVENTS = {
  /** The worker opened the engine (worker → host). */
  ready: z.object({ data_dir: z.string() }),
  /** The worker could not open the engine (worker → host). */
  failed: ErrorPayloadSchema,
  engine: EngineStateSchema,
  collections: WatchEventSchema,
  background: BackgroundEventSchema,
  /** Another process changed the index's documents (the store's own notice): every view asks again. */
  changed: z.object({}).strict(),
  /** The desktop app's main process to its main window: show this hit (chosen in the ask panel). */
  'app:show-hit': SearchHitSchema,
  /** …open Settings (the app menu's Preferences). */
  'app:preferences': z.object({}).strict(),
  /** …add these files (the menu, a file opened with kb, a second launch). */
  'app:ingest': z.object({ paths: z.array(z.string()) }).strict(),
} as const;

export type EventName = keyof typeof EVENTS;
export type EventData<E extends EventName> = z.output<(typeof EVENTS)[E]>;
/** Any one event as a name and its payload: a listener of every event narrows by the name. */
export type EventArgs = { [E in EventName]: [event: E, data: EventData<E>] }[EventName];

export function isEventName(name: string): name is EventName {
  return Object.hasOwn(EVENTS, name);
}

/** An event's payload checked against its schema; null for a name no one sends or a payload that is not its shape. */
export function parseEvent(event: string, data: unknown): EventArgs | null {
  if (!isEventName(event)) return null;
  const r = EVENTS[event].safeParse(data);
  // The schema of this very name passed it: its payload is that event's.
  return r.success ? ([event, r.data] as EventArgs) : null;
}

/** An event as it travels (a ServerMessage), its name and payload checked by the compiler. */
export function eventMessage<E extends EventName>(event: E, data: EventData<E>): { type: 'event'; event: E; data: EventData<E> } {
  return { type: 'event', event, data };
}
