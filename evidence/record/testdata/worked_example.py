#!/usr/bin/python3
"""Independent computation of the worked-example entry record.

Run with Debian's python3-cbor2 and python3-cryptography:

    /usr/bin/python3 record/testdata/worked_example.py > record/testdata/worked_example.json

cbor2's canonical=True sorts map keys length-first then bytewise; for text
keys shorter than 24 bytes that is the RFC 8949 core deterministic order, and
it writes floats in their shortest exact form. Ed25519 (RFC 8032) is
deterministic, so Go's signature over the same bytes must equal this one.
"""
import hashlib
import json

import cbor2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization

seed = bytes([0x42] * 32)
priv = Ed25519PrivateKey.from_private_bytes(seed)
pub = priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def uuid7(first):
    b = bytearray(range(first, first + 16))
    b[6] = 0x70 | (b[6] & 0x0F)
    b[8] = 0x80 | (b[8] & 0x3F)
    return bytes(b)


record = {
    "v": 1,
    "kind": "entry",
    "eid": uuid7(0x01),
    "content": "Pay the prize to the author born first.",
    "writer": "agent:planner",
    "kid": hashlib.sha256(pub).digest()[:8],
    "h_src": hashlib.sha256(b"src").digest(),
    "h_ctx": hashlib.sha256(b"ctx").digest(),
    "trust": 1,
    "parents": [uuid7(0x21), uuid7(0x41)],
    "weights": [0.5, 0.9],
    "ts": 1772442000123456789,
    "nonce": bytes(range(0xA0, 0xB0)),
}
signing = cbor2.dumps(record, canonical=True)
sig = priv.sign(signing)
record["sig"] = sig
full = cbor2.dumps(record, canonical=True)
print(json.dumps({
    "seed": seed.hex(),
    "public_key": pub.hex(),
    "signing_bytes": signing.hex(),
    "sig": sig.hex(),
    "record": full.hex(),
}, indent=2))
