"""QR Manager API client (standard library only): `from qr_manager import QrManager`."""
from .client import QrManager, QrManagerError, RawResponse

__all__ = ["QrManager", "QrManagerError", "RawResponse"]
