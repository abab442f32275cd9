// Messages between the engine and the whisper child process.
export interface Segment {
  /** Seconds from the start of the file. */
  start: number;
  end: number;
  text: string;
}

export type ChildRequest =
  { type: 'load'; model: string } | { type: 'transcribe'; id: number; pcm: Float32Array; language: string; threads: number };

export type ChildReply =
  | { type: 'loaded' }
  | { type: 'segments'; id: number; segments: Segment[]; language: string | null }
  | { type: 'error'; id?: number; message: string };
