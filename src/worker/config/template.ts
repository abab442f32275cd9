// The commented config `kb init` writes. Every value shown is the default.
export const CONFIG_TEMPLATE = `# kb configuration. Every setting is optional; the values shown are the defaults.
# This file lives in the data dir. A global file (~/.config/kb/config.yaml, or $KB_CONFIG) may set
# the same keys, plus data_dir; this file wins over it.

# Keep a copy of every ingested file (up to ingest.copy_max_bytes) in the data dir, so a citation
# still opens after the original is moved or deleted. "reference" keeps only the path and checksum.
store_originals: copy

# Where the index lives: unset, a SQLite file in this data dir. A PostgreSQL database a team shares:
#   url: postgresql://kb:PASSWORD@db.example.org:5432/kb   (also KB_STORE, or kb --store URL)
store:
  url: null
  read_url: null              # a hot standby searches are read from; writes go to url

ingest:
  copy_max_bytes: 200000000   # 200 MB; bigger files are referenced by path + checksum
  max_text_bytes: 20000000    # text files above 20 MB fail with TOO_LARGE
  max_pdf_bytes: 500000000    # PDFs above 500 MB fail with TOO_LARGE
  pdf_timeout_s: 300          # a PDF that takes longer to read fails with TIMEOUT
  follow_symlinks: true
  follow_symlinks_outside: false   # follow symlinks that lead out of the folder being indexed
  max_image_pixels: 100000000      # images above 100 megapixels fail with TOO_LARGE before decoding
  max_document_bytes: 200000000    # Word, slides, spreadsheets, web pages, e-books, mail above 200 MB fail with TOO_LARGE
  zip_max_expanded_bytes: 1000000000   # a docx/xlsx/epub/… inflating to more than 1 GB is refused (TOO_LARGE)
  zip_max_ratio: 500               # one entry (over 1 MB) inflating more than 500× is a zip bomb (real sheets reach ~200×)
  ignore: []                  # extra gitignore-style patterns, e.g. ["*.log", "drafts/"]

chunking:
  target_chars: 1200          # a chunk grows to about this size
  max_chars: 2400             # and never beyond, except a single code block or table
  min_chars: 250              # smaller sections merge with the next
  overlap_chars: 150          # trailing paragraphs repeated when a long section is cut
  note_max_chars: 2400        # plain-text notes up to this size are a single chunk
  code_window_lines: 60       # line windows for code outside functions or in other languages

ocr:
  enabled: true               # read images and scanned PDF pages (tesseract.js, local data only)
  languages: eng              # e.g. eng+kor; each needs npm install @tesseract.js-data/<code>, or lang_path
  # lang_path: /usr/share/tesseract-ocr/5/tessdata   # a folder of <code>.traineddata files instead
  dpi: 300                    # scanned PDF pages are rendered at this resolution for OCR
  min_confidence: 50          # a page read with less confidence (0-100) is not indexed: it says which language it needs
  max_pages: 500              # at most this many text-less pages of one PDF are read by OCR

embedding:                    # kb models use NAME switches (and re-embeds) in one step
  provider: onnx              # onnx: a model kb runs (kb models list); ollama: one the Ollama server serves
  model: all-MiniLM-L6-v2     # kb models pull all-MiniLM-L6-v2; with ollama e.g. nomic-embed-text
  # query_prefix: 'search_query: '        # instead of what the model is known to expect
  # passage_prefix: 'search_document: '
  ann_min_rows: 10000         # from this many vectors on, an approximate index (IVF_PQ) keeps search fast

models:
  hub_endpoint: https://huggingface.co   # or a mirror; KB_HF_ENDPOINT overrides

search:
  top: 10
  candidates_factor: 3        # hybrid: each side retrieves top × this before fusion
  fusion: adaptive            # hybrid: adaptive (RRF, the meaning half weighed by how clearly it answers), rrf or convex
  rrf_k: 60                   # Reciprocal Rank Fusion constant
  meaning_gap: 0.15           # adaptive: meaning counts fully when its best hit is this much more similar than its tenth
  snippet_chars: 240
  rerank: false               # re-score the best hits with a cross-encoder (rerank.model); kb search --rerank
  weights:                    # BM25F weight of a match in the title, heading path, and body
    title: 0.5
    heading: 1
    body: 1
  k1: 3                       # BM25F term saturation and length normalisation, chosen on one test
  b: 0.5                      # collection and checked on another (npm run bench -- ranking)
  tops_min_df: 4000           # a word or prefix in this many passages gets its best ones ranked ahead of time
  deadline_ms: 10000          # a search or other read still running after this is stopped (TIMEOUT)
  coverage_boost: 0.6         # score × (1 + this × the idf-weighted share of the query a passage holds)
  proximity_boost: 0.6        # bonus for query words near each other
  feedback: true              # pseudo-relevance feedback for long questions …
  feedback_min_terms: 5       # … of at least this many content words (never for a few typed words)
  feedback_weight: 0.15       # it moves a passage by at most this share of the question's best score

rerank:                       # kb models pull ms-marco-MiniLM-L-6-v2, then search.rerank: true
  model: ms-marco-MiniLM-L-6-v2   # or bge-reranker-base, or a cross-encoder folder imported with kb models import
  candidates: 30              # how many fused hits it re-scores
  max_tokens: 48              # each query + passage pair is cut to this (64 reads more, ~40% slower)
  pause_ms: 300               # the app re-ranks once typing pauses this long, never per keystroke

audio:                        # audio and video, transcribed locally by whisper.cpp
  enabled: true               # off: audio and video files are skipped
  ffmpeg_path: ''             # empty: the ffmpeg on PATH (apt install ffmpeg, brew install ffmpeg)
  model: whisper-base.en      # kb models pull whisper-base.en; whisper-small for other languages
  language: auto              # or a code: en, de, ko, …
  window_s: 300               # seconds decoded and transcribed at a time (memory stays bounded)
  max_bytes: 4000000000       # 4 GB; bigger files fail with TOO_LARGE
  chunk_min_s: 30             # transcript chunks span 30–60 s, cut where a sentence ends
  chunk_max_s: 60

ask:                          # kb ask and the ask panel: answers through a local Ollama model
  ollama_host: http://127.0.0.1:11434   # KB_OLLAMA_HOST overrides
  model: llama3.2             # KB_OLLAMA_MODEL overrides; ollama pull llama3.2
  top: 8                      # passages retrieved for a question
  num_ctx: 8192               # context asked of the model (capped by what it has)
  answer_tokens: 1024         # kept free for the answer when packing sources
  first_token_timeout_s: 120  # a model still loading counts
  stall_timeout_s: 60
  gate:                       # refuse without asking the model when the documents hold too little:
    min_coverage: 0.6         #   the best passage holds less of the question's words than this (idf-weighted)
    min_strength: 2           #   and its BM25 is below this many rare-word matches (npm run bench -- ask)
    # min_similarity: 0.43    #   unless a passage is this similar by meaning (the model's own: 0.43 for all-MiniLM-L6-v2)

ui:                           # the app (and kb serve's page)
  theme: system               # system, light or dark
  editor_uri: "vscode://file/{path}:{line}"  # "Open in editor" on a hit: {path}, {line}, {column} are filled in
  # editor_command: "subl {path}:{line}"   # kb tui's Enter: a command with {path} and {line}; unset: $VISUAL or $EDITOR
  updates: true               # the installed desktop app looks for a new version once a day and asks before restarting

serve:                        # kb serve for a team (README: "A team server")
  public_url: null            # the address behind your TLS proxy (https://kb.example.com): its Host and Origin are accepted, its URL printed
  trusted_proxies: []         # proxies whose X-Forwarded-For is believed (127.0.0.1 for one on this machine)
  upload_quota: 2048          # megabytes a team's user may drop in a day (0: no limit)

log:                          # <data dir>/logs/<process>.log, rotated at 5 MB, 3 kept (kb logs shows them)
  level: info                 # error, warn, info or debug (KB_LOG_LEVEL overrides); only debug holds queries
`;
