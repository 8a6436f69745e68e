"""signed_image_url: a signed image URL (GET /i/{keyId}/{format}) made locally with a signing key: no network, no API key."""
import base64
import hashlib
import hmac
from datetime import datetime
from typing import Literal, Mapping, Optional, Union
from urllib.parse import quote


# The image formats (outputFormat): pdf and eps take sizeMm and cmyk() colours (docs/print.md).
ImageFormat = Literal["png", "webp", "svg", "pdf", "eps"]
IMAGE_FORMATS = ("png", "webp", "svg", "pdf", "eps")


def _enc(value: str) -> str:
    # RFC 3986: everything but the unreserved characters is percent-encoded (UTF-8), as the service's canonical string.
    return quote(value, safe="-_.~")


def _text(value: Union[str, int, float, bool]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def signed_image_url(
    base_url: str,
    key_id: str,
    secret: str,
    format: ImageFormat,
    params: Mapping[str, Union[str, int, float, bool]],
    expires: Optional[Union[datetime, int]] = None,
) -> str:
    """The canonical string is the path, `?`, every parameter but `sig` as enc(name)=enc(value) sorted by name then
    value, joined by `&`; `sig` is base64url (no padding) of HMAC-SHA256(secret, canonical string). See docs/signed-urls.md."""
    values = {name: _text(value) for name, value in params.items()}
    if expires is not None:
        values["exp"] = str(int(expires.timestamp()) if isinstance(expires, datetime) else int(expires))
    pairs = sorted((_enc(name), _enc(value)) for name, value in values.items())
    canonical = f"/i/{_enc(key_id)}/{_enc(format)}?" + "&".join(f"{name}={value}" for name, value in pairs)
    digest = hmac.new(secret.encode("utf-8"), canonical.encode("utf-8"), hashlib.sha256).digest()
    sig = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
    return f"{base_url.rstrip('/')}{canonical}&sig={sig}"
