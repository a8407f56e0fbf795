#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of the fipc duplex ring fuzzer (fuzz_duplex.c).

Each seed is one fuzz case in the format fuzz_duplex.c reads: a header
byte (ring order in the low bits, bit 7: a 4-byte start position
follows), the acknowledgment batch byte (0: the default), [start], the
number of raw slots for the ring and their bytes, then operations of an
opcode byte and an argument byte (some with more bytes).
"""
import os
import struct
import sys

# opcodes (op % 23 in fuzz_duplex.c)
CALL, POST, TAKE_REPLY, REPLY_READY, CLIENT_WAIT = 0, 2, 3, 5, 6
TAKE_REQ, REPLY, FLUSH, REQ_READY, SERVER_WAIT, SET_BATCH = \
    7, 9, 11, 12, 13, 14
RAW_FLAG, RAW_BYTES, PEER_REQ, PEER_REPLY, MANY_CALLS = 15, 16, 17, 18, 19
TAKE_REPLIES, TAKE_REQS, REPLY_N = 20, 21, 22
K_CALL, K_POST, K_REPLY, K_ACK = 0xc1, 0xc2, 0xc4, 0xc8


def flag(kind, count, pos, order=0):
    """The flag at position pos: its lap (pos >> (6 + order)) stamped."""
    return kind << 24 | count << 16 | ((pos >> (6 + order)) & 0xffff)


def case(order, batch=0, start=None, raw=b'', ops=b''):
    hdr = order | (0x80 if start is not None else 0)
    out = bytes([hdr, batch])
    if start is not None:
        out += struct.pack('<I', start & 0xffffffff)
    out += bytes([len(raw) // 64]) + raw
    return out + ops


def op(code, arg=0, extra=b''):
    return bytes([code, arg]) + extra


def call(n):
    """A call of n slots: arg % 4 == 0 gives arg % 41 slots, 1 gives 1."""
    if n == 1:
        return op(CALL, 1)
    for a in range(256):
        if a % 4 == 0 and a % 41 == n:
            return op(CALL, a)
    raise ValueError(n)


def post(n):
    """A posted request of n slots: arg % 3 != 0 gives 1, else arg % 41."""
    for a in range(256):
        if (a % 3 == 0 and a % 41 == n) or (n == 1 and a % 3):
            return op(POST, a)
    raise ValueError(n)


def take(maxs=32):
    return op(TAKE_REQ, maxs)


def raw_flag(f, at_server, ahead=0):
    return op(RAW_FLAG, ahead << 1 | (1 if at_server else 0),
              struct.pack('<I', f))


def peer_req(length, posted=False, ahead=0):
    return op(PEER_REQ, length - 1,
              bytes([ahead << 4 | (1 if posted else 0)]) + b'\x5a' * 4 *
              length)


def peer_reply(span, ack=False, ahead=0):
    return op(PEER_REPLY, span, bytes([ahead << 4 | (1 if ack else 0)]) +
              b'\xa5' * 4)


def slot(byte, f):
    return bytes([byte]) * 60 + struct.pack('<I', f)


def seeds():
    s = {}
    for order in range(5):
        s['empty-o%d' % order] = case(order, ops=op(TAKE_REPLY) +
                                      take() + op(REPLY_READY) +
                                      op(REQ_READY) + op(CLIENT_WAIT, 1) +
                                      op(SERVER_WAIT, 1))
        s['roundtrip-o%d' % order] = case(
            order, ops=call(1) + take() + op(REPLY) + op(TAKE_REPLY) +
            call(3) + call(1) + take() + take() + op(REPLY) + op(REPLY) +
            op(TAKE_REPLY) + op(TAKE_REPLY) + post(1) + take() +
            op(TAKE_REPLY))
    s['full-ring'] = case(0, ops=op(MANY_CALLS, 64) + call(1) + take(1) * 64 +
                          op(REPLY) * 64 + op(TAKE_REPLY) * 64)
    s['posted-stream'] = case(0, ops=(post(1) * 8 + take(1) * 8) * 9 +
                              post(5) + take(5) + op(TAKE_REPLY))
    s['multislot-ack-batch'] = case(0, batch=3, ops=call(8) + call(10) +
                                    take() + take() + op(TAKE_REPLY) +
                                    op(SET_BATCH, 1) + op(FLUSH) +
                                    op(SET_BATCH, 1) + op(REPLY) +
                                    op(REPLY) + op(TAKE_REPLY) +
                                    op(TAKE_REPLY))
    s['big-ack-split'] = case(4, batch=254, ops=call(32) * 9 + take() * 9 +
                              op(TAKE_REPLY) + op(REPLY) * 9 +
                              op(TAKE_REPLY) * 9)
    s['emsgsize'] = case(0, ops=call(9) + take(0) + take(8) + take(9))
    s['u32-wrap'] = case(0, start=0xfffffff0, raw=b''.join(
        slot(0, flag(K_REPLY, 1, 0xfffffff0 + i - 64)) for i in range(64)),
        ops=(call(2) + call(1) + take() + take() + op(REPLY) + op(REPLY) +
             op(TAKE_REPLY) * 2) * 12)
    s['server-wait-flush'] = case(0, ops=call(4) + take() +
                                  op(SERVER_WAIT, 2) + op(CLIENT_WAIT, 2) +
                                  op(TAKE_REPLY))
    # hostile servers at the done cursor, two calls out
    bad_server = {
        'kind': 0x5a010000, 'ready': 0xa5010000, 'span0': flag(K_REPLY, 0, 0),
        'span-past': flag(K_REPLY, 2, 0), 'ack-reserved': flag(K_ACK, 1, 0),
        'stale-reply': flag(K_REPLY, 1, -64), 'next': flag(K_REPLY, 1, 64),
        'own-33': flag(K_CALL, 33, 0), 'zero': 0,
    }
    for name, f in bad_server.items():
        s['server-bad-' + name] = case(0, ops=call(1) + call(1) +
                                       raw_flag(f, False) +
                                       op(REPLY_READY) + op(TAKE_REPLY) +
                                       op(CLIENT_WAIT, 1) + call(1) +
                                       op(TAKE_REPLY))
    s['server-reply-unsubmitted'] = case(0, ops=peer_reply(1) +
                                         op(TAKE_REPLY))
    s['server-reply-to-post'] = case(0, ops=post(1) + peer_reply(1) +
                                     op(TAKE_REPLY))
    s['server-bad-full'] = case(0, ops=op(MANY_CALLS, 64) +
                                raw_flag(flag(K_ACK, 1, 0), False) + post(1))
    # hostile clients at the read cursor
    bad_client = {
        'kind': 0x5a010000, 'ready': 0xa5010000, 'reply': flag(K_REPLY, 1, 0),
        'cont-head': flag(K_CALL, 0, 0), 'len33': flag(K_CALL, 33, 0),
        'next': flag(K_CALL, 1, 64), 'lap-ahead': flag(K_CALL, 1, 128),
        'stale-33': flag(K_CALL, 33, -64),
    }
    for name, f in bad_client.items():
        s['client-bad-' + name] = case(0, ops=raw_flag(f, True) +
                                       op(REQ_READY) + take() +
                                       op(SERVER_WAIT, 1) + op(REPLY) +
                                       op(FLUSH))
    s['client-stale-ok'] = case(0, ops=raw_flag(flag(K_REPLY, 5, -64), True) +
                                take() + raw_flag(flag(K_POST, 32, -64), True) +
                                take())
    s['client-torn'] = case(0, ops=call(4) + raw_flag(flag(K_POST, 0, 2),
                                                       True, 2) + take())
    s['client-overfill'] = case(0, ops=op(MANY_CALLS, 64) + take(1) * 64 +
                                peer_req(1) + take() + op(REPLY))
    s['client-overfill-post'] = case(0, ops=op(MANY_CALLS, 64) +
                                     take(1) * 64 + peer_req(1, True) + take())
    s['client-overfill-multi'] = case(0, ops=op(MANY_CALLS, 62) +
                                      take(1) * 62 + peer_req(3) + take())
    s['client-zero-later-lap'] = case(0, ops=(call(1) + take() + op(REPLY) +
                                              op(TAKE_REPLY)) * 64 +
                                      raw_flag(0, True) + take())
    s['bursts'] = case(0, ops=op(MANY_CALLS, 10) + post(1) + call(1) +
                       op(TAKE_REQS, 4) + op(TAKE_REQS, 64) + take() +
                       op(TAKE_REQS, 64) + op(REPLY_N, 12) + op(REPLY_N, 11) +
                       op(TAKE_REPLIES, 3) + op(TAKE_REPLIES, 64))
    s['bursts-laps'] = case(0, ops=(op(MANY_CALLS, 40) + op(TAKE_REQS, 64) +
                                    op(REPLY_N, 40) +
                                    op(TAKE_REPLIES, 64)) * 5)
    s['bursts-bad-mid'] = case(0, ops=op(MANY_CALLS, 6) +
                               raw_flag(flag(K_CALL, 1, 64), True, 3) +
                               op(TAKE_REQS, 64) + op(TAKE_REQS, 64) +
                               op(REPLY_N, 3))
    s['payload-scribble'] = case(0, ops=call(3) + op(RAW_BYTES, 1,
                                 b'\xee' * 8) + take())
    return s


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else 'corpus-duplex'
    os.makedirs(outdir, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(outdir, name), 'wb') as f:
            f.write(data)
    print('%d seeds in %s' % (len(seeds()), outdir))


if __name__ == '__main__':
    main()
