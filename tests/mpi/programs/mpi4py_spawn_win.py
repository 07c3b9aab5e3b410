#!/usr/bin/python3
"""Issue #26's mpi4py failures on emulated nodes, in one program: every rank spawns a child
of its own over MPI.COMM_SELF (mpi4py's test_spawn does), then MPI.Win.Allocate over
MPI.COMM_WORLD (a put ring) and MPI.Win.Allocate_shared over each node's ranks (test_win).
Prints "rank R: spawn ok", "rank R: allocate ok" and "rank R: shared ok node_size S"."""
import sys

from mpi4py import MPI

if len(sys.argv) > 1 and sys.argv[1] == "child":
    parent = MPI.Comm.Get_parent()
    parent.send(MPI.Get_processor_name(), dest=0)
    parent.Disconnect()
    sys.exit(0)

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()

child = MPI.COMM_SELF.Spawn(sys.executable, [__file__, "child"], 1)
child.recv(source=0)
child.Disconnect()
print(f"rank {rank}: spawn ok", flush=True)

win = MPI.Win.Allocate(MPI.INT.Get_size(), MPI.INT.Get_size(), comm=world)
mine = memoryview(win).cast("B").cast("i")
mine[0] = -1
win.Fence()
win.Put(bytearray(rank.to_bytes(4, sys.byteorder, signed=True)), (rank + 1) % size)
win.Fence()
got = mine[0]
win.Free()
want = (rank - 1) % size
print(f"rank {rank}: allocate {'ok' if got == want else f'WRONG {got} != {want}'}", flush=True)

node = world.Split_type(MPI.COMM_TYPE_SHARED)
win = MPI.Win.Allocate_shared(MPI.INT.Get_size(), MPI.INT.Get_size(), comm=node)
win.Fence()
memoryview(win).cast("B").cast("i")[0] = 1000 + rank
win.Fence()
seen = []
for r in range(node.Get_size()):
    buf, _ = win.Shared_query(r)
    seen.append(memoryview(buf).cast("B").cast("i")[0])
win.Fence()
win.Free()
mates = node.allgather(rank)
ok = seen == [1000 + r for r in mates]
print(f"rank {rank}: shared {'ok' if ok else f'WRONG {seen}'} node_size {node.Get_size()}", flush=True)
