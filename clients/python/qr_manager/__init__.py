"""QR Manager API client (standard library only): `from qr_manager import QrManager`."""
from .client import QrManager, QrManagerError, RawResponse
from .signed_url import IMAGE_FORMATS, ImageFormat, signed_image_url

__all__ = ["QrManager", "QrManagerError", "RawResponse", "signed_image_url", "ImageFormat", "IMAGE_FORMATS"]
