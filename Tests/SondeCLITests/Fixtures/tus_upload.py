#!/usr/bin/env python3
"""Uploads a file with tuspy (an independent tus 1.0 client) in chunks, optionally starting over
from a fresh client half-way (resumption from the server's offset), and prints one JSON object:
the upload URL and the SHA-256 of the bytes a follow-up GET returns.
Usage: tus_upload.py ENDPOINT FILE CHUNK_SIZE [--resume-half]"""
import hashlib
import json
import sys
import urllib.request

from tusclient import client


def main() -> int:
    endpoint, path, chunk = sys.argv[1], sys.argv[2], int(sys.argv[3])
    resume_half = "--resume-half" in sys.argv[4:]
    size = len(open(path, "rb").read())
    uploader = client.TusClient(endpoint).uploader(file_path=path, chunk_size=chunk)
    if resume_half:
        # Upload about half, then let a new uploader find the offset with HEAD and finish.
        while uploader.offset < size // 2:
            uploader.upload_chunk()
        url = uploader.url
        uploader = client.TusClient(endpoint).uploader(file_path=path, chunk_size=chunk, url=url)
        resumed_at = uploader.get_offset()
    else:
        resumed_at = None
    uploader.upload()
    with urllib.request.urlopen(urllib.request.Request(uploader.url, headers={"Tus-Resumable": "1.0.0"})) as response:
        body = response.read()
    print(json.dumps({"url": uploader.url, "resumedAt": resumed_at, "size": size,
                      "sha256": hashlib.sha256(body).hexdigest(), "expected": hashlib.sha256(open(path, "rb").read()).hexdigest()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
