"""The Python client against a real server (QRM_BASE_URL, QRM_API_KEY: test/clients/python-sdk.test.ts starts one and runs this)."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from qr_manager import QrManager, QrManagerError  # noqa: E402
from qr_manager import client as client_module  # noqa: E402

BASE_URL = os.environ.get("QRM_BASE_URL")
API_KEY = os.environ.get("QRM_API_KEY")
FREE_API_KEY = os.environ.get("QRM_FREE_API_KEY")
PNG = b"\x89PNG\r\n\x1a\n"


def zbar(png: bytes) -> str:
    with tempfile.NamedTemporaryFile(suffix=".png") as file:
        file.write(png)
        file.flush()
        out = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sbinary", file.name], capture_output=True, check=True)
    return out.stdout.decode("utf-8").rstrip("\n")


@unittest.skipUnless(BASE_URL and API_KEY, "needs QRM_BASE_URL and QRM_API_KEY (a running server and a key)")
class ClientAgainstServer(unittest.TestCase):
    client: QrManager

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = QrManager(str(BASE_URL), api_key=API_KEY)

    def test_generates_a_png_that_reads_back(self) -> None:
        png = self.client.generate("hello from python", type="text", output_format="png", size=256)
        self.assertEqual(png[:8], PNG)
        if shutil.which("zbarimg"):
            self.assertEqual(zbar(png), "hello from python")

    def test_creates_a_batch_waits_for_it_and_streams_its_archive(self) -> None:
        items = [{"content": f"https://example.com/py/{i}", "type": "url", "outputFormat": "png", "size": 128, "name": f"py-{i}"} for i in range(3)]
        batch = self.client.create_batch_of(items, idempotency_key="py-batch-1")
        again = self.client.create_batch_of(items, idempotency_key="py-batch-1")
        self.assertEqual(again["id"], batch["id"])
        done = self.client.wait_for_batch(batch["id"], timeout=60)
        self.assertEqual((done["status"], done["succeeded"]), ("completed", 3))
        archive = b"".join(self.client.iter_archive(batch["id"]))
        with zipfile.ZipFile(io.BytesIO(archive)) as zip_file:
            names = sorted(zip_file.namelist())
            self.assertEqual(names, ["manifest.csv", "py-0.png", "py-1.png", "py-2.png"])
            self.assertEqual(zip_file.read("py-1.png")[:8], PNG)

    def test_creates_a_dynamic_code_draws_it_and_reads_its_stats(self) -> None:
        code = self.client.create_code("https://example.com/python-target", name="from python")
        self.assertTrue(code["shortUrl"].endswith("/r/" + code["slug"]))
        png = self.client.code_image(code["id"], size=256)
        self.assertEqual(png[:8], PNG)
        if shutil.which("zbarimg"):
            self.assertEqual(zbar(png), code["shortUrl"])
        stats = self.client.code_stats(code["id"])
        self.assertEqual(stats["codeId"], code["id"])
        self.assertIn("scans", stats["totals"])
        account = self.client.account_stats(interval="day")
        self.assertEqual(account["interval"], "day")
        self.assertEqual(len(account["series"]), 30)

    def test_turns_a_problem_into_an_error_with_its_code(self) -> None:
        with self.assertRaises(QrManagerError) as raised:
            QrManager(str(BASE_URL), api_key="qrm_live_notakey").generate("x")
        self.assertEqual((raised.exception.status, raised.exception.code), (401, "invalid_api_key"))
        with self.assertRaises(QrManagerError) as bad:
            self.client.generate("x", type="nope")
        self.assertEqual(bad.exception.code, "unsupported_type")

    @unittest.skipUnless(FREE_API_KEY, "needs QRM_FREE_API_KEY (a key of a free account with no codes yet)")
    def test_a_quota_429_raises_at_once_with_its_reset_time(self) -> None:
        free = QrManager(str(BASE_URL), api_key=FREE_API_KEY)
        for n in range(5):
            free.generate(f"free-{n}")
        slept: list[float] = []
        real_sleep = client_module.time.sleep
        client_module.time.sleep = slept.append  # the test owns the clock: any wait is recorded, never taken
        try:
            with self.assertRaises(QrManagerError) as raised:
                free.generate("free-over-the-quota")
        finally:
            client_module.time.sleep = real_sleep
        self.assertEqual((raised.exception.status, raised.exception.code), (429, "qr_quota_exceeded"))
        self.assertEqual(slept, [])
        self.assertIsNotNone(raised.exception.resets_at)
        self.assertGreater(raised.exception.retry_after or 0, 0)


if __name__ == "__main__":
    unittest.main()
