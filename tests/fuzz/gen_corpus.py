#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of the fipc receive-path fuzzer.

Each seed is one fuzz case in the format fuzz_rx.c reads: a header byte
(ring order in the low bits, bit 7: a 4-byte start sequence follows), the
release batch byte, [start], the number of raw slots for the receiving
ring and their bytes, the same for the sending ring, then operations of
an opcode byte and an argument byte (some with more bytes).
"""
import os
import struct
import sys

READY = 0xa5000000
# opcodes (op % 16 in fuzz_rx.c)
RECV, BURST, RELEASE, PENDING, READY_Q, WAIT = 0, 2, 3, 4, 5, 6
PEER_SEND, PEER_FLAG, PEER_BYTES = 7, 9, 10
SEND, SEND_BURST, TX_SPACE, PEER_FREE, PEER_FILL, PEER_TX_FLAG = \
    11, 12, 13, 14, 15, 16


def flag(seq, length):
    return READY | (length << 16) | (seq & 0xffff)


def case(order, batch=0, start=None, rx_raw=b'', tx_raw=b'', ops=b''):
    hdr = order | (0x80 if start is not None else 0)
    out = bytes([hdr, batch])
    if start is not None:
        out += struct.pack('<I', start & 0xffffffff)
    out += bytes([len(rx_raw) // 64]) + rx_raw
    out += bytes([len(tx_raw) // 64]) + tx_raw
    return out + ops


def op(code, arg=0, extra=b''):
    return bytes([code, arg]) + extra


def peer_send(length):
    # payload bytes: 16 for the head, 4 per continuation slot
    return op(PEER_SEND, length - 1, bytes(range(16 + 4 * (length - 1))))


def slot(payload_byte, flg):
    return bytes([payload_byte]) * 60 + struct.pack('<I', flg)


def seeds():
    s = {}
    for order in range(5):
        s['empty-o%d' % order] = case(order, ops=op(RECV, 1) +
                                      op(BURST, 8) + op(PENDING, 255) +
                                      op(READY_Q) + op(WAIT, 2))
        s['roundtrip-o%d' % order] = case(
            order, ops=peer_send(1) + op(RECV, 1) + peer_send(3) +
            op(RECV, 2) + op(RECV, 3) + op(SEND, 4) + op(TX_SPACE, 255))
    s['burst-then-multi'] = case(0, ops=peer_send(1) * 3 + peer_send(5) +
                                 peer_send(1) + op(BURST, 16) +
                                 op(BURST, 16) + op(RECV, 32) +
                                 op(BURST, 16))
    s['batch-hold'] = case(0, batch=7, ops=peer_send(1) * 10 +
                           op(BURST, 9) + op(PENDING, 255) +
                           op(RELEASE) + op(RECV, 1) + op(RECV, 1))
    s['batch-full-pending'] = case(0, batch=31, ops=op(PEER_FILL, 16, b'\0') +
                                   op(BURST, 20) + op(PEER_FILL, 5, b'\0') +
                                   op(PENDING, 255) + op(BURST, 40) +
                                   op(READY_Q) + op(BURST, 40))
    s['max-msg-wrap'] = case(0, start=60, ops=peer_send(32) + op(RECV, 31) +
                             op(RECV, 32) + peer_send(32) + op(RECV, 40))
    s['u32-wrap'] = case(1, start=0xfffffff0, ops=(peer_send(7) +
                         op(RECV, 7)) * 5 + (op(SEND, 9) +
                         op(PEER_FREE, 9)) * 5)
    # hostile heads at the cursor
    bad = {
        'kind': 0x5a010000, 'seq': flag(1, 1), 'len0': flag(0, 0),
        'len33': flag(0, 33), 'len255': flag(0, 255),
        'stale': flag(-64, 1), 'low-bit': 1,
    }
    for name, f in bad.items():
        s['rx-bad-' + name] = case(0, rx_raw=slot(0x11, f),
                                   ops=op(PENDING, 255) + op(RECV, 32) +
                                   op(RECV, 32) + op(BURST, 4) +
                                   op(WAIT, 1))
    # bad continuation slots
    for name, f in {'cont-seq': flag(2, 0), 'cont-len': flag(1, 1),
                    'cont-free': 0}.items():
        s['rx-bad-' + name] = case(0, rx_raw=slot(1, flag(0, 2)) +
                                   slot(2, f), ops=op(RECV, 2) +
                                   op(RECV, 2))
    s['rx-peer-flag'] = case(2, ops=peer_send(2) + op(PEER_FLAG, 1,
                             struct.pack('<I', flag(5, 0))) +
                             op(RECV, 8) + op(RECV, 8))
    s['rx-payload-scribble'] = case(0, ops=peer_send(3) +
                                    op(PEER_BYTES, 1, b'\xee' * 8) +
                                    op(RECV, 3))
    s['emsgsize'] = case(0, ops=peer_send(9) + op(RECV, 0) + op(RECV, 8) +
                         op(RECV, 9))
    # sender side
    s['tx-full'] = case(0, ops=op(SEND, 32) + op(SEND, 32) +
                        op(SEND, 1) + op(SEND_BURST, 4) +
                        op(TX_SPACE, 255) + op(PEER_FREE, 3) +
                        op(SEND_BURST, 16) + op(SEND, 0) + op(SEND, 33))
    s['tx-garbage'] = case(0, ops=op(PEER_TX_FLAG, 2,
                           struct.pack('<I', 0xdeadbeef)) +
                           op(SEND_BURST, 8) + op(SEND, 1) +
                           op(TX_SPACE, 255))
    s['tx-raw-lap-ago'] = case(0, start=64, tx_raw=slot(0, flag(0, 3)) +
                               slot(0, flag(1, 0)) + slot(0, flag(2, 0)),
                               ops=op(SEND, 1) + op(TX_SPACE, 255) +
                               op(PEER_FREE, 0))
    return s


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else 'corpus'
    os.makedirs(outdir, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(outdir, name), 'wb') as f:
            f.write(data)
    print('%d seeds in %s' % (len(seeds()), outdir))


if __name__ == '__main__':
    main()
