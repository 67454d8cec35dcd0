"""The alt text of a PNG figure, as its "Description" text chunk (ISO 15948 / W3C PNG), read and written
without Pillow, pandas or IPython: the book's Sphinx extension :mod:`compendium.book.sphinx_alt` reads it on
every build, and :func:`compendium.chapter.display.glue_figure` writes it.

Imports only the standard library.
"""

from __future__ import annotations

import re
import struct
import zlib

PNG_ALT_KEY = "Description"  # the PNG text keyword (ISO 15948 / W3C PNG: "description of image")
_PNG_SIG = b"\x89PNG\r\n\x1a\n"


def clean_alt(text: str) -> str:
    """``text`` as one line of alt text; a clear error if it is empty or looks like a file name."""
    if not isinstance(text, str):
        raise TypeError(f"alt text must be a string, got {type(text).__name__}")
    text = " ".join(text.split())
    if not text:
        raise ValueError("alt text is empty: describe what the figure shows and its main finding")
    if re.fullmatch(r"[\w./-]+\.(png|jpe?g|svg|gif)", text, re.IGNORECASE):
        raise ValueError(f"alt text {text!r} is a file name: describe what the figure shows")
    return text


def _png_chunks(data: bytes):
    if not data.startswith(_PNG_SIG):
        raise ValueError("not a PNG file (bad signature)")
    pos = len(_PNG_SIG)
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        ctype = data[pos + 4 : pos + 8]
        yield ctype, data[pos + 8 : pos + 8 + length], data[pos : pos + 12 + length]
        pos += 12 + length


def _itxt_keyword(body: bytes) -> bytes:
    return body.split(b"\0", 1)[0]


def png_with_description(data: bytes, text: str) -> bytes:
    """``data`` (a PNG) with an uncompressed UTF-8 ``iTXt`` chunk "Description" = ``text`` after IHDR.

    Any earlier Description (tEXt/iTXt/zTXt) is dropped; pixels and other chunks are untouched, so the
    result is byte-stable for the same image and text."""
    text = clean_alt(text)
    body = PNG_ALT_KEY.encode("latin-1") + b"\0" + b"\0\0" + b"\0" + b"\0" + text.encode("utf-8")
    chunk = struct.pack(">I", len(body)) + b"iTXt" + body + struct.pack(">I", zlib.crc32(b"iTXt" + body))
    out = [_PNG_SIG]
    for ctype, cbody, raw in _png_chunks(data):
        if ctype in (b"tEXt", b"iTXt", b"zTXt") and _itxt_keyword(cbody) == PNG_ALT_KEY.encode():
            continue
        out.append(raw)
        if ctype == b"IHDR":
            out.append(chunk)
    return b"".join(out)


def png_description(data: bytes) -> str | None:
    """The "Description" text of a PNG (tEXt or uncompressed/compressed iTXt), or None."""
    for ctype, body, _ in _png_chunks(data):
        if _itxt_keyword(body) != PNG_ALT_KEY.encode():
            continue
        if ctype == b"tEXt":
            return body.split(b"\0", 1)[1].decode("latin-1")
        if ctype == b"iTXt":
            rest = body.split(b"\0", 1)[1]
            compressed, rest = rest[0], rest[2:]
            _lang, _tkey, txt = rest.split(b"\0", 2)
            return (zlib.decompress(txt) if compressed else txt).decode("utf-8")
        if ctype == b"zTXt":
            return zlib.decompress(body.split(b"\0", 1)[1][1:]).decode("latin-1")
    return None
