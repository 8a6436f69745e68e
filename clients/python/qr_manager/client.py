"""The QR Manager client: the generated operations sent with urllib, plus what a caller wants on top (standard library only)."""
from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import IO, Any, Iterator, Optional, cast
from urllib.parse import urlencode

from ._generated import Batch, DynamicCode, GeneratedOperations, Logo, Problem

__all__ = ["QrManager", "QrManagerError", "RawResponse"]

USER_AGENT = "qr-manager-python"
FINISHED = ("completed", "failed", "cancelled")


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    stream: Optional[IO[bytes]] = field(default=None, repr=False)


class QrManagerError(Exception):
    """A problem+json answer: `code` is the stable machine code (e.g. `quota_exceeded`), `problem` the whole document."""

    def __init__(self, status: int, problem: Problem, retry_after: Optional[float] = None) -> None:
        super().__init__(f"{status} {problem.get('code')}: {problem.get('detail')}")
        self.status = status
        self.code: str = problem.get("code", "unknown")
        self.problem = problem
        self.retry_after = retry_after
        # When the service said to come back (a quota 429: when the month's quota resets), as a UTC time.
        self.resets_at: Optional[datetime] = datetime.now(timezone.utc) + timedelta(seconds=retry_after) if retry_after is not None else None


class QrManager(GeneratedOperations):
    """`QrManager("http://localhost:3000", api_key="qrm_live_…")`.

    A 503, or a 429 `rate_limited` (the per-second burst), is retried after its Retry-After, at most `retries` times and
    only while the waits together stay within `max_wait` seconds; any other 429 (a monthly quota) raises at once, with
    `resets_at`."""

    def __init__(self, base_url: str, api_key: Optional[str] = None, *, retries: int = 3, timeout: float = 30.0, max_wait: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.retries = retries
        self.timeout = timeout
        self.max_wait = max_wait

    # ---- transport ------------------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any, query: Optional[dict[str, Any]], headers: Optional[dict[str, str]], *, stream: bool = False) -> RawResponse:
        url = self.base_url + path
        if query:
            url += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        sent = {"User-Agent": USER_AGENT, "Accept": "application/json, application/problem+json, */*"}
        if self.api_key:
            sent["X-API-Key"] = self.api_key
        data: Optional[bytes] = None
        if body is not None:
            if isinstance(body, (bytes, bytearray)):
                data = bytes(body)
            elif isinstance(body, str):
                data = body.encode("utf-8")
            else:
                data = json.dumps(body).encode("utf-8")
                sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        waited = 0.0
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(url, data=data, method=method, headers=sent)
            try:
                answer = urllib.request.urlopen(request, timeout=self.timeout)  # noqa: S310 (the caller's base URL)
                status, response_headers = answer.status, {k.lower(): v for k, v in answer.headers.items()}
            except urllib.error.HTTPError as error:
                answer, status, response_headers = error, error.code, {k.lower(): v for k, v in error.headers.items()}
            if status in (429, 503) and attempt < self.retries:
                content = answer.read()
                wait = self._wait(response_headers.get("retry-after"), attempt)
                if self._retryable(status, content) and waited + wait <= self.max_wait:
                    waited += wait
                    time.sleep(wait)
                    continue
                return RawResponse(status, response_headers, content)
            if stream and status < 300:
                return RawResponse(status, response_headers, b"", answer)
            return RawResponse(status, response_headers, answer.read())
        raise AssertionError("unreachable")

    @staticmethod
    def _retryable(status: int, content: bytes) -> bool:
        """503s pass; of the 429s only `rate_limited` does: a quota is not back within a wait."""
        if status == 503:
            return True
        try:
            return bool(json.loads(content).get("code") == "rate_limited")
        except (ValueError, AttributeError):
            return False

    @staticmethod
    def _wait(retry_after: Optional[str], attempt: int) -> float:
        if retry_after and retry_after.isdigit():
            return float(retry_after)
        return 0.5 * 2**attempt + random.random() / 10

    @staticmethod
    def _expect(response: RawResponse, *ok: int) -> RawResponse:
        if response.status in ok:
            return response
        if response.headers.get("content-type", "").startswith("application/problem+json"):
            retry = response.headers.get("retry-after")
            raise QrManagerError(response.status, cast(Problem, json.loads(response.body)), float(retry) if retry and retry.isdigit() else None)
        raise QrManagerError(response.status, cast(Problem, {"code": "unexpected_response", "detail": response.body[:200].decode("utf-8", "replace")}))

    @staticmethod
    def _json(response: RawResponse) -> Any:
        return json.loads(response.body)

    # ---- images -------------------------------------------------------------------------------------------

    def generate(self, content: Any, type: str = "text", output_format: str = "png", **options: Any) -> bytes:
        """The image bytes (PNG, WebP or SVG); `options` are the other generate fields (size, margin, darkColor, …)."""
        body = {"content": content, "type": type, "outputFormat": output_format, **options}
        return self._expect(self.generate_qr(body), 200).body

    # ---- batches ------------------------------------------------------------------------------------------

    def create_batch_of(self, items: list[dict[str, Any]], *, webhook_url: Optional[str] = None, idempotency_key: Optional[str] = None) -> Batch:
        """Creates a batch. An Idempotency-Key is always sent (a random one unless given), so a retried call never makes two."""
        body: dict[str, Any] = {"items": items, **({"webhookUrl": webhook_url} if webhook_url else {})}
        key = idempotency_key or f"py-{time.time_ns()}-{random.getrandbits(48):x}"
        return cast(Batch, self._json(self._expect(self.create_batch(body, headers={"Idempotency-Key": key}), 202)))

    def wait_for_batch(self, batch_id: str, *, timeout: float = 300.0, interval: float = 0.5) -> Batch:
        """Polls the batch until it has finished (completed, failed or cancelled)."""
        deadline = time.monotonic() + timeout
        while True:
            batch = cast(Batch, self._json(self._expect(self.get_batch(batch_id), 200)))
            if batch["status"] in FINISHED:
                return batch
            if time.monotonic() > deadline:
                raise TimeoutError(f"batch {batch_id} is still {batch['status']} after {timeout} s")
            time.sleep(interval)

    def iter_archive(self, batch_id: str, chunk_size: int = 64 * 1024) -> Iterator[bytes]:
        """The ZIP of a finished batch, streamed in chunks (never held whole in memory)."""
        response = self._call("GET", f"/api/v1/QRManager/batches/{batch_id}/archive", None, None, None, stream=True)
        self._expect(response, 200)
        assert response.stream is not None
        with response.stream as stream:
            while chunk := stream.read(chunk_size):
                yield chunk

    def save_archive(self, batch_id: str, path: str) -> int:
        """Streams the ZIP into `path`; returns its size in bytes."""
        size = 0
        with open(path, "wb") as out:
            for chunk in self.iter_archive(batch_id):
                out.write(chunk)
                size += len(chunk)
        return size

    # ---- dynamic codes and logos ----------------------------------------------------------------------------

    def create_code(self, target: str, name: Optional[str] = None, **fields: Any) -> DynamicCode:
        body = {"target": target, **({"name": name} if name is not None else {}), **fields}
        return cast(DynamicCode, self._json(self._expect(self.create_dynamic_code(body), 201)))

    def code_image(self, code_id: str, output_format: str = "png", **options: Any) -> bytes:
        return self._expect(self.dynamic_code_image(code_id, query={"outputFormat": output_format, **options}), 200).body

    def code_stats(self, code_id: str, **query: Any) -> dict[str, Any]:
        return cast(dict[str, Any], self._json(self._expect(self.dynamic_code_stats(code_id, query=query or None), 200)))

    def account_stats(self, **query: Any) -> dict[str, Any]:
        """The account's scans across all its dynamic codes: a series per day, totals, the top codes, devices."""
        return cast(dict[str, Any], self._json(self._expect(self.account_scan_stats(query=query or None), 200)))

    def upload_logo_bytes(self, image: bytes, media_type: str = "image/png", name: Optional[str] = None) -> Logo:
        query = {} if name is None else {"name": name}
        answer = self.upload_logo(image, query=query, headers={"Content-Type": media_type})
        return cast(Logo, self._json(self._expect(answer, 201)))
