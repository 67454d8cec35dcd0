"""A loopback mock of the Hugging Face hub serving one folder as a dataset repository.

    with HubMock({"ProlificAI/autoresearch-hitl-annotations": folder}) as hub:
        env = {"HF_ENDPOINT": hub.url, "HF_HOME": fresh_dir}
        subprocess.run([python, "-m", "compendium.data.acquire", "hitl"], env=env)

Plain ``http.server`` on 127.0.0.1 at a free port, answering the requests that huggingface_hub 2.4 and
datasets 5.2 make (read in their site-packages code: ``HfApi.repo_info``/``dataset_info``,
``list_repo_tree``, ``get_paths_info``, ``hf_hub_download``/``snapshot_download``):

* ``GET /api/datasets/{id}/revision/{rev}`` (``?blobs=true`` for ``files_metadata=True``): ``sha`` and the
  ``siblings`` with ``rfilename``, and with blobs ``blobId``, ``size`` and for LFS files
  ``lfs{sha256,size,pointerSize}``;
* ``GET /api/datasets/{id}/tree/{rev}[/{path}]?recursive=...``: file and directory entries (``oid``, ``size``,
  ``lfs{oid,size,pointerSize}``);
* ``POST /api/datasets/{id}/paths-info/{rev}`` (form or JSON ``paths``);
* ``HEAD``/``GET /datasets/{id}/resolve/{rev}/{path}`` with ``X-Repo-Commit``, ``ETag`` (the git blob id,
  or the sha256 for LFS files), for LFS files ``X-Linked-Etag`` and ``X-Linked-Size``, and
  ``Content-Length``. No ``X-Xet-*`` header is ever sent (hf_xet is installed and would switch protocol).

A file is "LFS" when its suffix is ``.parquet``/``.gz`` or it has at least :data:`LFS_MIN` bytes, as the hub's
default ``.gitattributes`` and its size rule do. Faults for the tests: ``tamper`` (paths served with one
byte changed, same size, while the listing keeps the true checksums), ``trickle`` (resolve GETs send one
byte every ``trickle`` seconds), ``lfs_min`` (the size rule), ``extra_listing`` (names added to the listings only, e.g. ``../../x``),
``resolve_status`` (every file request, HEAD and GET, answered with that HTTP status, e.g. 500, and
``Retry-After: 0``: huggingface_hub retries a 5xx five times, and the header makes each wait 1 s instead of
its back-off's 1, 2, 4, 8 and 8 s, so the test of that answer takes 6 s, not 24; the client's path is the same).
Every request is logged in ``requests`` (method, path).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

LFS_MIN = 100_000
COMMIT = "c0ffee" + "0" * 34


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Repo:
    def __init__(self, folder: Path, sha: str = COMMIT, lfs_min: int = LFS_MIN):
        self.folder = Path(folder)
        self.sha = sha
        self.lfs_min = lfs_min
        self.files: dict[str, bytes] = {
            p.relative_to(self.folder).as_posix(): p.read_bytes()
            for p in sorted(self.folder.rglob("*"))
            if p.is_file() and not p.relative_to(self.folder).as_posix().startswith(".")
        }

    def is_lfs(self, name: str, data: bytes) -> bool:
        return name.endswith((".parquet", ".gz")) or len(data) >= self.lfs_min

    def meta(self, name: str) -> dict:
        data = self.files[name]
        m = {"blob_id": git_blob_sha1(data), "size": len(data), "lfs": None}
        if self.is_lfs(name, data):
            m["lfs"] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
        return m


class HubMock:
    def __init__(
        self,
        repos: dict[str, Path],
        tamper: set[str] | None = None,
        trickle: float | None = None,
        extra_listing: list[str] | None = None,
        lfs_min: int = LFS_MIN,
        resolve_status: int | None = None,
    ):
        self.repos = {k: Repo(v, lfs_min=lfs_min) for k, v in repos.items()}
        self.tamper = set(tamper or ())
        self.trickle = trickle
        self.extra_listing = list(extra_listing or ())
        self.resolve_status = resolve_status
        self.requests: list[tuple[str, str]] = []
        self._server: ThreadingHTTPServer | None = None

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> HubMock:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):
                mock._handle(self, "GET")

            def do_HEAD(self):
                mock._handle(self, "HEAD")

            def do_POST(self):
                mock._handle(self, "POST")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # ------------------------------------------------------------------ responses
    @staticmethod
    def _send(h, status: int, body: bytes = b"", headers: dict | None = None, head: bool = False) -> None:
        h.send_response(status)
        hdrs = {"Content-Type": "application/json", "Content-Length": str(len(body)), **(headers or {})}
        for k, v in hdrs.items():
            h.send_header(k, v)
        h.end_headers()
        if not head and body:
            h.wfile.write(body)

    def _json(self, h, obj, status: int = 200) -> None:
        self._send(h, status, json.dumps(obj).encode())

    def _not_found(self, h, what: str, head: bool = False) -> None:
        self._send(h, 404, json.dumps({"error": f"{what} not found"}).encode(), {"X-Error-Code": "EntryNotFound"}, head)

    def _tree_entries(self, repo: Repo, prefix: str = "", recursive: bool = True) -> list[dict]:
        names = [*repo.files, *self.extra_listing]
        prefix = prefix.strip("/")
        out, dirs = [], set()
        for name in sorted(names):
            if prefix and not name.startswith(prefix + "/"):
                continue
            rest = name[len(prefix) + 1 :] if prefix else name
            parts = rest.split("/")
            for i in range(1, len(parts)):
                d = "/".join(([prefix] if prefix else []) + parts[:i])
                if d not in dirs and (recursive or i == 1):
                    dirs.add(d)
                    out.append({"type": "directory", "oid": hashlib.sha1(d.encode()).hexdigest(), "size": 0, "path": d})
            if not recursive and len(parts) > 1:
                continue
            out.append(self._file_entry(repo, name))
        return out

    def _file_entry(self, repo: Repo, name: str) -> dict:
        if name not in repo.files:  # an extra (hostile) listing entry
            return {"type": "file", "oid": "0" * 40, "size": 1, "path": name}
        m = repo.meta(name)
        e = {"type": "file", "oid": m["blob_id"], "size": m["size"], "path": name}
        if m["lfs"]:
            e["lfs"] = {"oid": m["lfs"]["sha256"], "size": m["size"], "pointerSize": 134}
        return e

    def _handle(self, h, method: str) -> None:
        url = urlparse(h.path)
        path, query = unquote(url.path), parse_qs(url.query)
        self.requests.append((method, h.path))
        head = method == "HEAD"
        if method == "POST":
            n = int(h.headers.get("Content-Length") or 0)
            raw = h.rfile.read(n) if n else b""
        for repo_id, repo in self.repos.items():
            api = f"/api/datasets/{repo_id}/"
            res = f"/datasets/{repo_id}/resolve/"
            if path.startswith(api + "revision/"):
                return self._json(h, self._info(repo_id, repo, blobs="blobs" in query))
            if path.startswith(api + "tree/"):
                rest = path[len(api + "tree/") :]
                rev, _, sub = rest.partition("/")
                recursive = query.get("recursive", ["false"])[0].lower() == "true"
                if sub and not any(n.startswith(sub.strip("/") + "/") for n in repo.files):
                    return self._not_found(h, sub)
                return self._json(h, self._tree_entries(repo, sub, recursive))
            if path.startswith(api + "paths-info/") and method == "POST":
                ctype = h.headers.get("Content-Type", "")
                if "json" in ctype:
                    wanted = json.loads(raw or b"{}").get("paths", [])
                else:
                    wanted = parse_qs(raw.decode()).get("paths", [])
                wanted = wanted if isinstance(wanted, list) else [wanted]
                out = []
                for p in wanted:
                    if p in repo.files:
                        out.append(self._file_entry(repo, p))
                    elif any(n.startswith(p.rstrip("/") + "/") for n in repo.files):
                        out.append(
                            {"type": "directory", "oid": hashlib.sha1(p.encode()).hexdigest(), "size": 0, "path": p}
                        )
                return self._json(h, out)
            if path.startswith(res):
                rev, _, name = path[len(res) :].partition("/")
                return self._resolve(h, repo, name, head)
        return self._not_found(h, path, head)

    def _info(self, repo_id: str, repo: Repo, blobs: bool) -> dict:
        siblings = []
        for name in [*repo.files, *self.extra_listing]:
            s = {"rfilename": name}
            if blobs:
                if name in repo.files:
                    m = repo.meta(name)
                    s.update({"blobId": m["blob_id"], "size": m["size"]})
                    if m["lfs"]:
                        s["lfs"] = m["lfs"]
                else:
                    s.update({"blobId": "0" * 40, "size": 1})
            siblings.append(s)
        return {
            "_id": "mock",
            "id": repo_id,
            "author": repo_id.split("/")[0],
            "sha": repo.sha,
            "lastModified": "2026-01-01T00:00:00.000Z",
            "private": False,
            "disabled": False,
            "gated": False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "cardData": {},
            "siblings": siblings,
            "createdAt": "2026-01-01T00:00:00.000Z",
            "usedStorage": sum(len(b) for b in repo.files.values()),
        }

    def _resolve(self, h, repo: Repo, name: str, head: bool) -> None:
        if name not in repo.files:
            return self._not_found(h, name, head)
        if self.resolve_status:
            body = json.dumps({"error": "the server failed"}).encode()
            return self._send(h, self.resolve_status, body, {"Retry-After": "0"}, head=head)
        data = repo.files[name]
        m = repo.meta(name)
        if name in self.tamper and data:
            b = bytearray(data)
            b[len(b) // 2] ^= 1  # one bit of one byte: same size, e.g. a digit 2 becomes 3
            data = bytes(b)
        headers = {"X-Repo-Commit": repo.sha, "Content-Type": "application/octet-stream", "Accept-Ranges": "none"}
        if m["lfs"]:
            headers.update(
                {
                    "ETag": f'"{m["lfs"]["sha256"]}"',
                    "X-Linked-Etag": f'"{m["lfs"]["sha256"]}"',
                    "X-Linked-Size": str(len(data)),
                }
            )
        else:
            headers["ETag"] = f'"{m["blob_id"]}"'
        if self.trickle and not head:
            h.send_response(200)
            for k, v in {**headers, "Content-Length": str(len(data))}.items():
                h.send_header(k, v)
            h.end_headers()
            try:
                for i in range(len(data)):
                    h.wfile.write(data[i : i + 1])
                    h.wfile.flush()
                    time.sleep(self.trickle)
            except OSError:
                pass
            return
        self._send(h, 200, data, headers, head)
