# Independent QR encoders for the tests: segno (Python) and libqrencode (C, via ctypes), each given text in its best exact encoding.
# stdin: JSON {"payloads": [...], "levels": [...], "render": [[payload, level, path], ...]}; stdout: JSON versions per payload and level.
import ctypes
import json
import sys

import segno


class QRcode(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int), ("width", ctypes.c_int), ("data", ctypes.c_void_p)]


libqrencode = ctypes.CDLL("libqrencode.so.4")
libqrencode.QRcode_encodeString.restype = ctypes.POINTER(QRcode)
libqrencode.QRcode_encodeString.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
libqrencode.QRcode_free.argtypes = [ctypes.POINTER(QRcode)]
QR_LEVEL = {"L": 0, "M": 1, "Q": 2, "H": 3}
QR_MODE_8, QR_MODE_KANJI = 2, 3


def qrencode_version(text, level):
    """libqrencode's own mode split; Kanji hint for text that Shift-JIS carries, else ISO-8859-1, else UTF-8 bytes."""
    for encoding, hint in (("iso-8859-1", QR_MODE_8), ("shift_jis", QR_MODE_KANJI), ("utf-8", QR_MODE_8)):
        try:
            data = text.encode(encoding)
        except UnicodeError:
            continue
        code = libqrencode.QRcode_encodeString(data, 0, QR_LEVEL[level], hint, 1)
        if not code:
            return None
        version = code.contents.version
        libqrencode.QRcode_free(code)
        return version


def segno_version(text, level):
    try:
        return segno.make(text, error=level, boost_error=False, micro=False).version
    except segno.DataOverflowError:
        return None


request = json.load(sys.stdin)
result = {
    "segno": [[segno_version(p, level) for level in request["levels"]] for p in request["payloads"]],
    "qrencode": [[qrencode_version(p, level) for level in request["levels"]] for p in request["payloads"]],
}
for payload, level, path in request.get("render", []):
    segno.make(payload, error=level, boost_error=False, micro=False).save(path, scale=6, border=4)
json.dump(result, sys.stdout)
