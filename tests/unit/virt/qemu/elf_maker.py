"""Minimal 64-bit ELF files with what a loader reads of them: one loadable segment
mapping the whole file, and maybe a program interpreter and a dynamic section naming
the libraries it needs."""

from __future__ import annotations

import struct

BASE = 0x400000
PHENTSIZE = 56


def executable(interpreter: str | None = None, needed: tuple[str, ...] = (),
               dynamic: bool | None = None) -> bytes:
    """An ELF file; `dynamic` (default: whether any library is needed) adds PT_DYNAMIC."""
    dynamic = bool(needed) if dynamic is None else dynamic
    phnum = 1 + (interpreter is not None) + dynamic
    body_at = 64 + PHENTSIZE * phnum
    interp = interpreter.encode() + b"\0" if interpreter is not None else b""
    strtab = b"\0"
    entries = []
    for soname in needed:
        entries.append((1, len(strtab)))  # DT_NEEDED
        strtab += soname.encode() + b"\0"
    strtab_at = body_at + len(interp)
    entries += [(5, BASE + strtab_at), (0, 0)]  # DT_STRTAB, DT_NULL
    dynamic_at = strtab_at + len(strtab) + (-(strtab_at + len(strtab)) % 8)
    table = b"".join(struct.pack("<qQ", tag, value) for tag, value in entries)
    size = dynamic_at + len(table)

    def header(kind: int, offset: int, filesz: int) -> bytes:
        return struct.pack("<IIQQQQQQ", kind, 4, offset, BASE + offset, BASE + offset,
                           filesz, filesz, 8)

    headers = header(1, 0, size)
    if interpreter is not None:
        headers += header(3, body_at, len(interp))
    if dynamic:
        headers += header(2, dynamic_at, len(table))
    ident = b"\x7fELF\x02\x01\x01" + bytes(9)
    elf_header = ident + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, BASE, 64, 0, 0, 64,
                                     PHENTSIZE, phnum, 64, 0, 0)
    body = interp + strtab
    body += bytes(dynamic_at - body_at - len(body))
    return elf_header + headers + body + table
