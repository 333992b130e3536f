#!/usr/bin/env python3
"""A fixed one-way delay for every packet an iptables NFQUEUE rule hands over.

    nfq_delay.py QUEUE_NUM DELAY_US READY_FILE

tools/multihost.sh runs one inside each emulated host (its own network namespace) for
`--delay`: this kernel has no sch_netem, the usual way to delay packets. The rule
`iptables -t mangle -A POSTROUTING -o eth0 -j NFQUEUE --queue-num Q --queue-bypass`
queues every packet leaving the host; this program holds each one DELAY_US and then
lets it go, in arrival order, so a round trip between two hosts takes 2 x DELAY_US on
top of the wire. It asks the kernel for packet metadata only (no payload copies) and
keeps GSO packets whole, so it keeps up with a 1 Gbit/s link from Python; a verdict
accepts every packet up to an id in one message.

It writes its pid to READY_FILE once the queue is bound (the script waits for that
before starting MPI) and runs until killed. --queue-bypass in the rule means packets
pass undelayed, never dropped, if it is not running.

The protocol is nfnetlink_queue's (linux/netfilter/nfnetlink_queue.h): messages are
netlink headers + struct nfgenmsg + attributes.
"""
import collections
import os
import select
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET, NFQNL_MSG_CONFIG, NFQNL_MSG_VERDICT_BATCH = 0, 2, 3
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
# attributes
NFQA_PACKET_HDR, NFQA_VERDICT_HDR = 1, 2
NFQA_CFG_CMD, NFQA_CFG_PARAMS, NFQA_CFG_QUEUE_MAXLEN = 1, 2, 3
NFQA_CFG_MASK, NFQA_CFG_FLAGS = 4, 5
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NFQA_CFG_F_GSO = 4
NF_ACCEPT = 1
SO_RCVBUFFORCE = 33


def attribute(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def message(queue, kind, flags, attributes, seq=0):
    # struct nfgenmsg: family (unspec), version 0, resource id = the queue (big-endian)
    body = struct.pack("!BBH", 0, 0, queue) + b"".join(attributes)
    header = struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | kind, flags, seq, 0)
    return header + body


def configure(sock, queue):
    requests = [
        [attribute(NFQA_CFG_CMD, struct.pack("=BBH", NFQNL_CFG_CMD_BIND, 0, 0))],
        [attribute(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META)),
         attribute(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", 1 << 20)),
         attribute(NFQA_CFG_MASK, struct.pack("!I", NFQA_CFG_F_GSO)),
         attribute(NFQA_CFG_FLAGS, struct.pack("!I", NFQA_CFG_F_GSO))],
    ]
    for seq, attrs in enumerate(requests, 1):
        sock.send(message(queue, NFQNL_MSG_CONFIG, NLM_F_REQUEST | NLM_F_ACK, attrs, seq))
        reply = sock.recv(65536)
        _, kind = struct.unpack_from("=IH", reply)
        if kind == NLMSG_ERROR:
            (error,) = struct.unpack_from("=i", reply, 16)
            if error:
                sys.exit(f"nfq_delay: configuring queue {queue} failed: {os.strerror(-error)}")


def packet_ids(buffer):
    """The ids of the queued packets in one read of the socket."""
    offset = 0
    while offset + 16 <= len(buffer):
        length, kind = struct.unpack_from("=IH", buffer, offset)
        if length < 16:
            return
        if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
            at = offset + 20  # netlink header (16) + nfgenmsg (4)
            while at + 4 <= offset + length:
                attr_length, attr_kind = struct.unpack_from("=HH", buffer, at)
                if attr_length < 4:
                    break
                if attr_kind & 0x7FFF == NFQA_PACKET_HDR:
                    yield struct.unpack_from("!I", buffer, at + 4)[0]
                    break
                at += (attr_length + 3) & ~3
        offset += (length + 3) & ~3


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: nfq_delay.py QUEUE_NUM DELAY_US READY_FILE")
    queue, delay_s, ready_file = int(sys.argv[1]), int(sys.argv[2]) / 1e6, sys.argv[3]
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    try:  # room for a burst of packet notices while packets wait
        sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    except OSError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
    sock.bind((0, 0))
    configure(sock, queue)
    sock.setblocking(False)
    with open(ready_file, "w") as f:
        f.write(f"{os.getpid()}\n")

    waiting = collections.deque()  # (release time, packet id), in arrival order
    while True:
        wait = max(0.0, waiting[0][0] - time.monotonic()) if waiting else None
        readable, _, _ = select.select([sock], [], [], wait)
        if readable:
            while True:
                try:
                    buffer = sock.recv(1 << 20)
                except BlockingIOError:
                    break
                except OSError as e:  # ENOBUFS: notices were lost; the batch verdicts
                    print(f"nfq_delay: {e}", file=sys.stderr)  # below still accept those
                    break  # packets, whose ids are below later ones
                release = time.monotonic() + delay_s
                waiting.extend((release, packet_id) for packet_id in packet_ids(buffer))
        now, last_due = time.monotonic(), None
        while waiting and waiting[0][0] <= now:
            last_due = waiting.popleft()[1]
        if last_due is not None:  # accept every queued packet with an id <= last_due
            verdict = attribute(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, last_due))
            sock.send(message(queue, NFQNL_MSG_VERDICT_BATCH, NLM_F_REQUEST, [verdict]))


if __name__ == "__main__":
    main()
