# Tantivy beside kb in `npm run bench -- vocabularies`: indexes the same passages kb holds, then times
# the same queries in-process (search and reading the top hits' stored text, as kb returns its hits'
# text), each query once to warm up and once timed.
#   python run.py PASSAGES.jsonl QUERIES.json INDEX_DIR  →  JSON on stdout
import json
import os
import shutil
import sys
import time

import tantivy

passages_file, queries_file, index_dir = sys.argv[1:4]

schema_builder = tantivy.SchemaBuilder()
schema_builder.add_text_field("text", stored=True, tokenizer_name="en_stem", index_option="position")
schema = schema_builder.build()

shutil.rmtree(index_dir, ignore_errors=True)
os.makedirs(index_dir)
index = tantivy.Index(schema, path=index_dir)
started = time.perf_counter()
writer = index.writer(heap_size=200_000_000, num_threads=1)
with open(passages_file, encoding="utf8") as f:
    for line in f:
        writer.add_document(tantivy.Document(text=json.loads(line)))
writer.commit()
writer.wait_merging_threads()
index.reload()
build_s = time.perf_counter() - started
index_bytes = sum(os.path.getsize(os.path.join(index_dir, n)) for n in os.listdir(index_dir))

searcher = index.searcher()
queries = json.load(open(queries_file, encoding="utf8"))


def query_of(q):
    words = q["words"]
    if q["phrase"]:
        return index.parse_query('"' + " ".join(words) + '"', ["text"])
    if q["prefix"]:
        parts = []
        if len(words) > 1:
            parts.append((tantivy.Occur.Should, index.parse_query(" ".join(words[:-1]), ["text"])))
        parts.append((tantivy.Occur.Should, tantivy.Query.regex_query(schema, "text", words[-1] + ".*")))
        return tantivy.Query.boolean_query(parts)
    return index.parse_query(" ".join(words), ["text"])


def run(q):
    hits = searcher.search(query_of(q), 10).hits
    for _score, address in hits:
        searcher.doc(address)["text"]
    return len(hits)


times = []
for q in queries:
    run(q)
for q in queries:
    t = time.perf_counter()
    run(q)
    times.append((time.perf_counter() - t) * 1000)

print(json.dumps({"build_s": build_s, "index_bytes": index_bytes, "times": times}))
