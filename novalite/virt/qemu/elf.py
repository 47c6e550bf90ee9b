"""What a 64-bit little-endian ELF executable needs to run: its program interpreter
(PT_INTERP) and the shared libraries it names (DT_NEEDED). The guest's initramfs has no
ldd and no ld.so.cache, so the build reads them from the file to put each library where
the interpreter looks; binutils need not be installed for it."""

from __future__ import annotations

import struct

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB = 0, 1, 5


class ElfError(ValueError):
    """Not a 64-bit little-endian ELF file, or one whose tables point outside it."""


def _segments(data: bytes) -> list[tuple[int, int, int, int]]:
    """(type, file offset, virtual address, size in the file) of each program header."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4:6] != b"\x02\x01":
        raise ElfError("not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    if phoff + phentsize * phnum > len(data):
        raise ElfError("program headers beyond the end of the file")
    found = []
    for i in range(phnum):
        kind, _flags, offset, vaddr, _paddr, filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        found.append((kind, offset, vaddr, filesz))
    return found


def _string(data: bytes, offset: int) -> str:
    end = data.find(b"\0", offset)
    if offset >= len(data) or end < 0:
        raise ElfError(f"no string at offset {offset}")
    return data[offset:end].decode()


def interpreter(data: bytes) -> str | None:
    """The absolute path of the program interpreter; None for a static executable."""
    for kind, offset, _vaddr, _size in _segments(data):
        if kind == PT_INTERP:
            return _string(data, offset)
    return None


def needed(data: bytes) -> list[str]:
    """The sonames of the shared libraries the file is linked against, in its order."""
    segments = _segments(data)
    dynamic = next(((offset, size) for kind, offset, _vaddr, size in segments
                    if kind == PT_DYNAMIC), None)
    if dynamic is None:
        return []
    entries = [struct.unpack_from("<qQ", data, dynamic[0] + at)
               for at in range(0, dynamic[1] - 15, 16)]
    entries = entries[:next((i for i, (tag, _) in enumerate(entries) if tag == DT_NULL),
                            len(entries))]
    strtab = next((value for tag, value in entries if tag == DT_STRTAB), None)
    if strtab is None:
        raise ElfError("a dynamic section without a string table")
    # DT_STRTAB is an address in memory: the loadable segment holding it maps it to the file
    base = next((offset + strtab - vaddr for kind, offset, vaddr, size in segments
                 if kind == PT_LOAD and vaddr <= strtab < vaddr + size), None)
    if base is None:
        raise ElfError(f"the string table's address {strtab:#x} is in no loaded segment")
    return [_string(data, base + value) for tag, value in entries if tag == DT_NEEDED]
