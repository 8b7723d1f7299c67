"""The section table of an iden3 binary file (.zkey, .wtns, .r1cs: docs/formats.md §2), for
the integration tests' Python helpers: sections(data) -> {id: (payload offset, size)}."""
import struct


def sections(data, magic=None):
    if magic is not None:
        assert data[:4] == magic, f"not a {magic.decode()} file"
    count = struct.unpack_from("<I", data, 8)[0]
    pos, found = 12, {}
    for _ in range(count):
        kind, size = struct.unpack_from("<IQ", data, pos)
        found[kind] = (pos + 12, size)
        pos += 12 + size
    return found
