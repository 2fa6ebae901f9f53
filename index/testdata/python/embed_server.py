"""A minimal OpenAI-compatible /v1/embeddings server over a local
sentence-transformers model, for measuring driftkit's `openai` encoder
offline (the real deployments are text-embeddings-inference, vLLM or
Infinity serving BGE-M3).

    python embed_server.py MODEL_DIR [PORT]
    driftkit index --ws WS --encoder openai --base-url http://127.0.0.1:PORT/v1 --model NAME
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sentence_transformers import SentenceTransformer

model = SentenceTransformer(sys.argv[1], device="cpu")
port = int(sys.argv[2]) if len(sys.argv) > 2 else 8089


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path.rstrip("/") != "/v1/embeddings":
            self.send_error(404)
            return
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        inp = req["input"]
        texts = [inp] if isinstance(inp, str) else inp
        vecs = model.encode(texts, batch_size=32, normalize_embeddings=True)
        body = json.dumps({
            "object": "list",
            "model": req.get("model", ""),
            "data": [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vecs)],
            "usage": {"prompt_tokens": sum(len(t) // 4 for t in texts), "total_tokens": sum(len(t) // 4 for t in texts)},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
