// The child process that runs whisper.cpp (smart-whisper). A crash in native code ends this process,
// not the engine: the parent turns it into an error for the one document being read. Messages come
// over the Node IPC channel with the advanced serialisation, so PCM arrives as a Float32Array.
import type { ChildRequest, ChildReply } from './whisper-protocol.js';

interface SmartWhisper {
  Whisper: new (
    file: string,
    config?: { gpu?: boolean; offload?: number },
  ) => {
    transcribe(
      pcm: Float32Array,
      params: Record<string, unknown>,
    ): Promise<{ result: Promise<{ from: number; to: number; text: string; lang?: string }[]> }>;
    load(): Promise<unknown>;
    free(): Promise<void>;
  };
}

const send = (m: ChildReply): void => void process.send?.(m);
let whisper: InstanceType<SmartWhisper['Whisper']> | null = null;

process.on('message', (raw: unknown) => {
  const m = raw as ChildRequest;
  void (async () => {
    try {
      if (m.type === 'load') {
        const sw = (await import('smart-whisper')) as unknown as SmartWhisper;
        whisper = new sw.Whisper(m.model, { gpu: false, offload: 3600 });
        await whisper.load();
        send({ type: 'loaded' });
        return;
      }
      if (!whisper) throw new Error('no model loaded');
      const task = await whisper.transcribe(m.pcm, {
        language: m.language,
        format: 'detail',
        n_threads: m.threads,
        suppress_non_speech_tokens: true,
      });
      const segments = (await task.result).map((r) => ({ start: r.from / 1000, end: r.to / 1000, text: r.text.trim() }));
      send({ type: 'segments', id: m.id, segments, language: (await task.result)[0]?.lang ?? null });
    } catch (e) {
      send({ type: 'error', ...(m.type === 'transcribe' ? { id: m.id } : {}), message: (e as Error).message });
    }
  })();
});
process.on('disconnect', () => process.exit(0));
