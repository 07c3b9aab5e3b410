/* One kernel of bench/ompi's mix per launch: argv[1] names it.
 *   p2p      ping-pong of 8 bytes (2000 round trips) and 64 KiB (100) between rank pairs,
 *            then 200 rounds of a ring MPI_Sendrecv
 *   coll     MPI_Barrier x500, MPI_Allreduce x1000, MPI_Bcast of 64 KiB x100,
 *            MPI_Alltoall of 1 KiB per pair x200
 *   spawn    MPI_Comm_spawn of 2 children over MPI_COMM_WORLD; each child gets a number
 *            from the parents' root and sends it back doubled
 *   connect  the lower half of the ranks opens a port and accepts, the upper half connects
 *            (the port name goes over MPI_COMM_WORLD: no name service, so mpirun needs no
 *            ompi-server); the two roots swap a number over the intercommunicator
 * Rank 0 prints "KERNEL ok" when every check held; a failed check exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Fail(const char* what) {
  fprintf(stderr, "mix_kernels: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

static int P2p(int rank, int size) {
  static char big[65536];
  char small[8] = {0};
  const int peer = rank ^ 1;
  if (peer < size) {
    for (int i = 0; i < 2000; ++i) {
      if (rank % 2 == 0) {
        MPI_Send(small, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(small, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(small, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(small, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
      }
    }
    for (int i = 0; i < 100; ++i) {
      big[0] = (char)i;
      if (rank % 2 == 0) {
        MPI_Send(big, sizeof big, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(big, sizeof big, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(big, sizeof big, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(big, sizeof big, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      }
      if (big[0] != (char)i) return Fail("p2p: wrong 64 KiB payload");
    }
  }
  int token = rank, got = -1;
  for (int i = 0; i < 200; ++i) {
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 2, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (got != (rank + size - 1) % size) return Fail("p2p: wrong ring token");
  return 0;
}

static int Coll(int rank, int size) {
  static char block[65536];
  for (int i = 0; i < 500; ++i) MPI_Barrier(MPI_COMM_WORLD);
  int sum = 0;
  for (int i = 0; i < 1000; ++i) MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (sum != size * (size - 1) / 2) return Fail("coll: wrong allreduce");
  for (int i = 0; i < 100; ++i) {
    if (rank == 0) block[100] = (char)i;
    MPI_Bcast(block, sizeof block, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (block[100] != (char)i) return Fail("coll: wrong bcast");
  }
  char* out = malloc((size_t)size * 1024);
  char* in = malloc((size_t)size * 1024);
  for (int i = 0; i < 200; ++i) {
    for (int p = 0; p < size; ++p) out[p * 1024] = (char)(rank + p);
    MPI_Alltoall(out, 1024, MPI_CHAR, in, 1024, MPI_CHAR, MPI_COMM_WORLD);
    for (int p = 0; p < size; ++p)
      if (in[p * 1024] != (char)(p + rank)) return Fail("coll: wrong alltoall");
  }
  free(out);
  free(in);
  return 0;
}

static int Spawn(const char* self, int rank) {
  MPI_Comm children;
  char* args[] = {"spawn-child", NULL};
  int errs[2];
  if (MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children, errs) !=
      MPI_SUCCESS)
    return Fail("spawn: MPI_Comm_spawn failed");
  if (rank == 0) {
    for (int c = 0; c < 2; ++c) {
      int n = 21 + c, back = 0;
      MPI_Send(&n, 1, MPI_INT, c, 0, children);
      MPI_Recv(&back, 1, MPI_INT, c, 0, children, MPI_STATUS_IGNORE);
      if (back != 2 * n) return Fail("spawn: wrong answer from a child");
    }
  }
  MPI_Comm_disconnect(&children);
  return 0;
}

static int SpawnChild(void) {
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  int n = 0;
  MPI_Recv(&n, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);
  n *= 2;
  MPI_Send(&n, 1, MPI_INT, 0, 0, parent);
  MPI_Comm_disconnect(&parent);
  return 0;
}

static int Connect(int rank, int size) {
  const int accepting = rank < size / 2;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, accepting, rank, &half);
  char port[MPI_MAX_PORT_NAME] = {0};
  if (rank == 0) MPI_Open_port(MPI_INFO_NULL, port);
  MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (accepting) {
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
  } else {
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
  }
  int half_rank, mine = accepting ? 1 : 2, theirs = 0;
  MPI_Comm_rank(half, &half_rank);
  if (half_rank == 0)
    MPI_Sendrecv(&mine, 1, MPI_INT, 0, 0, &theirs, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
  MPI_Bcast(&theirs, 1, MPI_INT, 0, half);
  if (theirs != (accepting ? 2 : 1)) return Fail("connect: wrong number from the other half");
  MPI_Comm_disconnect(&inter);
  if (rank == 0) MPI_Close_port(port);
  MPI_Comm_free(&half);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* kernel = argc > 1 ? argv[1] : "";
  int rank, size, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(kernel, "spawn-child") == 0) {
    rc = SpawnChild();
    MPI_Finalize();
    return rc;
  }
  if (strcmp(kernel, "p2p") == 0) {
    rc = P2p(rank, size);
  } else if (strcmp(kernel, "coll") == 0) {
    rc = Coll(rank, size);
  } else if (strcmp(kernel, "spawn") == 0) {
    rc = Spawn(argv[0], rank);
  } else if (strcmp(kernel, "connect") == 0) {
    if (size < 2) rc = Fail("connect: needs 2 ranks or more");
    rc = rc ? rc : Connect(rank, size);
  } else {
    if (rank == 0) fprintf(stderr, "mix_kernels: KERNEL is p2p, coll, spawn or connect\n");
    rc = 2;
  }
  if (rc == 0 && rank == 0) printf("%s ok\n", kernel);
  MPI_Finalize();
  return rc;
}
