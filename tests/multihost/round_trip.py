"""Round trips between the first two emulated hosts of tools/multihost.sh: run as two
ranks (one per host); the rank on host 1 prints the fastest and the median of 40 TCP
round trips of one byte to the rank on host 2. harness_test.sh checks --delay with it."""
import os
import socket
import statistics
import time

PORT = 47011
rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
host = socket.gethostname()
second_host = host[: host.rindex("n")] + "n2"  # multihost.sh names hosts tmh<slot>n<i>

if rank == 1:
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", PORT))
    server.listen(1)
    server.settimeout(20)
    peer, _ = server.accept()
    peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while byte := peer.recv(1):
        peer.sendall(byte)
else:
    deadline = time.monotonic() + 20
    while True:
        try:
            peer = socket.create_connection((second_host, PORT), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    times = []
    for _ in range(40):
        start = time.perf_counter()
        peer.sendall(b"x")
        assert peer.recv(1) == b"x"
        times.append(time.perf_counter() - start)
    peer.close()
    print(f"round_trip_ms min {min(times) * 1e3:.3f} median {statistics.median(times) * 1e3:.3f}")
