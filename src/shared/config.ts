// The configuration contract. `kb init` writes a commented YAML file with these keys; every key is
// optional there and falls back to the defaults below.
import { z } from 'zod';
import { FUSIONS } from './fusions.js';

// Limits in decimal megabytes, as kb prints sizes (shared/bytes.ts): "over the 200 MB limit" means 200,000,000.
const MB = 1_000_000;

/** kb serve's public address (serve.public_url, --public-url): an origin, no path. */
export const PUBLIC_URL = /^https?:\/\/[^/?#\s]+\/?$/i;

export const ConfigSchema = z
  .object({
    /** Only honoured in the global config file: where the data dir lives. */
    data_dir: z.string().optional(),
    store_originals: z.enum(['copy', 'reference']).default('copy'),
    /**
     * Where the index lives. Unset: the data dir's own SQLite file (one person, one machine). A
     * postgresql:// URL: a PostgreSQL database a team shares (kb connects as an ordinary role).
     */
    store: z
      .object({
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\//i, "must be a postgresql:// URL (or unset, for the data dir's own index)")
          .nullable()
          .default(null),
        /** A streaming-replication standby: searches read from it, writes go to url. */
        read_url: z
          .string()
          .regex(/^postgres(ql)?:\/\//i, 'must be a postgresql:// URL')
          .nullable()
          .default(null),
      })
      .prefault({}),
    ingest: z
      .object({
        /** Files up to this size are copied into the content-addressed store when store_originals is copy. */
        copy_max_bytes: z
          .number()
          .int()
          .nonnegative()
          .default(200 * MB),
        /** Text files above this size fail with TOO_LARGE instead of being chunked. */
        max_text_bytes: z
          .number()
          .int()
          .positive()
          .default(20 * MB),
        /** PDFs above this size fail with TOO_LARGE (pdf.js needs the whole file in memory). */
        max_pdf_bytes: z
          .number()
          .int()
          .positive()
          .default(500 * MB),
        /** A PDF that takes longer than this to read fails with TIMEOUT; the rest of the batch goes on. */
        pdf_timeout_s: z.number().positive().default(300),
        /** Extra ignore patterns (gitignore syntax) applied on top of .gitignore/.kbignore. */
        ignore: z.array(z.string()).default([]),
        follow_symlinks: z.boolean().default(true),
        /** Follow a symlink that leads outside the folder being indexed (off: such links are skipped). */
        follow_symlinks_outside: z.boolean().default(false),
        /** Images with more pixels than this fail with TOO_LARGE before they are decoded (a 30k × 30k bomb). */
        max_image_pixels: z.number().int().positive().default(100_000_000),
        /** Word, ODF, slides, e-books, spreadsheets, web pages and mail above this size fail with TOO_LARGE. */
        max_document_bytes: z
          .number()
          .int()
          .positive()
          .default(200 * MB),
        /** A zipped document (docx, xlsx, epub, …) whose entries inflate to more than this in all fails with TOO_LARGE. */
        zip_max_expanded_bytes: z
          .number()
          .int()
          .positive()
          .default(1000 * MB),
        /**
         * One entry inflating more than this many times its stored size (and over 1 MB) is refused as a zip
         * bomb. Measured on real files: Word and LibreOffice documents 7–19×, an Excel 2011 workbook 121×,
         * a sparse LibreOffice sheet 208×; a bomb of zeros ~1,000× (deflate's ceiling is 1,032×). Bombs of
         * many entries each under this are stopped by zip_max_expanded_bytes, the bound on the total.
         */
        zip_max_ratio: z.number().positive().default(500),
      })
      .prefault({}),
    chunking: z
      .object({
        target_chars: z.number().int().positive().default(1200),
        max_chars: z.number().int().positive().default(2400),
        min_chars: z.number().int().nonnegative().default(250),
        overlap_chars: z.number().int().nonnegative().default(150),
        /** Plain-text files up to this many characters are one chunk. */
        note_max_chars: z.number().int().positive().default(2400),
        code_window_lines: z.number().int().positive().default(60),
      })
      .prefault({}),
    ocr: z
      .object({
        /** Read images and PDF pages without a text layer with tesseract.js (local language data only). */
        enabled: z.boolean().default(true),
        /** Tesseract language codes joined by '+', e.g. 'eng+kor'; each needs its data (@tesseract.js-data/<code>). */
        languages: z
          .string()
          .regex(/^[a-z_]+(\+[a-z_]+)*$/, 'language codes joined by +, e.g. eng+kor')
          .default('eng'),
        /** A folder with <code>.traineddata(.gz) files, instead of the @tesseract.js-data packages. */
        lang_path: z.string().optional(),
        /** Resolution scanned PDF pages are rendered at for OCR. */
        dpi: z.number().int().min(72).max(600).default(300),
        /**
         * A page or image OCR reads with less confidence than this (0–100) is not indexed: its text is
         * almost always in a script whose language data is not installed, and reads as garbage (well-read
         * pages score 80–95, a Chinese scan read with English data 15–35).
         */
        min_confidence: z.number().min(0).max(100).default(50),
        /** At most this many text-less pages of one PDF are read by OCR (thousands of blank pages would take hours). */
        max_pages: z.number().int().positive().default(500),
      })
      .prefault({}),
    embedding: z
      .object({
        /**
         * Who runs the embedding model: onnx (in kb, a model from kb models list or imported) or ollama
         * (the local Ollama server's /api/embed; its address is ask.ollama_host / KB_OLLAMA_HOST).
         */
        provider: z.enum(['onnx', 'ollama']).default('onnx'),
        /** The model that embeds chunks and queries (kb models list; with ollama, e.g. nomic-embed-text). kb models use sets it. */
        model: z.string().min(1).default('all-MiniLM-L6-v2'),
        /** Put before every query / passage embedded, instead of what the model is known to expect (empty: nothing). */
        query_prefix: z.string().optional(),
        passage_prefix: z.string().optional(),
        /**
         * Below this many vectors a search compares the query with every one (exact, and fast enough);
         * from here on an approximate index (IVF_PQ) is built in the background and kept up.
         */
        ann_min_rows: z.number().int().positive().default(10_000),
      })
      .prefault({}),
    models: z
      .object({
        /** The Hugging Face hub or a mirror of it; KB_HF_ENDPOINT overrides. */
        hub_endpoint: z
          .string()
          .refine(
            (u) => /^https?:\/\/[^/\s]+/i.test(u) && URL.canParse(u),
            'models are fetched over HTTP(S): an address like https://huggingface.co',
          )
          .default('https://huggingface.co'),
      })
      .prefault({}),
    search: z
      .object({
        top: z.number().int().positive().default(10),
        candidates_factor: z.number().int().positive().default(3),
        /** How hybrid search combines words and meaning when a search does not say (shared/fusions.ts). */
        fusion: z.enum(FUSIONS).default('adaptive'),
        rrf_k: z.number().positive().default(60),
        /**
         * adaptive fusion: the meaning half counts fully when its best hit is at least this much more
         * similar (cosine) than its tenth, and less below, down to a quarter — a flat list of neighbours
         * is a model with no clear answer (npm run bench -- meaning).
         */
        meaning_gap: z.number().positive().default(0.15),
        /** --fusion convex: weight of the lexical side; the vector side gets 1 − this. */
        convex_alpha: z.number().min(0).max(1).default(0.5),
        snippet_chars: z.number().int().positive().default(240),
        /** Re-score the best fused hits with a cross-encoder (rerank.model) before answering; --rerank / --no-rerank per search. */
        rerank: z.boolean().default(false),
        /**
         * BM25F field weights: title, heading path, body. Each field is its own length-normalised
         * count, and a document's first chunk usually holds its title line in the body too: at 1 the
         * title's words counted twice there, and recall on short queries fell below plain BM25; 0.5
         * keeps the title as context for the other chunks (npm run bench -- ranking).
         */
        weights: z
          .object({
            title: z.number().nonnegative().default(0.5),
            heading: z.number().nonnegative().default(1),
            body: z.number().nonnegative().default(1),
          })
          .prefault({}),
        /**
         * BM25F term-frequency saturation. Higher than BM25's usual 1.2: a word's counts in title,
         * heading and body add up before saturation, so a title word seen again in the body would
         * otherwise count little more than once (npm run bench -- ranking chooses it on one
         * collection and checks it on another).
         */
        k1: z.number().positive().default(3),
        /** BM25F length normalisation: 0 none, 1 full. Chunks are already bounded in length. */
        b: z.number().min(0).max(1).default(0.5),
        /**
         * A word or typed prefix in at least this many passages has its best passages ranked ahead of the
         * search and kept (in the background, on indexes of five times as many passages), so typing it
         * is answered from them instead of scoring every passage that holds it. On PostgreSQL, whose
         * word index scores a passage more slowly than SQLite's, an eighth of this.
         */
        tops_min_df: z.number().int().positive().default(4000),
        /**
         * A request that reads (a search, a passage, the Library's page, …) still running after this
         * many milliseconds is answered TIMEOUT and the engine moves on; on PostgreSQL the database
         * stops its statement too (statement_timeout on the searches' connections). Every request's
         * cost is bounded by what it may ask (search/query-limits.ts): this is the backstop.
         */
        deadline_ms: z.number().int().positive().default(10_000),
        /** How much matching every query word (idf-weighted) multiplies a bm25 score: 1 + boost × coverage. */
        coverage_boost: z.number().nonnegative().default(0.6),
        /** Bonus for neighbouring query words found within 8 words of each other (bm25 units, idf-weighted). */
        proximity_boost: z.number().nonnegative().default(0.6),
        /**
         * Pseudo-relevance feedback for long questions: the top hits' shared words re-rank the rest,
         * within feedback_weight of the question's own best score (npm run bench -- ranking).
         */
        feedback: z.boolean().default(true),
        /** Feedback only for questions of at least this many content words (never for what people type into a search box). */
        feedback_min_terms: z.number().int().positive().default(5),
        feedback_docs: z.number().int().positive().default(8),
        feedback_terms: z.number().int().nonnegative().default(10),
        /** How far the feedback words may move a candidate: this share of the best score of the question's own words. */
        feedback_weight: z.number().min(0).max(0.95).default(0.15),
      })
      .prefault({}),
    rerank: z
      .object({
        /** The cross-encoder (kb models list: ms-marco-MiniLM-L-6-v2, bge-reranker-base, or one imported). */
        model: z.string().min(1).default('ms-marco-MiniLM-L-6-v2'),
        /** How many of the fused hits it re-scores. */
        candidates: z.number().int().positive().max(200).default(30),
        /**
         * Each (query, passage) pair is cut to this many tokens: the query, and the passage's heading and
         * the part of it the snippet shows. Cost grows with length: 48 keeps 30 candidates of a
         * MiniLM-L6 cross-encoder within 150 ms p95 on 2 cores even when the machine is busy; 64 reads
         * more of each passage for ~40% more time (npm run bench -- rerank).
         */
        max_tokens: z.number().int().min(16).max(512).default(48),
        /** The app re-ranks once typing has paused this long, never per keystroke. */
        pause_ms: z.number('a number of milliseconds').int('a whole number of milliseconds').nonnegative('0 ms or more').default(300),
      })
      .prefault({}),
    audio: z
      .object({
        /** Transcribe audio and the sound of videos (whisper.cpp, local). Off: audio files are skipped. */
        enabled: z.boolean().default(true),
        /** ffmpeg to decode with; empty: the one on PATH. */
        ffmpeg_path: z.string().default(''),
        /** The speech model (kb models list): whisper-base.en, whisper-small, … */
        model: z.string().min(1).default('whisper-base.en'),
        /** Spoken language code (en, de, ko, …), or auto to detect it. */
        language: z.string().min(1).default('auto'),
        /** Audio is decoded and transcribed this many seconds at a time (memory stays bounded). */
        window_s: z.number().int().min(30).max(3600).default(300),
        /** Audio and video files above this size fail with TOO_LARGE. */
        max_bytes: z
          .number()
          .int()
          .positive()
          .default(4000 * MB),
        /** Transcript chunks span about this many seconds, cut where a sentence ends. */
        chunk_min_s: z.number().positive().default(30),
        chunk_max_s: z.number().positive().default(60),
      })
      .prefault({}),
    ask: z
      .object({
        /** The Ollama server; KB_OLLAMA_HOST overrides. */
        ollama_host: z
          .string()
          .refine(
            (u) => /^https?:\/\/[^/\s]+/i.test(u) && URL.canParse(u),
            'Ollama is reached over HTTP: an address like http://127.0.0.1:11434',
          )
          .default('http://127.0.0.1:11434'),
        /** The Ollama model that answers (ollama list); KB_OLLAMA_MODEL overrides. */
        model: z
          .string()
          .regex(
            /^[\w][\w.-]*(\/[\w.-]+)*(:[\w.-]+)?$/,
            "not a model's name as Ollama writes them (llama3.2, qwen2.5:7b, hf.co/user/model:Q4_K_M)",
          )
          .default('llama3.2'),
        /** How many passages hybrid search retrieves for a question, before merging and packing. */
        top: z
          .number('a number of passages')
          .int('a whole number of passages')
          .min(1, 'at least 1 passage')
          .max(50, 'at most 50 passages')
          .default(8),
        /** Context window asked of the model (num_ctx), capped by what /api/show says it has. */
        num_ctx: z.number().int().min(1024).default(8192),
        /** Tokens kept free for the answer when the sources are packed into the context. */
        answer_tokens: z.number().int().min(64).default(1024),
        /** Give up when the first token has not come in this long (a model loading counts). */
        first_token_timeout_s: z.number().positive().default(120),
        /** Give up when the stream stalls this long between tokens. */
        stall_timeout_s: z.number().positive().default(60),
        /**
         * The refusal gate (bench: npm run bench -- ask). kb answers "I couldn't find this in your
         * documents", without calling the model, when the best passage holds less than min_coverage of
         * the question's content words (idf-weighted) AND its word evidence is below min_strength (BM25
         * in units of one rare word matched once, so it means the same in a small folder and a big one).
         */
        gate: z
          .object({
            min_coverage: z.number().min(0).max(1).default(0.6),
            min_strength: z.number().nonnegative().default(2),
            /**
             * With an embedding model bound, a passage this similar to the question (cosine, -1..1) lets
             * it through even when words say no (a paraphrase). Unset: words alone decide. Set it for
             * the model in use from npm run bench -- ask (see docs/architecture.md, "the refusal gate").
             */
            min_similarity: z.number().min(-1).max(1).optional(),
          })
          .prefault({}),
      })
      .prefault({}),
    ui: z
      .object({
        /** The app's colours: follow the system, or always light or dark. */
        theme: z.enum(['system', 'light', 'dark']).default('system'),
        /**
         * "Open in editor" on a hit: a URI with {path} and {line} (and {column}) filled in, e.g.
         * vscode://file/{path}:{line}, idea://open?file={path}&line={line}, subl://open?url=file://{path}&line={line}.
         */
        editor_uri: z
          .string()
          .regex(/\{path\}/, 'the URI must hold {path}')
          // A link the app opens: a page's script (javascript:) or a document made up on the spot (data:) never.
          .regex(/^[a-z][a-z0-9+.-]*:/i, "the URI must start with an editor's scheme, as vscode:// or idea:// do")
          // Nor a web page or a file (the app's tab would go there): an editor's own scheme.
          .refine(
            (u) => !/^(javascript|data|vbscript|blob|about|https?|file):/i.test(u),
            'javascript:, data:, http: and file: links open no editor',
          )
          .default('vscode://file/{path}:{line}'),
        /**
         * kb tui's Enter on a text hit: a command with {path} and {line} filled in (e.g. subl {path}:{line},
         * code -g {path}:{line}); unset: $VISUAL or $EDITOR, opened at the line in the form each takes.
         */
        editor_command: z
          .string()
          .regex(/\{path\}/, 'the command must hold {path}')
          .optional(),
        /** The installed desktop app looks for a new version at most once a day, and asks before it restarts into it. */
        updates: z.boolean().default(true),
      })
      .prefault({}),
    serve: z
      .object({
        /**
         * The address people type to reach this kb serve (https://kb.example.com behind a TLS proxy):
         * the only Host and Origin it answers besides loopback, and the URL it prints.
         */
        public_url: z.string().regex(PUBLIC_URL, 'an origin: https://host[:port], no path').nullable().default(null),
        /**
         * The addresses of the reverse proxies in front of kb serve (127.0.0.1 for one on the same
         * machine): only from them is X-Forwarded-For believed, to tell whose sign-in failed. From
         * anyone else it is a header anyone may write.
         */
        trusted_proxies: z.array(z.string().min(1)).default([]),
        /** Megabytes a team's user may drop into kb serve in a day (0: no limit); the owner has none. */
        upload_quota: z.number().int().nonnegative().default(2048),
        /**
         * Processes beside the main one that answer searches, so one person's heavy request (a Library
         * page filtered over every document, a pasted page) never makes another's search wait behind
         * it. Each holds its own copy of the index's caches and of the embedding model (0: the main
         * process answers everything).
         */
        search_processes: z.number().int().min(0).max(8).default(1),
      })
      .prefault({}),
    log: z
      .object({
        /**
         * What goes into the data dir's logs/ files (KB_LOG_LEVEL overrides). Above debug, a line never
         * holds document text, a query or an answer: paths, counts, timings, error codes and messages.
         */
        level: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
      })
      .prefault({}),
  })
  .prefault({});

export type Config = z.output<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}
