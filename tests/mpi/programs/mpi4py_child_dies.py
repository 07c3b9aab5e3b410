#!/usr/bin/python3
"""Issue #26's spawn case with mpi4py, after the spawn: the child answers its parent once,
then exits 3 without MPI_Finalize; the parent, errors returned on the intercommunicator,
waits in recv from it. Prints "parent: child answered", then "parent: receive returned"
if the receive ever returns."""
import os
import sys

from mpi4py import MPI

if len(sys.argv) > 1 and sys.argv[1] == "child":
    MPI.Comm.Get_parent().send("up", dest=0)
    os._exit(3)  # no MPI_Finalize (mpi4py's atexit would run it)

child = MPI.COMM_SELF.Spawn(sys.executable, [__file__, "child"], 1)
child.Set_errhandler(MPI.ERRORS_RETURN)
child.recv(source=0)
print("parent: child answered", flush=True)
child.recv(source=0, tag=1)
print("parent: receive returned", flush=True)
