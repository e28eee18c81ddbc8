"""Reading the text header of Matrix Market and METIS files, line by line."""

from __future__ import annotations

from tricount.errors import GraphFormatError
from tricount.io._source import SNIFF_BYTES, head_bytes

#: Header lines (banner, comments, size line) are looked for in this many bytes.
MAX_HEADER_BYTES = 16 << 20


class HeaderLines:
    """Iterate the lines at the start of a file with their 1-based numbers and end offsets."""

    def __init__(self, path):
        self.path = path
        self._data = head_bytes(path, SNIFF_BYTES)
        self._full = len(self._data) < SNIFF_BYTES
        self._pos = 0
        self.line = 0
        if self._data.startswith(b"\xef\xbb\xbf"):
            self._pos = 3

    def next(self):
        """The next line (str, without its end) or None at the end of the file."""
        while True:
            end = self._data.find(b"\n", self._pos)
            if end >= 0 or self._full:
                break
            if len(self._data) >= MAX_HEADER_BYTES:
                raise GraphFormatError(self.path, "no header line found in the first "
                                       f"{MAX_HEADER_BYTES >> 20} MiB", line=self.line + 1)
            size = min(2 * len(self._data), MAX_HEADER_BYTES)
            self._data = head_bytes(self.path, size)
            self._full = len(self._data) < size
        if self._pos >= len(self._data):
            return None
        if end < 0:
            end = len(self._data)
        raw = self._data[self._pos:end]
        self._pos = end + 1
        self.line += 1
        return raw.rstrip(b"\r").decode("utf-8", errors="replace")

    @property
    def offset(self) -> int:
        """Bytes from the start of the (decompressed) file to the next unread line."""
        return min(self._pos, len(self._data))
